// Internal: the HNSW graph (HnswIndex::Impl) — storage, level generator, sq8 quantiser, beam
// search with a fixed prefetch ring, the neighbour selection heuristic, parallel insertion with
// per-node spinlocks and link repair around reused slots. Shared by the files that implement
// HnswIndex: hnsw_index.cpp (add, remove, search), hnsw_compact.cpp and hnsw_access.cpp (index
// files). Not a public header.
//
// Concurrency (see also the header):
// * writer_mutex serialises add/remove/reserve among themselves.
// * rw (shared_mutex): searches hold it shared. add() holds it exclusively while it grows
//   storage, updates the id map, repairs reused slots and writes the new vectors, then shared
//   while it links the new nodes in parallel. Everything a search reads besides link lists is
//   therefore only written while no search runs.
// * Link lists are written under their node's spinlock and read without locks, word by word
//   with atomic loads (see load_word): any word a reader sees is a valid slot. Vectors,
//   levels and ids are immutable while the graph is shared.
// * entry (atomic) holds the entry point and top level; it is changed under entry_mutex,
//   which an insert that raises the top level holds for its whole insertion (as in hnswlib).
// * A node's `linked` flag is set when its insertion has finished. Until then its lower lists
//   may still be empty, so neither a search's greedy descent nor an insert's next-level beam
//   starts from it (it can still be reached, and linked to, as an ordinary neighbour).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/rng.hpp"
#include "core/rw_lock.hpp"
#include "core/topk.hpp"
#include "core/validate.hpp"
#include "index/hnsw_sq8.hpp"
#include "index/search_params.hpp"
#include "index/slot_table.hpp"
#include "quiver/error.hpp"
#include "quiver/hnsw_index.hpp"
#include "simd/kernels.hpp"

