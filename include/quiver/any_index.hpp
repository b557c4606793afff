// AnyIndex — one interface over every index kind, for code that chooses the kind at run time:
// the `quiver` CLI, the index cache and the benchmarks (src/parallel), the JS bindings, and C++
// users who load whatever file they are given.
//
//   std::unique_ptr<quiver::AnyIndex> index = quiver::load_any_index_file("docs.qvr");
//   quiver::AnySearchParams p;
//   p.ef = 64;                      // used by HNSW, ignored by the other kinds
//   index->search(query, 10, out, p);
//
// Why a small abstract base and not a concept: the callers that need "any index" hold indexes
// whose kind is only known at run time (read from a file, picked by a command-line flag, put
// into a cache next to other kinds), so they need one type; a concept would still need this
// type-erasing wrapper. The concrete classes stay plain (no virtual calls inside them, no
// vtable in a FlatIndex); IndexAdapter<Index> is the one place that maps the interface onto a
// kind, and the per-kind differences live in three small overload sets below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "quiver/flat_index.hpp"
#include "quiver/hnsw_index.hpp"
#include "quiver/index_file.hpp"
#include "quiver/isa.hpp"
#include "quiver/metric.hpp"
#include "quiver/neighbor.hpp"
#include "quiver/quantized_index.hpp"
#include "quiver/search_params.hpp"

namespace quiver {

// Every kind's search knobs in one struct, so that one set of parameters runs against any
// index: a kind ignores the knobs it does not have (ef on a flat index). The shared ones
// (allow, predicate, rerank) mean the same in every kind (quiver/search_params.hpp).
struct AnySearchParams : SearchParams {
  size_t ef = 0;              // HNSW beam width (HnswSearchParams::ef; 0 = the index's ef_search)
  bool float_tables = false;  // quantised: float lookup tables (QuantizedSearchParams::float_tables)
  size_t probes = 0;          // partitioned quantised: lists to scan (QuantizedSearchParams::probes)
};

// Threads: the same contract as the concrete kinds (any number of concurrent readers —
// search, search_batch, size, serialize, ... —; add, remove and reserve are writers).
class AnyIndex {
 public:
  virtual ~AnyIndex() = default;

  virtual IndexKind kind() const noexcept = 0;
  virtual size_t dim() const noexcept = 0;
  virtual Metric metric() const noexcept = 0;
  virtual Isa isa() const noexcept = 0;
  virtual size_t size() const noexcept = 0;
  virtual bool contains(uint64_t id) const noexcept = 0;
  virtual size_t memory_bytes() const noexcept = 0;
  // The kind's parameters in a few words ("4 bits, seed 42, f32 vectors kept for rerank").
  virtual std::string describe() const = 0;

  // The kind's add / remove / reserve (all-or-nothing, the same rules in every kind).
  virtual void add(const uint64_t* ids, const float* vectors, size_t n) = 0;
  virtual void remove(const uint64_t* ids, size_t n) = 0;
  virtual void reserve(size_t n) = 0;  // a hint; kinds without a reservation ignore it

  // Whether get() can return the stored vectors (flat; HNSW f32, or sq8 with kept vectors;
  // quantised with keep_vectors).
  virtual bool has_vectors() const noexcept = 0;
  // The stored vector of `id` (dim floats; normalised under cosine). Error(UnknownId) for an id
  // not present, Error(InvalidArgument) for a kind without has_vectors().
  virtual void get(uint64_t id, float* out) const = 0;

  // The kind's search and search_batch with `params` translated to its own struct.
  virtual size_t search(const float* query, size_t k, Neighbor* out, const AnySearchParams& params) const = 0;
  virtual size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                              const AnySearchParams& params) const = 0;

  virtual std::vector<uint8_t> serialize() const = 0;
  virtual void save(const std::string& path) const = 0;  // atomic: temp file + rename

  size_t search(const float* query, size_t k, Neighbor* out) const { return search(query, k, out, {}); }
  size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out) const {
    return search_batch(queries, nq, k, out, {});
  }
  void add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors);
  void remove(const std::vector<uint64_t>& ids) { remove(ids.data(), ids.size()); }
  // min(k, size()) results or fewer (a filter), closest first.
  std::vector<Neighbor> search(const std::vector<float>& query, size_t k, const AnySearchParams& params = {}) const;
};

// ---- what differs per kind (src/index/<kind>/<kind>_kind.cpp) ----

FlatSearchParams kind_params(const FlatIndex&, const AnySearchParams& p);
QuantizedSearchParams kind_params(const QuantizedIndex&, const AnySearchParams& p);
HnswSearchParams kind_params(const HnswIndex&, const AnySearchParams& p);

