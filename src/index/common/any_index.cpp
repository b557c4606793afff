// The per-kind pieces of AnyIndex (quiver/any_index.hpp): how the shared search parameters
// become each kind's own, each kind's parameters in words, and loading a file of any kind.
#include "quiver/any_index.hpp"

#include <algorithm>

#include "container/file.hpp"
#include "index/flat/flat_format.hpp"
#include "container/format.hpp"
#include "index/hnsw/hnsw_format.hpp"
#include "index/quantized/quantized_format.hpp"
#include "quiver/error.hpp"

namespace quiver {

void AnyIndex::add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors) {
  if (vectors.size() != ids.size() * dim()) {
    throw Error(ErrorCode::DimensionMismatch, std::to_string(ids.size()) + " ids but " +
                                                  std::to_string(vectors.size()) + " values for dimension " +
                                                  std::to_string(dim()));
  }
  add(ids.data(), vectors.data(), ids.size());
}

std::vector<Neighbor> AnyIndex::search(const std::vector<float>& query, size_t k,
                                       const AnySearchParams& params) const {
  if (query.size() != dim()) {
    throw Error(ErrorCode::DimensionMismatch, "query has " + std::to_string(query.size()) +
                                                  " values, the index dimension is " + std::to_string(dim()));
  }
  // k = 0 or an empty index: the kind throws (INVALID_K, EMPTY_INDEX) before it writes.
  const size_t kk = std::min(k, size());
  std::vector<Neighbor> out(kk);
  out.resize(search(query.data(), kk == 0 ? k : kk, out.data(), params));
  return out;
}

// The shared fields are copied as they are; each kind adds its own knobs.
FlatSearchParams kind_params(const FlatIndex&, const AnySearchParams& p) {
  FlatSearchParams out;
  static_cast<SearchParams&>(out) = p;
  return out;
}

QuantizedSearchParams kind_params(const QuantizedIndex&, const AnySearchParams& p) {
  QuantizedSearchParams out;
  static_cast<SearchParams&>(out) = p;
  out.float_tables = p.float_tables;
  out.probes = p.probes;
  return out;
}

HnswSearchParams kind_params(const HnswIndex&, const AnySearchParams& p) {
  HnswSearchParams out;
  static_cast<SearchParams&>(out) = p;
  out.ef = p.ef;
  return out;
}

std::string describe(const FlatIndex&) { return "exact"; }

std::string describe(const QuantizedIndex& index) {
  std::string lists;  // partitions: "N lists (option), P probes by default"
  if (index.lists_option() != 0) {
    lists = ", " + std::to_string(index.lists()) + " lists (" +
            (index.lists_option() == QuantizedIndexOptions::kAutoLists ? std::string("auto")
                                                                      : std::to_string(index.lists_option())) +
            "), " + std::to_string(index.default_probes()) + " probes by default";
  }
  return std::to_string(index.bits()) + " bits, seed " + std::to_string(index.seed()) +
         (index.keeps_vectors() ? ", f32 vectors kept for rerank" : ", codes only (no rerank)") +
         (index.refine_bits() > 0 ? ", refine plane " + std::to_string(index.refine_bits()) + " bits" : "") + lists;
}

std::string describe(const HnswIndex& index) {
  const char* kept = index.storage() == HnswStorage::f32 ? ""
                     : index.keeps_vectors()              ? " + f32 vectors for rerank"
                                                          : " only";
  return "M " + std::to_string(index.M()) + ", efConstruction " + std::to_string(index.ef_construction()) +
         ", efSearch " + std::to_string(index.ef_search()) + ", seed " + std::to_string(index.seed()) +
         ", storage " + hnsw_storage_name(index.storage()) + kept +
         (index.neighbor_codes() ? ", neighbour codes" : "") + ", top level " +
         std::to_string(index.max_level()) + ", " + std::to_string(index.bytes_per_vector()) + " bytes per vector";
}

namespace {

std::unique_ptr<AnyIndex> load_from(const io::Reader& reader, Isa isa) {
  switch (reader.header().kind) {
    case IndexKind::flat: return make_any_index(io::load_flat(reader, isa));
    case IndexKind::quantized: return make_any_index(io::load_quantized(reader, isa));
    case IndexKind::hnsw: return make_any_index(io::load_hnsw(reader, isa));
  }
  throw Error(ErrorCode::UnknownIndexKind, std::string("the ") + index_kind_name(reader.header().kind) +
                                               " index is not available in this build of quiver");
}

}  // namespace

std::unique_ptr<AnyIndex> load_any_index(const uint8_t* data, size_t size, Isa isa) {
  return load_from(io::Reader(data, size), isa);
}

std::unique_ptr<AnyIndex> load_any_index(const uint8_t* data, size_t size) {
  return load_any_index(data, size, active_isa());
}

std::unique_ptr<AnyIndex> load_any_index_file(const std::string& path, Isa isa) {
  io::MappedFile file(path);  // its errors name the path already
  try {
    return load_from(io::Reader(file.data(), file.size()), isa);
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
}

std::unique_ptr<AnyIndex> load_any_index_file(const std::string& path) {
  return load_any_index_file(path, active_isa());
}

}  // namespace quiver
