// FlatIndex — exact k-nearest-neighbour search by scanning every stored vector with the
// dispatched SIMD kernels.
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

struct FlatIndexOptions {
  size_t dim = 0;
  Metric metric = Metric::l2;
};

// Per-call options of search and search_batch: the shared ones (quiver/search_params.hpp),
// nothing of its own. An allow list's ids are scored one by one instead of scanning every
// row, an allow bitmap's rows likewise (each row's id tested in turn); `rerank` changes
// nothing (every distance is exact already).
struct FlatSearchParams : SearchParams {};

// Threads: any number of threads may search (search, search_batch) and read (size, contains,
// memory_bytes, serialize, save, ...) at once; add, remove and reserve are writers, run one at
// a time and exclusive of the readers through a writer-preferring reader-writer lock
// (src/base/rw_lock.hpp; nothing in the single-threaded wasm builds), so a search sees the
// index before or after a write, never during one. Moving, assigning or destroying the index
// needs no other thread to be using it. The same contract holds for every index kind.
class FlatIndex {
 public:
  // Uses active_isa() (QUIVER_ISA or CPU detection).
  explicit FlatIndex(const FlatIndexOptions& options);
  // Uses the given level; throws Error(UnsupportedIsa) if this CPU/build lacks it.
  FlatIndex(const FlatIndexOptions& options, Isa isa);
  ~FlatIndex();
  FlatIndex(FlatIndex&&) noexcept;
  FlatIndex& operator=(FlatIndex&&) noexcept;
  FlatIndex(const FlatIndex&) = delete;
  FlatIndex& operator=(const FlatIndex&) = delete;

  size_t dim() const noexcept;
  Metric metric() const noexcept;
  Isa isa() const noexcept;
  size_t size() const noexcept;
  bool contains(uint64_t id) const noexcept;
  // Bytes held by vectors, ids and the id map (approximate for the hash map).
  size_t memory_bytes() const noexcept;

  // Adds n vectors (row-major, n x dim) with the given ids. All-or-nothing: a wrong size,
  // a NaN/Inf, a squared norm above 2^100 under l2/ip (NON_FINITE: a distance could overflow
  // float), a zero vector under cosine, the reserved id 2^64 - 1, a duplicate id (already
  // present or repeated in `ids`), or more than 2^32 - 1 vectors in all throws and adds
  // nothing. The same rules hold for every index kind (src/base/validate.hpp).
  void add(const uint64_t* ids, const float* vectors, size_t n);
  void add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors);

  // Removes the given ids. All-or-nothing: an unknown or repeated id throws and removes nothing.
  void remove(const uint64_t* ids, size_t n);
  void remove(const std::vector<uint64_t>& ids);

  // Copies the stored vector for `id` into out[0..dim) (normalised under cosine).
  void get(uint64_t id, float* out) const;

  // Writes the min(k, size()) nearest neighbours of `query` into out, closest first (ties by
  // id), and returns how many it wrote (fewer only under an allow list that admits fewer).
  // Warm calls allocate nothing. Throws for k == 0, an empty index, a query that add() would
  // reject (NaN/Inf, a norm above the bound, zero under cosine), or allow == nullptr with
  // allow_count > 0.
  size_t search(const float* query, size_t k, Neighbor* out, const FlatSearchParams& params = {}) const;
  std::vector<Neighbor> search(const std::vector<float>& query, size_t k) const;

  // Makes room for `n` vectors in total, so adds up to that size do not reallocate.
  void reserve(size_t n);

  // Index files (format: quiver/index_file.hpp; code: src/index/flat/flat_format.cpp). The bytes are
  // the same on every ISA level and target. load() validates the whole file before it
  // allocates and throws Error(BadMagic, Truncated, ChecksumMismatch, UnsupportedVersion,
  // Corrupt, UnknownIndexKind, IoError) for a bad one.
  std::vector<uint8_t> serialize() const;
  void save(const std::string& path) const;  // atomic: temp file + rename
  static FlatIndex load(const uint8_t* data, size_t size);
  static FlatIndex load(const std::vector<uint8_t>& bytes);
  static FlatIndex load(const uint8_t* data, size_t size, Isa isa);
  static FlatIndex load_file(const std::string& path);  // mmap natively

  // For serialisers: stored rows (normalised under cosine) in slot order, slot < size().
  const float* stored_row(size_t slot) const noexcept;
  uint64_t stored_id(size_t slot) const noexcept;
  // Adds rows that are already in stored form (no normalisation); validates like add().
  void add_stored(const uint64_t* ids, const float* rows, size_t n);

  // nq queries (row-major). out holds nq * k slots; row q starts at out + q * k and its first
  // k' = min(k, size()) slots are written: the hits search() returns for that query, then
  // Neighbor{kNoId, +inf} padding (neighbor.hpp). Returns k'. Queries run in parallel on the
  // process thread pool (src/parallel/thread_pool.hpp).
  size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                      const FlatSearchParams& params = {}) const;

 private:
  friend struct FlatIndexAccess;  // index files: src/index/flat/flat_state.hpp
  void add_rows(const uint64_t* ids, const float* vectors, size_t n, bool normalise);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver
