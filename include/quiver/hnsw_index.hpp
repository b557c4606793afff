// HnswIndex — approximate k-nearest-neighbour search over a Hierarchical Navigable Small World
// graph (Malkov & Yashunin, 2016/2018), with f32 or 8-bit scalar-quantised (sq8) vectors,
// distances from the dispatched kernels.
//
// Graph and storage
// * Each vector gets a level drawn from a seeded generator (floor(-ln U / ln M)); it has up to
//   M links on each upper level it lives on and up to 2M on level 0. Neighbours are chosen
//   with the paper's heuristic (Algorithm 4, no extension, no kept pruned links) out of the
//   efConstruction candidates found by a beam search.
// * Level-0 links live beside the node's vector in one fixed, 64-byte-aligned stride
//   (vector padded to 16 floats | link count | 2M links | padding to 64 bytes); upper-level
//   links are stored separately per node. Nodes are 32-bit slots; caller ids are 64-bit.
// * Under cosine the vectors are normalised when they are added (distance = 1 - dot).
//
// Storage (HnswIndexOptions::storage)
// * f32: the vectors themselves in the level-0 stride; distances are exact.
// * sq8: 8-bit scalar codes in the stride instead (at dim 384, M 16 a node is 576 bytes
//   instead of 1728: codes padded to 16 bytes, a 16-byte record, the links, to 64 bytes).
//   Each vector x (normalised under cosine) is rotated by a random orthogonal rotation seeded
//   with `seed` (bit-identical on every target), r = R x, and coded with a scale of its own:
//   code_i = 128 + round(r_i / a), a = max_i |r_i| / 127 (under cosine a is instead the scale
//   that makes the decoded vector a (code - 128) unit length). The record holds a and two
//   integer sums of the codes. Nothing is trained on the data: a vector's codes depend on it
//   alone — not on the add() batch it came in or on the order of adds — and never saturate.
//   A distance is one exact integer code dot product (the dispatched u8 kernel) combined with
//   the two records in scalar double arithmetic: l2 is the squared distance between the
//   decoded vectors, ip minus their dot product, cosine 1 minus it. So an sq8 graph is
//   bit-identical at every ISA level and target. Queries are coded the same way. dim <= 65536.
//   keep_vectors (default) also keeps the f32 vectors beside the graph (not in the stride):
//   searches then rescore their final ef candidates with exact f32 distances by default
//   (SearchParams::rerank: a depth, see HnswSearchParams), which restores f32-level recall,
//   and the distances returned are exact; without kept vectors (or with rerank 0) they are
//   the code approximations.
//   memory_bytes() / bytes_per_vector() report what each choice costs.
//
// Neighbour codes (HnswIndexOptions::neighbor_codes, sq8 only, off by default)
// * Each node also stores, after its level-0 links, a 1-bit code of every level-0 neighbour in
//   the fast-scan block layout (src/quant/fastscan.hpp: 32 neighbours per block, 4 sign bits
//   of the neighbour's rotated sq8 vector per 4-bit sub-quantiser) and two factors per
//   neighbour, as NGT-QG and SymphonyQG do. A search estimates all 32 neighbours of the node
//   it expands with one fast-scan kernel call over that one sequential block (RaBitQ's
//   estimator: <q, x> ~ <q, sign(x)> |x|^2 / |x|_1, with 8-bit query tables built once per
//   query). Neighbours whose estimate, lowered by one standard deviation of the estimator's
//   error, could enter the beam become candidates keyed by it, without being read; the others
//   are never read. A candidate is scored with its sq8 codes only when it is popped (its codes
//   lead the row its links and neighbour codes are then read from) and expanded only if that
//   distance could enter the beam. So a search reads about one row per expanded node instead
//   of the codes of every neighbour it meets: fewer random reads, which pays where nothing can
//   be prefetched (wasm); natively, where the exact walk's reads are prefetched, it need not.
// * It costs 32 x (dim / 8 + 8) bytes per node (at dim 384: 1,792 bytes, three times the sq8
//   node), hence an option, off by default. At the same ef it explores more (higher recall,
//   slower): compare at equal recall. The graph is built without it and is the same with or
//   without it; answers are deterministic and the same at every ISA level and target (integer
//   kernel sums, scalar epilogue without contraction). The codes are derived data: recomputed
//   after every add, compact and load, never stored in files (a file records only that the
//   option is on).
//
// Build and determinism
// * add() validates the whole batch, reserves everything and assigns slots and levels
//   serially, then links the new nodes in parallel on the process thread pool
//   (src/parallel/thread_pool.hpp): a spinlock per node serialises the writers of its link
//   lists, a mutex guards the entry point / top level, and readers (searches, and inserts
//   walking the graph) read link lists lock-free with atomic loads. Concurrent searches stay
//   valid meanwhile.
// * Levels are drawn serially in batch order from the index's own seeded generator, so they
//   never depend on scheduling. With one pool worker (QUIVER_THREADS=1, set_thread_count(1),
//   a parallel::WorkerLimit of 1, or the single-threaded wasm variants) the nodes are linked
//   one after the other in batch order and the graph is a pure function of the seed, the
//   sequence of add/remove calls and the distances — so the same build is bit-identical on
//   every target whose kernels give the same distances. (Different ISA levels sum in different
//   orders; their distances can differ in the last bit, and so, rarely, can a graph.) With
//   more workers the insertion order interleaves and the graph may differ from run to run;
//   recall does not.
//
// Removal
// * remove(id) tombstones the node: it is never returned but is still traversed, so the graph
//   keeps its connectivity. size()/contains() forget the id at once; the same id may be added
//   again (update = remove + add).
// * A later add() reuses tombstoned slots. Before a slot is reused its old neighbours'
//   link lists are repaired (the slot is dropped and the gap refilled from the old node's
//   own neighbours with the selection heuristic), then it is inserted as a fresh node with a
//   new level. Links from nodes that pointed at the old node without being its neighbours
//   are found by a full sweep when a batch reuses many slots (>= 1/32 of them) and otherwise
//   kept: they are still valid edges, only no longer chosen ones.
// * compact() drops all tombstones at once (links rebuilt around them, slots renumbered,
//   storage shrunk to the live nodes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quiver/isa.hpp"
#include "quiver/metric.hpp"
#include "quiver/neighbor.hpp"
#include "quiver/search_params.hpp"

