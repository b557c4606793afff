// Allocations of HNSW searches, counted by the replacement operator new in alloc_counter.cpp
// (its own executable: the replacement is program-wide): zero allocations and zero bytes per
// warm search (every storage kind and filter), the cold cost of the first search on a new
// thread (its context), and in wasm a heap that does not grow over 1,000 warm searches.
#include <gtest/gtest.h>

#include <cstdio>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace {

bool odd_id(const void*, uint64_t id) { return id % 2 == 1; }

struct Workload {
  size_t n = 3000, dim = 32, nq = 10;
  std::vector<float> base = clustered_vectors(3000, 32, 16, 42, 43);
  std::vector<float> queries = clustered_vectors(10, 32, 16, 42, 13);
  std::vector<uint64_t> ids;
  Workload() {
    for (size_t i = 0; i < n; ++i) ids.push_back(i * 5 + 3);
  }
};

HnswIndex make_index(const Workload& w, HnswStorage storage, bool neighbor_codes = false) {
  HnswIndexOptions o{w.dim, Metric::l2, 12, 64, 42};
  o.storage = storage;
  o.neighbor_codes = neighbor_codes;
  HnswIndex index(o);
  index.add(w.ids, w.base);
  index.remove(std::vector<uint64_t>(w.ids.begin(), w.ids.begin() + 100));  // tombstones on the path
  return index;
}

// One round: 3 efs x (10 plain + broad allow + narrow allow + predicate + predicate with
// allow + 4-query batch) = 3 x 18 = 54 searches.
void search_round(const HnswIndex& index, const Workload& w, const std::vector<uint64_t>& broad,
                  const std::vector<uint64_t>& narrow, std::vector<Neighbor>& out) {
  for (size_t ef : {10, 64, 200}) {
    HnswSearchParams p;
    p.ef = ef;
    for (size_t q = 0; q < w.nq; ++q) index.search(w.queries.data() + q * w.dim, 10, out.data(), p);
    p.allow = broad.data();
    p.allow_count = broad.size();
    index.search(w.queries.data(), 10, out.data(), p);  // graph path
    p.allow = narrow.data();
    p.allow_count = narrow.size();
    index.search(w.queries.data() + w.dim, 10, out.data(), p);   // exact path
    index.search_batch(w.queries.data(), 4, 10, out.data(), p);  // small batch: inline
    HnswSearchParams f;
    f.ef = ef;
    f.predicate = odd_id;
    index.search(w.queries.data() + 2 * w.dim, 10, out.data(), f);
    f.allow = broad.data();
    f.allow_count = broad.size();
    f.rerank = false;
    index.search(w.queries.data() + 3 * w.dim, 10, out.data(), f);
  }
}

class HnswAlloc : public ::testing::TestWithParam<HnswStorage> {};

TEST_P(HnswAlloc, WarmSearchesAllocateNothing) {
  const Workload w;
  const HnswIndex index = make_index(w, GetParam());
  std::vector<uint64_t> broad, narrow;
  for (size_t i = 0; i < w.n; i += 2) broad.push_back(w.ids[i]);
  for (size_t i = 0; i < w.n; i += 50) narrow.push_back(w.ids[i]);
  std::vector<Neighbor> out(4 * 10);
  search_round(index, w, broad, narrow, out);  // cold: sizes this thread's search context
  const size_t count = test::allocation_count(), bytes = test::allocated_bytes();
  for (size_t i = 0; i < 20; ++i) search_round(index, w, broad, narrow, out);  // 20 x 54 = 1,080 searches
  EXPECT_EQ(test::allocation_count() - count, 0u);
  EXPECT_EQ(test::allocated_bytes() - bytes, 0u);
}

// Neighbour codes (sq8): the query's fast-scan tables live in the context too.
TEST(HnswAllocNeighborCodes, WarmSearchesAllocateNothing) {
  const Workload w;
  const HnswIndex index = make_index(w, HnswStorage::sq8, true);
  std::vector<uint64_t> broad, narrow;
  for (size_t i = 0; i < w.n; i += 2) broad.push_back(w.ids[i]);
  for (size_t i = 0; i < w.n; i += 50) narrow.push_back(w.ids[i]);
  std::vector<Neighbor> out(4 * 10);
  search_round(index, w, broad, narrow, out);
  const size_t count = test::allocation_count(), bytes = test::allocated_bytes();
  for (size_t i = 0; i < 20; ++i) search_round(index, w, broad, narrow, out);
  EXPECT_EQ(test::allocation_count() - count, 0u);
  EXPECT_EQ(test::allocated_bytes() - bytes, 0u);
#if defined(__EMSCRIPTEN__)
  const size_t pages = __builtin_wasm_memory_size(0);
  for (size_t i = 0; i < 20; ++i) search_round(index, w, broad, narrow, out);
  EXPECT_EQ(size_t(__builtin_wasm_memory_size(0)), pages);
#endif
}

#if defined(QUIVER_THREADS)
// The first search on a new thread creates its context (visited table of 2 bytes per slot,
// fixed-capacity heaps, the link buffer and the query buffers); the second allocates nothing.
TEST_P(HnswAlloc, ColdSearchAllocatesOnlyTheContext) {
  const Workload w;
  const HnswIndex index = make_index(w, GetParam());
  size_t cold = 0, cold_bytes = 0, warm = 0, warm_bytes = 0;
  std::thread([&] {
    std::vector<Neighbor> out(10);
    HnswSearchParams p;
    p.ef = 64;
    const size_t a = test::allocation_count(), ab = test::allocated_bytes();
    index.search(w.queries.data(), 10, out.data(), p);
    const size_t b = test::allocation_count(), bb = test::allocated_bytes();
    index.search(w.queries.data() + w.dim, 10, out.data(), p);
    cold = b - a;
    cold_bytes = bb - ab;
    warm = test::allocation_count() - b;
    warm_bytes = test::allocated_bytes() - bb;
  }).join();
  std::printf("hnsw %s search (n %zu, ef 64): cold %zu allocations / %zu bytes, warm %zu / %zu\n",
              hnsw_storage_name(GetParam()), w.n, cold, cold_bytes, warm, warm_bytes);
  EXPECT_GE(cold, 1u);
  EXPECT_LE(cold, 16u);
  // Visited table 2 bytes per slot; the rest is bounded by ef, M and dim (a few KB here).
  EXPECT_GE(cold_bytes, 2 * w.n);
  EXPECT_LE(cold_bytes, 2 * w.n + 16 * 1024);
  EXPECT_EQ(warm, 0u);
  EXPECT_EQ(warm_bytes, 0u);
}
#endif  // QUIVER_THREADS

#if defined(__EMSCRIPTEN__)
// In wasm the heap (linear memory, in 64 KiB pages) does not grow over 1,000 warm searches.
TEST_P(HnswAlloc, WasmHeapDoesNotGrowOverWarmSearches) {
  const Workload w;
  const HnswIndex index = make_index(w, GetParam());
  std::vector<uint64_t> broad, narrow;
  for (size_t i = 0; i < w.n; i += 2) broad.push_back(w.ids[i]);
  for (size_t i = 0; i < w.n; i += 50) narrow.push_back(w.ids[i]);
  std::vector<Neighbor> out(4 * 10);
  search_round(index, w, broad, narrow, out);
  const size_t pages = __builtin_wasm_memory_size(0);
  for (size_t i = 0; i < 20; ++i) search_round(index, w, broad, narrow, out);  // 1,080 searches
  std::printf("wasm heap: %zu pages before and %zu after 1,080 warm searches\n", pages,
              size_t(__builtin_wasm_memory_size(0)));
  EXPECT_EQ(size_t(__builtin_wasm_memory_size(0)), pages);
}
#endif  // __EMSCRIPTEN__

INSTANTIATE_TEST_SUITE_P(Storage, HnswAlloc, ::testing::Values(HnswStorage::f32, HnswStorage::sq8),
                         [](const auto& info) { return std::string(hnsw_storage_name(info.param)); });

}  // namespace
}  // namespace quiver
