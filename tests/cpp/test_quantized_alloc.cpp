// Zero allocations per warm search of the quantised index, counted by the replacement
// operator new in alloc_counter.cpp (its own executable: the replacement is program-wide).
#include <gtest/gtest.h>

#include <vector>

#include "alloc_counter.hpp"
#include "quiver/quiver.hpp"
#include "workload_test_support.hpp"

namespace quiver {
namespace {

using Data = test::Workload;

// Unit Gaussian rows, ids 5i + 3.
Data make_data(size_t n, size_t nq, size_t dim) { return test::gaussian_workload(n, nq, dim, 5, 3); }

TEST(QuantizedIndex, WarmSearchesAllocateNothing) {
  const Data d = make_data(3000, 10, 128);
  QuantizedIndex index({d.dim, Metric::l2, 4, 1, true});
  index.add(d.ids, d.base);
  std::vector<uint64_t> allow(d.ids.begin(), d.ids.begin() + 500);
  std::vector<Neighbor> out(40);
  auto search_all = [&] {
    for (size_t rerank : {0, 4}) {
      QuantizedSearchParams p;
      p.rerank = rerank;
      for (size_t q = 0; q < 10; ++q) index.search(d.queries.data() + q * d.dim, 10, out.data(), p);
      p.allow = allow.data();
      p.allow_count = allow.size();
      index.search(d.queries.data(), 10, out.data(), p);
      index.search_batch(d.queries.data(), 4, 10, out.data(), p);
    }
  };
  search_all();  // cold: sizes the per-thread scratch
  const size_t before = test::allocation_count();
  for (int i = 0; i < 50; ++i) search_all();  // 1,100 warm searches
  EXPECT_EQ(test::allocation_count() - before, 0u);
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
  auto search_all = [&] {
    for (size_t rerank : {0, 4}) {
      QuantizedSearchParams p;
      p.rerank = rerank;
      for (size_t q = 0; q < 10; ++q) index.search(d.queries.data() + q * d.dim, 10, out.data(), p);
      p.allow = allow.data();
      p.allow_count = allow.size();
      index.search(d.queries.data(), 10, out.data(), p);
      index.search_batch(d.queries.data(), 4, 10, out.data(), p);
      p.allow = tight.data();
      p.allow_count = tight.size();
      p.probes = 1;
      index.search(d.queries.data(), 10, out.data(), p);
    }
  };
  // Cold: sizes the per-thread scratch. A batch here is one task per query, spread over the
  // pool's workers as they come free, so repeat until every worker has surely had one.
  for (int i = 0; i < 20; ++i) search_all();
  const size_t before = test::allocation_count();
  for (int i = 0; i < 50; ++i) search_all();
  EXPECT_EQ(test::allocation_count() - before, 0u);
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
    auto search_all = [&] {
      for (size_t rerank : {0, 4}) {
        QuantizedSearchParams p;
        p.rerank = rerank;
        for (size_t q = 0; q < 10; ++q) index.search(d.queries.data() + q * d.dim, 10, out.data(), p);
        index.search_batch(d.queries.data(), 4, 10, out.data(), p);
      }
    };
    for (int i = 0; i < 20; ++i) search_all();  // cold, on every pool worker (see above)
    const size_t before = test::allocation_count();
    for (int i = 0; i < 50; ++i) search_all();
    EXPECT_EQ(test::allocation_count() - before, 0u) << lists << " lists";
  }
}

}  // namespace
}  // namespace quiver