inline IndexKind kind_of(const FlatIndex&) noexcept { return IndexKind::flat; }
inline IndexKind kind_of(const QuantizedIndex&) noexcept { return IndexKind::quantized; }
inline IndexKind kind_of(const HnswIndex&) noexcept { return IndexKind::hnsw; }

std::string describe(const FlatIndex& index);
std::string describe(const QuantizedIndex& index);
std::string describe(const HnswIndex& index);

// The kind's description, found by argument-dependent lookup (so a kind registered outside
// namespace quiver brings its own overload), where a member named describe would hide it.
template <typename Index>
std::string describe_index(const Index& index) {
  return describe(index);
}

// ---- one adapter for every kind ----

// Error(InvalidArgument): "a <kind> index does not keep its vectors" (AnyIndex::get).
[[noreturn]] void throw_no_vectors(IndexKind kind);

// Owns an index of a concrete kind and exposes it as AnyIndex; index() reaches the typed one
// (for what only that kind has: HnswIndex::compact, QuantizedIndex::bits, ...).
template <typename Index>
class IndexAdapter final : public AnyIndex {
 public:
  explicit IndexAdapter(Index index) : index_(std::move(index)) {}

  const Index& index() const noexcept { return index_; }
  Index& index() noexcept { return index_; }

  IndexKind kind() const noexcept override { return kind_of(index_); }
  size_t dim() const noexcept override { return index_.dim(); }
  Metric metric() const noexcept override { return index_.metric(); }
  Isa isa() const noexcept override { return index_.isa(); }
  size_t size() const noexcept override { return index_.size(); }
  bool contains(uint64_t id) const noexcept override { return index_.contains(id); }
  size_t memory_bytes() const noexcept override { return index_.memory_bytes(); }
  std::string describe() const override { return describe_index(index_); }

  void add(const uint64_t* ids, const float* vectors, size_t n) override { index_.add(ids, vectors, n); }
  void remove(const uint64_t* ids, size_t n) override { index_.remove(ids, n); }
  void reserve(size_t n) override {
    if constexpr (has_reserve<Index>::value) index_.reserve(n);
  }
  bool has_vectors() const noexcept override {
    if constexpr (!has_get<Index>::value) {
      return false;
    } else if constexpr (has_keeps_vectors<Index>::value) {
      return index_.keeps_vectors();
    } else {
      return true;
    }
  }
  void get(uint64_t id, float* out) const override {
    if constexpr (has_get<Index>::value) {
      index_.get(id, out);
    } else {
      throw_no_vectors(kind());
    }
  }

  size_t search(const float* query, size_t k, Neighbor* out, const AnySearchParams& params) const override {
    return index_.search(query, k, out, kind_params(index_, params));
  }
  size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                      const AnySearchParams& params) const override {
    return index_.search_batch(queries, nq, k, out, kind_params(index_, params));
  }

  std::vector<uint8_t> serialize() const override { return index_.serialize(); }
  void save(const std::string& path) const override { index_.save(path); }

  using AnyIndex::add;
  using AnyIndex::remove;
  using AnyIndex::search;
  using AnyIndex::search_batch;

 private:
  template <typename T, typename = void>
  struct has_reserve : std::false_type {};
  template <typename T>
  struct has_reserve<T, std::void_t<decltype(std::declval<T&>().reserve(size_t(0)))>> : std::true_type {};
  template <typename T, typename = void>
  struct has_keeps_vectors : std::false_type {};
  template <typename T>
  struct has_keeps_vectors<T, std::void_t<decltype(std::declval<const T&>().keeps_vectors())>> : std::true_type {};
  template <typename T, typename = void>
  struct has_get : std::false_type {};
  template <typename T>
  struct has_get<T, std::void_t<decltype(std::declval<const T&>().get(uint64_t(0), static_cast<float*>(nullptr)))>>
      : std::true_type {};

  Index index_;
};

template <typename Index>
std::unique_ptr<IndexAdapter<Index>> make_any_index(Index index) {
  return std::make_unique<IndexAdapter<Index>>(std::move(index));
}

// Reads index file bytes of any kind (the kind is in the header) — what FlatIndex::load,
// QuantizedIndex::load or HnswIndex::load would do for that kind, errors included.
std::unique_ptr<AnyIndex> load_any_index(const uint8_t* data, size_t size);
std::unique_ptr<AnyIndex> load_any_index(const uint8_t* data, size_t size, Isa isa);
// The same from a file (mmap natively); an error names the path.
std::unique_ptr<AnyIndex> load_any_index_file(const std::string& path);
std::unique_ptr<AnyIndex> load_any_index_file(const std::string& path, Isa isa);

}  // namespace quiver
