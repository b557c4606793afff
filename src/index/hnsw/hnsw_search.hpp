// HNSW graph walks shared by search and insertion: the greedy descent on the upper levels and
// the beam search on one level (Algorithm 2), which prefetches a node's neighbours before scoring them. Inline (the
// beam is a template over the eligibility test and the order). Not a public header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "index/hnsw/hnsw_graph.hpp"

namespace quiver::hnsw {

// Pushes x onto the candidate min-heap cand[0..nc) of fixed capacity ccap (both walks use it).
// When full: nodes worse than the worst kept result (top[0], once nt == ef) can never be
// expanded and are dropped; if that frees too little (a filter or tombstones keep the result
// heap from filling), the better half is kept — the fixed capacity bounds memory, at some cost
// in recall only under very selective filters.
template <typename Order>
inline void push_bounded(Cand* cand, size_t& nc, size_t ccap, const Cand* top, size_t nt, size_t ef, const Cand& x,
                         Order less) {
  const auto greater = [&](const Cand& a, const Cand& b) { return less(b, a); };
  if (nc == ccap) {
    if (nt == ef) {
      size_t w = 0;
      for (size_t i = 0; i < nc; ++i) {
        if (!less(top[0], cand[i])) cand[w++] = cand[i];
      }
      nc = w;
    }
    if (nc > ccap * 3 / 4) {
      std::nth_element(cand, cand + ccap / 2, cand + nc, less);
      nc = ccap / 2;
    }
    std::make_heap(cand, cand + nc, greater);
  }
  cand[nc++] = x;
  std::push_heap(cand, cand + nc, greater);
}

inline uint32_t Graph::greedy(const uint8_t* q, uint32_t ep, float& ep_dist, int level, Context& c) const {
  for (bool changed = true; changed;) {
    changed = false;
    const size_t n = copy_links(ep, level, c.links.data());
    for (size_t i = 0; i < n; ++i) {
      const uint32_t nb = c.links[i];
      if (sync[nb].linked.load(std::memory_order_acquire) == 0) continue;
      const Cand x{dist(q, pt(nb)), nb};
      if (cand_less(x, Cand{ep_dist, ep})) {
        ep = nb;
        ep_dist = x.dist;
        changed = true;
      }
    }
  }
  return ep;
}

template <typename Eligible, typename Order>
size_t Graph::search_layer(const uint8_t* q, uint32_t ep, float ep_dist, size_t ef, int level, Context& c,
                           Eligible&& eligible, Order less) const {
  const auto greater = [&](const Cand& x, const Cand& y) { return less(y, x); };
  c.next_epoch();
  uint16_t* visited = c.visited.data();
  const uint16_t epoch = c.epoch;
  Cand* top = c.top.data();
  Cand* cand = c.cand.data();
  const size_t ccap = Context::cand_capacity(ef);
  size_t nt = 0, nc = 0;

  visited[ep] = epoch;
  cand[nc++] = Cand{ep_dist, ep};
  if (eligible(ep)) top[nt++] = Cand{ep_dist, ep};

  auto push_cand = [&](const Cand& x) { push_bounded(cand, nc, ccap, top, nt, ef, x, less); };
  auto consider = [&](uint32_t nb, float d) {
    const Cand x{d, nb};
    if (nt < ef || less(x, top[0])) {
      push_cand(x);
      if (eligible(nb)) {
        top[nt++] = x;
        std::push_heap(top, top + nt, less);
        if (nt > ef) {
          std::pop_heap(top, top + nt, less);
          --nt;
        }
      }
    }
  };

  uint32_t* fresh = c.links.data();
  float fresh_dist[2 * kMaxM];
  while (nc > 0) {
    const Cand cur = cand[0];
    if (nt == ef && less(top[0], cur)) break;  // nothing left can improve the results
    std::pop_heap(cand, cand + nc, greater);
    --nc;
    const size_t n = copy_links(cur.slot, level, fresh);
    // Memory-level parallelism: first every unvisited neighbour's whole point (vector or
    // codes) is requested, then the link list of the candidate most likely expanded next, and
    // only then is anything scored — the loads overlap instead of each neighbour's row arriving
    // while the previous one is scored (in wasm, which has no prefetch, sq8 scores them in
    // one gather-kernel call for the same effect). The distances are the same as one by one
    // and are considered in list order, as before, so the graph a build makes does not change.
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t nb = fresh[i];
      if (visited[nb] == epoch) continue;
      visited[nb] = epoch;
      prefetch(nb);
      fresh[m++] = nb;
    }
    if (nc > 0) prefetch_links(cand[0].slot, level);
    dists(q, fresh, m, fresh_dist);
    for (size_t i = 0; i < m; ++i) consider(fresh[i], fresh_dist[i]);
  }
  return nt;
}

