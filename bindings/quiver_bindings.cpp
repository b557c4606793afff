// The Embind layer: thin on purpose. Arrays cross as pointers into the wasm heap (the JS
// wrapper in js/ owns persistent staging buffers and copies typed arrays through them), so no
// call builds a std::vector or a JS array. No entry point throws into JS (errors.hpp): a
// failure returns a sentinel (-1 for counts and sizes, false for calls without a result,
// null for a new index, "" for a string) and leaves its code and message in the error slot
// that lastErrorCode() / lastErrorMessage() read; js/errors.js turns that into QuiverError.
// Indexes are made by factory functions (create, load) for the same reason: a throwing
// Embind constructor would unwind through wasm frames like any other JS exception.
//
// One binding template serves every index kind (IndexBinding<Index>, registered by
// register_index<Index>); a kind adds only its factory and the properties only it has.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "errors.hpp"
#include "index_stream.hpp"
#include "index/common/kind_registry.hpp"
#include "index/hnsw/hnsw_state.hpp"
#include "index/quantized/quantized_state.hpp"
#include "container/format.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "simd/kernels.hpp"
#include "tools/workload.hpp"

namespace quiver::bindings {
namespace {

template <typename T>
T* ptr(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

constexpr double kMaxJsIdDouble = 9007199254740991.0;  // 2^53 - 1
constexpr uint64_t kMaxJsId = 9007199254740991ull;

bool is_js_id(double id) { return id >= 0 && id <= kMaxJsIdDouble && std::floor(id) == id; }

// JS ids are numbers: integers in [0, 2^53 - 1]. They arrive as float64 in a staging buffer
// and are rewritten in place as uint64 (same width), after checking every one.
const uint64_t* ids_from_f64(uintptr_t address, size_t n) {
  double* in = ptr<double>(address);
  for (size_t i = 0; i < n; ++i) {
    if (!is_js_id(in[i])) {
      throw Error(ErrorCode::InvalidArgument,
                  "id at position " + std::to_string(i) + " is not an integer in [0, 2^53 - 1]");
    }
  }
  uint64_t* out = ptr<uint64_t>(address);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint64_t>(in[i]);
  return out;
}

// A non-negative integer option that arrives as a JS number.
size_t count_option(double x, const char* name) {
  if (!(x >= 0.0 && x <= 4294967295.0) || std::floor(x) != x) {
    throw Error(ErrorCode::InvalidArgument, std::string(name) + " must be an integer in [0, 2^32 - 1]");
  }
  return static_cast<size_t>(x);
}

uint64_t seed_option(double seed) {
  if (!is_js_id(seed)) throw Error(ErrorCode::InvalidArgument, "seed must be an integer in [0, 2^53 - 1]");
  return static_cast<uint64_t>(seed);
}

// The dimension, as a JS number: an integer in [1, 2^24] (js/inputs.js checks the same bound
// first; the index kinds may lower it, e.g. HNSW sq8 storage).
size_t dim_option(double x) {
  if (!(x >= 1.0 && x <= 16777216.0) || std::floor(x) != x) {
    throw Error(ErrorCode::InvalidArgument, "dim must be an integer in [1, 16777216]");
  }
  return static_cast<size_t>(x);
}

// The per-call search options, the same for every kind (a kind ignores the knobs it does not
// have): ef, rerank (-1 = unset, the kind's default; else a depth), probes, and an allow list
// of `allow_count` ids staged as float64 at `allow` (0 = no allow list; a non-zero address
// with count 0 allows nothing).
AnySearchParams search_params(size_t k, double ef, double rerank, double probes, uintptr_t allow, size_t allow_count) {
  AnySearchParams p;
  p.ef = count_option(ef, "ef");
  p.probes = count_option(probes, "probes");
  if (rerank != -1.0) {
    // k * rerank candidates are held per query: bounded so the buffer fits in wasm32.
    if (!(rerank >= 0) || std::floor(rerank) != rerank || double(k) * rerank > 2147483647.0) {
      throw Error(ErrorCode::InvalidArgument, "rerank must be a non-negative integer with k x rerank at most 2^31 - 1");
    }
    p.rerank = static_cast<size_t>(rerank);
  }
  if (allow != 0) {
    p.allow = ids_from_f64(allow, allow_count);
    p.allow_count = allow_count;
  }
  return p;
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

// The index a finished IndexStream loaded (index_stream.hpp), as the kind asked for.
template <typename Index>
Index take_loaded(IndexStreamBinding& stream);
template <>
FlatIndex take_loaded<FlatIndex>(IndexStreamBinding& stream) {
  return stream.loader().take_flat();
}
template <>
QuantizedIndex take_loaded<QuantizedIndex>(IndexStreamBinding& stream) {
  return stream.loader().take_quantized();
}
template <>
HnswIndex take_loaded<HnswIndex>(IndexStreamBinding& stream) {
  return stream.loader().take_hnsw();
}

// What every index kind's JS class reaches: the index (through the one interface,
// quiver/any_index.hpp), its file bytes, and the calls every kind has.
template <typename Index>
class IndexBinding {
 public:
  explicit IndexBinding(Index&& index) : index_(std::move(index)) {}

  // A new binding for a freshly made index, or null (error recorded).
  template <typename Make>
  static IndexBinding* create(Make&& make) {
    return guarded<IndexBinding*>(nullptr, [&] { return new IndexBinding(make()); });
  }
  static IndexBinding* load(uintptr_t bytes, size_t size) {
    return guarded<IndexBinding*>(nullptr, [&] { return js_checked(Index::load(ptr<const uint8_t>(bytes), size)); });
  }
  static IndexBinding* from_stream(IndexStreamBinding* stream) {
    return guarded<IndexBinding*>(nullptr, [&] { return js_checked(take_loaded<Index>(*stream)); });
  }

  // Index file bytes: serialize() keeps them in C++ and returns their size, JS copies them out
  // of the heap at serializedBytes() and then calls releaseSerialized().
  double serialize() {
    return guarded(kFailed, [&] {
      serialized_ = index_.serialize();
      return double(serialized_.size());
    });
  }
  uintptr_t serialized_bytes() const { return reinterpret_cast<uintptr_t>(serialized_.data()); }
  void release_serialized() { std::vector<uint8_t>().swap(serialized_); }

  // threads: pool workers the insertion may use (0 = all). With 1, HNSW links the nodes in
  // batch order and builds the same graph as a one-thread native build with the same seed.
  bool add(uintptr_t ids, uintptr_t vectors, size_t n, double threads) {
    return guarded_call([&] {
      const parallel::WorkerLimit limit(count_option(threads, "threads"));
      index_.add(ids_from_f64(ids, n), ptr<const float>(vectors), n);
    });
  }
  bool remove(uintptr_t ids, size_t n) {
    return guarded_call([&] { index_.remove(ids_from_f64(ids, n), n); });
  }
  bool has(double id) const { return is_js_id(id) && index_.contains(static_cast<uint64_t>(id)); }

  double search(uintptr_t query, size_t k, uintptr_t out, double ef, double rerank, double probes, uintptr_t allow,
                size_t allow_count) const {
    return guarded(kFailed, [&] {
      const AnySearchParams p = search_params(k, ef, rerank, probes, allow, allow_count);
      return double(index_.search(ptr<const float>(query), k, ptr<Neighbor>(out), p));
    });
  }
  double search_batch(uintptr_t queries, size_t nq, size_t k, uintptr_t out, double ef, double rerank, double probes,
                      uintptr_t allow, size_t allow_count) const {
    return guarded(kFailed, [&] {
      const AnySearchParams p = search_params(k, ef, rerank, probes, allow, allow_count);
      return double(index_.search_batch(ptr<const float>(queries), nq, k, ptr<Neighbor>(out), p));
    });
  }

  size_t size() const { return index_.size(); }
  size_t dim() const { return index_.dim(); }
  std::string metric() const { return metric_name(index_.metric()); }
  std::string isa() const { return isa_name(index_.isa()); }
  double memory_bytes() const { return double(index_.memory_bytes()); }

  const Index& index() const noexcept { return index_.index(); }
  Index& index() noexcept { return index_.index(); }

 private:
  // A loaded index as a binding, if JS can name every id it holds (else INVALID_ARGUMENT).
  static IndexBinding* js_checked(Index&& index) {
    check_js_ids(index);
    return new IndexBinding(std::move(index));
  }

  IndexAdapter<Index> index_;
  std::vector<uint8_t> serialized_;
};

// Registers the calls every kind has under the JS class `name`; the caller chains the kind's
// factory ("create") and its own properties.
template <typename Index>
emscripten::class_<IndexBinding<Index>> register_index(const char* name) {
  using B = IndexBinding<Index>;
  return emscripten::class_<B>(name)
      .class_function("load", &B::load, emscripten::allow_raw_pointers())
      .class_function("fromStream", &B::from_stream, emscripten::allow_raw_pointers())
      .function("serialize", &B::serialize)
      .function("serializedBytes", &B::serialized_bytes)
      .function("releaseSerialized", &B::release_serialized)
      .function("add", &B::add)
      .function("remove", &B::remove)
      .function("has", &B::has)
      .function("search", &B::search)
      .function("searchBatch", &B::search_batch)
      .function("size", &B::size)
      .function("dim", &B::dim)
      .function("metric", &B::metric)
      .function("isa", &B::isa)
      .function("memoryBytes", &B::memory_bytes);
}

using FlatBinding = IndexBinding<FlatIndex>;
using QuantizedBinding = IndexBinding<QuantizedIndex>;
using HnswBinding = IndexBinding<HnswIndex>;

FlatBinding* create_flat(double dim, const std::string& metric) {
  return FlatBinding::create([&] { return FlatIndex(FlatIndexOptions{dim_option(dim), parse_metric(metric)}); });
}

// lists: -1 = auto (QuantizedIndexOptions::kAutoLists), else a count (0 = not partitioned);
// the JS wrapper has checked both numbers.
QuantizedBinding* create_quantized(double dim, const std::string& metric, unsigned bits, double seed, bool keep_vectors,
                                   unsigned refine_bits, double lists) {
  return QuantizedBinding::create([&] {
    QuantizedIndexOptions o;
    o.dim = dim_option(dim);
    o.metric = parse_metric(metric);
    o.bits = bits;
    o.seed = seed_option(seed);
    o.keep_vectors = keep_vectors;
    o.refine_bits = refine_bits;
    o.lists = lists < 0 ? QuantizedIndexOptions::kAutoLists : static_cast<size_t>(lists);
    return QuantizedIndex(o);
  });
}

HnswBinding* create_hnsw(double dim, const std::string& metric, double M, double ef_construction, double seed,
                         double ef_search, const std::string& storage, bool keep_vectors, bool neighbor_codes) {
  return HnswBinding::create([&] {
    HnswIndexOptions o;
    o.dim = dim_option(dim);
    o.metric = parse_metric(metric);
    o.M = count_option(M, "M");
    o.ef_construction = count_option(ef_construction, "efConstruction");
    o.seed = seed_option(seed);
    o.ef_search = count_option(ef_search, "efSearch");
    o.storage = parse_hnsw_storage(storage);
    o.keep_vectors = keep_vectors;
    o.neighbor_codes = neighbor_codes;
    return HnswIndex(o);
  });
}

bool compact_hnsw(HnswBinding& b) {
  return guarded_call([&] { b.index().compact(); });
}

// The kind stored in index file bytes ("flat", "quantized", "hnsw"), after validating the
// container and its checksums.
std::string index_kind_of(uintptr_t bytes, size_t size) {
  return guarded(std::string(),
                 [&] { return std::string(index_kind_name(io::index_kind_of(ptr<const uint8_t>(bytes), size))); });
}

// The kinds this module has, from the index kind registry, in its order: "flat,quantized,hnsw".
// The JS kind table (which class wraps which kind) is checked against it when the module loads.
std::string index_kind_names() {
  return guarded(std::string(), [] {
    std::string names;
    for (const IndexKindEntry* e : index_kinds()) names += (names.empty() ? "" : ",") + std::string(e->name);
    return names;
  });
}

std::string active_isa_name() {
  return guarded(std::string(), [] { return std::string(isa_name(active_isa())); });
}

// Kernel paths beyond the ISA level that this engine turned on, comma-separated: "relaxed-dot"
// where the relaxed-simd variant found relaxed_dot exact (simd/kernels_wasm128.cpp).
std::string kernel_feature_names() {
#if defined(QUIVER_HAVE_WASM128)
  return simd::wasm128_relaxed_dot() ? "relaxed-dot" : "";
#else
  return "";
#endif
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

// The module's WorkObserver (q.setWorkObserver, js/api.js): installed on the calling thread — the
// one JS runs on — until replaced or cleared (null). `fn(step, done, total)` returns whether to
// go on; the JS side keeps it from throwing (an exception must not unwind wasm frames).
std::unique_ptr<WorkObserverScope> js_work_observer;
bool set_work_observer(emscripten::val fn) {
  return guarded_call([&] {
    js_work_observer.reset();
    if (fn.isNull() || fn.isUndefined()) return;
    js_work_observer = std::make_unique<WorkObserverScope>([fn](const char* step, size_t done, size_t total) {
      return fn(std::string(step), double(done), double(total)).as<bool>();
    });
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
  function("kernelFeatures", &kernel_feature_names);
  function("fillUnitGaussian", &fill_unit_gaussian);
  function("indexKindOf", &index_kind_of);
  function("indexKinds", &index_kind_names);
  function("lastErrorCode", &last_error_code);
  function("lastErrorMessage", &last_error_message);
  function("setWorkObserver", &set_work_observer);

  register_index<FlatIndex>("FlatIndex").class_function("create", &create_flat, allow_raw_pointers());
  register_index<QuantizedIndex>("QuantizedIndex")
      .class_function("create", &create_quantized, allow_raw_pointers())
      .function("bits", optional_override([](const QuantizedBinding& b) { return b.index().bits(); }))
      .function("seed", optional_override([](const QuantizedBinding& b) { return double(b.index().seed()); }))
      .function("keepsVectors", optional_override([](const QuantizedBinding& b) { return b.index().keeps_vectors(); }))
      .function("refineBits", optional_override([](const QuantizedBinding& b) { return b.index().refine_bits(); }))
      // -1 = auto; lists() is the count now (0 unpartitioned, 1 before training).
      .function("listsOption", optional_override([](const QuantizedBinding& b) {
                  const size_t l = b.index().lists_option();
                  return l == QuantizedIndexOptions::kAutoLists ? -1.0 : double(l);
                }))
      .function("lists", optional_override([](const QuantizedBinding& b) { return double(b.index().lists()); }))
      .function("defaultProbes",
                optional_override([](const QuantizedBinding& b) { return double(b.index().default_probes()); }));
  register_index<HnswIndex>("HnswIndex")
      .class_function("create", &create_hnsw, allow_raw_pointers())
      .function("compact", &compact_hnsw)
      .function("M", optional_override([](const HnswBinding& b) { return b.index().M(); }))
      .function("efConstruction", optional_override([](const HnswBinding& b) { return b.index().ef_construction(); }))
      .function("seed", optional_override([](const HnswBinding& b) { return double(b.index().seed()); }))
      .function("maxLevel", optional_override([](const HnswBinding& b) { return b.index().max_level(); }))
      .function("nodeBytes", optional_override([](const HnswBinding& b) { return b.index().node_bytes(); }))
      .function("efSearch", optional_override([](const HnswBinding& b) { return b.index().ef_search(); }))
      .function("storage", optional_override([](const HnswBinding& b) {
                  return std::string(hnsw_storage_name(b.index().storage()));
                }))
      .function("keepsVectors", optional_override([](const HnswBinding& b) { return b.index().keeps_vectors(); }))
      .function("neighborCodes", optional_override([](const HnswBinding& b) { return b.index().neighbor_codes(); }))
      .function("bytesPerVector",
                optional_override([](const HnswBinding& b) { return double(b.index().bytes_per_vector()); }));
}

}  // namespace quiver::bindings
