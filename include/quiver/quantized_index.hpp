// QuantizedIndex — TurboQuant-style 2- or 4-bit codes searched with SIMD lookup tables.
//
// Each vector is normalised (its norm kept), rotated by a seeded random orthogonal transform,
// and every rotated coordinate is quantised with a Lloyd–Max codebook computed for the
// dimension (no training). One correction scalar per vector (norm / <rotated unit vector,
// its reconstruction>) makes the inner-product estimate unbiased. A query stays in float:
// it is rotated once, turned into per-coordinate lookup tables quantised to 8 bits, and the
// codes are scanned 32 vectors at a time with byte shuffles. The scan's best candidates are
// then re-scored: exactly from the original f32 vectors when they are kept, or from a refine
// plane (refine_bits more bits per rotated coordinate and one more scalar per vector, read
// only for the candidates: src/quant/refine_plane.hpp), which reaches recall@10 >= 0.95 from
// codes alone at 4 + 3 bits per coordinate.
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

struct QuantizedIndexOptions {
  size_t dim = 0;
  Metric metric = Metric::l2;
  unsigned bits = 4;         // 2 or 4 bits per coordinate
  uint64_t seed = 42;        // rotation seed: same seed, same codes, on every target
  bool keep_vectors = true;  // keep the f32 vectors for exact rerank (dim * 4 bytes each)
  // 0: no refine plane. 1..5: bits more per coordinate, stored beside the fast-scan codes
  // (ceil(dim / 8) * refine_bits + 4 bytes per vector; 148 at dim 384 and 3 bits), that
  // re-score the scan's candidates without the f32 vectors. 4-bit codes + 3 is the choice for
  // codes-only search (recall@10 ~0.97 on the clustered workload where the codes alone give
  // ~0.80; docs/quantized.md, "Codes-only refine plane"); 2-bit codes + 5 hold the same 7 bits
  // in as many bytes and scan half of them, the faster choice for a large partitioned index.
  unsigned refine_bits = 0;
  static constexpr unsigned kMaxRefineBits = 5;  // the widest refine plane
  // Partitions (inverted lists over the fast-scan blocks; a search scans only the `probes`
  // lists whose centroids are nearest the query). 0: not partitioned, every search scans every
  // code. kAutoLists: partitioned, the count chosen from the size T trained at,
  // min(T / 256, round(3 sqrt(T))) (256 lists at 100,000 vectors, 2,048 at 1,000,000). N:
  // partitioned into N lists. Until the index holds enough vectors to train (kAutoLists:
  // 4096; N lists: 32 * N) it is one list and searches scan everything; the centroids are
  // re-trained (and the vectors re-assigned) whenever the index has grown to 2x the size they
  // were trained at. See src/index/quantized/partition/quantized_partition.cpp.
  static constexpr size_t kAutoLists = SIZE_MAX;
  static constexpr size_t kMaxLists = size_t(1) << 16;  // the most lists an index takes
  size_t lists = 0;
};

// Per-call options: the shared ones (quiver/search_params.hpp: allow, predicate, rerank) and
// the quantised index's own.
// * rerank (unset = 0): 0: codes only, never the f32 vectors: the fast scan keeps the best
//   k * 4 with a refine plane (k * 8 over 2-bit codes) and re-scores them from it, without
//   one the best k * 2 and re-scores them with float tables of the same codes. r >= 1: the
//   scan keeps max(k * r, that depth), they are re-scored the same way, and the best k * r of
//   those get exact distances from the kept f32 vectors (an index without them ranks by the
//   refine plane; one with neither rejects r >= 1); the best k are returned. So r >= 1 never
//   ranks from worse candidates than 0.
// * allow / allow_bits: blocks of 32 vectors without an allowed id are skipped. A partitioned
//   search goes on past `probes` lists until it has scored as many allowed vectors as the
//   unfiltered search scans (N: the sizes of its `probes` lists, at least 8192), or the blocks
//   holding an allowed vector held 2 N vectors (with at least 1024 allowed scored), or every
//   allowed one was: a small allow set is scored exactly, a larger one costs one to two
//   unfiltered searches, and recall under a filter is about that of the unfiltered search (the
//   filtered top k lie further out; measured in bench/filtered). An allow bitmap
//   admitting more than 1/32 of the vectors is tested block by block as the search reaches
//   them (no set-up per allowed id).
// What searches read, summed over every query of the calls that were given it
// (QuantizedSearchParams::stats). The counts are added once a query, atomically, so the
// workers of a search_batch may share one; they are the same on every ISA and target (the
// same lists are probed and the same blocks scanned everywhere).
struct QuantizedSearchStats {
  uint64_t queries = 0;
  uint64_t lists_probed = 0;     // partitioned: lists scanned; unpartitioned: 0
  uint64_t vectors_scanned = 0;  // vector positions the fast-scan kernel scored (32 per block reached)
  // Bytes the query read from the index: the fast-scan blocks it scored (codes, offsets and
  // scales), the coarse centroids it scored (partitioned), and the refine-plane rows of the
  // candidates it re-scored. Not the tables built from the query, not the ids of the results.
  uint64_t bytes_scanned = 0;
};

struct QuantizedSearchParams : SearchParams {
  // Score the codes with float tables instead of 8-bit ones (slow; the reference that the
  // 8-bit tables are measured against).
  bool float_tables = false;
  // Partitioned index: how many lists to scan, nearest centroid first. 0 (the default): without
  // an allow set, adaptive per query — the search stops once its best estimates stopped
  // changing for a while (5 lists, and 1.5x the lists it took to the last change) and the next
  // list's centroid is further than 1.1x the nearest one's squared distance (not under ip),
  // after at least 2,048 vectors; recall@10 0.95-0.97 on the benchmarks' 100k and 1M sets with
  // no tuning (docs/quantized.md). With an allow set: default_probes() lists and at least 8192
  // vectors, then the allow-set rule above. A count p > 0 scans p lists. More lists are scanned
  // under an allow-list (above), and while the ones probed hold fewer than the candidates the
  // search needs (tiny lists, a predicate), so a search returns min(k, allowed vectors)
  // results like the unpartitioned index. Ignored otherwise.
  size_t probes = 0;
  // When set, each query searched adds what it read to *stats (above); nothing else changes.
  QuantizedSearchStats* stats = nullptr;
};

