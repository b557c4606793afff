// Collection — a vector store over any index kind: string or integer ids, a JSON metadata
// record per vector, typed column indexes for the fields declared filterable, namespaces, and
// filtered queries whose filter is applied first (the results are the top k of the matching
// vectors, never fewer than min(k, matching)).
//
//   quiver::CollectionOptions o;
//   o.dim = 384;
//   o.index = "hnsw";
//   o.fields = {{"lang", quiver::FieldType::string}, {"year", quiver::FieldType::number}};
//   quiver::Collection docs(o);
//   docs.upsert({{std::string("doc-1"), vector, R"({"lang":"en","year":2024})"}});
//   quiver::QueryOptions q;
//   q.top_k = 5;
//   q.filter = R"({"lang":"en","year":{"$gte":2020}})";
//   quiver::QueryResult r = docs.query(query, q);
//
// Limits (Error(InvalidArgument) beyond them, nothing changed):
//   ids        an integer in [0, 2^53 - 1] (so that JavaScript numbers hold it exactly) or a
//              non-empty UTF-8 string of at most 256 bytes; 7 and "7" are different ids
//   metadata   a JSON object of at most 64 fields and 10 KiB (as compact JSON); a field name is
//              1-64 bytes and does not start with '$'; a value is a string, a finite number, a
//              boolean or an array of at most 256 strings (no null, no nested objects)
//   namespace  "" (none) or a UTF-8 string of at most 64 bytes
//   fields     at most 32 declared filterable fields
//
// Filters are JSON (the operators of Cloudflare Vectorize, plus nesting and tags):
//   {"lang": "en"}                          equality ($eq)
//   {"year": {"$gte": 2020, "$lt": 2025}}   $eq $ne $lt $lte $gt $gte $in $nin (several: all must hold)
//   {"tags": {"$contains": "news"}}         tags: $contains, $in (any of), $nin (none of)
//   {"$and": [...]}, {"$or": [...]}, {"$not": {...}}; several keys in one object: all must hold
// Only declared fields can be filtered; an unknown operator, an undeclared field or a value of
// the wrong type is Error(InvalidArgument), never ignored. A record without the field matches
// only $ne and $nin (and $not of what it fails). Strings compare by their UTF-8 bytes.
//
// Threads: any number of concurrent readers (query, get, size, describe, serialize); writers
// (upsert, insert, remove) run one at a time and exclusive of readers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "quiver/any_index.hpp"
#include "quiver/metric.hpp"

