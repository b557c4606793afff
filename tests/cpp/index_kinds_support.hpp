// The three index kinds behind one face (the library's AnyIndex), so that a contract every
// kind must keep (validation, ties, limits, parameters, round trips) is written once and run
// for flat, quantised and HNSW alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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

// The indexes are held through the library's one interface, quiver::AnyIndex
// (quiver/any_index.hpp).

// Unfiltered search; `exact` asks the quantised index to rerank with its kept vectors (the
// other kinds search as they do by default).
inline std::vector<Neighbor> search(const AnyIndex& index, const std::vector<float>& query, size_t k,
                                    bool exact = false) {
  AnySearchParams p;
  if (exact && index.kind() == IndexKind::quantized) p.rerank = 1000;
  return index.search(query, k, p);
}

// Default options of each kind: the quantised index keeps its vectors (4-bit codes; partitioned
// into 4 lists for Kind::partitioned), HNSW stores f32.
inline std::unique_ptr<AnyIndex> make_index(Kind kind, size_t dim, Metric metric) {
  switch (kind) {
    case Kind::flat: return make_any_index(FlatIndex({dim, metric}));
    case Kind::quantized:
    case Kind::partitioned: {
      QuantizedIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      if (kind == Kind::partitioned) o.lists = 4;
      return make_any_index(QuantizedIndex(o));
    }
    case Kind::hnsw: {
      HnswIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      return make_any_index(HnswIndex(o));
    }
  }
  return nullptr;
}

// The storage choices that decide whether an index can re-score exactly: flat (exact),
// quantised with and without kept vectors, HNSW f32, sq8 with and without kept vectors, and sq8
// codes only with neighbour codes (HnswIndexOptions::neighbor_codes: the search skips neighbours).
enum class Storage {
  flat,
  quantized_kept,
  quantized_codes,
  hnsw_f32,
  hnsw_sq8_kept,
  hnsw_sq8_codes,
  hnsw_sq8_codes_nbr
};
inline const Storage kAllStorages[] = {
    Storage::flat,          Storage::quantized_kept, Storage::quantized_codes,   Storage::hnsw_f32,
    Storage::hnsw_sq8_kept, Storage::hnsw_sq8_codes, Storage::hnsw_sq8_codes_nbr};
inline const char* storage_name(Storage s) {
  switch (s) {
    case Storage::flat: return "flat";
    case Storage::quantized_kept: return "quantized_kept";
    case Storage::quantized_codes: return "quantized_codes";
    case Storage::hnsw_f32: return "hnsw_f32";
    case Storage::hnsw_sq8_kept: return "hnsw_sq8_kept";
    case Storage::hnsw_sq8_codes: return "hnsw_sq8_codes";
    case Storage::hnsw_sq8_codes_nbr: return "hnsw_sq8_codes_nbr";
  }
  return "?";
}
// Whether the index's own distances are approximate and it keeps no f32 vectors.
inline bool cannot_rescore(Storage s) {
  return s == Storage::quantized_codes || s == Storage::hnsw_sq8_codes || s == Storage::hnsw_sq8_codes_nbr;
}
inline std::unique_ptr<AnyIndex> make_index(Storage storage, size_t dim, Metric metric) {
  switch (storage) {
    case Storage::flat: return make_index(Kind::flat, dim, metric);
    case Storage::quantized_kept:
    case Storage::quantized_codes: {
      QuantizedIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      o.keep_vectors = storage == Storage::quantized_kept;
      return make_any_index(QuantizedIndex(o));
    }
    default: {
      HnswIndexOptions o;
      o.dim = dim;
      o.metric = metric;
      o.storage = storage == Storage::hnsw_f32 ? HnswStorage::f32 : HnswStorage::sq8;
      o.keep_vectors = storage != Storage::hnsw_sq8_codes && storage != Storage::hnsw_sq8_codes_nbr;
      o.neighbor_codes = storage == Storage::hnsw_sq8_codes_nbr;
      return make_any_index(HnswIndex(o));
    }
  }
}

inline const Kind kAllKinds[] = {Kind::flat, Kind::quantized, Kind::partitioned, Kind::hnsw};
inline const Metric kAllMetrics[] = {Metric::l2, Metric::ip, Metric::cosine};

}  // namespace quiver::test