// Threads: any number of threads may search (search, search_batch) and read (size, contains,
// memory_bytes, serialize, save, ...) at once; add, remove and reserve are writers, run one at
// a time and exclusive of the readers through a writer-preferring reader-writer lock
// (src/base/rw_lock.hpp; nothing in the single-threaded wasm builds), so a search sees the
// index before or after a write, never during one. Moving, assigning or destroying the index
// needs no other thread to be using it. The same contract holds for every index kind.
class QuantizedIndex {
 public:
  explicit QuantizedIndex(const QuantizedIndexOptions& options);
  QuantizedIndex(const QuantizedIndexOptions& options, Isa isa);
  ~QuantizedIndex();
  QuantizedIndex(QuantizedIndex&&) noexcept;
  QuantizedIndex& operator=(QuantizedIndex&&) noexcept;
  QuantizedIndex(const QuantizedIndex&) = delete;
  QuantizedIndex& operator=(const QuantizedIndex&) = delete;

  size_t dim() const noexcept;
  Metric metric() const noexcept;
  unsigned bits() const noexcept;
  uint64_t seed() const noexcept;
  bool keeps_vectors() const noexcept;
  // The kept f32 vector of `id` (normalised under cosine): Error(UnknownId) for an id not
  // present, Error(InvalidArgument) for an index created with keep_vectors = false.
  void get(uint64_t id, float* out) const;
  unsigned refine_bits() const noexcept;  // 0 without a refine plane
  Isa isa() const noexcept;
  size_t size() const noexcept;
  bool contains(uint64_t id) const noexcept;
  // Code bytes per vector: the packed fast-scan codes and their two scalars (what the scan
  // reads), plus the refine plane's row and scalar when there is one. Not the f32 vectors, the
  // ids or the id table (memory_bytes() counts everything).
  size_t code_bytes_per_vector() const noexcept;
  size_t memory_bytes() const noexcept;

  // Partitions. lists_option(): QuantizedIndexOptions::lists as given. lists(): the lists the
  // index is split into now (0 when not partitioned; 1 while partitioned but not yet
  // trained). default_probes(): the probe count a *filtered* search (allow / allow_bits) at
  // probes 0 budgets from: round(1.5 * sqrt(lists())), at least 8, at most lists(), and at
  // least 8192 vectors (an unfiltered search at probes 0 stops adaptively instead; see
  // QuantizedSearchParams::probes). centroids(): lists() x dim
  // floats in the rotated space of the codes (empty before training). list_of(id): the list holding `id` (0 when not
  // partitioned); throws UnknownId.
  size_t lists_option() const noexcept;
  size_t lists() const noexcept;
  size_t default_probes() const noexcept;
  std::vector<float> centroids() const;
  size_t list_of(uint64_t id) const;

  // All-or-nothing, with FlatIndex::add's rules: nothing is added if any row or id is bad.
  // A zero vector is a valid point under l2 and ip (stored with scale 0, so its distance
  // estimate is exact).
  void add(const uint64_t* ids, const float* vectors, size_t n);
  void add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors);
  // O(1) per id; the slot is reused by later adds. All-or-nothing.
  void remove(const uint64_t* ids, size_t n);
  void remove(const std::vector<uint64_t>& ids);

  // The unpacked codes of `id`: one value per sub-quantiser (per coordinate at 4 bits, per
  // coordinate pair at 2 bits), for tests that compare codes across targets.
  std::vector<uint8_t> codes(uint64_t id) const;

  // Writes min(k, size()) neighbours, closest first (ties by id); returns the count (fewer
  // only under an allow list or predicate that admits fewer). Warm searches allocate nothing
  // (per-thread scratch). Throws for k == 0, an empty index, a bad query, or a rerank depth
  // without kept vectors.
  size_t search(const float* query, size_t k, Neighbor* out, const QuantizedSearchParams& params = {}) const;
  std::vector<Neighbor> search(const std::vector<float>& query, size_t k,
                               const QuantizedSearchParams& params = {}) const;
  // Row q of out starts at out + q * k and its first k' = min(k, size()) slots are written:
  // the row's hits, then Neighbor{kNoId, +inf} padding (neighbor.hpp). Returns k'.
  size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                      const QuantizedSearchParams& params = {}) const;

  // Index files (format: quiver/index_file.hpp; code and layout: src/index/quantized/quantized_format.cpp).
  // The rotation and codebook are recomputed from (dim, bits, seed), not stored. The bytes are
  // the same on every ISA level and target; load() validates the whole file before it
  // allocates and throws like FlatIndex::load (UNSUPPORTED_VERSION also for a file whose
  // quantiser differs from this build's).
  std::vector<uint8_t> serialize() const;
  void save(const std::string& path) const;  // atomic: temp file + rename
  static QuantizedIndex load(const uint8_t* data, size_t size);
  static QuantizedIndex load(const std::vector<uint8_t>& bytes);
  static QuantizedIndex load(const uint8_t* data, size_t size, Isa isa);
  static QuantizedIndex load_file(const std::string& path);  // mmap natively

 private:
  friend struct QuantizedIndexAccess;  // index files: src/index/quantized/quantized_state.hpp
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver
