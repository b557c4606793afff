// The HNSW graph's state and storage (HnswIndex::Impl is an hnsw::Graph): options, the
// level-0 node blocks (vector or sq8 codes, then the level-0 links, in one 64-byte-aligned
// stride per slot), upper-level link lists, sq8 codes, the slot table, per-node locks, the level
// generator, distances, and how storage grows. Search (hnsw_search.hpp / .cpp) and insertion
// (hnsw_build.cpp) are declared here and defined there. Not a public header.
//
// Concurrency (see also the public header):
// * writer_mutex serialises add/remove/reserve/compact among themselves.
// * rw (writer-preferring shared mutex): searches hold it shared. add() holds it exclusively
//   while it grows storage, updates the slot table, repairs reused slots and writes the new
//   vectors, then shared while it links the new nodes in parallel. Everything a search reads
//   besides link lists is therefore only written while no search runs.
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
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <stdexcept>
#include <vector>

#include "base/aligned_buffer.hpp"
#include "base/cache_lines.hpp"
#include "base/rng.hpp"
#include "base/row_blocks.hpp"
#include "base/rw_lock.hpp"
#include "quant/fastscan.hpp"
#include "index/hnsw/hnsw_candidates.hpp"
#include "index/hnsw/hnsw_nbr_codes.hpp"
#include "index/hnsw/hnsw_sq8.hpp"
#include "index/common/search_params.hpp"
#include "index/common/slot_table.hpp"
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
constexpr size_t kMaxSq8Dim = 65536;   // keeps the u8 kernels' integer sums below 2^32
constexpr size_t kParallelBatch = 16;  // search_batch below this many queries stays inline

inline size_t padded_stride(size_t dim) { return (dim + 15) / 16 * 16; }