template <typename Eligible>
size_t Graph::search_coded(const uint8_t* q, uint32_t ep, float ep_dist, size_t ef, Context& c, Eligible&& eligible,
                           const NbrQuery& estimate) const {
  const CandLess less;
  const auto greater = [&](const Cand& x, const Cand& y) { return less(y, x); };
  c.next_epoch();
  uint16_t* visited = c.visited.data();
  const uint16_t epoch = c.epoch;
  Cand* top = c.top.data();
  Cand* cand = c.cand.data();
  // Candidates enter by their estimate, unscored, so there are more of them than in the
  // exact walk: search_one() reserves coded_cand_capacity(ef).
  const size_t ccap = Context::coded_cand_capacity(ef);
  size_t nt = 0, nc = 0;

  visited[ep] = epoch;
  cand[nc++] = Cand{ep_dist, ep};

  // As in search_layer(); a candidate's key here is its lowered estimate (or exact distance).
  auto push_cand = [&](const Cand& x) { push_bounded(cand, nc, ccap, top, nt, ef, x, less); };

  uint32_t* fresh = c.links.data();
  float fresh_dist[2 * kMaxM];
  float estimates[(2 * kMaxM + 31) / 32][quant::kBlockVectors];
  uint32_t promising[(2 * kMaxM + 31) / 32];
  while (nc > 0) {
    const Cand cur = cand[0];
    // The key is a lower bound of the distance (with high probability): once the best one
    // cannot enter the results, nothing left can.
    if (nt == ef && less(top[0], cur)) break;
    std::pop_heap(cand, cand + nc, greater);
    --nc;
    // Scored only now, from its own point: the links and codes read next follow it in the row.
    const Cand x{dist(q, pt(cur.slot)), cur.slot};
    // A node that cannot enter the results is not expanded, as in the exact walk (where it
    // would never have become a candidate).
    if (nt == ef && !less(x, top[0])) continue;
    if (eligible(cur.slot)) {
      top[nt++] = x;
      std::push_heap(top, top + nt, less);
      if (nt > ef) {
        std::pop_heap(top, top + nt, less);
        --nt;
      }
    }
    const float worst = nt < ef ? INFINITY : top[0].dist;
    bool coded;
    const size_t n = copy_links_coded(cur.slot, fresh, coded);
    if (coded) {
      // All its neighbours estimated by one kernel call per 32, from its own blocks; those
      // whose lowered estimate could enter the results become candidates keyed by it, unread.
      quant::BlockScoring bs = estimate.scoring;
      bs.threshold = worst;
      const uint8_t* area = nbr_area(cur.slot);
      for (size_t b = 0; b * quant::kBlockVectors < n; ++b) {
        promising[b] = fastscan.scan_block(nbr.codes(area, b), estimate.tables, nbr.groups(), nbr.offsets(area, b),
                                           nbr.scales(area, b), bs, estimates[b]);
      }
      for (size_t i = 0; i < n; ++i) {
        const uint32_t nb = fresh[i];
        // Not promising: left unvisited (its estimate is the same from any node and the
        // threshold only falls, so it would fail again; no write to the visited table).
        if (visited[nb] == epoch || ((promising[i / 32] >> (i % 32)) & 1u) == 0) continue;
        visited[nb] = epoch;
        push_cand(Cand{estimates[i / 32][i % 32], nb});
      }
    } else {
      // Codes not in step with the list (an add is linking this node): exact distances.
      size_t m = 0;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t nb = fresh[i];
        if (visited[nb] == epoch) continue;
        visited[nb] = epoch;
        prefetch(nb);
        fresh[m++] = nb;
      }
      dists(q, fresh, m, fresh_dist);
      for (size_t i = 0; i < m; ++i) {
        if (fresh_dist[i] <= worst) push_cand(Cand{fresh_dist[i], fresh[i]});
      }
    }
    // The next candidate's whole row: its point, links and codes, read in that order.
    if (nc > 0) {
      prefetch(cand[0].slot);
      prefetch_links(cand[0].slot, 0);
    }
  }
  return nt;
}

inline uint32_t Graph::descend(const uint8_t* q, uint64_t e, int stop, float& ep_dist, Context& c) const {
  uint32_t ep = uint32_t(e);
  ep_dist = dist(q, pt(ep));
  for (int l = int(e >> 32); l > stop; --l) ep = greedy(q, ep, ep_dist, l, c);
  return ep;
}

}  // namespace quiver::hnsw
