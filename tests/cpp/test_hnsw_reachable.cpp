// Every live node of an HNSW graph stays reachable (issue 23): after compact() — whose rebuilt
// lists are chosen by the pruning heuristic, so a node could lose every link to it while it
// kept its own — and after removals whose slots are reused by later adds, a search at
// ef = size finds every live vector from its own query (817726d lost 6 of 15,000 live nodes
// across the 30 compactions below), and an unfiltered search returns min(k, size) results,
// also at the default ef with nearly every node a tombstone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quiver/quiver.hpp"
#include "workload_test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_hnsw_reachable {

constexpr size_t kDim = 16, kN = 2000, kK = 10;

// Searches every live vector of `rows` (ids[i] for row i, if live[i]) at ef = size; returns
// how many were not in their own top-k, and checks the count of results.
size_t lost(const HnswIndex& index, const std::vector<float>& rows, const std::vector<uint64_t>& ids,
            const std::vector<bool>& live, const std::string& what) {
  HnswSearchParams p;
  p.ef = index.size();
  std::vector<Neighbor> out(kK);
  size_t missing = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!live[i]) continue;
    const size_t n = index.search(rows.data() + i * kDim, kK, out.data(), p);
    EXPECT_EQ(n, std::min(kK, index.size())) << what << ", id " << ids[i];
    bool found = false;
    for (size_t j = 0; j < n; ++j) found |= out[j].id == ids[i];
    missing += !found;
  }
  return missing;
}

TEST(HnswReachable, EveryLiveNodeAfterCompaction) {
  size_t checked = 0, missing = 0;
  // 30 trials (about 15,000 live nodes, where the old repair lost about 4); 4 where tests run
  // slowly.
  for (uint64_t trial = 0; trial < (test::kSlowTarget ? 4 : 30); ++trial) {
    const std::vector<float> rows = clustered_vectors(kN, kDim, 16, 100 + trial, 200 + trial);
    std::vector<uint64_t> ids(kN);
    for (size_t i = 0; i < kN; ++i) ids[i] = 5 * i + trial;
    HnswIndex index({kDim, Metric::l2, 8, 64, 42 + trial});
    index.add(ids, rows);
    // 75 % removed: all but every fourth row.
    std::vector<uint64_t> gone;
    std::vector<bool> live(kN);
    for (size_t i = 0; i < kN; ++i) {
      live[i] = i % 4 == trial % 4;
      if (!live[i]) gone.push_back(ids[i]);
    }
    index.remove(gone);
    index.compact();
    const size_t m = lost(index, rows, ids, live, "trial " + std::to_string(trial));
    EXPECT_EQ(m, 0u) << "trial " << trial;
    missing += m;
    checked += index.size();
  }
  EXPECT_EQ(missing, 0u) << "of " << checked << " live nodes";
}

TEST(HnswReachable, EveryLiveNodeAfterRemovalsAndReuse) {
  for (uint64_t trial = 0; trial < (test::kSlowTarget ? 1 : 4); ++trial) {
    const std::vector<float> rows = clustered_vectors(2 * kN, kDim, 16, 300 + trial, 400 + trial);
    std::vector<uint64_t> ids(2 * kN);
    for (size_t i = 0; i < 2 * kN; ++i) ids[i] = i;
    HnswIndex index({kDim, Metric::l2, 8, 64, 7 + trial});
    index.add(std::vector<uint64_t>(ids.begin(), ids.begin() + kN),
              std::vector<float>(rows.begin(), rows.begin() + kN * kDim));
    std::vector<bool> live(2 * kN, false);
    std::vector<uint64_t> gone;
    for (size_t i = 0; i < kN; ++i) {
      live[i] = i % 3 == 0;
      if (!live[i]) gone.push_back(ids[i]);
    }
    index.remove(gone);
    const std::string what = "trial " + std::to_string(trial);
    EXPECT_EQ(lost(index, rows, ids, live, what + ", after removals"), 0u);
    // Half as many new rows as were removed: they take tombstone slots.
    const size_t fresh = gone.size() / 2;
    index.add(std::vector<uint64_t>(ids.begin() + kN, ids.begin() + kN + fresh),
              std::vector<float>(rows.begin() + kN * kDim, rows.begin() + (kN + fresh) * kDim));
    for (size_t i = kN; i < kN + fresh; ++i) live[i] = true;
    EXPECT_EQ(lost(index, rows, ids, live, what + ", after reuse"), 0u);
  }
}

TEST(HnswReachable, MinKSizeResultsWhateverTheTombstones) {
  // Removed nodes stay in the graph as tombstones until compact(): with nearly all of them
  // removed, the beam's bounded candidate heap ran dry before it met k live nodes (76 of 572
  // searches came back short with 10 of 4,000 nodes live, at the default ef).
  const size_t n = 4000;
  const std::vector<float> rows = clustered_vectors(n, kDim, 16, 1, 2);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  for (size_t keep_every : {size_t(2), size_t(100), size_t(400), size_t(1000)}) {
    HnswIndex index({kDim, Metric::l2, 8, 64, 42});
    index.add(ids, rows);
    std::vector<uint64_t> gone;
    for (size_t i = 0; i < n; ++i) {
      if (i % keep_every != 0) gone.push_back(ids[i]);
    }
    index.remove(gone);
    std::vector<Neighbor> out(kK);
    for (size_t q = 0; q < n; q += 7) {
      const size_t got = index.search(rows.data() + q * kDim, kK, out.data());
      ASSERT_EQ(got, std::min(kK, index.size())) << index.size() << " live, query " << q;
      for (size_t j = 0; j < got; ++j) ASSERT_EQ(out[j].id % keep_every, 0u) << "a removed id came back";
    }
    // An allow-list of mostly removed ids: min(k, allowed live ones).
    std::vector<uint64_t> allow(ids.begin(), ids.begin() + 2000);
    HnswSearchParams p;
    p.allow = allow.data();
    p.allow_count = allow.size();
    const size_t allowed_live = (2000 + keep_every - 1) / keep_every;
    EXPECT_EQ(index.search(rows.data(), kK, out.data(), p), std::min(kK, allowed_live)) << keep_every;
  }
}

}  // namespace test_hnsw_reachable
}  // namespace quiver