namespace quiver {
namespace hnsw {


using quiver::kNoId;  // neighbor.hpp: the id of "no result", reserved
constexpr uint64_t kNoEntry = UINT64_MAX;
constexpr int kMaxLevel = 31;
constexpr size_t kMaxM = 128;
constexpr size_t kMaxNodes = UINT32_MAX - 1;  // slots are 32-bit; UINT32_MAX marks "no slot"
constexpr size_t kMaxEf = size_t(1) << 20;
constexpr size_t kMaxSq8Dim = 65536;  // keeps the u8 kernels' integer sums below 2^32
constexpr size_t kRing = 4;           // neighbours scored this many positions after their prefetch
constexpr size_t kPrefetchLines = 4;  // cache lines prefetched per neighbour vector
constexpr size_t kParallelBatch = 16; // search_batch below this many queries stays inline

inline size_t padded_stride(size_t dim) { return (dim + 15) / 16 * 16; }

[[noreturn]] inline void throw_oom() {
  throw Error(ErrorCode::OutOfMemory, "out of memory while adding vectors; the index is unchanged");
}

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

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Link words are read without a lock (searches and inserts) and written under their node's
// spinlock, always through these atomic accesses: a reader may see a list half way through a
// rewrite, but every word it can see is a valid slot whose vector was written before the graph
// was shared, so the walk stays valid. The count is stored last with release and read with
// acquire, so the words below it are the ones written with it or later.
inline uint32_t load_word(const uint32_t* p) noexcept { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline uint32_t load_count(const uint32_t* p) noexcept { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void store_word(uint32_t* p, uint32_t v) noexcept { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
inline void store_count(uint32_t* p, uint32_t v) noexcept { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

// Serialises the writers of one node's link lists.
class SpinGuard {
 public:
  explicit SpinGuard(std::atomic<uint8_t>& lock) noexcept : lock_(lock) {
    unsigned spins = 0;
    while (lock_.exchange(1, std::memory_order_acquire) != 0) {
      while (lock_.load(std::memory_order_relaxed) != 0) {
        if (++spins < 64) {
          cpu_relax();
        } else {
          std::this_thread::yield();  // the machine may have fewer cores than busy threads
        }
      }
    }
  }
  ~SpinGuard() { lock_.store(0, std::memory_order_release); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  std::atomic<uint8_t>& lock_;
};

// Scratch for one search or one insertion, grown on first use and then reused: a warm search
// allocates nothing. The visited and allow tables are epoch-tagged (an entry equals the current
// epoch iff it was marked in this search) and cleared only when the 16-bit epoch wraps.
struct Context {
  std::vector<uint16_t> visited;
  uint16_t epoch = 0;
  std::vector<uint16_t> allowed;
  uint16_t allow_epoch = 0;
  std::vector<Cand> top;     // max-heap of the ef best eligible nodes, capacity ef + 1
  std::vector<Cand> cand;    // min-heap of nodes to expand, fixed capacity
  std::vector<uint32_t> links;  // one node's link list, copied out under its lock
  std::vector<float> query;  // normalised query (cosine)
  std::vector<uint8_t> qpoint;  // the query encoded like a stored node (sq8)
  std::vector<float> rot;       // sq8: rotation scratch for the query
  std::vector<Cand> sel;     // heuristic output
  std::vector<Cand> pool;    // heuristic input when shrinking or repairing a list

  static size_t cand_capacity(size_t ef) { return 2 * ef + 64; }

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
           (top.capacity() + cand.capacity() + sel.capacity() + pool.capacity()) * sizeof(Cand) +
           links.capacity() * 4 + query.capacity() * 4 + qpoint.capacity() + rot.capacity() * 4;
  }
};

}  // namespace hnsw

using namespace hnsw;  // Impl's members use the helpers unqualified

struct HnswIndex::Impl {
  // --- configuration (immutable) ---
  size_t dim;
  size_t stride;      // floats per stored vector (padded to 16)
  size_t M, M0;       // links per upper level / level 0
  size_t ef_construction;
  size_t ef_search;
  uint64_t seed;
  Metric metric;
  double level_mult;  // 1 / ln M
  size_t links_offset;  // bytes from a node's start to its level-0 list
  size_t node_bytes;    // fixed stride per node, multiple of 64
  size_t prefetch_bytes;
  simd::KernelTable kernels;
  simd::DistanceFn raw;  // l2sq or dot
  HnswStorage storage;
  bool keep_vectors;     // sq8: f32 copies in `full`; f32 storage always has its vectors
  size_t code_bytes;     // sq8: dim padded to 16; the node's 16-byte record follows the codes
  Sq8Codec sq8;          // sq8: rotation + per-vector codes (hnsw_sq8.hpp); immutable

  // --- graph ---
  core::AlignedBuffer<uint8_t> nodes;  // capacity_slots x node_bytes
  core::AlignedBuffer<float> full;     // sq8 with keep_vectors: capacity_slots x stride
  size_t capacity_slots = 0;
  // Per slot: the spinlock of its link lists, and `linked`, set once its insertion finished.
  // A search's greedy descent never steps onto a node still being linked (its level-0 list
  // may be empty yet, which would strand the beam).
  struct NodeSync {
    std::atomic<uint8_t> lock{0};
    std::atomic<uint8_t> linked{0};
  };
  std::unique_ptr<NodeSync[]> sync;
  // Ids <-> slots (index/slot_table.hpp): used() slots, live and tombstones; a tombstone keeps
  // its id in its slot until the slot is reused; free slots are reused last-in first-out.
  index::SlotTable slots{index::Reuse::free_list, kMaxNodes, "HNSW"};
  std::vector<uint8_t> levels;                     // per used slot
  std::vector<uint8_t> deleted;                    // per used slot: 1 = tombstone
  std::vector<std::unique_ptr<uint32_t[]>> upper;  // per used slot: levels x (1 + M)
  std::atomic<uint64_t> entry{kNoEntry};           // (level << 32) | slot
  uint64_t draws = 0;  // levels drawn so far: the next node's level is draw_level(draws)
  std::vector<Context> build_contexts;  // one per pool worker, kept between adds

  std::mutex writer_mutex;
  std::mutex entry_mutex;
  mutable core::SharedMutex rw;  // writer-preferring (src/core/rw_lock.hpp)

  Impl(const HnswIndexOptions& o, Isa isa)
      : dim(o.dim), M(o.M), M0(2 * o.M), ef_construction(std::max(o.ef_construction, o.M)),
        ef_search(o.ef_search), seed(o.seed), metric(o.metric), storage(o.storage),
        keep_vectors(o.storage == HnswStorage::f32 || o.keep_vectors) {
    if (storage != HnswStorage::f32 && storage != HnswStorage::sq8) {
      throw Error(ErrorCode::InvalidArgument, "unknown HNSW storage " + std::to_string(uint32_t(storage)));
    }
    if (storage == HnswStorage::sq8 && o.dim > kMaxSq8Dim) {
      throw Error(ErrorCode::InvalidArgument, "sq8 storage supports dimensions up to 65536, got " +
                                                  std::to_string(o.dim));
    }
    if (dim == 0) throw Error(ErrorCode::InvalidArgument, "dimension must be at least 1");
    if (dim > (1u << 24)) {
      throw Error(ErrorCode::InvalidArgument,
                  "dimension " + std::to_string(dim) + " exceeds the maximum of 16777216");
    }
    if (M < 2 || M > kMaxM) {
      throw Error(ErrorCode::InvalidArgument,
                  "M must be between 2 and " + std::to_string(kMaxM) + ", got " + std::to_string(M));
    }
    if (ef_construction > kMaxEf || ef_search > kMaxEf) {
      throw Error(ErrorCode::InvalidArgument, "ef_construction and ef_search must be at most 1048576");
    }
    if (ef_search == 0) throw Error(ErrorCode::InvalidArgument, "ef_search must be at least 1");
    kernels = simd::kernel_table(isa);
    raw = metric == Metric::l2 ? kernels.l2sq_f32 : kernels.dot_f32;
    stride = padded_stride(dim);
    code_bytes = (dim + 15) / 16 * 16;
    links_offset = storage == HnswStorage::sq8 ? code_bytes + 16 : stride * sizeof(float);
    node_bytes = (links_offset + (1 + M0) * sizeof(uint32_t) + core::kAlignment - 1) /
                 core::kAlignment * core::kAlignment;
    prefetch_bytes = std::min(kPrefetchLines * core::kAlignment, links_offset);
    level_mult = 1.0 / core::portable_log(double(M));
    if (storage == HnswStorage::sq8) sq8 = Sq8Codec(dim, metric, seed);
    slots.keep_removed_ids(true);
  }

  // --- storage ---------------------------------------------------------------------------

  float* vec(uint32_t slot) noexcept {
    return reinterpret_cast<float*>(nodes.data() + size_t(slot) * node_bytes);
  }
  const float* vec(uint32_t slot) const noexcept {
    return reinterpret_cast<const float*>(nodes.data() + size_t(slot) * node_bytes);
  }
  // A node's point: what distances are computed between (f32 vector, or sq8 codes + term).
  const uint8_t* pt(uint32_t slot) const noexcept { return nodes.data() + size_t(slot) * node_bytes; }
  uint8_t* pt(uint32_t slot) noexcept { return nodes.data() + size_t(slot) * node_bytes; }
  // The f32 vector of a slot: in the node (f32), in `full` (sq8 with kept vectors), or null.
  const float* f32_vector(uint32_t slot) const noexcept {
    if (storage == HnswStorage::f32) return vec(slot);
    return keep_vectors ? full.data() + size_t(slot) * stride : nullptr;
  }
  size_t point_bytes() const noexcept { return links_offset; }

  // [count, link_0, ..., link_{cap-1}] of `slot` at `level` (level <= levels[slot]).
  uint32_t* list(uint32_t slot, int level) noexcept {
    if (level == 0) {
      return reinterpret_cast<uint32_t*>(nodes.data() + size_t(slot) * node_bytes + links_offset);
    }
    return upper[slot].get() + size_t(level - 1) * (1 + M);
  }
  const uint32_t* list(uint32_t slot, int level) const noexcept {
    return const_cast<Impl*>(this)->list(slot, level);
  }
  size_t cap(int level) const noexcept { return level == 0 ? M0 : M; }
  size_t live() const noexcept { return slots.size(); }
  size_t used() const noexcept { return slots.used(); }  // slots in use (high-water mark)

  // Copies slot's list at level into out (capacity >= M0), lock-free (see load_word). A node
  // reached on a level above its own (through a kept one-way link to a reused slot, see
  // detach) has no list there.
  size_t copy_links(uint32_t slot, int level, uint32_t* out) const noexcept {
    if (level > levels[slot]) return 0;
    const uint32_t* l = list(slot, level);
    const size_t n = std::min<size_t>(load_count(l), cap(level));
    for (size_t i = 0; i < n; ++i) out[i] = load_word(l + 1 + i);
    return n;
  }

  // Distance between two points. sq8: from the exact integer code dot product and the two
  // points' records (hnsw_sq8.hpp) — the kernel's integer is the same at every ISA level and
  // the rest is plain scalar arithmetic, so sq8 distances are bit-identical everywhere.
  float dist(const uint8_t* a, const uint8_t* b) const noexcept {
    if (storage == HnswStorage::sq8) return sq8.distance(a, b, kernels.dot_u8(a, b, dim));
    return exact_dist(reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b));
  }
  float exact_dist(const float* a, const float* b) const noexcept {
    float d = raw(a, b, dim);
    if (metric == Metric::ip) {
      d = -d;
    } else if (metric == Metric::cosine) {
      d = 1.0f - d;
    }
    return d == d ? d : INFINITY;  // NaN (only from overflow on finite input) ranks last
  }

  void prefetch(uint32_t slot) const noexcept {
    const char* p = reinterpret_cast<const char*>(pt(slot));
    for (size_t off = 0; off < prefetch_bytes; off += core::kAlignment) __builtin_prefetch(p + off);
  }

  // Level of the i-th node ever drawn: output i of a splitmix64 stream seeded with `seed`.
  // Counter-based, so an index loaded from a file (which stores the count) goes on drawing
  // exactly the levels the saved index would have drawn.
  int draw_level(uint64_t i) const noexcept {
    uint64_t state = seed + i * 0x9e3779b97f4a7c15ULL;
    const double u = 1.0 - double(core::splitmix64(state) >> 11) * 0x1.0p-53;  // (0, 1]
    const double x = -core::portable_log(u) * level_mult;
    return x >= kMaxLevel ? kMaxLevel : int(x);
  }

  // Grows node storage, locks and the per-slot arrays to hold `total` nodes. Only under the
  // exclusive lock (or before the index is shared). Strong guarantee: throws OutOfMemory and
  // changes nothing visible if an allocation fails.
  void reserve_slots(size_t total) {
    slots.check_capacity(total);
    const size_t used = this->used();
    try {
      slots.reserve_ids(total);
      levels.reserve(total);
      deleted.reserve(total);
      upper.reserve(total);
      if (total <= capacity_slots) return;
      const size_t want = std::max(total, capacity_slots + capacity_slots / 2);
      if (want > SIZE_MAX / node_bytes) throw_oom();
      std::unique_ptr<NodeSync[]> fresh_sync(new NodeSync[want]);
      if (storage == HnswStorage::sq8 && keep_vectors) {
        if (want > SIZE_MAX / 4 / stride) throw_oom();
        full.reserve(want * stride, used * stride);
      }
      nodes.reserve(want * node_bytes, used * node_bytes);
      // Under the exclusive lock no insert is running: no lock is held, every node is linked.
      for (size_t i = 0; i < used; ++i) fresh_sync[i].linked.store(1, std::memory_order_relaxed);
      sync = std::move(fresh_sync);
      capacity_slots = want;
    } catch (const std::bad_alloc&) {
      throw_oom();
    }
  }

  // Gives back the per-slot arrays' spare capacity (after compaction). Best effort: a failed
  // shrink keeps the old capacity.
  void shrink_arrays() noexcept {
    try {
      levels.shrink_to_fit();
      deleted.shrink_to_fit();
      upper.shrink_to_fit();
    } catch (...) {
    }
  }

  // --- search ----------------------------------------------------------------------------

  // Greedy walk on an upper level: moves to the closest neighbour until none is closer.
  uint32_t greedy(const uint8_t* q, uint32_t ep, float& ep_dist, int level, Context& c) const {
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

  // Beam search on one level from one entry point (Algorithm 2). Every reachable node is
  // traversed; only nodes for which eligible(slot) holds enter the result heap c.top, which
  // keeps the ef best by `less` (distance, then slot; an insert passes its own tie order so
  // that among more than ef exact duplicates it finds the ones it will link to). Returns how
  // many it holds (a max-heap).
  template <typename Eligible, typename Order = CandLess>
  size_t search_layer(const uint8_t* q, uint32_t ep, float ep_dist, size_t ef, int level,
                      Context& c, Eligible&& eligible, Order less = {}) const {
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

    auto push_cand = [&](const Cand& x) {
      if (nc == ccap) {
        // Nodes worse than the worst kept result can never be expanded: drop them. If that
        // frees too little (a filter or tombstones keep the result heap from filling), keep
        // the better half — the fixed capacity bounds memory, at some cost in recall only
        // under very selective filters.
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
    };
    auto consider = [&](uint32_t nb) {
      const Cand x{dist(q, pt(nb)), nb};
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

    uint32_t ring[kRing];
    while (nc > 0) {
      const Cand cur = cand[0];
      if (nt == ef && less(top[0], cur)) break;  // nothing left can improve the results
      std::pop_heap(cand, cand + nc, greater);
      --nc;
      const size_t n = copy_links(cur.slot, level, c.links.data());
      // Unvisited neighbours pass through a small ring: each is prefetched when it enters and
      // scored kRing neighbours later, so its vector is (mostly) in cache by then.
      size_t head = 0, tail = 0;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t nb = c.links[i];
        if (visited[nb] == epoch) continue;
        visited[nb] = epoch;
        prefetch(nb);
        ring[tail++ % kRing] = nb;
        if (tail - head == kRing) consider(ring[head++ % kRing]);
      }
      while (head < tail) consider(ring[head++ % kRing]);
    }
    return nt;
  }

  // Descends from the entry point to level `stop` + 1 greedily; returns the entry for `stop`.
  uint32_t descend(const uint8_t* q, uint64_t e, int stop, float& ep_dist, Context& c) const {
    uint32_t ep = uint32_t(e);
    ep_dist = dist(q, pt(ep));
    for (int l = int(e >> 32); l > stop; --l) ep = greedy(q, ep, ep_dist, l, c);
    return ep;
  }

  // The query as f32 (normalised under cosine) and as a point (sq8: encoded into c.qpoint).
  const float* prepare_query(const float* query, Context& c) const {
    if (metric != Metric::cosine) return query;
    double n2 = 0.0;
    for (size_t i = 0; i < dim; ++i) n2 += double(query[i]) * query[i];
    const double inv = 1.0 / std::sqrt(n2);
    for (size_t i = 0; i < dim; ++i) c.query[i] = static_cast<float>(query[i] * inv);
    return c.query.data();
  }
  const uint8_t* query_point(const float* qf, Context& c) const {
    if (storage == HnswStorage::f32) return reinterpret_cast<const uint8_t*>(qf);
    sq8.encode(qf, c.qpoint.data(), c.rot.data());
    return c.qpoint.data();
  }

  // The rerank depth of a search (quiver/search_params.hpp): unset re-scores the whole final
  // beam where sq8 keeps f32 vectors. Throws for a depth on sq8 without kept vectors.
  size_t rerank_depth(const SearchParams& p) const {
    const index::Rescoring r = storage == HnswStorage::f32 ? index::Rescoring::exact_already
                               : keep_vectors              ? index::Rescoring::kept_vectors
                                                           : index::Rescoring::impossible;
    return index::rerank_depth(p, r == index::Rescoring::kept_vectors ? kRerankAll : 0, r);
  }

  size_t search_one(const float* query, size_t k, Neighbor* out, const HnswSearchParams& p,
                    Context& c) const {
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
    auto final_dist = [&](uint32_t slot, float approx) {
      return rescore ? exact_dist(qf, full.data() + size_t(slot) * stride) : approx;
    };
    core::TopK best(out, k);

    const bool filtered = p.allow != nullptr;
    if (filtered) {
      c.reserve_allowed(used);
      c.next_allow_epoch();
      size_t allowed = 0;
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

    float ep_dist;
    const uint32_t ep = descend(q, entry.load(std::memory_order_acquire), 0, ep_dist, c);
    const uint8_t* dead = deleted.data();
    size_t nt;
    if (filtered || p.predicate != nullptr) {
      // Cheapest test first: the predicate runs only for live nodes the allow list admits.
      const uint16_t* allow = c.allowed.data();
      const uint16_t allow_epoch = c.allow_epoch;
      const uint64_t* ids = slots.slot_ids();
      nt = search_layer(q, ep, ep_dist, ef, 0, c, [&](uint32_t s) {
        return dead[s] == 0 && (!filtered || allow[s] == allow_epoch) &&
               (p.predicate == nullptr || p.predicate(p.predicate_ctx, ids[s]));
      });
    } else {
      nt = search_layer(q, ep, ep_dist, ef, 0, c, [&](uint32_t s) { return dead[s] == 0; });
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

  // --- build -----------------------------------------------------------------------------

  // add() in three steps: plan_add (validate and allocate; nothing visible changes),
  // commit_add (under the exclusive lock: the nodes exist, with their vectors and levels, not
  // linked yet), then insert() of each new node (under the shared lock, in parallel).
  struct PendingAdd {
    std::vector<uint32_t> slots;  // the slot of each new node, in batch order
    std::vector<int> levels;
    std::vector<std::unique_ptr<uint32_t[]>> upper;
    size_t reuse = 0;             // slots taken from the free list (the first `reuse`)
    size_t fresh = 0;             // slots past the high-water mark
    uint64_t draws = 0;           // draws after this batch
    std::vector<uint8_t> mark;    // detach()'s scratch when slots are reused
    std::vector<float> scratch;   // sq8: one normalised vector, then the codec's rotation scratch
  };

  // Only under writer_mutex (searches may run), after slots.check_room(n). Throws Error (bad
  // ids, OutOfMemory) and changes nothing visible to searches. The slots themselves are
  // planned in commit_add(): planning reserves the id map, which searches read.
  PendingAdd plan_add(const uint64_t* ids, size_t n, size_t workers) {
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

  // Only under the exclusive lock. Throws only OutOfMemory, before changing anything; then
  // repairs reused slots, writes the new nodes (unlinked) and returns how many of them are
  // already linked: 1 if the graph was empty (the first becomes the entry point), else 0.
  size_t commit_add(PendingAdd& p, const uint64_t* ids, const float* vectors) {
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
    levels.resize(used());   // capacity reserved above
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
      float* dst = !is_sq8 ? vec(s) : keep_vectors ? full.data() + size_t(s) * stride : p.scratch.data();
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

  // The selection heuristic (Algorithm 4): walk the candidates closest first and keep one
  // only if it is closer to the base than to every one kept so far. With at most `m`
  // candidates all are kept. cands must be sorted by CandOrderFrom{base}; writes to out, returns count.
  size_t select(const Cand* cands, size_t n, size_t m, Cand* out) const {
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

  // Adds `s` (at distance d) to nb's list at `level`, shrinking it with the heuristic when full.
  void add_link(uint32_t nb, uint32_t s, float d, int level, Context& c) {
    if (level > levels[nb]) return;
    SpinGuard guard(sync[nb].lock);
    uint32_t* l = list(nb, level);
    const size_t n = load_word(l);
    for (size_t i = 0; i < n; ++i) {
      if (load_word(l + 1 + i) == s) return;
    }
    const size_t capacity = cap(level);
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

  // One node's insertion (Algorithm 1), a level at a time: insert() runs it from begin to
  // end; with several build workers, insertions interleave between any two of their steps.
  struct Insertion {
    uint32_t slot = 0;
    int level = -1;          // the next level to link; -1 when done
    uint32_t ep = 0;         // where that level's beam starts: a node whose insertion finished
    float ep_dist = 0.0f;
    bool raises_top = false;  // s becomes the new entry point when done
    std::unique_lock<std::mutex> top_lock;  // held for the whole insertion if raises_top
  };

  // Links node s (vector and level already written, lists empty) into the graph.
  void insert(uint32_t s, Context& c) {
    Insertion ins = begin_insert(s, c);
    while (ins.level >= 0) link_level(ins, c);
  }

  // Finds where s's insertion starts (the greedy descent from the entry point to s's top
  // level). The first node of an empty graph becomes the entry point at once (level -1).
  Insertion begin_insert(uint32_t s, Context& c) {
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

  // Links s on level ins.level: a beam search from ins.ep, the heuristic's choice becomes s's
  // list there and each chosen node links back. Then steps one level down (or finishes).
  void link_level(Insertion& ins, Context& c) {
    const uint32_t s = ins.slot;
    const int l = ins.level;
    const uint8_t* q = pt(s);
    // Tombstones are valid link targets (they keep the graph navigable); s itself is not,
    // nor a node that does not live on this level (both reachable only through a kept
    // one-way link to a reused slot).
    const size_t nt = search_layer(q, ins.ep, ins.ep_dist, ef_construction, l, c,
                                   [&](uint32_t x) { return x != s && levels[x] >= l; }, CandOrderFrom{s});
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

  // Before reused slots get new vectors: drop them from their neighbours' lists and refill
  // those lists from the old nodes' neighbours (heuristic), pick a new entry point if needed,
  // and empty the reused nodes' lists. Serial, under the exclusive lock.
  // `sweep` forces the full sweep (compaction: no link to a marked node may survive).
  void detach(const uint32_t* reused, size_t count, std::vector<uint8_t>& mark, Context& c, bool sweep = false) {
    for (size_t i = 0; i < count; ++i) mark[reused[i]] = 1;
    auto repair = [&](uint32_t n, int level) {
      uint32_t* l = list(n, level);
      const size_t len = l[0];
      bool touched = false;
      for (size_t i = 0; i < len && !touched; ++i) touched = mark[l[1 + i]] != 0;
      if (!touched) return;
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
    for (size_t i = 0; i < count; ++i) {
      mark[reused[i]] = 0;
      list(reused[i], 0)[0] = 0;
    }
  }
};

}  // namespace quiver
