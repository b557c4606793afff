// The Embind layer: thin on purpose. Arrays cross as pointers into the wasm heap (the JS
// wrapper in js/ owns persistent staging buffers and copies typed arrays through them), so no
// call builds a std::vector or a JS array. Every entry point is guarded: C++ errors arrive in
// JS as Error objects with the C++ message and a `code`.
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"
#include "io/format.hpp"
#include "quiver/quiver.hpp"

namespace quiver::bindings {
namespace {

template <typename T>
T* ptr(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

// JS ids are numbers: integers in [0, 2^53 - 1]. They arrive as float64 in a staging buffer
// and are rewritten in place as uint64 (same width), after checking every one.
const uint64_t* ids_from_f64(uintptr_t address, size_t n) {
  double* in = ptr<double>(address);
  for (size_t i = 0; i < n; ++i) {
    const double x = in[i];
    if (!(x >= 0.0 && x <= 9007199254740991.0) || std::floor(x) != x) {
      throw Error(ErrorCode::InvalidArgument,
                  "id at position " + std::to_string(i) + " is not an integer in [0, 2^53 - 1]");
    }
  }
  uint64_t* out = ptr<uint64_t>(address);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint64_t>(in[i]);
  return out;
}

class FlatIndexBinding {
 public:
  FlatIndexBinding(size_t dim, const std::string& metric)
      : index_(guarded([&] { return FlatIndex(FlatIndexOptions{dim, parse_metric(metric)}); })) {}
  explicit FlatIndexBinding(FlatIndex&& index) : index_(std::move(index)) {}

  // Index file bytes: serialize() keeps them in C++ and returns their size, JS copies them
  // out of the heap at serializedBytes() and then calls releaseSerialized().
  static FlatIndexBinding* load(uintptr_t bytes, size_t size) {
    return guarded([&] { return new FlatIndexBinding(FlatIndex::load(ptr<const uint8_t>(bytes), size)); });
  }
  size_t serialize() {
    return guarded([&] {
      serialized_ = index_.serialize();
      return serialized_.size();
    });
  }
  uintptr_t serialized_bytes() const { return reinterpret_cast<uintptr_t>(serialized_.data()); }
  void release_serialized() { std::vector<uint8_t>().swap(serialized_); }

  void add(uintptr_t ids, uintptr_t vectors, size_t n) {
    guarded([&] { index_.add(ids_from_f64(ids, n), ptr<const float>(vectors), n); });
  }
  void remove(uintptr_t ids, size_t n) {
    guarded([&] { index_.remove(ids_from_f64(ids, n), n); });
  }
  bool has(double id) const {
    return id >= 0 && id <= 9007199254740991.0 && index_.contains(static_cast<uint64_t>(id));
  }
  size_t search(uintptr_t query, size_t k, uintptr_t out) const {
    return guarded([&] { return index_.search(ptr<const float>(query), k, ptr<Neighbor>(out)); });
  }
  size_t search_batch(uintptr_t queries, size_t nq, size_t k, uintptr_t out) const {
    return guarded([&] {
      return index_.search_batch(ptr<const float>(queries), nq, k, ptr<Neighbor>(out));
    });
  }
  size_t size() const { return index_.size(); }
  size_t dim() const { return index_.dim(); }
  std::string metric() const { return metric_name(index_.metric()); }
  std::string isa() const { return isa_name(index_.isa()); }
  double memory_bytes() const { return double(index_.memory_bytes()); }

 private:
  FlatIndex index_;
  std::vector<uint8_t> serialized_;
};

// The kind stored in index file bytes ("flat", "quantized", "hnsw"), after validating the
// container and its checksums.
std::string index_kind_of(uintptr_t bytes, size_t size) {
  return guarded([&] { return std::string(index_kind_name(io::index_kind_of(ptr<const uint8_t>(bytes), size))); });
}

std::string active_isa_name() {
  return guarded([] { return std::string(isa_name(active_isa())); });
}

std::string available_isa_names() {
  std::string out;
  for (Isa isa : available_isas()) out += (out.empty() ? "" : ",") + std::string(isa_name(isa));
  return out;
}

// Fills out[0 .. n*dim) with the deterministic unit-Gaussian workload (same bits as native).
void fill_unit_gaussian(size_t n, size_t dim, double seed, uintptr_t out) {
  guarded([&] {
    const auto v = unit_gaussian_vectors(n, dim, static_cast<uint64_t>(seed));
    std::copy(v.begin(), v.end(), ptr<float>(out));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(quiver) {
  using namespace emscripten;
  constexpr size_t kNeighborBytes = sizeof(Neighbor);
  static_assert(kNeighborBytes == 16, "the JS wrapper reads 16-byte {u64 id, f32 distance} records");
  function("version", optional_override([] { return std::string(kVersion); }));
  function("variant", optional_override([] { return std::string(build_variant()); }));
  function("activeIsa", &active_isa_name);
  function("availableIsas", &available_isa_names);
  function("fillUnitGaussian", &fill_unit_gaussian);
  function("indexKindOf", &index_kind_of);
  class_<FlatIndexBinding>("FlatIndex")
      .constructor<size_t, const std::string&>()
      .class_function("load", &FlatIndexBinding::load, allow_raw_pointers())
      .function("serialize", &FlatIndexBinding::serialize)
      .function("serializedBytes", &FlatIndexBinding::serialized_bytes)
      .function("releaseSerialized", &FlatIndexBinding::release_serialized)
      .function("add", &FlatIndexBinding::add)
      .function("remove", &FlatIndexBinding::remove)
      .function("has", &FlatIndexBinding::has)
      .function("search", &FlatIndexBinding::search)
      .function("searchBatch", &FlatIndexBinding::search_batch)
      .function("size", &FlatIndexBinding::size)
      .function("dim", &FlatIndexBinding::dim)
      .function("metric", &FlatIndexBinding::metric)
      .function("isa", &FlatIndexBinding::isa)
      .function("memoryBytes", &FlatIndexBinding::memory_bytes);
}

}  // namespace quiver::bindings
