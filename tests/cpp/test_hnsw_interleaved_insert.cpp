// Two HNSW insertions interleaved at a chosen point, driven step by step on the graph itself
// (white-box, single-threaded, so the interleaving is exact instead of left to a scheduler).
//
// With several build workers an insert can meet a node whose own insertion is half done: it
// has linked its upper levels (other nodes there already point at it) but its level-0 list
// is still empty. If the insert started its level-0 beam from that node, the beam found
// nothing else; the new node's only level-0 link was the unfinished one, and a search whose
// descent ended at the new node (a query near it) returned 2 results instead of k. That is
// the rare failure of HnswIndex.ConcurrentInsertAndSearch (one search in thousands, once,
// under qemu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "index/hnsw/hnsw_search.hpp"
#include "index/hnsw/hnsw_state.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_hnsw_interleaved_insert {

constexpr size_t kDim = 8, kBase = 300, kK = 10;

// Live nodes a level-0 beam finds when it starts at `from`: what a search whose greedy
// descent ends at `from` can return at most.
// (HnswIndex::Impl is a private name: the graph is reached through HnswIndexAccess and auto.)
template <typename Graph>
size_t reach_from(Graph& g, uint32_t from, size_t ef) {
  hnsw::Context c;
  c.reserve(g.used(), ef, g.M0, g.dim, 0, g.point_bytes());
  const float d = g.dist(g.pt(from), g.pt(from));
  return g.search_layer(g.pt(from), from, d, ef, 0, c, [&](uint32_t s) { return g.deleted[s] == 0; });
}

TEST(HnswInterleavedInsert, AnInsertNeverStartsItsLowerLevelsFromAnUnfinishedNode) {
  const std::vector<float> base = unit_gaussian_vectors(kBase, kDim, 42);
  std::vector<uint64_t> ids(kBase);
  for (size_t i = 0; i < kBase; ++i) ids[i] = i;
  // s: a new vector; t: a new vector near it, so that s is the closest node t's beam finds
  // on the upper levels. Both must live above level 0 (and not above the graph's top, so
  // that neither holds the entry-point lock): pick the first seed that draws such levels.
  std::vector<float> st = unit_gaussian_vectors(2, kDim, 7);
  for (size_t j = 0; j < kDim; ++j) st[kDim + j] = 0.9f * st[j] + 0.1f * st[kDim + j];
  const uint64_t st_ids[2] = {1000, 1001};

  parallel::WorkerLimit serial(1);
  for (uint64_t seed = 1; seed < 200; ++seed) {
    HnswIndex index({kDim, Metric::l2, 4, 32, seed});
    index.add(ids, base);
    auto& g = HnswIndexAccess::graph(index);
    const int top = index.max_level();
    const int ls = g.draw_level(g.draws), lt = g.draw_level(g.draws + 1);
    if (ls < 1 || lt < 1 || ls > top || lt > top) continue;

    // Both nodes exist (vectors, levels), neither is linked: as after add()'s exclusive step.
    auto plan = g.plan_add(st_ids, 2, 1);
    ASSERT_EQ(g.commit_add(plan, st_ids, st.data()), 0u);
    const uint32_t s = plan.slots[0], t = plan.slots[1];
    hnsw::Context cs, ct;
    const size_t pool = (1 + g.M0) * (1 + g.M0) + g.ef_construction + 1;
    cs.reserve(g.used(), g.ef_construction, g.M0, kDim, pool, g.point_bytes());
    ct.reserve(g.used(), g.ef_construction, g.M0, kDim, pool, g.point_bytes());

    // s links every level above 0, then t is inserted from start to end.
    auto s_insert = g.begin_insert(s, cs);
    while (s_insert.level > 0) g.link_level(s_insert, cs);
    g.insert(t, ct);

    // t is finished, so a search may descend to it: from t the graph must lead on to the
    // other nodes, not only to s (whose level-0 list is still empty).
    EXPECT_GE(reach_from(g, t, kK), kK) << "seed " << seed;
    std::vector<Neighbor> hits = index.search(std::vector<float>(st.begin() + kDim, st.end()), kK);
    EXPECT_EQ(hits.size(), kK) << "seed " << seed;
    if (!hits.empty()) {
      EXPECT_EQ(hits[0].id, 1001u);
    }

    // s finishes: both are found, and every search returns k.
    while (s_insert.level >= 0) g.link_level(s_insert, cs);
    for (size_t i = 0; i < 2; ++i) {
      hits = index.search(std::vector<float>(st.begin() + i * kDim, st.begin() + (i + 1) * kDim), kK);
      ASSERT_EQ(hits.size(), kK);
      EXPECT_EQ(hits[0].id, st_ids[i]);
    }
    return;
  }
  FAIL() << "no seed in [1, 200) drew the levels this test needs";
}

}  // namespace test_hnsw_interleaved_insert
}  // namespace quiver
