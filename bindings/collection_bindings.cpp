// The Embind layer of quiver::Collection (include/quiver/collection.hpp), as thin as the index
// binding beside it (quiver_bindings.cpp) and under the same rules: no entry point throws into
// JS (errors.hpp: a failure returns false, null or "" and leaves its code and message in the
// error slot), and arrays cross as pointers into the JS wrapper's staging buffers
// (js/kinds/collection.js).
//
// What crosses, and how:
//   vectors   float32 rows of `dim` values, staged by JS (n x dim).
//   records   the ids, metadata and namespaces of a batch as JSON text, one object per record:
//             [{"id":"doc-1","metadata":{...},"namespace":"a"}, ...], read with the strict
//             parser of the collection (collection/json.hpp). An id is a JSON string or a JSON
//             number that is an integer in [0, 2^53 - 1]; anything else is INVALID_ARGUMENT.
//   results   JSON text: the stored metadata is compact JSON already and is embedded as it is;
//             vectors (returnValues) go to a staged output buffer, row i for match (record) i.
//   files     serialize() keeps the file bytes in C++ for JS to copy out; load() reads bytes JS
//             put in the heap.
//
// A write reaches the collection as one call (all or nothing), but its records may arrive in
// several pieces: the parser reads at most 1 MiB of JSON at a time (kMaxJsonBytes) and JS keeps
// its staging bounded, so stageRecords() / stageIds() append to a pending batch and upsert(),
// insert(), remove() and get() consume it (and empty it, whether they succeed or not).
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "collection/json.hpp"
#include "errors.hpp"
#include "quiver/collection.hpp"
#include "quiver/error.hpp"
#include "quiver/metric.hpp"

