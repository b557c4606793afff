// HnswSearchParams::predicate: a C++ filter called per candidate. Only admitted ids come back,
// it combines with `allow` (both must admit), it is never asked about removed ids, and it
// works on every path (graph, exact, batch).
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <vector>

#include "hnsw_test_support.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_hnsw_predicate {

using namespace hnsw_test;

struct Filter {
  uint64_t modulus;
  uint64_t remainder;
  mutable std::atomic<size_t> calls{0};
  const std::set<uint64_t>* never = nullptr;  // ids the predicate must never be asked about
  mutable std::atomic<size_t> bad_calls{0};
};

bool admit(const void* ctx, uint64_t id) {
  const auto* f = static_cast<const Filter*>(ctx);
  ++f->calls;
  if (f->never != nullptr && f->never->count(id)) ++f->bad_calls;
  return id % f->modulus == f->remainder;
}

HnswSearchParams with_filter(const Filter& f, size_t ef_value) {
  HnswSearchParams p;
  p.ef = ef_value;
  p.predicate = admit;
  p.predicate_ctx = &f;
  return p;
}

TEST(HnswPredicate, ReturnsOnlyAdmittedIdsWithRecall) {
  const Data d = clustered(3000 / kScale, 50, 32);  // ids 7i + 3
  HnswIndex index({d.dim, Metric::l2, 12, 80, 42});
  index.add(d.ids, d.base);
  // ids 7i + 3 with i even: half the index.
  Filter f{14, 3};
  std::vector<size_t> keep;
  for (size_t i = 0; i < d.n; i += 2) keep.push_back(i);
  const std::vector<Neighbor> got = run(index, d, 10, with_filter(f, 100));
  for (const Neighbor& nb : got) ASSERT_EQ(nb.id % 14, 3u) << nb.id;
  EXPECT_GE(recall(got, exact(d, Metric::l2, 10, keep), 10), 0.95);
  EXPECT_GT(f.calls.load(), 0u);
  // Far fewer calls than nodes per search: only candidates that would enter the results.
  EXPECT_LT(f.calls.load() / nq_of(d), d.n / 2);
  // A predicate that admits nothing returns nothing.
  Filter none{1u << 30, 1};
  std::vector<Neighbor> out(10);
  EXPECT_EQ(index.search(d.queries.data(), 10, out.data(), with_filter(none, 64)), 0u);
}

TEST(HnswPredicate, CombinesWithAllowAndNeverSeesRemovedIds) {
  const Data d = clustered(2000 / kScale, 30, 24);
  HnswIndex index({d.dim, Metric::l2, 10, 60, 42});
  index.add(d.ids, d.base);
  std::set<uint64_t> removed;
  for (size_t i = 0; i < d.n; i += 5) removed.insert(d.ids[i]);
  index.remove(std::vector<uint64_t>(removed.begin(), removed.end()));
  Filter f{2, 1};  // odd ids: 7i + 3 odd <=> i even
  f.never = &removed;
  // Graph path: allow every third id (with the predicate: ids 7i+3, i % 6 == 0, not removed).
  for (size_t every : {3, 21}) {  // 21: the exact path over few allowed ids
    std::vector<uint64_t> allow;
    std::vector<size_t> keep;
    for (size_t i = 0; i < d.n; i += every) {
      allow.push_back(d.ids[i]);
      if (i % 2 == 0 && !removed.count(d.ids[i])) keep.push_back(i);
    }
    HnswSearchParams p = with_filter(f, 128);
    p.allow = allow.data();
    p.allow_count = allow.size();
    const std::vector<Neighbor> got = run(index, d, 10, p);
    for (const Neighbor& nb : got) {
      if (nb.id == UINT64_MAX) continue;  // padding of short rows
      ASSERT_EQ(nb.id % 2, 1u);
      ASSERT_EQ((nb.id - 3) / 7 % every, 0u);
      ASSERT_EQ(removed.count(nb.id), 0u);
    }
    EXPECT_GE(recall(got, exact(d, Metric::l2, 10, keep), 10), 0.9) << every;
  }
  EXPECT_EQ(f.bad_calls.load(), 0u);
}

TEST(HnswPredicate, BatchEqualsSingleSearches) {
  const Data d = clustered(1500 / kScale, 40, 16);
  HnswIndex index({d.dim, Metric::ip, 8, 60, 42});
  index.add(d.ids, d.base);
  Filter f{3, 0};
  const HnswSearchParams p = with_filter(f, 64);
  const std::vector<Neighbor> batch = run(index, d, 10, p);  // 40 queries: on the pool
  for (size_t q = 0; q < nq_of(d); ++q) {
    std::vector<Neighbor> one(10);
    const size_t got = index.search(d.queries.data() + q * d.dim, 10, one.data(), p);
    one.resize(got);
    EXPECT_EQ(test::ids_of(one),
              test::ids_of(std::vector<Neighbor>(batch.begin() + q * 10, batch.begin() + q * 10 + got)));
  }
}

}  // namespace test_hnsw_predicate
}  // namespace quiver
