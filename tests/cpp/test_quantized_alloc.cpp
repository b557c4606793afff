// Zero allocations per warm search of the quantised index, counted by the replacement
// operator new in alloc_counter.cpp (its own executable: the replacement is program-wide).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "alloc_counter.hpp"
#include "quiver/quiver.hpp"
#include "workload_test_support.hpp"

namespace quiver {
namespace {

using Data = test::Workload;

// Unit Gaussian rows, ids 5i + 3.
Data make_data(size_t n, size_t nq, size_t dim) { return test::gaussian_workload(n, nq, dim, 5, 3); }

// One round of the searches measured: at rerank depths 0 and 4, ten single queries, then
// (given an allow-list) one filtered search, a batch of four with the same parameters, and
// more(p) for what a test adds.
template <class More>
void search_round(const QuantizedIndex& index, const Data& d, std::vector<Neighbor>& out,
                  const std::vector<uint64_t>* allow, More&& more) {
  for (size_t rerank : {0, 4}) {
    QuantizedSearchParams p;
    p.rerank = rerank;
    for (size_t q = 0; q < 10; ++q) index.search(d.queries.data() + q * d.dim, 10, out.data(), p);
    if (allow) {
      p.allow = allow->data();
      p.allow_count = allow->size();
      index.search(d.queries.data(), 10, out.data(), p);
    }
    index.search_batch(d.queries.data(), 4, 10, out.data(), p);
    more(p);
  }
}

// Allocations made by 50 warm rounds, after `cold` rounds that size the per-thread scratch. A
// batch is one task per query, spread over the pool's workers as they come free, so with a
// pool the cold rounds repeat until every worker has surely had one.
template <class Round>
size_t warm_allocations(Round&& round, int cold) {
  for (int i = 0; i < cold; ++i) round();
  const size_t before = test::allocation_count();
  for (int i = 0; i < 50; ++i) round();
  return test::allocation_count() - before;
}

const auto nothing_more = [](QuantizedSearchParams&) {};

TEST(QuantizedIndex, WarmSearchesAllocateNothing) {
  const Data d = make_data(3000, 10, 128);
  QuantizedIndex index({d.dim, Metric::l2, 4, 1, true});
  index.add(d.ids, d.base);
  std::vector<uint64_t> allow(d.ids.begin(), d.ids.begin() + 500);
  std::vector<Neighbor> out(40);
  // 1,100 warm searches after one cold round.
  EXPECT_EQ(warm_allocations([&] { search_round(index, d, out, &allow, nothing_more); }, 1), 0u);
}

// The partitioned index: probe ordering, the per-list allow mask and probing past `probes` for
// a tight allow-list all run in the per-thread scratch.
TEST(QuantizedIndex, WarmPartitionedSearchesAllocateNothing) {
  const Data d = make_data(3000, 10, 64);
  QuantizedIndexOptions o{d.dim, Metric::cosine, 4, 1, true};
  o.lists = 16;
  QuantizedIndex index(o);
  index.add(d.ids, d.base);
  ASSERT_EQ(index.lists(), 16u);
  std::vector<uint64_t> allow(d.ids.begin(), d.ids.begin() + 500);
  std::vector<uint64_t> tight(d.ids.begin(), d.ids.begin() + 3);
  std::vector<Neighbor> out(40);
  const auto tight_search = [&](QuantizedSearchParams& p) {
    p.allow = tight.data();
    p.allow_count = tight.size();
    p.probes = 1;
    index.search(d.queries.data(), 10, out.data(), p);
  };
  EXPECT_EQ(warm_allocations([&] { search_round(index, d, out, &allow, tight_search); }, 20), 0u);
}

// A codes-only index with a refine plane: the candidates are re-scored from the plane in place
// (rerank 0 and 4 both read it), flat and partitioned.
TEST(QuantizedIndex, WarmRefinePlaneSearchesAllocateNothing) {
  const Data d = make_data(3000, 10, 128);
  for (size_t lists : {0, 16}) {
    QuantizedIndexOptions o{d.dim, Metric::l2, 4, 1, false};
    o.refine_bits = 3;
    o.lists = lists;
    QuantizedIndex index(o);
    index.add(d.ids, d.base);
    std::vector<Neighbor> out(40);
    EXPECT_EQ(warm_allocations([&] { search_round(index, d, out, nullptr, nothing_more); }, 20), 0u)
        << lists << " lists";
  }
}

// serialize() produces each per-slot section from the index as the file is written: the
// bytes it allocates are the file and small pieces (64 KiB buffers, the centroids, the free
// list) — not a copy of every section and then the assembled file (about twice the file).
TEST(QuantizedIndex, SerializeAllocatesTheFileAndLittleMore) {
  const Data d = make_data(4000, 1, 96);
  for (size_t lists : {size_t(0), QuantizedIndexOptions::kAutoLists}) {
    QuantizedIndexOptions o;
    o.dim = d.dim;
    o.metric = Metric::l2;
    o.keep_vectors = true;
    o.refine_bits = 3;
    o.lists = lists;
    QuantizedIndex index(o);
    index.add(d.ids, d.base);
    index.remove(std::vector<uint64_t>{d.ids[0], d.ids[10]});
    const size_t before = test::allocated_bytes();
    const std::vector<uint8_t> file = index.serialize();
    const size_t allocated = test::allocated_bytes() - before;
    EXPECT_LE(allocated, file.size() + (size_t(1) << 20)) << "lists " << lists << ", file " << file.size();
    EXPECT_EQ(QuantizedIndex::load(file).serialize(), file);  // the produced bytes load back as they were
  }
}

// The add that re-trains a partitioned index (here at 16,384 rows, 4 + 3-bit codes only, lists
// auto) moves every vector to a new list. The index's memory at its fullest point of that add
// — what it held before plus the most the add held at once beyond that — stays within 1.2x of
// what it reports after (issue 12: at every point of a build). Before, the new lists were
// filled before the old ones were freed: 1.4x in wasm at 65,536 and 131,072 rows.
TEST(QuantizedIndex, ARetrainingAddDoesNotHoldTheCodesTwice) {
  QuantizedIndexOptions o{384, Metric::cosine, 4, 9, /*keep_vectors=*/false};
  o.refine_bits = 3;
  o.lists = QuantizedIndexOptions::kAutoLists;
  const Data d = make_data(16584, 1, 384);
  QuantizedIndex index(o);
  const size_t before_retraining = 16300;
  for (size_t done = 0; done < before_retraining; done += 2000) {
    const size_t n = std::min<size_t>(2000, before_retraining - done);
    index.add(d.ids.data() + done, d.base.data() + done * d.dim, n);
  }
  const size_t lists_before = index.lists(), memory_before = index.memory_bytes();
  const size_t live_before = test::live_bytes();
  test::reset_peak_live_bytes();
  index.add(d.ids.data() + before_retraining, d.base.data() + before_retraining * d.dim,
            d.ids.size() - before_retraining);
  const size_t held = memory_before + (test::peak_live_bytes() - live_before);
  ASSERT_GT(index.lists(), lists_before) << "the add re-trained";
  std::printf("re-training add: index %zu -> %zu bytes, at most %zu held (%.3fx the index after)\n", memory_before,
              index.memory_bytes(), held, double(held) / double(index.memory_bytes()));
  EXPECT_LE(double(held), 1.2 * double(index.memory_bytes()));
}

}  // namespace
}  // namespace quiver