namespace quiver::bindings {
namespace {

using collection::Json;

constexpr double kMaxIdDouble = 9007199254740991.0;  // 2^53 - 1

[[noreturn]] void bad(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

bool is_integer_in(double x, double low, double high) { return x >= low && x <= high && std::floor(x) == x; }

std::string number_text(double x) {
  std::string out;
  collection::write_json_number(x, out);
  return out;
}

// A record id as JSON gives it: a string, or an integer in [0, 2^53 - 1].
RecordId record_id(const Json& v, const std::string& what) {
  if (v.is(Json::Type::string)) return v.text;
  if (v.is(Json::Type::number) && is_integer_in(v.number, 0, kMaxIdDouble)) return uint64_t(v.number);
  bad(what + ": an id is a string or an integer in [0, 2^53 - 1], not " +
      (v.is(Json::Type::number) ? "the number " + number_text(v.number) : std::string(json_type_name(v.type))));
}

std::string record_name(size_t i) { return "record " + std::to_string(i); }

// One record's JSON object (its vector is staged apart).
Record record_from(const Json& item, size_t i) {
  const std::string what = record_name(i);
  if (!item.is(Json::Type::object)) bad(what + " is " + json_type_name(item.type) + ", not an object");
  Record r;
  bool has_id = false;
  for (const auto& [key, value] : item.fields) {
    if (key == "id") {
      r.id = record_id(value, what);
      has_id = true;
    } else if (key == "metadata") {
      if (!value.is(Json::Type::object)) bad(what + ": metadata must be an object, not " + json_type_name(value.type));
      if (!value.fields.empty()) collection::write_json(value, r.metadata);
    } else if (key == "namespace") {
      if (!value.is(Json::Type::string)) bad(what + ": namespace must be a string, not " + json_type_name(value.type));
      r.ns = value.text;
    } else {
      bad(what + ": unknown field \"" + key + "\" (a record has id, values, metadata and namespace)");
    }
  }
  if (!has_id) bad(what + " has no id");
  return r;
}

// The collection options as JS sends them:
//   {"dim":384,"metric":"cosine","index":"hnsw","knobs":{"M":"16"},"fields":{"lang":"string"}}
// knobs are the kind's own, by their C++ names (the kind refuses one it does not have).
CollectionOptions parse_options(const std::string& text) {
  const Json o = collection::parse_json(text, "the collection options");
  if (!o.is(Json::Type::object)) bad("the collection options must be an object");
  CollectionOptions out;
  bool has_dim = false;
  for (const auto& [key, v] : o.fields) {
    if (key == "dim") {
      if (!v.is(Json::Type::number) || !is_integer_in(v.number, 1, 16777216))
        bad("dim must be an integer in [1, 16777216]");
      out.dim = size_t(v.number);
      has_dim = true;
    } else if (key == "metric") {
      if (!v.is(Json::Type::string)) bad("metric must be a string");
      out.metric = parse_metric(v.text);
    } else if (key == "index") {
      if (!v.is(Json::Type::string)) bad("index must be the name of an index kind");
      out.index = v.text;
    } else if (key == "knobs") {
      if (!v.is(Json::Type::object)) bad("the index options must be an object");
      for (const auto& [name, knob] : v.fields) {
        if (knob.is(Json::Type::string)) {
          out.knobs[name] = knob.text;
        } else if (knob.is(Json::Type::number)) {
          out.knobs[name] = number_text(knob.number);
        } else if (knob.is(Json::Type::boolean)) {
          out.knobs[name] = knob.boolean ? "true" : "false";
        } else {
          bad("index option " + name + " must be a string, a number or a boolean");
        }
      }
    } else if (key == "fields") {
      if (!v.is(Json::Type::object)) bad("fields must be an object of field name -> type");
      for (const auto& [name, type] : v.fields) {
        if (!type.is(Json::Type::string))
          bad("field \"" + name + "\": the type is one of string, number, boolean, tags");
        out.fields.push_back({name, parse_field_type(type.text)});
      }
    } else {
      bad("unknown collection option \"" + key + "\" (it takes dim, metric, index, knobs, fields)");
    }
  }
  if (!has_dim) bad("a collection needs dim");
  return out;
}

// A non-negative integer option that arrives as a JS number.
size_t count_option(double x, const char* name) {
  if (!is_integer_in(x, 0, 4294967295.0)) bad(std::string(name) + " must be an integer in [0, 2^32 - 1]");
  return size_t(x);
}

void write_id(const RecordId& id, std::string& out) {
  if (const uint64_t* n = std::get_if<uint64_t>(&id)) {
    out += std::to_string(*n);
  } else {
    collection::write_json_string(std::get<std::string>(id), out);
  }
}

// JSON has no NaN or infinity; JSON.parse reads 1e999 as Infinity.
void write_distance(float d, std::string& out) {
  if (std::isnan(d)) {
    out += "null";
  } else if (std::isinf(d)) {
    out += d > 0 ? "1e999" : "-1e999";
  } else {
    collection::write_json_number(double(d), out);
  }
}

// A stored record's metadata: its compact JSON, or {} for none.
void write_metadata(const std::string& metadata, std::string& out) { out += metadata.empty() ? "{}" : metadata; }

class CollectionBinding {
 public:
  explicit CollectionBinding(Collection&& collection) : collection_(std::move(collection)) {}

  // A new collection, or null (error recorded).
  static CollectionBinding* create(const std::string& options) {
    return guarded<CollectionBinding*>(nullptr,
                                       [&] { return new CollectionBinding(Collection(parse_options(options))); });
  }

  // A collection from its file bytes (Collection::load: everything validated first), or null.
  static CollectionBinding* load(uintptr_t bytes, size_t size) {
    return guarded<CollectionBinding*>(nullptr, [&] {
      return new CollectionBinding(Collection::load(reinterpret_cast<const uint8_t*>(bytes), size));
    });
  }

  // The collection's file: serialize() keeps the bytes in C++ and returns their size, JS copies
  // them out of the heap at serializedBytes() and then calls releaseSerialized().
  double serialize() {
    return guarded(kFailed, [&] {
      serialized_ = collection_.serialize();
      return double(serialized_.size());
    });
  }
  uintptr_t serialized_bytes() const { return reinterpret_cast<uintptr_t>(serialized_.data()); }
  void release_serialized() { std::vector<uint8_t>().swap(serialized_); }

  // Appends n records to the pending batch: their JSON (an array of n objects) and their
  // vectors (n x dim floats at `vectors`). `first` is the position of the first of them in
  // the caller's batch (for messages).
  bool stage_records(const std::string& json, uintptr_t vectors, size_t n, double first) {
    return guarded_call([&] {
      const size_t base = size_t(first);
      const Json batch = collection::parse_json(json, "the records");
      if (!batch.is(Json::Type::array) || batch.items.size() != n)
        bad("the records must be a JSON array of " + std::to_string(n) + " objects");
      const size_t dim = collection_.dim();
      const float* v = reinterpret_cast<const float*>(vectors);
      std::vector<Record> staged;
      staged.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        Record r = record_from(batch.items[i], base + i);
        r.values.assign(v + i * dim, v + (i + 1) * dim);
        staged.push_back(std::move(r));
      }
      pending_records_.reserve(pending_records_.size() + n);
      for (Record& r : staged) pending_records_.push_back(std::move(r));
    });
  }

  // Appends the ids of a JSON array to the pending ids.
  bool stage_ids(const std::string& json, double first) {
    return guarded_call([&] {
      const size_t base = size_t(first);
      const Json ids = collection::parse_json(json, "the ids");
      if (!ids.is(Json::Type::array)) bad("the ids must be a JSON array");
      std::vector<RecordId> staged;
      staged.reserve(ids.items.size());
      for (size_t i = 0; i < ids.items.size(); ++i)
        staged.push_back(record_id(ids.items[i], "id at position " + std::to_string(base + i)));
      pending_ids_.insert(pending_ids_.end(), std::make_move_iterator(staged.begin()),
                          std::make_move_iterator(staged.end()));
    });
  }

  void clear_pending() {
    std::vector<Record>().swap(pending_records_);
    std::vector<RecordId>().swap(pending_ids_);
  }

  bool upsert() {
    return guarded_call([&] {
      const std::vector<Record> records = take_records();
      collection_.upsert(records);
    });
  }
  bool insert() {
    return guarded_call([&] {
      const std::vector<Record> records = take_records();
      collection_.insert(records);
    });
  }
  bool remove() {
    return guarded_call([&] {
      const std::vector<RecordId> ids = take_ids();
      collection_.remove(ids);
    });
  }

  // The records of the pending ids as a JSON array (null for an id not present), their
  // vectors (with `values`) at out + i x dim for position i. `rows`: what `out` holds.
  std::string get(bool values, uintptr_t out, size_t rows) {
    return guarded(std::string(), [&] {
      const std::vector<RecordId> ids = take_ids();
      if (values && ids.size() > rows) throw Error(ErrorCode::Internal, "the output buffer is too small");
      const std::vector<std::optional<Record>> found = collection_.get(ids, values);
      const size_t dim = collection_.dim();
      std::string json = "[";
      for (size_t i = 0; i < found.size(); ++i) {
        if (i > 0) json += ',';
        if (!found[i]) {
          json += "null";
          continue;
        }
        const Record& r = *found[i];
        json += "{\"id\":";
        write_id(r.id, json);
        if (!r.ns.empty()) {
          json += ",\"namespace\":";
          collection::write_json_string(r.ns, json);
        }
        json += ",\"metadata\":";
        write_metadata(r.metadata, json);
        json += '}';
        if (values) std::copy(r.values.begin(), r.values.end(), reinterpret_cast<float*>(out) + i * dim);
      }
      json += ']';
      return json;
    });
  }

  // {"matches":[{"id":..,"distance":..,"namespace":..,"metadata":{..}}],"plan":{..}}; with
  // return_values the vector of match i at out + i x dim (`rows`: what `out` holds).
  // rerank: -1 = the kind's default, else a depth; ef and probes: 0 = the kind's default.
  std::string query(uintptr_t vector, size_t values, double top_k, const std::string& filter, bool has_namespace,
                    const std::string& ns, bool return_values, bool return_metadata, double ef, double rerank,
                    double probes, uintptr_t out, size_t rows) const {
    return guarded(std::string(), [&] {
      if (!is_integer_in(top_k, 1, 4294967295.0))
        throw Error(ErrorCode::InvalidK, "topK must be an integer in [1, 2^32 - 1], got " + number_text(top_k));
      QueryOptions o;
      o.top_k = size_t(top_k);
      o.filter = filter;
      if (has_namespace) o.ns = ns;
      o.return_values = return_values;
      o.return_metadata = return_metadata;
      o.search.ef = count_option(ef, "ef");
      o.search.probes = count_option(probes, "probes");
      if (rerank != -1.0) {
        if (!(rerank >= 0) || std::floor(rerank) != rerank || double(o.top_k) * rerank > 2147483647.0)
          bad("rerank must be a non-negative integer with topK x rerank at most 2^31 - 1");
        o.search.rerank = size_t(rerank);
      }
      const QueryResult r = collection_.query(reinterpret_cast<const float*>(vector), values, o);
      if (return_values && r.matches.size() > rows) throw Error(ErrorCode::Internal, "the output buffer is too small");
      const size_t dim = collection_.dim();
      std::string json = "{\"matches\":[";
      for (size_t i = 0; i < r.matches.size(); ++i) {
        const Match& m = r.matches[i];
        if (i > 0) json += ',';
        json += "{\"id\":";
        write_id(m.id, json);
        json += ",\"distance\":";
        write_distance(m.distance, json);
        if (!m.ns.empty()) {
          json += ",\"namespace\":";
          collection::write_json_string(m.ns, json);
        }
        if (return_metadata) {
          json += ",\"metadata\":";
          write_metadata(m.metadata, json);
        }
        json += '}';
        if (return_values) std::copy(m.values.begin(), m.values.end(), reinterpret_cast<float*>(out) + i * dim);
      }
      json += "],\"plan\":{\"strategy\":";
      collection::write_json_string(r.plan.strategy, json);
      json += ",\"matching\":" + std::to_string(r.plan.matching) + ",\"total\":" + std::to_string(r.plan.total) + "}}";
      return json;
    });
  }

  // {"size":..,"dim":..,"metric":..,"index":..,"indexDetail":..,"fields":{..},"namespaces":..,
  //  "memory":{"index":..,"ids":..,"metadata":..,"columns":..,"total":..}}
  std::string describe() const {
    return guarded(std::string(), [&] {
      const CollectionStats s = collection_.describe();
      std::string json = "{\"size\":" + std::to_string(s.size) + ",\"dim\":" + std::to_string(s.dim) + ",\"metric\":";
      collection::write_json_string(metric_name(s.metric), json);
      json += ",\"index\":";
      collection::write_json_string(s.index, json);
      json += ",\"indexDetail\":";
      collection::write_json_string(s.index_detail, json);
      json += ",\"fields\":{";
      for (size_t i = 0; i < s.fields.size(); ++i) {
        if (i > 0) json += ',';
        collection::write_json_string(s.fields[i].name, json);
        json += ':';
        collection::write_json_string(field_type_name(s.fields[i].type), json);
      }
      json += "},\"namespaces\":" + std::to_string(s.namespaces);
      json += ",\"memory\":{\"index\":" + std::to_string(s.index_bytes) + ",\"ids\":" + std::to_string(s.id_bytes) +
              ",\"metadata\":" + std::to_string(s.metadata_bytes) + ",\"columns\":" + std::to_string(s.column_bytes) +
              ",\"total\":" + std::to_string(s.memory_bytes) + "}}";
      return json;
    });
  }

  double size() const {
    return guarded(kFailed, [&] { return double(collection_.size()); });
  }
  double dim() const { return double(collection_.dim()); }
  double memory_bytes() const {
    return guarded(kFailed, [&] { return double(collection_.describe().memory_bytes); });
  }

 private:
  // The pending batch, taken out (so it is empty afterwards, whatever happens next).
  std::vector<Record> take_records() {
    std::vector<Record> out;
    out.swap(pending_records_);
    return out;
  }
  std::vector<RecordId> take_ids() {
    std::vector<RecordId> out;
    out.swap(pending_ids_);
    return out;
  }

  Collection collection_;
  std::vector<Record> pending_records_;
  std::vector<RecordId> pending_ids_;
  std::vector<uint8_t> serialized_;
};

}  // namespace
}  // namespace quiver::bindings

EMSCRIPTEN_BINDINGS(quiver_collection) {
  using namespace emscripten;
  using quiver::bindings::CollectionBinding;
  class_<CollectionBinding>("Collection")
      .class_function("create", &CollectionBinding::create, allow_raw_pointers())
      .class_function("load", &CollectionBinding::load, allow_raw_pointers())
      .function("serialize", &CollectionBinding::serialize)
      .function("serializedBytes", &CollectionBinding::serialized_bytes)
      .function("releaseSerialized", &CollectionBinding::release_serialized)
      .function("stageRecords", &CollectionBinding::stage_records)
      .function("stageIds", &CollectionBinding::stage_ids)
      .function("clearPending", &CollectionBinding::clear_pending)
      .function("upsert", &CollectionBinding::upsert)
      .function("insert", &CollectionBinding::insert)
      .function("remove", &CollectionBinding::remove)
      .function("get", &CollectionBinding::get)
      .function("query", &CollectionBinding::query)
      .function("describe", &CollectionBinding::describe)
      .function("size", &CollectionBinding::size)
      .function("dim", &CollectionBinding::dim)
      .function("memoryBytes", &CollectionBinding::memory_bytes);
}
