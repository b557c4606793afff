// The HNSW pieces search and insertion share: a candidate (distance, slot) and its two orders
// (by slot for results, by slot counted from a list's owner for neighbour lists), and the
// per-thread scratch of one search or insertion (epoch-tagged visited table, heaps).
// Not a public header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quiver::hnsw {

// A graph node during search: distance to the query and slot. Ordered by (distance, slot),
// a total order, so heaps pop in the same order on every standard library.
struct Cand {
  float dist;
  uint32_t slot;
};
inline bool cand_less(const Cand& a, const Cand& b) noexcept {
  return a.dist < b.dist || (a.dist == b.dist && a.slot < b.slot);
}
inline bool cand_greater(const Cand& a, const Cand& b) noexcept { return cand_less(b, a); }

struct CandLess {
  bool operator()(const Cand& a, const Cand& b) const noexcept { return cand_less(a, b); }
};

// Order of the candidates for one node's neighbour list: closest first; equal distances (exact
// duplicates) by slot counted downwards from the list's owner, wrapping around (base - 1,
// base - 2, ..., 0, then the highest slot down). A fixed order such as "lowest slot first"
// made every node prefer the same oldest copies, so each new copy lost every back-link and
// became unreachable. With this rule the copies form a chain: each keeps the copies just
// before it, and a full list prefers the newest copy after it, so the latest insert is kept.
// Deterministic: it depends on slots only.
struct CandOrderFrom {
  uint32_t base;
  bool operator()(const Cand& a, const Cand& b) const noexcept {
    return a.dist < b.dist || (a.dist == b.dist && uint32_t(base - a.slot) < uint32_t(base - b.slot));
  }
};

// Scratch for one search or one insertion, grown on first use and then reused: a warm search
// allocates nothing. The visited and allow tables are epoch-tagged (an entry equals the current
// epoch iff it was marked in this search) and cleared only when the 16-bit epoch wraps.
struct Context {
  std::vector<uint16_t> visited;
  uint16_t epoch = 0;
  std::vector<uint16_t> allowed;
  uint16_t allow_epoch = 0;
  std::vector<Cand> top;        // max-heap of the ef best eligible nodes, capacity ef + 1
  std::vector<Cand> cand;       // min-heap of nodes to expand, fixed capacity
  std::vector<uint32_t> links;  // one node's link list, copied out under its lock
  std::vector<float> query;     // normalised query (cosine)
  std::vector<uint8_t> qpoint;  // the query encoded like a stored node (sq8)
  std::vector<float> rot;       // sq8: rotation scratch for the query
  std::vector<Cand> sel;        // heuristic output
  std::vector<Cand> pool;       // heuristic input when shrinking or repairing a list
  std::vector<uint8_t> tables;  // neighbour codes: the query's fast-scan tables (+ alignment slack)

  static size_t cand_capacity(size_t ef) { return 2 * ef + 64; }
  static size_t coded_cand_capacity(size_t ef) { return 8 * ef + 256; }  // Graph::search_coded

  void reserve(size_t slots, size_t ef, size_t max_links, size_t dim, size_t pool_size, size_t point_bytes,
               size_t rot_floats = 0) {
    if (qpoint.size() < point_bytes) qpoint.resize(point_bytes);
    if (rot.size() < rot_floats) rot.resize(rot_floats);
    if (visited.size() < slots) visited.resize(slots, 0);
    if (top.size() < ef + 1) top.resize(ef + 1);
    if (cand.size() < cand_capacity(ef)) cand.resize(cand_capacity(ef));
    if (links.size() < max_links) links.resize(max_links);
    if (query.size() < dim) query.resize(dim);
    if (sel.size() < max_links + 1) sel.resize(max_links + 1);
    if (pool.size() < pool_size) pool.resize(pool_size);
  }
  // Neighbour codes: the fast-scan tables, 64-byte aligned (AVX-512 aligned loads: `table_bytes`
  // from aligned_tables()), and the wider candidate heap of Graph::search_coded.
  void reserve_tables(size_t table_bytes, size_t ef) {
    if (tables.size() < table_bytes + 64) tables.resize(table_bytes + 64);
    if (cand.size() < coded_cand_capacity(ef)) cand.resize(coded_cand_capacity(ef));
  }
  uint8_t* aligned_tables() {
    const uintptr_t p = reinterpret_cast<uintptr_t>(tables.data());
    return tables.data() + ((64 - p % 64) % 64);
  }
  void reserve_allowed(size_t slots) {
    if (allowed.size() < slots) allowed.resize(slots, 0);
  }

  void next_epoch() {
    if (++epoch == 0) {
      std::fill(visited.begin(), visited.end(), uint16_t(0));
      epoch = 1;
    }
  }
  void next_allow_epoch() {
    if (++allow_epoch == 0) {
      std::fill(allowed.begin(), allowed.end(), uint16_t(0));
      allow_epoch = 1;
    }
  }
  size_t bytes() const {
    return visited.capacity() * 2 + allowed.capacity() * 2 +
           (top.capacity() + cand.capacity() + sel.capacity() + pool.capacity()) * sizeof(Cand) + links.capacity() * 4 +
           query.capacity() * 4 + qpoint.capacity() + rot.capacity() * 4 + tables.capacity();
  }
};

}  // namespace quiver::hnsw
