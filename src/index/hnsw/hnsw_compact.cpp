// HnswIndex::compact(): drops every tombstone at once — links rebuilt around them, orphaned
// nodes re-inserted, stranded ones (no link to them left) linked again, the live nodes
// renumbered in place and the storage past them freed.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <vector>

#include "index/hnsw/hnsw_graph.hpp"
#include "quiver/error.hpp"
#include "quiver/hnsw_index.hpp"

namespace quiver {

using hnsw::Context;
using hnsw::kMaxNodes;
using hnsw::kNoEntry;

void HnswIndex::compact() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> writer(m.writer_mutex);
  if (m.slots.free_slots().empty()) return;
  const size_t live = m.live();
  const size_t used = m.used();
  // --- allocate everything first; nothing visible changes until the commit ---
  const bool has_full = m.storage == HnswStorage::sq8 && m.keep_vectors;
  std::unique_ptr<Impl::NodeSync[]> sync;
  std::vector<uint8_t> mark, reach;
  std::vector<uint32_t> renumber, queue;
  // The slot table after compaction: the live ids in slot order, no free slot.
  index::SlotTable dense(index::Reuse::free_list, kMaxNodes, "HNSW");
  dense.keep_removed_ids(true);
  try {
    std::vector<uint64_t> live_ids;
    live_ids.reserve(live);
    for (uint32_t s = 0; s < used; ++s) {
      if (!m.deleted[s]) live_ids.push_back(m.slots.id_at(s));
    }
    dense.assign_dense(live_ids.data(), live_ids.size());
    if (live > 0) {
      sync.reset(new Impl::NodeSync[live]);
      for (size_t i = 0; i < live; ++i) sync[i].linked.store(1, std::memory_order_relaxed);
    }
    mark.assign(used, 0);
    renumber.assign(used, 0);
    reach.reserve(used);
    queue.reserve(used);
    if (m.build_contexts.empty()) m.build_contexts.resize(1);
    const size_t pool_size = std::max((1 + m.M0) * (1 + m.M0), m.ef_construction + 1);
    m.build_contexts[0].reserve(used, m.ef_construction, m.M0, m.dim, pool_size, m.point_bytes());
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory while compacting; the index is unchanged");
  }
  Context& c = m.build_contexts[0];

  // --- commit: nothing below throws ---
  core::WriteLock exclusive(m.rw);
  if (live == 0) {
    m.nodes.shrink_to(0);
    m.full.shrink_to(0);
    m.sync.reset();
    m.capacity_slots = 0;
    m.slots = std::move(dense);
    m.levels.clear();
    m.deleted.clear();
    m.upper.clear();
    m.entry.store(kNoEntry, std::memory_order_release);
    m.shrink_arrays();
    return;
  }
  // 1. Rebuild every list that links to a tombstone from the live nodes around it, and move
  //    the entry point off a tombstone.
  m.detach(m.slots.free_slots().data(), m.slots.free_slots().size(), mark, c, /*sweep=*/true);
  // 2. A live node whose level-0 neighbours were all tombstones (with tombstone neighbours)
  //    has lost its level-0 links: insert it again (it keeps its level and inbound links).
  //    The sweep cleared every link to a tombstone, so the walk sees live nodes only.
  for (uint32_t s = 0; s < used; ++s) {
    if (!m.deleted[s] && m.list(s, 0)[0] == 0 && live > 1) m.insert(s, c);
  }
  // 2b. A live node can also have lost every link *to* it (the rebuilt lists are chosen by
  //     the heuristic, which prunes): link every such node from a reachable one, so that a
  //     search at ef = size still finds every live vector.
  m.reconnect(c, reach, queue);
  // 3. Renumber the live nodes in slot order, in place: a node moves to a slot at or below
  //    its own, which every earlier node has already left. Then the chunks past the live
  //    nodes are freed (no second copy of the graph, as growth makes none either).
  uint32_t next = 0;
  for (uint32_t s = 0; s < used; ++s) renumber[s] = m.deleted[s] ? UINT32_MAX : next++;
  for (uint32_t s = 0; s < used; ++s) {
    if (m.deleted[s]) continue;
    const uint32_t t = renumber[s];
    m.nodes.copy_row(s, t);
    if (has_full) m.full.copy_row(s, t);
    m.levels[t] = m.levels[s];
    m.deleted[t] = 0;
    m.upper[t] = std::move(m.upper[s]);
  }
  m.nodes.shrink_to(live);
  if (has_full) m.full.shrink_to(live);
  m.sync = std::move(sync);
  m.capacity_slots = live;
  m.slots = std::move(dense);  // the ids renumbered the same way (built above)
  m.levels.resize(live);
  m.deleted.resize(live);
  m.upper.resize(live);
  for (uint32_t s = 0; s < live; ++s) {
    for (int l = 0; l <= m.levels[s]; ++l) {
      uint32_t* list = m.list(s, l);
      size_t kept = 0;
      for (size_t i = 0; i < list[0]; ++i) {
        const uint32_t to = renumber[list[1 + i]];
        if (to != UINT32_MAX) list[1 + kept++] = to;  // (the sweep left no tombstone behind)
      }
      list[0] = uint32_t(kept);
    }
  }
  const uint64_t e = m.entry.load(std::memory_order_relaxed);
  m.entry.store((e >> 32 << 32) | renumber[uint32_t(e)], std::memory_order_release);
  m.refresh_codes(/*all=*/true);  // neighbour codes: every list was rewritten
  m.shrink_arrays();
}

}  // namespace quiver