namespace quiver {

enum class HnswStorage : uint32_t { f32 = 0, sq8 = 1 };
const char* hnsw_storage_name(HnswStorage storage) noexcept;  // "f32", "sq8"
HnswStorage parse_hnsw_storage(const std::string& name);      // throws Error(InvalidArgument)

struct HnswIndexOptions {
  size_t dim = 0;
  Metric metric = Metric::l2;
  size_t M = 16;                           // links per node on upper levels (2M on level 0); 2..128
  size_t ef_construction = 200;            // beam width while building; raised to M if smaller
  uint64_t seed = 42;                      // level generator
  size_t ef_search = 64;                   // beam width of a search whose HnswSearchParams::ef is 0
  HnswStorage storage = HnswStorage::f32;  // see "Storage" above
  bool keep_vectors = true;                // sq8 only: keep f32 copies for exact rerank (f32 always has them)
  bool neighbor_codes = false;             // sq8 only: neighbours' 1-bit codes beside the level-0 links
};

// Per-call options: the shared ones (quiver/search_params.hpp: allow, predicate, rerank) and
// the beam width.
// * allow / allow_bits: the graph is still traversed through every node; when the allowed ids are few
//   (under 1/16 of the index, or at most the beam width) they are scored exactly instead,
//   which is both faster and exact.
// * rerank: unset re-scores the whole final beam when sq8 storage keeps f32 vectors (the
//   behaviour before rerank was a depth), else nothing. A depth r >= 1 widens the beam to at
//   least k * r and re-scores the best min(k * r, beam) candidates by code distance with
//   exact f32 distances (sq8 needs keep_vectors; f32 storage is exact already, so there r
//   only widens the beam). 0 returns code distances.
struct HnswSearchParams : SearchParams {
  // Beam width: 0 uses HnswIndexOptions::ef_search. A value below k (or below k * rerank) is
  // raised to it (a beam narrower than the answer cannot hold it). Larger is slower and more
  // accurate. At most 2^20.
  size_t ef = 0;
};

class HnswIndex {
 public:
  explicit HnswIndex(const HnswIndexOptions& options);  // uses active_isa()
  HnswIndex(const HnswIndexOptions& options, Isa isa);  // throws Error(UnsupportedIsa)
  ~HnswIndex();
  HnswIndex(HnswIndex&&) noexcept;
  HnswIndex& operator=(HnswIndex&&) noexcept;
  HnswIndex(const HnswIndex&) = delete;
  HnswIndex& operator=(const HnswIndex&) = delete;