namespace quiver {

using RecordId = std::variant<uint64_t, std::string>;

inline constexpr uint64_t kMaxIntegerRecordId = (uint64_t(1) << 53) - 1;
inline constexpr size_t kMaxRecordIdBytes = 256;
inline constexpr size_t kMaxMetadataBytes = 10240;
inline constexpr size_t kMaxMetadataFields = 64;
inline constexpr size_t kMaxFieldNameBytes = 64;
inline constexpr size_t kMaxTagsPerValue = 256;
inline constexpr size_t kMaxNamespaceBytes = 64;
inline constexpr size_t kMaxDeclaredFields = 32;

enum class FieldType : uint8_t { string = 1, number = 2, boolean = 3, tags = 4 };
// "string", "number", "boolean", "tags"; parse_field_type throws Error(InvalidArgument).
const char* field_type_name(FieldType type) noexcept;
FieldType parse_field_type(const std::string& name);

struct FieldSpec {
  std::string name;
  FieldType type = FieldType::string;
};

struct CollectionOptions {
  size_t dim = 0;
  Metric metric = Metric::cosine;
  std::string index = "hnsw";                // the index kind's name (flat, quantized, hnsw, ...)
  std::map<std::string, std::string> knobs;  // the kind's own knobs by name ("bits" -> "4")
  std::vector<FieldSpec> fields;             // the filterable fields
};

struct Record {
  RecordId id;
  std::vector<float> values;
  std::string metadata;  // a JSON object, or "" for none
  std::string ns;        // the namespace, "" for none
};

struct QueryOptions {
  size_t top_k = 10;
  std::string filter;             // JSON, "" for none
  std::optional<std::string> ns;  // only this namespace ("" = the rows without one)
  bool return_values = false;     // needs an index that keeps f32 vectors
  bool return_metadata = false;
  // The kind's own search knobs (ef, probes, rerank, float_tables). Their allow and predicate
  // must be empty: the collection sets them from the filter.
  AnySearchParams search;
};

struct Match {
  RecordId id;
  float distance = 0;  // the index's distance: smaller is closer (l2: squared; ip and cosine: 1 - similarity)
  std::string ns;
  std::string metadata;       // with return_metadata ("" when the record has none)
  std::vector<float> values;  // with return_values
};

// How a query was answered.
struct QueryPlan {
  // "unfiltered": the index searched every vector (no filter, or one every vector passes);
  // "prefilter": the filter was evaluated on the column indexes first and the index searched
  // only the matching vectors, given as an allow bitmap (flat: scored exactly; partitioned
  // quantised: lists scanned until enough matches were scored; HNSW: the matches scored exactly,
  // when they are at most 1/16 of the vectors); "filtered-walk": HNSW walked its graph testing
  // each node against the matching rows; "filtered-walk+allow-list": that walk came back short
  // of min(top_k, matching) and the query ran again with the allow bitmap, which HNSW fills
  // exactly; "empty": nothing
  // matched.
  std::string strategy;
  size_t matching = 0;  // vectors the filter (and namespace) admits
  size_t total = 0;     // vectors in the collection
};

struct QueryResult {
  std::vector<Match> matches;  // min(top_k, matching), closest first
  QueryPlan plan;
};

struct CollectionStats {
  size_t size = 0;
  size_t dim = 0;
  Metric metric = Metric::cosine;
  std::string index;         // the kind's name
  std::string index_detail;  // AnyIndex::describe()
  std::vector<FieldSpec> fields;
  size_t namespaces = 0;
  // Memory in bytes, by part.
  size_t index_bytes = 0;
  size_t id_bytes = 0;
  size_t metadata_bytes = 0;
  size_t column_bytes = 0;
  size_t memory_bytes = 0;  // the sum
};

class Collection {
 public:
  // Error(InvalidArgument) for a bad option (dim 0, an unknown kind or knob, a repeated or
  // invalid field name, too many fields).
  explicit Collection(const CollectionOptions& options);
  ~Collection();
  Collection(Collection&&) noexcept;
  Collection& operator=(Collection&&) noexcept;
  Collection(const Collection&) = delete;
  Collection& operator=(const Collection&) = delete;

  // Adds the records, replacing those whose id is present (vector, metadata and namespace).
  // All-or-nothing: a bad id, a repeated id, a wrong dimension, NaN/Inf, bad metadata (also a
  // declared field of the wrong type) throws and changes nothing.
  void upsert(const std::vector<Record>& records);
  // As upsert, but an id already present is Error(DuplicateId).
  void insert(const std::vector<Record>& records);
  // The records with these ids (nullopt for an id not present), with their vectors if asked.
  std::vector<std::optional<Record>> get(const std::vector<RecordId>& ids, bool values = false) const;
  // Removes the records; an id not present (or repeated) is Error(UnknownId) and removes nothing.
  void remove(const std::vector<RecordId>& ids);

  QueryResult query(const float* vector, size_t values, const QueryOptions& options) const;
  QueryResult query(const std::vector<float>& vector, const QueryOptions& options) const {
    return query(vector.data(), vector.size(), options);
  }

  // The collection's file: its index's file (any reader of that kind loads it as a plain index)
  // plus an optional section with the ids, namespaces, metadata and field declarations; the
  // column indexes are rebuilt from them on load. save() is atomic (temp file + rename).
  std::vector<uint8_t> serialize() const;
  void save(const std::string& path) const;
  // Validates everything (the index as its kind does; every id, record and declared value)
  // before handing the collection out: Error(Corrupt, Truncated, ChecksumMismatch, ...), and
  // Error(InvalidArgument) for an index file that holds no collection.
  static Collection load(const uint8_t* data, size_t size);
  static Collection load_file(const std::string& path);

  bool contains(const RecordId& id) const;
  size_t size() const;
  size_t dim() const noexcept;
  CollectionStats describe() const;

 private:
  struct Impl;
  explicit Collection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// An id as text, for messages: 7 or "doc-1" (quoted).
std::string record_id_text(const RecordId& id);

}  // namespace quiver
