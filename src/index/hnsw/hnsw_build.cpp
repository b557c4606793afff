// HNSW insertion: an add's plan (validate, allocate) and commit (slots, vectors, repair of
// reused slots), the insertion of one node a level at a time (Algorithm 1), the neighbour
// selection heuristic (Algorithm 4), back-links that shrink a full list, and the repair of the
// lists around slots about to be reused or compacted away.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "index/hnsw/hnsw_search.hpp"

namespace quiver::hnsw {

Graph::PendingAdd Graph::plan_add(const uint64_t* ids, size_t n, size_t workers) {
  PendingAdd p;
  p.reuse = slots.reused_for(n);
  p.fresh = n - p.reuse;
  p.draws = draws;
  const size_t used = this->used();
  try {
    slots.check_ids(ids, n);
    p.slots.resize(n);
    p.levels.resize(n);
    p.upper.resize(n);
    for (size_t i = 0; i < n; ++i) {
      p.levels[i] = draw_level(p.draws++);
      if (p.levels[i] > 0) {
        const size_t words = size_t(p.levels[i]) * (1 + M);
        p.upper[i].reset(new uint32_t[words]());
      }
    }
    if (p.reuse > 0) p.mark.assign(used, 0);
    const size_t total = used + p.fresh;
    if (build_contexts.size() < workers) build_contexts.resize(workers);
    const size_t pool_size = std::max((1 + M0) * (1 + M0), ef_construction + 1);
    for (size_t w = 0; w < workers; ++w) {
      build_contexts[w].reserve(total, ef_construction, M0, dim, pool_size, point_bytes());
    }
    if (storage == HnswStorage::sq8) p.scratch.resize(dim + sq8.scratch_floats());
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  return p;
}

size_t Graph::commit_add(PendingAdd& p, const uint64_t* ids, const float* vectors) {
  const size_t n = p.slots.size();
  reserve_slots(used() + p.fresh);  // strong guarantee
  try {
    // Reserves the id map (a rehash): here, not in plan_add(), because searches read the
    // map (allow lists, contains()) and a rehash must not run under them.
    slots.plan(n, p.slots.data());
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  slots.bind(ids, p.slots.data(), n);  // undone on OutOfMemory
  // --- commit: nothing below allocates or throws ---
  Context& c0 = build_contexts[0];
  if (p.reuse > 0) detach(p.slots.data(), p.reuse, p.mark, c0);  // before used() grows
  slots.commit(ids, p.slots.data(), n);
  levels.resize(used());  // capacity reserved above
  deleted.resize(used());
  upper.resize(used());
  const bool is_sq8 = storage == HnswStorage::sq8;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t s = p.slots[i];
    levels[s] = uint8_t(p.levels[i]);
    deleted[s] = 0;
    sync[s].linked.store(0, std::memory_order_relaxed);
    upper[s] = std::move(p.upper[i]);
    // f32: the vector goes into the node; sq8: into `full` (kept) or scratch, then its codes
    // into the node.
    float* dst = !is_sq8 ? vec(s) : keep_vectors ? kept(s) : p.scratch.data();
    const float* src = vectors + i * dim;
    if (metric == Metric::cosine) {
      double norm2 = 0.0;
      for (size_t j = 0; j < dim; ++j) norm2 += double(src[j]) * src[j];
      const double inv = 1.0 / std::sqrt(norm2);
      for (size_t j = 0; j < dim; ++j) dst[j] = static_cast<float>(src[j] * inv);
    } else {
      std::memcpy(dst, src, dim * sizeof(float));
    }
    if (dst != p.scratch.data()) std::fill(dst + dim, dst + stride, 0.0f);
    if (is_sq8) sq8.encode(dst, pt(s), p.scratch.data() + dim);
    codes_stale(s);
    list(s, 0)[0] = 0;
  }
  draws = p.draws;
  // An empty graph gets its first node (the entry point) here, so the parallel part always
  // starts from a graph with an entry point.
  if (entry.load(std::memory_order_relaxed) == kNoEntry) {
    insert(p.slots[0], c0);
    return 1;
  }
  return 0;
}

size_t Graph::select(const Cand* cands, size_t n, size_t m, Cand* out) const {
  if (n <= m) {
    std::copy(cands, cands + n, out);
    return n;
  }
  size_t kept = 0;
  for (size_t i = 0; i < n && kept < m; ++i) {
    const Cand& e = cands[i];
    const uint8_t* v = pt(e.slot);
    bool good = true;
    for (size_t j = 0; j < kept; ++j) {
      if (dist(v, pt(out[j].slot)) < e.dist) {
        good = false;
        break;
      }
    }
    if (good) out[kept++] = e;
  }
  return kept;
}

void Graph::add_link(uint32_t nb, uint32_t s, float d, int level, Context& c) {
  if (level > levels[nb]) return;
  SpinGuard guard(sync[nb].lock);
  uint32_t* l = list(nb, level);
  const size_t n = load_word(l);
  for (size_t i = 0; i < n; ++i) {
    if (load_word(l + 1 + i) == s) return;
  }
  const size_t capacity = cap(level);
  if (level == 0) codes_stale(nb);
  if (n < capacity) {
    store_word(l + 1 + n, s);
    store_count(l, uint32_t(n + 1));
    return;
  }
  const uint8_t* base = pt(nb);
  Cand* pool = c.pool.data();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t x = load_word(l + 1 + i);
    pool[i] = Cand{dist(base, pt(x)), x};
  }
  pool[n] = Cand{d, s};
  std::sort(pool, pool + n + 1, CandOrderFrom{nb});
  Cand* sel = c.sel.data();
  const size_t kept = select(pool, n + 1, capacity, sel);
  for (size_t i = 0; i < kept; ++i) store_word(l + 1 + i, sel[i].slot);
  store_count(l, uint32_t(kept));
}

void Graph::insert(uint32_t s, Context& c) {
  Insertion ins = begin_insert(s, c);
  while (ins.level >= 0) link_level(ins, c);
}

Graph::Insertion Graph::begin_insert(uint32_t s, Context& c) {
  Insertion ins;
  ins.slot = s;
  const int L = levels[s];
  ins.top_lock = std::unique_lock<std::mutex>(entry_mutex);
  const uint64_t e = entry.load(std::memory_order_acquire);
  if (e == kNoEntry) {
    sync[s].linked.store(1, std::memory_order_release);
    entry.store((uint64_t(L) << 32) | s, std::memory_order_release);
    ins.top_lock.unlock();
    return ins;
  }
  const int top_level = int(e >> 32);
  ins.raises_top = L > top_level;
  if (!ins.raises_top) ins.top_lock.unlock();  // else: hold it until s is the new entry point
  ins.ep = descend(pt(s), e, L, ins.ep_dist, c);
  ins.level = std::min(L, top_level);
  return ins;
}

void Graph::link_level(Insertion& ins, Context& c) {
  const uint32_t s = ins.slot;
  const int l = ins.level;
  const uint8_t* q = pt(s);
  // Tombstones are valid link targets (they keep the graph navigable); s itself is not,
  // nor a node that does not live on this level (both reachable only through a kept
  // one-way link to a reused slot).
  const size_t nt = search_layer(
      q, ins.ep, ins.ep_dist, ef_construction, l, c, [&](uint32_t x) { return x != s && levels[x] >= l; },
      CandOrderFrom{s});
  Cand* w = c.top.data();
  std::sort(w, w + nt, CandOrderFrom{s});
  if (nt > 0) {
    Cand* sel = c.sel.data();
    // add_link uses c.sel and c.pool as scratch: keep the choice in the candidate heap,
    // which is free until the next level's search.
    Cand* chosen = c.cand.data();
    const size_t m = select(w, nt, M, sel);
    std::copy(sel, sel + m, chosen);
    {
      SpinGuard guard(sync[s].lock);
      uint32_t* own = list(s, l);
      const size_t had = load_word(own);
      if (l == 0) codes_stale(s);
      if (had == 0) {
        for (size_t i = 0; i < m; ++i) store_word(own + 1 + i, chosen[i].slot);
        store_count(own, uint32_t(m));
      } else {
        // Another insert reached s through a level above and linked itself here first:
        // keep its links too (heuristic over both sets if they do not fit). Only with
        // several build workers.
        Cand* pool = c.pool.data();
        size_t np = 0;
        for (size_t i = 0; i < m; ++i) pool[np++] = chosen[i];
        for (size_t i = 0; i < had; ++i) {
          const uint32_t x = load_word(own + 1 + i);
          bool dup = false;
          for (size_t j = 0; j < m && !dup; ++j) dup = chosen[j].slot == x;
          if (!dup) pool[np++] = Cand{dist(q, pt(x)), x};
        }
        std::sort(pool, pool + np, CandOrderFrom{s});
        const size_t kept = select(pool, np, cap(l), sel);
        for (size_t i = 0; i < kept; ++i) store_word(own + 1 + i, sel[i].slot);
        store_count(own, uint32_t(kept));
      }
    }
    for (size_t i = 0; i < m; ++i) add_link(chosen[i].slot, s, chosen[i].dist, l, c);
    // The next level's beam starts from the closest node found here whose own insertion
    // has finished. A node still being inserted by another worker may have linked only
    // the levels above (its list one level down still empty): a beam started there would
    // find nothing else, s would get that node as its only link down there, and a search
    // led to s would be stranded. The previous entry (finished) is the fallback.
    for (size_t i = 0; i < nt; ++i) {
      if (sync[w[i].slot].linked.load(std::memory_order_acquire) != 0) {
        ins.ep = w[i].slot;
        ins.ep_dist = w[i].dist;
        break;
      }
    }
  }
  if (--ins.level >= 0) return;
  sync[s].linked.store(1, std::memory_order_release);
  if (ins.raises_top) {
    entry.store((uint64_t(levels[s]) << 32) | s, std::memory_order_release);
    ins.top_lock.unlock();
  }
}

size_t Graph::reconnect(Context& c, std::vector<uint8_t>& reach, std::vector<uint32_t>& queue) {
  const uint64_t e = entry.load(std::memory_order_relaxed);
  if (e == kNoEntry) return 0;
  const uint32_t start = uint32_t(e);
  const size_t used = this->used();
  const auto spread = [&](uint32_t from) {  // marks what `from` reaches on level 0
    queue.clear();
    reach[from] = 1;
    queue.push_back(from);
    for (size_t head = 0; head < queue.size(); ++head) {
      const uint32_t* l = list(queue[head], 0);
      for (size_t i = 0; i < l[0]; ++i) {
        const uint32_t x = l[1 + i];
        if (!reach[x]) {
          reach[x] = 1;
          queue.push_back(x);
        }
      }
    }
  };
  // Whether some neighbour of n other than x links to x (so x stays reachable without n -> x).
  const auto held_twice = [&](uint32_t n, uint32_t x) {
    const uint32_t* l = list(n, 0);
    for (size_t i = 0; i < l[0]; ++i) {
      const uint32_t y = l[1 + i];
      if (y == x) continue;
      const uint32_t* yl = list(y, 0);
      for (size_t j = 0; j < yl[0]; ++j) {
        if (yl[1 + j] == x) return true;
      }
    }
    return false;
  };
  const auto links_to = [&](uint32_t n, uint32_t x) {
    const uint32_t* l = list(n, 0);
    return std::find(l + 1, l + 1 + l[0], x) != l + 1 + l[0];
  };
  size_t added = 0;
  for (int round = 0; round < 8; ++round) {
    reach.assign(used, 0);
    spread(start);
    bool stranded = false;
    for (uint32_t u = 0; u < used; ++u) {
      if (deleted[u] || reach[u]) continue;
      stranded = true;
      // Its nearest reachable nodes: a beam over level 0 from the entry point (everything
      // the beam meets is reachable).
      const uint8_t* q = pt(u);
      const size_t nt = search_layer(
          q, start, dist(q, pt(start)), ef_construction, 0, c, [&](uint32_t x) { return x != u && reach[x] != 0; },
          CandOrderFrom{u});
      Cand* w = c.top.data();
      std::sort(w, w + nt, CandOrderFrom{u});
      bool linked = false;
      for (size_t i = 0; i < std::min<size_t>(nt, 4) && !linked; ++i) {
        add_link(w[i].slot, u, w[i].dist, 0, c);
        linked = links_to(w[i].slot, u);
      }
      if (!linked && nt > 0) {  // forced: into the nearest one's list, in place of a redundant link
        const uint32_t v = w[0].slot;
        uint32_t* l = list(v, 0);
        size_t at = l[0] - 1;
        for (size_t i = 0; i < l[0]; ++i) {
          if (held_twice(v, l[1 + i])) {
            at = i;
            break;
          }
        }
        codes_stale(v);
        l[1 + at] = u;
        linked = true;
      }
      added += linked;
      spread(u);
    }
    if (!stranded) return added;
  }
  return added;
}

void Graph::detach(const uint32_t* reused, size_t count, std::vector<uint8_t>& mark, Context& c, bool sweep) {
  for (size_t i = 0; i < count; ++i) mark[reused[i]] = 1;
  auto repair = [&](uint32_t n, int level) {
    uint32_t* l = list(n, level);
    const size_t len = l[0];
    bool touched = false;
    for (size_t i = 0; i < len && !touched; ++i) touched = mark[l[1 + i]] != 0;
    if (!touched) return;
    if (level == 0) codes_stale(n);
    c.next_epoch();
    c.visited[n] = c.epoch;
    const uint8_t* base = pt(n);
    size_t np = 0;
    auto offer = [&](uint32_t x) {
      if (mark[x] || c.visited[x] == c.epoch || levels[x] < level) return;
      c.visited[x] = c.epoch;
      c.pool[np++] = Cand{dist(base, pt(x)), x};
    };
    for (size_t i = 0; i < len; ++i) offer(l[1 + i]);
    for (size_t i = 0; i < len; ++i) {
      const uint32_t r = l[1 + i];
      if (!mark[r] || levels[r] < level) continue;
      const uint32_t* rl = list(r, level);
      for (size_t j = 0; j < rl[0]; ++j) offer(rl[1 + j]);
    }
    std::sort(c.pool.data(), c.pool.data() + np, CandOrderFrom{n});
    const size_t kept = select(c.pool.data(), np, cap(level), c.sel.data());
    for (size_t i = 0; i < kept; ++i) l[1 + i] = c.sel[i].slot;
    l[0] = uint32_t(kept);
  };
  const size_t used = this->used();
  if (sweep || count * 32 >= used) {  // many reused slots: sweep every list, catching one-way links
    for (uint32_t n = 0; n < used; ++n) {
      if (mark[n]) continue;
      for (int l = 0; l <= levels[n]; ++l) repair(n, l);
    }
  } else {  // few: repair the lists of their neighbours (most links are mutual)
    for (size_t i = 0; i < count; ++i) {
      const uint32_t r = reused[i];
      for (int l = 0; l <= levels[r]; ++l) {
        const uint32_t* rl = list(r, l);
        for (size_t j = 0; j < rl[0]; ++j) {
          const uint32_t n = rl[1 + j];
          if (!mark[n] && levels[n] >= l) repair(n, l);
        }
      }
    }
  }
  const uint64_t e = entry.load(std::memory_order_relaxed);
  if (e != kNoEntry && mark[uint32_t(e)]) {
    uint64_t best = kNoEntry;
    for (uint32_t n = 0; n < used; ++n) {
      if (!mark[n] && (best == kNoEntry || levels[n] > int(best >> 32))) {
        best = (uint64_t(levels[n]) << 32) | n;
      }
    }
    entry.store(best, std::memory_order_release);
  }
  if (nbr_codes) {
    // A link the repair kept to a reused slot (a one-way link, see above) now leads to a new
    // vector: the codes of its list are stale too.
    for (uint32_t n = 0; n < used; ++n) {
      const uint32_t* l = list(n, 0);
      for (size_t i = 0; i < l[0]; ++i) {
        if (mark[l[1 + i]]) {
          codes_stale(n);
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < count; ++i) {
    mark[reused[i]] = 0;
    codes_stale(reused[i]);
    list(reused[i], 0)[0] = 0;
  }
}

}  // namespace quiver::hnsw