[[noreturn]] inline void throw_oom() {
  throw Error(ErrorCode::OutOfMemory, "out of memory while adding vectors; the index is unchanged");
}

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
// acquire, so the words below it are the ones written with it or later. Words are stored with
// release too (free on x86 and in wasm, and only writers pay it), so that a reader that loads
// them with acquire (load_word_acquire: the neighbour-code check, see Graph::NodeSync) sees
// everything the writer did before — its clearing of the node's codes_fresh flag.
inline uint32_t load_word(const uint32_t* p) noexcept { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline uint32_t load_word_acquire(const uint32_t* p) noexcept { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline uint32_t load_count(const uint32_t* p) noexcept { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void store_word(uint32_t* p, uint32_t v) noexcept { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
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

// A search's neighbour-code estimate (hnsw_nbr_codes.hpp): the query's tables and scoring.
struct NbrQuery {
  const uint8_t* tables;
  quant::BlockScoring scoring;
};

struct Graph {
  // --- configuration (immutable) ---
  size_t dim;
  size_t stride;  // floats per stored vector (padded to 16)
  size_t M, M0;   // links per upper level / level 0
  size_t ef_construction;
  size_t ef_search;
  uint64_t seed;
  Metric metric;
  double level_mult;    // 1 / ln M
  size_t links_offset;  // bytes from a node's start to its level-0 list
  size_t node_bytes;    // fixed stride per node, multiple of 64
  size_t prefetch_bytes;
  simd::KernelTable kernels;
  simd::DistanceFn raw;  // l2sq or dot
  HnswStorage storage;
  bool keep_vectors;                // sq8: f32 copies in `full`; f32 storage always has its vectors
  size_t code_bytes;                // sq8: dim padded to 16; the node's 16-byte record follows the codes
  Sq8Codec sq8;                     // sq8: rotation + per-vector codes (hnsw_sq8.hpp); immutable
  bool nbr_codes;                   // neighbour codes beside the level-0 links (hnsw_nbr_codes.hpp)
  NbrCodes nbr;                     // their layout and coding
  size_t nbr_offset = 0;            // bytes from a node's start to its neighbour-code blocks
  quant::FastScanTable fastscan{};  // the kernel that scores a block of them

  // --- graph ---
  // Node blocks (node_bytes each, 64-byte aligned) and, for sq8 with kept vectors, the f32
  // vectors (stride floats each), in ~256 KiB chunks (core/row_blocks.hpp): growing the graph
  // adds chunks and never copies the stored nodes, so a build needs the index's own size and
  // not two or three times it. The real sizes are set in the constructor, once node_bytes is
  // known. Chunks are only added under the exclusive lock: readers never see the table move.
  core::RowBlocks<uint8_t> nodes{core::kAlignment, core::RowBlocks<uint8_t>::kMinRowsPerChunk};
  core::RowBlocks<float> full{16, core::RowBlocks<float>::kMinRowsPerChunk};
  size_t capacity_slots = 0;  // slots `sync` covers (nodes may hold more: whole chunks)
  // Per slot: the spinlock of its link lists, and `linked`, set once its insertion finished.
  // A search's greedy descent never steps onto a node still being linked (its level-0 list
  // may be empty yet, which would strand the beam).
  // `codes_fresh` (neighbour codes only): 1 while the node's neighbour-code blocks match its
  // level-0 list. A writer clears it before it changes the list (codes_stale); the blocks are
  // rewritten and it is set again only under the exclusive lock (refresh_codes), so a search
  // never reads blocks while they are written. A search reads it before and after copying the
  // list (a sequence lock): if it was 1 both times, the list it copied is the one coded.
  struct NodeSync {
    std::atomic<uint8_t> lock{0};
    std::atomic<uint8_t> linked{0};
    std::atomic<uint8_t> codes_fresh{0};
  };
  std::unique_ptr<NodeSync[]> sync;
  // Ids <-> slots (index/slot_table.hpp): used() slots, live and tombstones; a tombstone keeps
  // its id in its slot until the slot is reused; free slots are reused last-in first-out.
  index::SlotTable slots{index::Reuse::free_list, kMaxNodes, "HNSW"};
  std::vector<uint8_t> levels;                     // per used slot
  std::vector<uint8_t> deleted;                    // per used slot: 1 = tombstone
  std::vector<std::unique_ptr<uint32_t[]>> upper;  // per used slot: levels x (1 + M)
  std::atomic<uint64_t> entry{kNoEntry};           // (level << 32) | slot
  uint64_t draws = 0;                              // levels drawn so far: the next node's level is draw_level(draws)
  std::vector<Context> build_contexts;             // one per pool worker, kept between adds

  std::mutex writer_mutex;
  std::mutex entry_mutex;
  mutable core::SharedMutex rw;  // writer-preferring (src/base/rw_lock.hpp)

  Graph(const HnswIndexOptions& o, Isa isa)
      : dim(o.dim),
        M(o.M),
        M0(2 * o.M),
        ef_construction(std::max(o.ef_construction, o.M)),
        ef_search(o.ef_search),
        seed(o.seed),
        metric(o.metric),
        storage(o.storage),
        keep_vectors(o.storage == HnswStorage::f32 || o.keep_vectors),
        nbr_codes(o.neighbor_codes) {
    if (storage != HnswStorage::f32 && storage != HnswStorage::sq8) {
      throw Error(ErrorCode::InvalidArgument, "unknown HNSW storage " + std::to_string(uint32_t(storage)));
    }
    if (nbr_codes && storage != HnswStorage::sq8) {
      throw Error(ErrorCode::InvalidArgument, "neighbor_codes needs sq8 storage (they are coded from the sq8 codes)");
    }
    if (storage == HnswStorage::sq8 && o.dim > kMaxSq8Dim) {
      throw Error(ErrorCode::InvalidArgument,
                  "sq8 storage supports dimensions up to 65536, got " + std::to_string(o.dim));
    }
    if (dim == 0) throw Error(ErrorCode::InvalidArgument, "dimension must be at least 1");
    if (dim > (1u << 24)) {
      throw Error(ErrorCode::InvalidArgument, "dimension " + std::to_string(dim) + " exceeds the maximum of 16777216");
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
    node_bytes =
        (links_offset + (1 + M0) * sizeof(uint32_t) + core::kAlignment - 1) / core::kAlignment * core::kAlignment;
    if (nbr_codes) {
      nbr = NbrCodes(dim, code_bytes, M0, metric);
      nbr_offset = node_bytes;
      node_bytes += nbr.bytes();  // a multiple of 64
      fastscan = quant::fastscan_table(isa);
    }
    prefetch_bytes = links_offset;  // the whole point: a scored neighbour reads all of it
    level_mult = 1.0 / core::portable_log(double(M));
    if (storage == HnswStorage::sq8) sq8 = Sq8Codec(dim, metric, seed);
    nodes = core::RowBlocks<uint8_t>(node_bytes, core::RowBlocks<uint8_t>::rows_per_chunk_for(node_bytes));
    if (storage == HnswStorage::sq8 && keep_vectors) {
      full = core::RowBlocks<float>(stride, core::RowBlocks<float>::rows_per_chunk_for(stride * sizeof(float)));
    }
    slots.keep_removed_ids(true);
  }

  // --- storage ---------------------------------------------------------------------------

  float* vec(uint32_t slot) noexcept { return reinterpret_cast<float*>(nodes.row(slot)); }
  const float* vec(uint32_t slot) const noexcept { return reinterpret_cast<const float*>(nodes.row(slot)); }
  // A node's point: what distances are computed between (f32 vector, or sq8 codes + term).
  const uint8_t* pt(uint32_t slot) const noexcept { return nodes.row(slot); }
  uint8_t* pt(uint32_t slot) noexcept { return nodes.row(slot); }
  // sq8 with kept vectors: the f32 vector of a slot in `full`.
  float* kept(uint32_t slot) noexcept { return full.row(slot); }
  const float* kept(uint32_t slot) const noexcept { return full.row(slot); }
  // The f32 vector of a slot: in the node (f32), in `full` (sq8 with kept vectors), or null.
  const float* f32_vector(uint32_t slot) const noexcept {
    if (storage == HnswStorage::f32) return vec(slot);
    return keep_vectors ? kept(slot) : nullptr;
  }
  size_t point_bytes() const noexcept { return links_offset; }
  // Neighbour codes: a node's blocks (hnsw_nbr_codes.hpp).
  uint8_t* nbr_area(uint32_t slot) noexcept { return nodes.row(slot) + nbr_offset; }
  const uint8_t* nbr_area(uint32_t slot) const noexcept { return nodes.row(slot) + nbr_offset; }

  // Before a level-0 list changes (under the node's spinlock, or the exclusive lock): its
  // neighbour codes no longer match it (see NodeSync). The list words that follow are stored
  // with release (store_word, store_count), so a search that loads any of them with acquire
  // also sees this store.
  void codes_stale(uint32_t slot) noexcept {
    if (!nbr_codes) return;
    sync[slot].codes_fresh.store(0, std::memory_order_relaxed);
  }
  // Recodes the neighbours of every node whose codes are stale (every node if `all`) from
  // their lists and sq8 points. Only under the exclusive lock (or before the index is shared).
  void refresh_codes(bool all = false) noexcept {
    if (!nbr_codes) return;
    const size_t n = used();
    for (uint32_t s = 0; s < n; ++s) {
      if (!all && sync[s].codes_fresh.load(std::memory_order_relaxed) != 0) continue;
      const uint32_t* l = list(s, 0);
      const size_t count = std::min<size_t>(l[0], M0);
      uint8_t* area = nbr_area(s);
      for (size_t v = 0; v < nbr.blocks() * 32; ++v) {
        if (v < count) {
          nbr.put(area, v, pt(l[1 + v]));
        } else {
          nbr.clear(area, v);
        }
      }
      sync[s].codes_fresh.store(1, std::memory_order_relaxed);
    }
  }

  // [count, link_0, ..., link_{cap-1}] of `slot` at `level` (level <= levels[slot]).
  uint32_t* list(uint32_t slot, int level) noexcept {
    if (level == 0) {
      return reinterpret_cast<uint32_t*>(nodes.row(slot) + links_offset);
    }
    return upper[slot].get() + size_t(level - 1) * (1 + M);
  }
  const uint32_t* list(uint32_t slot, int level) const noexcept { return const_cast<Graph*>(this)->list(slot, level); }
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
  // copy_links() on level 0 with every word loaded with acquire, and whether the node's
  // neighbour codes match the copy: its codes_fresh flag was set before and is still set after
  // (a sequence lock, see NodeSync: a writer clears the flag before it stores any word, with
  // release, so a copy that saw a new word also sees the cleared flag).
  size_t copy_links_coded(uint32_t slot, uint32_t* out, bool& coded) const noexcept {
    const bool before = sync[slot].codes_fresh.load(std::memory_order_acquire) != 0;
    const uint32_t* l = list(slot, 0);
    const size_t n = std::min<size_t>(load_count(l), M0);
    for (size_t i = 0; i < n; ++i) out[i] = load_word_acquire(l + 1 + i);
    coded = before && sync[slot].codes_fresh.load(std::memory_order_relaxed) != 0;
    return n;
  }

  // Distance between two points. sq8: from the exact integer code dot product and the two
  // points' records (hnsw_sq8.hpp) — the kernel's integer is the same at every ISA level and
  // the rest is plain scalar arithmetic, so sq8 distances are bit-identical everywhere.
  float dist(const uint8_t* a, const uint8_t* b) const noexcept {
    if (storage == HnswStorage::sq8) return sq8.distance(a, b, kernels.dot_u8(a, b, dim));
    return exact_dist(reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b));
  }
  // Distances from q to n nodes (n <= 2 kMaxM), written to out in order: the same values as
  // dist() one by one. sq8 scores the codes of all of them in one gather-kernel call, so their
  // loads overlap (wasm, where nothing can be prefetched).
  void dists(const uint8_t* q, const uint32_t* slots, size_t n, float* out) const noexcept {
    if (storage != HnswStorage::sq8) {
      for (size_t i = 0; i < n; ++i) out[i] = dist(q, pt(slots[i]));
      return;
    }
    const uint8_t* rows[2 * kMaxM];
    uint32_t sums[2 * kMaxM];
    for (size_t i = 0; i < n; ++i) rows[i] = pt(slots[i]);
    kernels.dot_u8_gather(q, rows, n, dim, sums);
    for (size_t i = 0; i < n; ++i) out[i] = sq8.distance(q, rows[i], sums[i]);
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

  // Asks for a node's whole point (no-op where prefetch does not exist, as in wasm).
  void prefetch(uint32_t slot) const noexcept {
    const char* p = reinterpret_cast<const char*>(pt(slot));
    core::prefetch_lines(p, prefetch_bytes);
  }
  // Asks for a node's link list at `level` (the count and the first links; a level-0 list of
  // 2M = 32 links spans three lines); nothing for a node below `level`.
  void prefetch_links(uint32_t slot, int level) const noexcept {
    if (level > levels[slot]) return;
    const char* p = reinterpret_cast<const char*>(list(slot, level));
    const size_t bytes = (1 + cap(level)) * sizeof(uint32_t);
    core::prefetch_lines(p, bytes);
  }

  // Asks for a node's whole level-0 row (point, links and, with neighbour codes, their blocks).
  void prefetch_row(uint32_t slot) const noexcept {
    const char* p = reinterpret_cast<const char*>(pt(slot));
    core::prefetch_lines(p, node_bytes);
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
  // changes nothing visible if an allocation fails (chunks added before the failure stay as
  // spare capacity: nothing reads them).
  // The node blocks grow by chunks and are never copied; the per-slot arrays (a few bytes per
  // slot beside a node of hundreds) still grow by copying, geometrically, so that a build of
  // many small adds does not copy them every time.
  void reserve_slots(size_t total) {
    slots.check_capacity(total);
    const size_t used = this->used();
    auto grown = [](size_t have, size_t need) { return need <= have ? have : std::max(need, have + have / 2); };
    try {
      // The node rows first: they are the largest request and RowBlocks refuses an impossible
      // one before anything is touched, where the small per-slot arrays would first be
      // granted (and, under a sanitizer, their shadow memory written) and then dropped.
      nodes.reserve(total);
      if (storage == HnswStorage::sq8 && keep_vectors) full.reserve(total);
      slots.reserve_ids(total);
      levels.reserve(grown(levels.capacity(), total));
      deleted.reserve(grown(deleted.capacity(), total));
      upper.reserve(grown(upper.capacity(), total));
      if (total <= capacity_slots) return;
      const size_t want = std::max(grown(capacity_slots, total), std::min(nodes.capacity_rows(), kMaxNodes));
      std::unique_ptr<NodeSync[]> fresh_sync(new NodeSync[want]);
      // Under the exclusive lock no insert is running: no lock is held, every node is linked.
      for (size_t i = 0; i < used; ++i) {
        fresh_sync[i].linked.store(1, std::memory_order_relaxed);
        // Every mutation ends with refresh_codes(): the codes are fresh here.
        fresh_sync[i].codes_fresh.store(sync[i].codes_fresh.load(std::memory_order_relaxed), std::memory_order_relaxed);
      }
      sync = std::move(fresh_sync);
      capacity_slots = want;
    } catch (const std::bad_alloc&) {
      throw_oom();
    } catch (const std::length_error&) {  // a per-slot vector asked past its max_size (wasm32)
      throw_oom();
    } catch (const Error&) {  // RowBlocks: only OutOfMemory
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

  // --- search (hnsw_search.hpp: the walks; hnsw_search.cpp: one query) ----------------------

  // Greedy walk on an upper level: moves to the closest neighbour until none is closer.
  uint32_t greedy(const uint8_t* q, uint32_t ep, float& ep_dist, int level, Context& c) const;

  // Beam search on one level from one entry point (Algorithm 2). Every reachable node is
  // traversed; only nodes for which eligible(slot) holds enter the result heap c.top, which
  // keeps the ef best by `less` (distance, then slot; an insert passes its own tie order so
  // that among more than ef exact duplicates it finds the ones it will link to). Returns how
  // many it holds (a max-heap).
  template <typename Eligible, typename Order = CandLess>
  size_t search_layer(const uint8_t* q, uint32_t ep, float ep_dist, size_t ef, int level, Context& c,
                      Eligible&& eligible, Order less = {}) const;

  // search_layer() on level 0 for an index with neighbour codes (searches only; inserts use
  // the exact walk, so the graph does not depend on the option). Expanding a node estimates
  // all its neighbours from its own code blocks; those whose lowered estimate could enter
  // the results become candidates keyed by that estimate, without being read. A candidate is
  // scored exactly when it is popped (its point leads the row its links and codes are read
  // from), enters the results by that distance, and is expanded only if it could enter them.
  template <typename Eligible>
  size_t search_coded(const uint8_t* q, uint32_t ep, float ep_dist, size_t ef, Context& c, Eligible&& eligible,
                      const NbrQuery& estimate) const;

  // Descends from the entry point to level `stop` + 1 greedily; returns the entry for `stop`.
  uint32_t descend(const uint8_t* q, uint64_t e, int stop, float& ep_dist, Context& c) const;

  // The query as f32 (normalised under cosine) and as a point (sq8: encoded into c.qpoint).
  const float* prepare_query(const float* query, Context& c) const;
  const uint8_t* query_point(const float* qf, Context& c) const;

  // The rerank depth of a search (quiver/search_params.hpp): unset re-scores the whole final
  // beam where sq8 keeps f32 vectors. Throws for a depth on sq8 without kept vectors.
  size_t rerank_depth(const SearchParams& p) const {
    const index::Rescoring r = storage == HnswStorage::f32 ? index::Rescoring::exact_already
                               : keep_vectors              ? index::Rescoring::kept_vectors
                                                           : index::Rescoring::impossible;
    return index::rerank_depth(p, r == index::Rescoring::kept_vectors ? kRerankAll : 0, r);
  }

  // One query (HnswIndex::search): up to k hits into out, closest first, ties by id; returns
  // how many. Under the shared lock; `c` is the calling thread's scratch.
  size_t search_one(const float* query, size_t k, Neighbor* out, const HnswSearchParams& p, Context& c) const;

  // --- build (hnsw_build.cpp) --------------------------------------------------------------

  // add() in three steps: plan_add (validate and allocate; nothing visible changes),
  // commit_add (under the exclusive lock: the nodes exist, with their vectors and levels, not
  // linked yet), then insert() of each new node (under the shared lock, in parallel).
  struct PendingAdd {
    std::vector<uint32_t> slots;  // the slot of each new node, in batch order
    std::vector<int> levels;
    std::vector<std::unique_ptr<uint32_t[]>> upper;
    size_t reuse = 0;            // slots taken from the free list (the first `reuse`)
    size_t fresh = 0;            // slots past the high-water mark
    uint64_t draws = 0;          // draws after this batch
    std::vector<uint8_t> mark;   // detach()'s scratch when slots are reused
    std::vector<float> scratch;  // sq8: one normalised vector, then the codec's rotation scratch
  };

  // Only under writer_mutex (searches may run), after slots.check_room(n). Throws Error (bad
  // ids, OutOfMemory) and changes nothing visible to searches. The slots themselves are
  // planned in commit_add(): planning reserves the id map, which searches read.
  PendingAdd plan_add(const uint64_t* ids, size_t n, size_t workers);

  // Only under the exclusive lock. Throws only OutOfMemory, before changing anything; then
  // repairs reused slots, writes the new nodes (unlinked) and returns how many of them are
  // already linked: 1 if the graph was empty (the first becomes the entry point), else 0.
  size_t commit_add(PendingAdd& p, const uint64_t* ids, const float* vectors);

  // The selection heuristic (Algorithm 4): walk the candidates closest first and keep one
  // only if it is closer to the base than to every one kept so far. With at most `m`
  // candidates all are kept. cands must be sorted by CandOrderFrom{base}; writes to out, returns count.
  size_t select(const Cand* cands, size_t n, size_t m, Cand* out) const;

  // Adds `s` (at distance d) to nb's list at `level`, shrinking it with the heuristic when full.
  void add_link(uint32_t nb, uint32_t s, float d, int level, Context& c);

  // One node's insertion (Algorithm 1), a level at a time: insert() runs it from begin to
  // end; with several build workers, insertions interleave between any two of their steps.
  struct Insertion {
    uint32_t slot = 0;
    int level = -1;   // the next level to link; -1 when done
    uint32_t ep = 0;  // where that level's beam starts: a node whose insertion finished
    float ep_dist = 0.0f;
    bool raises_top = false;                // s becomes the new entry point when done
    std::unique_lock<std::mutex> top_lock;  // held for the whole insertion if raises_top
  };

  // Links node s (vector and level already written, lists empty) into the graph.
  void insert(uint32_t s, Context& c);

  // Finds where s's insertion starts (the greedy descent from the entry point to s's top
  // level). The first node of an empty graph becomes the entry point at once (level -1).
  Insertion begin_insert(uint32_t s, Context& c);

  // Links s on level ins.level: a beam search from ins.ep, the heuristic's choice becomes s's
  // list there and each chosen node links back. Then steps one level down (or finishes).
  void link_level(Insertion& ins, Context& c);

  // Makes every live node reachable on level 0 from the entry point. The neighbour heuristic
  // prunes back-links, so a node can lose every in-link while it keeps its own list (issue 23:
  // after compact(), 4 of 15,064 live nodes could no longer be found even at ef = size).
  // Each stranded node is linked from its nearest reachable node (add_link; if the heuristic
  // drops it there or at the next three, it replaces a link the list holds twice — reachable
  // through another of its neighbours — else the list's last one), then what it reaches counts
  // as reachable; rounds repeat until none is stranded (a replaced link can strand another
  // node). `reach` and `queue` hold used() entries (reserved: nothing allocates). Serial,
  // under the exclusive lock. Returns how many links it added.
  size_t reconnect(Context& c, std::vector<uint8_t>& reach, std::vector<uint32_t>& queue);

  // Before reused slots get new vectors: drop them from their neighbours' lists and refill
  // those lists from the old nodes' neighbours (heuristic), pick a new entry point if needed,
  // and empty the reused nodes' lists. Serial, under the exclusive lock.
  // `sweep` forces the full sweep (compaction: no link to a marked node may survive).
  void detach(const uint32_t* reused, size_t count, std::vector<uint8_t>& mark, Context& c, bool sweep = false);
};

}  // namespace hnsw

// The pimpl of the public HnswIndex is the graph itself.
struct HnswIndex::Impl : hnsw::Graph {
  using Graph::Graph;
};

}  // namespace quiver
