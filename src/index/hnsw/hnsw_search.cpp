// HNSW search: one query — normalised (cosine) and coded (sq8), an allow list scored exactly
// when it admits few ids, else the descent and a level-0 beam, then the exact rescore of sq8
// candidates when f32 vectors are kept.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/topk.hpp"
#include "index/common/search_params.hpp"
#include "index/hnsw/hnsw_search.hpp"

namespace quiver::hnsw {

const float* Graph::prepare_query(const float* query, Context& c) const {
  if (metric != Metric::cosine) return query;
  double n2 = 0.0;
  for (size_t i = 0; i < dim; ++i) n2 += double(query[i]) * query[i];
  const double inv = 1.0 / std::sqrt(n2);
  for (size_t i = 0; i < dim; ++i) c.query[i] = static_cast<float>(query[i] * inv);
  return c.query.data();
}

const uint8_t* Graph::query_point(const float* qf, Context& c) const {
  if (storage == HnswStorage::f32) return reinterpret_cast<const uint8_t*>(qf);
  sq8.encode(qf, c.qpoint.data(), c.rot.data());
  return c.qpoint.data();
}

size_t Graph::search_one(const float* query, size_t k, Neighbor* out, const HnswSearchParams& p, Context& c) const {
  // A depth r re-scores the best k * r beam candidates, so the beam is at least that wide
  // (kRerankAll re-scores the whole beam and widens nothing).
  const size_t depth = rerank_depth(p);
  const size_t rescored = depth == kRerankAll ? SIZE_MAX : index::rerank_candidates(k, depth);
  size_t ef = std::max(p.ef == 0 ? ef_search : p.ef, k);
  const size_t used = this->used();
  if (depth != kRerankAll) ef = std::max(ef, rescored);
  ef = std::min(ef, used);  // a beam wider than the graph holds all of it already
  c.reserve(used, ef, M0, dim, 0, point_bytes(), storage == HnswStorage::sq8 ? sq8.scratch_floats() : 0);
  const float* qf = prepare_query(query, c);
  const uint8_t* q = query_point(qf, c);
  // sq8 with a rerank depth: the best candidates are scored again with exact f32 distances.
  const bool rescore = storage == HnswStorage::sq8 && depth > 0;
  auto final_dist = [&](uint32_t slot, float approx) { return rescore ? exact_dist(qf, kept(slot)) : approx; };
  core::TopK best(out, k);

  const bool filtered = p.allow != nullptr;   // an allow list, marked per slot below
  const bool bits = p.allow_bits != nullptr;  // an allow bitmap, tested per node reached
  const uint8_t* dead = deleted.data();
  const uint64_t* ids = slots.slot_ids();
  size_t allowed = 0;
  if (bits) {
    allowed = std::min(index::allow_bits_count(p), live());
    if (allowed == 0) return 0;
    if (allowed <= ef || allowed * 16 <= live()) {
      // Few allowed ids, as for an allow list: every admitted node scored exactly.
      for (uint32_t s = 0; s < used; ++s) {
        if (dead[s] != 0 || !index::bits_admit(p, ids[s])) continue;
        if (p.predicate != nullptr && !p.predicate(p.predicate_ctx, ids[s])) continue;
        best.push(ids[s], rescore ? final_dist(s, 0.0f) : dist(q, pt(s)));
      }
      return best.finish();
    }
  } else if (filtered) {
    c.reserve_allowed(used);
    c.next_allow_epoch();
    for (size_t i = 0; i < p.allow_count; ++i) {
      uint32_t slot;
      if (!slots.find(p.allow[i], slot) || c.allowed[slot] == c.allow_epoch) continue;
      c.allowed[slot] = c.allow_epoch;
      ++allowed;
    }
    if (allowed == 0) return 0;
    if (allowed <= ef || allowed * 16 <= live()) {
      // Few allowed ids: score them exactly (faster than a beam that must wade through the
      // graph to find them, and exact). Each slot is unmarked once scored, so repeated ids
      // in the allow list count once.
      for (size_t i = 0; i < p.allow_count; ++i) {
        uint32_t slot;
        if (!slots.find(p.allow[i], slot) || c.allowed[slot] != c.allow_epoch) continue;
        c.allowed[slot] = 0;
        if (p.predicate != nullptr && !p.predicate(p.predicate_ctx, p.allow[i])) continue;
        best.push(p.allow[i], rescore ? final_dist(slot, 0.0f) : dist(q, pt(slot)));
      }
      return best.finish();
    }
  }

  // Neighbour codes: the query's fast-scan tables, once per query.
  NbrQuery estimate{};
  if (nbr_codes) {
    c.reserve_tables(nbr.table_bytes(), ef);
    estimate.tables = c.aligned_tables();
    estimate.scoring = nbr.prepare(q, c.aligned_tables());
  }
  float ep_dist;
  const uint32_t ep = descend(q, entry.load(std::memory_order_acquire), 0, ep_dist, c);
  auto level0 = [&](auto&& eligible) {
    return nbr_codes ? search_coded(q, ep, ep_dist, ef, c, eligible, estimate)
                     : search_layer(q, ep, ep_dist, ef, 0, c, eligible);
  };
  size_t nt;
  if (bits) {
    nt = level0([&](uint32_t s) {
      return dead[s] == 0 && index::bits_admit(p, ids[s]) &&
             (p.predicate == nullptr || p.predicate(p.predicate_ctx, ids[s]));
    });
  } else if (filtered || p.predicate != nullptr) {
    // Cheapest test first: the predicate runs only for live nodes the allow list admits.
    const uint16_t* allow = c.allowed.data();
    const uint16_t allow_epoch = c.allow_epoch;
    nt = level0([&](uint32_t s) {
      return dead[s] == 0 && (!filtered || allow[s] == allow_epoch) &&
             (p.predicate == nullptr || p.predicate(p.predicate_ctx, ids[s]));
    });
  } else {
    nt = level0([&](uint32_t s) { return dead[s] == 0; });
  }
  // The beam came back short of min(k, eligible): the graph around the query is mostly
  // tombstones or ids the allow-list rules out, and the bounded candidate heap ran dry before
  // the beam met k eligible nodes (seen with 99.75 % of the nodes removed and not compacted).
  // Score every eligible node exactly instead, so an unfiltered search returns min(k, size)
  // results and an allow-list min(k, allowed). (Not for a predicate: it cannot be counted.)
  // (An allow bitmap's count may include ids the index does not hold: then the walk may come
  // back "short" of a count it could never reach, and this exact scan returns the true answer.)
  const size_t eligible_count = filtered || bits ? allowed : live();
  if (p.predicate == nullptr && nt < std::min(k, eligible_count)) {
    for (uint32_t s = 0; s < used; ++s) {
      if (dead[s] != 0 || (filtered && c.allowed[s] != c.allow_epoch) || (bits && !index::bits_admit(p, ids[s])))
        continue;
      best.push(ids[s], rescore ? final_dist(s, 0.0f) : dist(q, pt(s)));
    }
    return best.finish();
  }
  if (rescore && rescored < nt) {
    // Only the best `rescored` by code distance are re-scored; the rest are dropped (their
    // code distances are not comparable with the exact ones).
    std::nth_element(c.top.data(), c.top.data() + rescored, c.top.data() + nt, cand_less);
    nt = rescored;
  }
  for (size_t i = 0; i < nt; ++i) best.push(slots.id_at(c.top[i].slot), final_dist(c.top[i].slot, c.top[i].dist));
  return best.finish();
}

}  // namespace quiver::hnsw
