// Zero allocations per warm HNSW search, counted by the replacement operator new in
// alloc_counter.cpp (its own executable: the replacement is program-wide).
#include <gtest/gtest.h>

#include <cstdio>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "quiver/quiver.hpp"

namespace quiver {
namespace {

TEST(HnswIndex, WarmSearchesAllocateNothing) {
  const size_t n = 3000, dim = 32, nq = 10;
  const std::vector<float> base = clustered_vectors(n, dim, 16, 42, 43);
  const std::vector<float> queries = clustered_vectors(nq, dim, 16, 42, 13);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 5 + 3;
  HnswIndex index({dim, Metric::l2, 12, 64, 42});
  index.add(ids, base);
  index.remove(std::vector<uint64_t>(ids.begin(), ids.begin() + 100));  // tombstones on the path
  std::vector<uint64_t> broad, narrow;
  for (size_t i = 0; i < n; i += 2) broad.push_back(ids[i]);   // graph path
  for (size_t i = 0; i < n; i += 50) narrow.push_back(ids[i]);  // exact path
  std::vector<Neighbor> out(4 * 10);
  auto search_all = [&] {
    for (size_t ef : {10, 64, 200}) {
      HnswSearchParams p;
      p.ef = ef;
      for (size_t q = 0; q < nq; ++q) index.search(queries.data() + q * dim, 10, out.data(), p);
      p.allow = broad.data();
      p.allow_count = broad.size();
      index.search(queries.data(), 10, out.data(), p);
      p.allow = narrow.data();
      p.allow_count = narrow.size();
      index.search(queries.data() + dim, 10, out.data(), p);
      index.search_batch(queries.data(), 4, 10, out.data(), p);  // small batch: inline
    }
  };
  search_all();  // cold: sizes this thread's search context
  const size_t before = test::allocation_count();
  const size_t rounds = 60;  // 60 x 3 x 16 = 2,880 warm searches
  for (size_t i = 0; i < rounds; ++i) search_all();
  EXPECT_EQ(test::allocation_count() - before, 0u);
}

// Cold cost of the first search on a new thread (its context is created), for the record.
#if defined(QUIVER_THREADS)
TEST(HnswIndex, ColdSearchAllocatesOnlyTheContext) {
  const size_t n = 2000, dim = 16;
  const std::vector<float> base = unit_gaussian_vectors(n, dim, 42);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  HnswIndex index({dim, Metric::cosine, 8, 40, 42});
  index.add(ids, base);
  size_t cold = 0, warm = 0;
  std::thread([&] {
    std::vector<Neighbor> out(10);
    const size_t a = test::allocation_count();
    index.search(base.data(), 10, out.data());
    const size_t b = test::allocation_count();
    index.search(base.data() + dim, 10, out.data());
    cold = b - a;
    warm = test::allocation_count() - b;
  }).join();
  std::printf("hnsw cold search: %zu allocations, warm: %zu\n", cold, warm);
  EXPECT_LE(cold, 16u);
  EXPECT_EQ(warm, 0u);
}
#endif  // QUIVER_THREADS

}  // namespace
}  // namespace quiver
