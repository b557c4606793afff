// The generic parts of AnyIndex (quiver/any_index.hpp): the vector forms of add and search, and
// loading a file of any kind through the kind registry. What differs per kind (its parameters,
// its description) lives with the kind: src/index/<kind>/<kind>_kind.cpp.
#include "quiver/any_index.hpp"

#include <algorithm>

#include "container/file.hpp"
#include "container/format.hpp"
#include "index/common/kind_registry.hpp"
#include "quiver/error.hpp"

namespace quiver {

void throw_no_vectors(IndexKind kind) {
  throw Error(ErrorCode::InvalidArgument, std::string("a ") + index_kind_name(kind) +
                                              " index does not keep its vectors exactly, so it cannot return them");
}

void AnyIndex::add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors) {
  if (vectors.size() != ids.size() * dim()) {
    throw Error(ErrorCode::DimensionMismatch, std::to_string(ids.size()) + " ids but " +
                                                  std::to_string(vectors.size()) + " values for dimension " +
                                                  std::to_string(dim()));
  }
  add(ids.data(), vectors.data(), ids.size());
}

std::vector<Neighbor> AnyIndex::search(const std::vector<float>& query, size_t k, const AnySearchParams& params) const {
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

namespace {

// The kind's own loader, from the registry (the container accepted only kinds it has).
std::unique_ptr<AnyIndex> load_from(const io::Reader& reader, Isa isa) {
  return index_kind(reader.header().kind).load(reader, isa);
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
