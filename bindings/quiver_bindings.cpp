// The Embind layer: thin on purpose. Arrays cross as pointers into the wasm heap (the JS
// wrapper in js/ owns persistent staging buffers and copies typed arrays through them), so no
// call builds a std::vector or a JS array. No entry point throws into JS (errors.hpp): a
// failure returns a sentinel (-1 for counts and sizes, false for calls without a result,
// null for a new index, "" for a string) and leaves its code and message in the error slot
// that lastErrorCode() / lastErrorMessage() read; js/errors.js turns that into QuiverError.
// Indexes are made by factory functions (create, load) for the same reason: a throwing
// Embind constructor would unwind through wasm frames like any other JS exception.
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "errors.hpp"
#include "index_stream.hpp"
#include "index/hnsw_state.hpp"
#include "index/quantized_state.hpp"
#include "io/format.hpp"
#include "parallel/thread_pool.hpp"
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

// Index file bytes: serialize() keeps them in C++ and returns their size, JS copies them out
// of the heap at serializedBytes() and then calls releaseSerialized().
class SerializedBytes {
 public:
  template <typename Index>
  double fill(const Index& index) {
    return guarded(kFailed, [&] {
      bytes_ = index.serialize();
      return double(bytes_.size());
    });
  }
  uintptr_t data() const { return reinterpret_cast<uintptr_t>(bytes_.data()); }
  void release() { std::vector<uint8_t>().swap(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

bool is_js_id(double id) { return id >= 0 && id <= 9007199254740991.0 && std::floor(id) == id; }

// A non-negative integer option that arrives as a JS number.
size_t count_option(double x, const char* name) {
  if (!(x >= 0.0 && x <= 4294967295.0) || std::floor(x) != x) {
    throw Error(ErrorCode::InvalidArgument, std::string(name) + " must be an integer in [0, 2^32 - 1]");
  }
  return static_cast<size_t>(x);
}

// The dimension, as a JS number: an integer in [1, 2^24] (js/inputs.js checks the same bound
// first; the index kinds may lower it, e.g. HNSW sq8 storage).
constexpr double kMaxDim = 16777216.0;
size_t dim_option(double x) {
  if (!(x >= 1.0 && x <= kMaxDim) || std::floor(x) != x) {
    throw Error(ErrorCode::InvalidArgument, "dim must be an integer in [1, 16777216]");
  }
  return static_cast<size_t>(x);
}

// JS names ids with numbers, exact only up to 2^53 - 1. A file written natively may hold
// larger ids; loading it into JS fails (INVALID_ARGUMENT) instead of handing out ids that
// JS would round to a neighbouring integer. The C++ library keeps the full 64-bit range.
[[noreturn]] void throw_id_beyond_js(uint64_t id) {
  throw Error(ErrorCode::InvalidArgument,
              "the index holds id " + std::to_string(id) +
                  ", which a JavaScript number cannot represent exactly (ids must be at most 2^53 - 1 in JS); "
                  "use the native library for this file");
}
constexpr uint64_t kMaxJsId = 9007199254740991ull;
void check_js_ids(const FlatIndex& index) {
  for (size_t slot = 0; slot < index.size(); ++slot) {
    if (index.stored_id(slot) > kMaxJsId) throw_id_beyond_js(index.stored_id(slot));
  }
}
void check_js_ids(const QuantizedIndex& index) {
  const QuantizedIndexAccess::View v = QuantizedIndexAccess::view(index);
  for (size_t slot = 0; slot < v.slots; ++slot) {
    const uint64_t id = v.slot_ids[slot];
    if (id != QuantizedIndexAccess::kNoId && id > kMaxJsId) throw_id_beyond_js(id);
  }
}
void check_js_ids(const HnswIndex& index) {
  const HnswIndexAccess::View v = HnswIndexAccess::view(index);
  for (size_t slot = 0; slot < v.slots; ++slot) {
    if (v.deleted[slot] == 0 && v.slot_ids[slot] > kMaxJsId) throw_id_beyond_js(v.slot_ids[slot]);
  }
}
template <typename Binding>
std::unique_ptr<Binding> checked_ids(std::unique_ptr<Binding> binding) {
  check_js_ids(binding->index());
  return binding;
}

class FlatIndexBinding {
 public:
  explicit FlatIndexBinding(FlatIndex&& index) : index_(std::move(index)) {}

  static FlatIndexBinding* create(double dim, const std::string& metric) {
    return guarded<FlatIndexBinding*>(nullptr, [&] {
      return new FlatIndexBinding(FlatIndex(FlatIndexOptions{dim_option(dim), parse_metric(metric)}));
    });
  }

  // The index a finished IndexStream loaded (index_stream.hpp).
  static FlatIndexBinding* from_stream(IndexStreamBinding* stream) {
    return guarded<FlatIndexBinding*>(nullptr, [&] {
      return checked_ids(std::make_unique<FlatIndexBinding>(stream->loader().take_flat())).release();
    });
  }
  static FlatIndexBinding* load(uintptr_t bytes, size_t size) {
    return guarded<FlatIndexBinding*>(nullptr, [&] {
      return checked_ids(std::make_unique<FlatIndexBinding>(FlatIndex::load(ptr<const uint8_t>(bytes), size))).release();
    });
  }
  double serialize() { return serialized_.fill(index_); }
  uintptr_t serialized_bytes() const { return serialized_.data(); }
  void release_serialized() { serialized_.release(); }

  bool add(uintptr_t ids, uintptr_t vectors, size_t n) {
    return guarded_call([&] { index_.add(ids_from_f64(ids, n), ptr<const float>(vectors), n); });
  }
  bool remove(uintptr_t ids, size_t n) {
    return guarded_call([&] { index_.remove(ids_from_f64(ids, n), n); });
  }
  bool has(double id) const { return is_js_id(id) && index_.contains(static_cast<uint64_t>(id)); }
  // An allow list of `allow_count` ids staged as float64 at `allow` (0 = no allow list; a
  // non-zero address with count 0 allows nothing).
  double search(uintptr_t query, size_t k, uintptr_t out, uintptr_t allow, size_t allow_count) const {
    return guarded(kFailed, [&] {
      return double(index_.search(ptr<const float>(query), k, ptr<Neighbor>(out), params(allow, allow_count)));
    });
  }
  double search_batch(uintptr_t queries, size_t nq, size_t k, uintptr_t out, uintptr_t allow,
                      size_t allow_count) const {
    return guarded(kFailed, [&] {
      return double(index_.search_batch(ptr<const float>(queries), nq, k, ptr<Neighbor>(out),
                                        params(allow, allow_count)));
    });
  }
  size_t size() const { return index_.size(); }
  const auto& index() const { return index_; }
  size_t dim() const { return index_.dim(); }
  std::string metric() const { return metric_name(index_.metric()); }
  std::string isa() const { return isa_name(index_.isa()); }
  double memory_bytes() const { return double(index_.memory_bytes()); }

 private:
  static FlatSearchParams params(uintptr_t allow, size_t allow_count) {
    FlatSearchParams p;
    if (allow != 0) {
      p.allow = ids_from_f64(allow, allow_count);
      p.allow_count = allow_count;
    }
    return p;
  }

  FlatIndex index_;
  SerializedBytes serialized_;
};

class QuantizedIndexBinding {
 public:
  explicit QuantizedIndexBinding(QuantizedIndex&& index) : index_(std::move(index)) {}

  // lists: -1 = auto (QuantizedIndexOptions::kAutoLists), else a count (0 = not partitioned);
  // the JS wrapper has checked both numbers.
  static QuantizedIndexBinding* create(double dim, const std::string& metric, unsigned bits, double seed,
                                       bool keep_vectors, unsigned refine_bits, double lists) {
    return guarded<QuantizedIndexBinding*>(nullptr, [&] {
      if (!is_js_id(seed)) {
        throw Error(ErrorCode::InvalidArgument, "seed must be an integer in [0, 2^53 - 1]");
      }
      QuantizedIndexOptions o{dim_option(dim), parse_metric(metric), bits, static_cast<uint64_t>(seed), keep_vectors};
      o.refine_bits = refine_bits;
      o.lists = lists < 0 ? QuantizedIndexOptions::kAutoLists : static_cast<size_t>(lists);
      return new QuantizedIndexBinding(QuantizedIndex(o));
    });
  }

  // The index a finished IndexStream loaded (index_stream.hpp).
  static QuantizedIndexBinding* from_stream(IndexStreamBinding* stream) {
    return guarded<QuantizedIndexBinding*>(nullptr, [&] {
      return checked_ids(std::make_unique<QuantizedIndexBinding>(stream->loader().take_quantized())).release();
    });
  }
  static QuantizedIndexBinding* load(uintptr_t bytes, size_t size) {
    return guarded<QuantizedIndexBinding*>(nullptr, [&] {
      return checked_ids(std::make_unique<QuantizedIndexBinding>(QuantizedIndex::load(ptr<const uint8_t>(bytes), size))).release();
    });
  }
  double serialize() { return serialized_.fill(index_); }
  uintptr_t serialized_bytes() const { return serialized_.data(); }
  void release_serialized() { serialized_.release(); }

  bool add(uintptr_t ids, uintptr_t vectors, size_t n) {
    return guarded_call([&] { index_.add(ids_from_f64(ids, n), ptr<const float>(vectors), n); });
  }
  bool remove(uintptr_t ids, size_t n) {
    return guarded_call([&] { index_.remove(ids_from_f64(ids, n), n); });
  }
  bool has(double id) const { return is_js_id(id) && index_.contains(static_cast<uint64_t>(id)); }
  // Per-call options: rerank depth, and an allow list of `allow_count` ids staged as float64
  // at `allow` (0 = no allow list; a non-zero address with count 0 allows nothing).
  double search(uintptr_t query, size_t k, uintptr_t out, double rerank, uintptr_t allow, size_t allow_count,
                double probes) const {
    return guarded(kFailed, [&] {
      const QuantizedSearchParams p = params(k, rerank, allow, allow_count, probes);
      return double(index_.search(ptr<const float>(query), k, ptr<Neighbor>(out), p));
    });
  }
  double search_batch(uintptr_t queries, size_t nq, size_t k, uintptr_t out, double rerank, uintptr_t allow,
                      size_t allow_count, double probes) const {
    return guarded(kFailed, [&] {
      const QuantizedSearchParams p = params(k, rerank, allow, allow_count, probes);
      return double(index_.search_batch(ptr<const float>(queries), nq, k, ptr<Neighbor>(out), p));
    });
  }
  size_t size() const { return index_.size(); }
  const auto& index() const { return index_; }
  size_t dim() const { return index_.dim(); }
  std::string metric() const { return metric_name(index_.metric()); }
  std::string isa() const { return isa_name(index_.isa()); }
  double memory_bytes() const { return double(index_.memory_bytes()); }
  unsigned bits() const { return index_.bits(); }
  double seed() const { return double(index_.seed()); }
  bool keeps_vectors() const { return index_.keeps_vectors(); }
  unsigned refine_bits() const { return index_.refine_bits(); }
  // -1 = auto; lists() is the count now (0 unpartitioned, 1 before training).
  double lists_option() const {
    return index_.lists_option() == QuantizedIndexOptions::kAutoLists ? -1.0 : double(index_.lists_option());
  }
  double lists() const { return double(index_.lists()); }
  double default_probes() const { return double(index_.default_probes()); }

 private:
  static QuantizedSearchParams params(size_t k, double rerank, uintptr_t allow, size_t allow_count, double probes) {
    if (!(probes >= 0) || std::floor(probes) != probes || probes > 4294967295.0) {
      throw Error(ErrorCode::InvalidArgument, "probes must be an integer in [0, 2^32 - 1]");
    }
    if (!(rerank >= 0) || std::floor(rerank) != rerank || double(k) * rerank > 2147483647.0) {
      throw Error(ErrorCode::InvalidArgument,
                  "rerank must be a non-negative integer with k x rerank at most 2^31 - 1");
    }
    QuantizedSearchParams p;
    p.rerank = static_cast<size_t>(rerank);
    p.probes = static_cast<size_t>(probes);
    if (allow != 0) {
      p.allow = ids_from_f64(allow, allow_count);
      p.allow_count = allow_count;
    }
    return p;
  }

  QuantizedIndex index_;
  SerializedBytes serialized_;
};

class HnswIndexBinding {
 public:
  explicit HnswIndexBinding(HnswIndex&& index) : index_(std::move(index)) {}

  static HnswIndexBinding* create(double dim, const std::string& metric, double M, double ef_construction,
                                  double seed, double ef_search, const std::string& storage, bool keep_vectors) {
    return guarded<HnswIndexBinding*>(nullptr, [&] {
      if (!is_js_id(seed)) {
        throw Error(ErrorCode::InvalidArgument, "seed must be an integer in [0, 2^53 - 1]");
      }
      HnswIndexOptions o;
      o.dim = dim_option(dim);
      o.metric = parse_metric(metric);
      o.M = count_option(M, "M");
      o.ef_construction = count_option(ef_construction, "efConstruction");
      o.seed = static_cast<uint64_t>(seed);
      o.ef_search = count_option(ef_search, "efSearch");
      o.storage = parse_hnsw_storage(storage);
      o.keep_vectors = keep_vectors;
      return new HnswIndexBinding(HnswIndex(o));
    });
  }

  // The index a finished IndexStream loaded (index_stream.hpp).
  static HnswIndexBinding* from_stream(IndexStreamBinding* stream) {
    return guarded<HnswIndexBinding*>(nullptr, [&] {
      return checked_ids(std::make_unique<HnswIndexBinding>(stream->loader().take_hnsw())).release();
    });
  }
  static HnswIndexBinding* load(uintptr_t bytes, size_t size) {
    return guarded<HnswIndexBinding*>(nullptr, [&] {
      return checked_ids(std::make_unique<HnswIndexBinding>(HnswIndex::load(ptr<const uint8_t>(bytes), size))).release();
    });
  }
  double serialize() { return serialized_.fill(index_); }
  uintptr_t serialized_bytes() const { return serialized_.data(); }
  void release_serialized() { serialized_.release(); }

  // threads: pool workers the insertion may use (0 = all). With 1 the nodes are linked in
  // batch order and the graph is the same as a one-thread native build with the same seed.
  bool add(uintptr_t ids, uintptr_t vectors, size_t n, double threads) {
    return guarded_call([&] {
      const parallel::WorkerLimit limit(count_option(threads, "threads"));
      index_.add(ids_from_f64(ids, n), ptr<const float>(vectors), n);
    });
  }
  bool remove(uintptr_t ids, size_t n) {
    return guarded_call([&] { index_.remove(ids_from_f64(ids, n), n); });
  }
  bool compact() {
    return guarded_call([&] { index_.compact(); });
  }
  bool has(double id) const { return is_js_id(id) && index_.contains(static_cast<uint64_t>(id)); }
  // Per-call options: beam width ef (0 = the index's efSearch; raised to k if smaller), an
  // allow list of `allow_count` ids staged as float64 at `allow` (0 = no allow list), and
  // rerank (sq8 with kept vectors: exact f32 rescoring of the final candidates).
  double search(uintptr_t query, size_t k, uintptr_t out, double ef, uintptr_t allow, size_t allow_count,
                bool rerank) const {
    return guarded(kFailed, [&] {
      const HnswSearchParams p = params(ef, allow, allow_count, rerank);
      return double(index_.search(ptr<const float>(query), k, ptr<Neighbor>(out), p));
    });
  }
  double search_batch(uintptr_t queries, size_t nq, size_t k, uintptr_t out, double ef, uintptr_t allow,
                      size_t allow_count, bool rerank) const {
    return guarded(kFailed, [&] {
      const HnswSearchParams p = params(ef, allow, allow_count, rerank);
      return double(index_.search_batch(ptr<const float>(queries), nq, k, ptr<Neighbor>(out), p));
    });
  }
  size_t size() const { return index_.size(); }
  const auto& index() const { return index_; }
  size_t dim() const { return index_.dim(); }
  std::string metric() const { return metric_name(index_.metric()); }
  std::string isa() const { return isa_name(index_.isa()); }
  double memory_bytes() const { return double(index_.memory_bytes()); }
  size_t M() const { return index_.M(); }
  size_t ef_construction() const { return index_.ef_construction(); }
  double seed() const { return double(index_.seed()); }
  int max_level() const { return index_.max_level(); }
  size_t node_bytes() const { return index_.node_bytes(); }
  size_t ef_search() const { return index_.ef_search(); }
  std::string storage() const { return hnsw_storage_name(index_.storage()); }
  bool keeps_vectors() const { return index_.keeps_vectors(); }
  double bytes_per_vector() const { return double(index_.bytes_per_vector()); }

 private:
  static HnswSearchParams params(double ef, uintptr_t allow, size_t allow_count, bool rerank) {
    HnswSearchParams p;
    p.ef = count_option(ef, "ef");
    if (!rerank) p.rerank = 0;  // true: unset, the default (sq8 with kept vectors re-scores its final beam)
    if (allow != 0) {
      p.allow = ids_from_f64(allow, allow_count);
      p.allow_count = allow_count;
    }
    return p;
  }

  HnswIndex index_;
  SerializedBytes serialized_;
};

// The kind stored in index file bytes ("flat", "quantized", "hnsw"), after validating the
// container and its checksums.
std::string index_kind_of(uintptr_t bytes, size_t size) {
  return guarded(std::string(), [&] { return std::string(index_kind_name(io::index_kind_of(ptr<const uint8_t>(bytes), size))); });
}

std::string active_isa_name() {
  return guarded(std::string(), [] { return std::string(isa_name(active_isa())); });
}

std::string available_isa_names() {
  std::string out;
  for (Isa isa : available_isas()) out += (out.empty() ? "" : ",") + std::string(isa_name(isa));
  return out;
}

// Fills out[0 .. n*dim) with the deterministic unit-Gaussian workload (same bits as native).
bool fill_unit_gaussian(size_t n, size_t dim, double seed, uintptr_t out) {
  return guarded_call([&] {
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
  function("lastErrorCode", &last_error_code);
  function("lastErrorMessage", &last_error_message);
  class_<FlatIndexBinding>("FlatIndex")
      .class_function("create", &FlatIndexBinding::create, allow_raw_pointers())
      .class_function("load", &FlatIndexBinding::load, allow_raw_pointers())
      .class_function("fromStream", &FlatIndexBinding::from_stream, allow_raw_pointers())
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
  class_<QuantizedIndexBinding>("QuantizedIndex")
      .class_function("create", &QuantizedIndexBinding::create, allow_raw_pointers())
      .class_function("load", &QuantizedIndexBinding::load, allow_raw_pointers())
      .class_function("fromStream", &QuantizedIndexBinding::from_stream, allow_raw_pointers())
      .function("serialize", &QuantizedIndexBinding::serialize)
      .function("serializedBytes", &QuantizedIndexBinding::serialized_bytes)
      .function("releaseSerialized", &QuantizedIndexBinding::release_serialized)
      .function("add", &QuantizedIndexBinding::add)
      .function("remove", &QuantizedIndexBinding::remove)
      .function("has", &QuantizedIndexBinding::has)
      .function("search", &QuantizedIndexBinding::search)
      .function("searchBatch", &QuantizedIndexBinding::search_batch)
      .function("size", &QuantizedIndexBinding::size)
      .function("dim", &QuantizedIndexBinding::dim)
      .function("metric", &QuantizedIndexBinding::metric)
      .function("isa", &QuantizedIndexBinding::isa)
      .function("memoryBytes", &QuantizedIndexBinding::memory_bytes)
      .function("bits", &QuantizedIndexBinding::bits)
      .function("seed", &QuantizedIndexBinding::seed)
      .function("keepsVectors", &QuantizedIndexBinding::keeps_vectors)
      .function("refineBits", &QuantizedIndexBinding::refine_bits)
      .function("listsOption", &QuantizedIndexBinding::lists_option)
      .function("lists", &QuantizedIndexBinding::lists)
      .function("defaultProbes", &QuantizedIndexBinding::default_probes);
  class_<HnswIndexBinding>("HnswIndex")
      .class_function("create", &HnswIndexBinding::create, allow_raw_pointers())
      .class_function("load", &HnswIndexBinding::load, allow_raw_pointers())
      .class_function("fromStream", &HnswIndexBinding::from_stream, allow_raw_pointers())
      .function("serialize", &HnswIndexBinding::serialize)
      .function("serializedBytes", &HnswIndexBinding::serialized_bytes)
      .function("releaseSerialized", &HnswIndexBinding::release_serialized)
      .function("add", &HnswIndexBinding::add)
      .function("remove", &HnswIndexBinding::remove)
      .function("compact", &HnswIndexBinding::compact)
      .function("has", &HnswIndexBinding::has)
      .function("search", &HnswIndexBinding::search)
      .function("searchBatch", &HnswIndexBinding::search_batch)
      .function("size", &HnswIndexBinding::size)
      .function("dim", &HnswIndexBinding::dim)
      .function("metric", &HnswIndexBinding::metric)
      .function("isa", &HnswIndexBinding::isa)
      .function("memoryBytes", &HnswIndexBinding::memory_bytes)
      .function("M", &HnswIndexBinding::M)
      .function("efConstruction", &HnswIndexBinding::ef_construction)
      .function("seed", &HnswIndexBinding::seed)
      .function("maxLevel", &HnswIndexBinding::max_level)
      .function("nodeBytes", &HnswIndexBinding::node_bytes)
      .function("efSearch", &HnswIndexBinding::ef_search)
      .function("storage", &HnswIndexBinding::storage)
      .function("keepsVectors", &HnswIndexBinding::keeps_vectors)
      .function("bytesPerVector", &HnswIndexBinding::bytes_per_vector);
}

}  // namespace quiver::bindings