  size_t dim() const noexcept;
  Metric metric() const noexcept;
  Isa isa() const noexcept;
  size_t M() const noexcept;
  size_t ef_construction() const noexcept;
  uint64_t seed() const noexcept;
  size_t ef_search() const noexcept;  // the default beam width (HnswIndexOptions::ef_search)
  HnswStorage storage() const noexcept;
  bool keeps_vectors() const noexcept;   // always true for f32 storage
  bool neighbor_codes() const noexcept;  // HnswIndexOptions::neighbor_codes
  // Live vectors (tombstones excluded).
  size_t size() const noexcept;
  bool contains(uint64_t id) const noexcept;
  // The stored f32 vector of `id` (normalised under cosine): Error(UnknownId) for an id not
  // present, Error(InvalidArgument) for sq8 storage without kept vectors.
  void get(uint64_t id, float* out) const;
  // Bytes held by node storage, upper links, ids, the id map and locks (map approximate).
  size_t memory_bytes() const noexcept;
  // Bytes of the fixed level-0 stride per node (vector or codes + level-0 links, 64-byte
  // aligned). Kept f32 vectors of sq8 storage are outside it.
  size_t node_bytes() const noexcept;
  // memory_bytes() divided by the slots in use (live nodes and tombstones; a tombstone keeps
  // its storage until its slot is reused). 0 for an index that never held a node.
  size_t bytes_per_vector() const noexcept;
  // Highest level of the graph (-1 when it has no node).
  int max_level() const noexcept;

  // Adds n vectors (row-major, n x dim). All-or-nothing: a NaN/Inf, a zero vector under
  // cosine, or a duplicate id (already present or repeated in `ids`) throws and adds nothing.
  // Linking runs on the process thread pool (see the header comment for determinism).
  // Safe to call while other threads search; adds and removes are serialised among themselves.
  void add(const uint64_t* ids, const float* vectors, size_t n);
  void add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors);

  // Tombstones the ids (see the header comment). All-or-nothing: an unknown or repeated id
  // throws and removes nothing.
  void remove(const uint64_t* ids, size_t n);
  void remove(const std::vector<uint64_t>& ids);

  // Drops the tombstones: every link to a removed node is rebuilt from the live nodes around
  // it (the heuristic over its neighbours and theirs, as when a slot is reused), a live node
  // left without level-0 links is inserted again, and the live nodes are renumbered into
  // storage sized for exactly them, so memory_bytes() drops. size(), contains() and the ids
  // are unchanged; levels are kept. Serial and deterministic; searches wait while it runs.
  // Strong guarantee: throws only Error(OutOfMemory), before changing anything.
  void compact();

  // Makes room for n nodes in total (tombstones included), so adds up to that size do not
  // reallocate node storage.
  void reserve(size_t n);

  // Writes up to min(k, size()) neighbours (fewer only if the filter allows fewer, or in the
  // rare case that the beam cannot reach k live nodes), closest first, ties broken by id;
  // returns the count. Warm searches allocate nothing (a per-thread context holds the visited
  // table, the heaps and the prefetch ring). Throws for k == 0, an empty index, a query with
  // NaN/Inf (or zero under cosine), or allow == nullptr with allow_count > 0.
  size_t search(const float* query, size_t k, Neighbor* out, const HnswSearchParams& params = {}) const;
  std::vector<Neighbor> search(const std::vector<float>& query, size_t k, const HnswSearchParams& params = {}) const;
  // nq queries on the process thread pool; row q starts at out + q * k and its first
  // k' = min(k, size()) slots are written: what search() returns for that query, then
  // Neighbor{kNoId, +inf} padding (neighbor.hpp). Returns k'.
  size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                      const HnswSearchParams& params = {}) const;

  // Index files (quiver/index_file.hpp; layout in src/index/hnsw/hnsw_format.cpp). The file holds the
  // whole graph as it is — links, levels, tombstones and the free list, vectors in stored
  // form (unit length under cosine) — plus the options and the count of levels drawn, so a
  // loaded index answers every search exactly as the saved one did and later adds and
  // removes build the same graph as they would have on the saved index. The bytes depend
  // only on the index's logical state: the same on every ISA level and target. load()
  // validates every size, level, link target, id and float before handing the index out and
  // throws like FlatIndex::load (a link to a slot that does not exist, an impossible level or
  // a free list that is not exactly the tombstones is CORRUPT; so is an sq8 scale that is not
  // finite or does not fit its codes). sq8 files of the older scheme (per-dimension offsets,
  // one scale from the first batch) are transcoded on load: every node is coded afresh, from
  // its kept f32 vector if the file has them, else from its decoded old codes — the graph is
  // kept, and codes-only answers may differ slightly from the old index's. Loading is not concurrent
  // with anything; serialize() and save() may run while other threads search.
  std::vector<uint8_t> serialize() const;
  void save(const std::string& path) const;                 // atomic: temp file + rename, like FlatIndex::save
  static HnswIndex load(const uint8_t* data, size_t size);  // uses active_isa()
  static HnswIndex load(const std::vector<uint8_t>& bytes);
  static HnswIndex load(const uint8_t* data, size_t size, Isa isa);
  static HnswIndex load_file(const std::string& path);  // mmap natively

 private:
  friend struct HnswIndexAccess;  // index files: src/index/hnsw/hnsw_state.hpp
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver
