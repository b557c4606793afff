// One face for the three index kinds, so that a contract every kind must keep (validation,
// ties, limits, round trips) is written once and run for flat, quantised and HNSW alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "quiver/quiver.hpp"

namespace quiver::test {

// partitioned: the quantised index with inverted lists (4 lists, trained at 128 vectors).
enum class Kind { flat, quantized, partitioned, hnsw };

inline const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::flat: return "flat";
    case Kind::quantized: return "quantized";
    case Kind::partitioned: return "partitioned";
    case Kind::hnsw: return "hnsw";
  }
  return "?";
}

struct AnyIndex {
  virtual ~AnyIndex() = default;
  virtual void add(const uint64_t* ids, const float* vectors, size_t n) = 0;
  virtual void remove(const std::vector<uint64_t>& ids) = 0;
  virtual size_t size() const = 0;
  // Unfiltered search; `exact` asks the quantised index to rerank with its kept vectors.
  virtual size_t search(const float* query, size_t k, Neighbor* out, bool exact = false) const = 0;
  // Row q of out starts at out + q * k; returns min(k, size()) as every kind documents.
  virtual size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out) const = 0;
  // Search with the shared parameters (quiver/search_params.hpp) and, for HNSW, a beam width.
  virtual size_t search_with(const float* query, size_t k, Neighbor* out, const SearchParams& shared,
                             size_t ef = 0) const = 0;
  virtual std::vector<uint8_t> serialize() const = 0;

  void add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors) {
    add(ids.data(), vectors.data(), ids.size());
  }
  std::vector<Neighbor> search(const std::vector<float>& query, size_t k, bool exact = false) const {
    std::vector<Neighbor> out(k);
    out.resize(search(query.data(), k, out.data(), exact));
    return out;
  }
};

template <typename Index>
struct IndexOf : AnyIndex {
  Index index;
  explicit IndexOf(Index&& i) : index(std::move(i)) {}
  void add(const uint64_t* ids, const float* vectors, size_t n) override { index.add(ids, vectors, n); }
  void remove(const std::vector<uint64_t>& ids) override { index.remove(ids); }
  size_t size() const override { return index.size(); }
  std::vector<uint8_t> serialize() const override { return index.serialize(); }
  size_t search(const float* query, size_t k, Neighbor* out, bool exact) const override;
  size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out) const override {
    return index.search_batch(queries, nq, k, out);
  }
  size_t search_with(const float* query, size_t k, Neighbor* out, const SearchParams& shared,
                     size_t ef) const override {
    auto p = params_of(index);
    static_cast<SearchParams&>(p) = shared;
    if constexpr (std::is_same_v<Index, HnswIndex>) p.ef = ef;
    return index.search(query, k, out, p);
  }

 private:
  static FlatSearchParams params_of(const FlatIndex&) { return {}; }
  static QuantizedSearchParams params_of(const QuantizedIndex&) { return {}; }
  static HnswSearchParams params_of(const HnswIndex&) { return {}; }
};

template <>
inline size_t IndexOf<FlatIndex>::search(const float* query, size_t k, Neighbor* out, bool) const {
  return index.search(query, k, out);
}
template <>
inline size_t IndexOf<QuantizedIndex>::search(const float* query, size_t k, Neighbor* out, bool exact) const {
  QuantizedSearchParams p;
  if (exact) p.rerank = 1000;
  return index.search(query, k, out, p);
}
template <>
inline size_t IndexOf<HnswIndex>::search(const float* query, size_t k, Neighbor* out, bool) const {
  return index.search(query, k, out);
}

// Default options of each kind: the quantised index keeps its vectors (4-bit codes; partitioned
// into 4 lists for Kind::partitioned), HNSW stores f32.
inline std::unique_ptr<AnyIndex> make_index(Kind kind, size_t dim, Metric metric) {
  switch (kind) {
    case Kind::flat: return std::make_unique<IndexOf<FlatIndex>>(FlatIndex({dim, metric}));
    case Kind::quantized:
    case Kind::partitioned: {
      QuantizedIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      if (kind == Kind::partitioned) o.lists = 4;
      return std::make_unique<IndexOf<QuantizedIndex>>(QuantizedIndex(o));
    }
    case Kind::hnsw: {
      HnswIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      return std::make_unique<IndexOf<HnswIndex>>(HnswIndex(o));
    }
  }
  return nullptr;
}

// The storage choices that decide whether an index can re-score exactly: flat (exact),
// quantised with and without kept vectors, HNSW f32, sq8 with and without kept vectors.
enum class Storage { flat, quantized_kept, quantized_codes, hnsw_f32, hnsw_sq8_kept, hnsw_sq8_codes };
inline const Storage kAllStorages[] = {Storage::flat,     Storage::quantized_kept, Storage::quantized_codes,
                                       Storage::hnsw_f32, Storage::hnsw_sq8_kept,  Storage::hnsw_sq8_codes};
inline const char* storage_name(Storage s) {
  switch (s) {
    case Storage::flat: return "flat";
    case Storage::quantized_kept: return "quantized_kept";
    case Storage::quantized_codes: return "quantized_codes";
    case Storage::hnsw_f32: return "hnsw_f32";
    case Storage::hnsw_sq8_kept: return "hnsw_sq8_kept";
    case Storage::hnsw_sq8_codes: return "hnsw_sq8_codes";
  }
  return "?";
}
// Whether the index's own distances are approximate and it keeps no f32 vectors.
inline bool cannot_rescore(Storage s) { return s == Storage::quantized_codes || s == Storage::hnsw_sq8_codes; }
inline std::unique_ptr<AnyIndex> make_index(Storage storage, size_t dim, Metric metric) {
  switch (storage) {
    case Storage::flat: return make_index(Kind::flat, dim, metric);
    case Storage::quantized_kept:
    case Storage::quantized_codes: {
      QuantizedIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      o.keep_vectors = storage == Storage::quantized_kept;
      return std::make_unique<IndexOf<QuantizedIndex>>(QuantizedIndex(o));
    }
    default: {
      HnswIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      o.storage = storage == Storage::hnsw_f32 ? HnswStorage::f32 : HnswStorage::sq8;
      o.keep_vectors = storage != Storage::hnsw_sq8_codes;
      return std::make_unique<IndexOf<HnswIndex>>(HnswIndex(o));
    }
  }
}

inline const Kind kAllKinds[] = {Kind::flat, Kind::quantized, Kind::partitioned, Kind::hnsw};
inline const Metric kAllMetrics[] = {Metric::l2, Metric::ip, Metric::cosine};

}  // namespace quiver::test
