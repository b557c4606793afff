// Collection (quiver/collection.hpp): ids, metadata records and column indexes around an
// index of any kind. Each record lives in a row; the row number is the record's id in the
// index, so a filter's matching rows are directly the index's allow list. A write checks and
// stages everything, reserves every array, adds to the index (all-or-nothing), and only then
// commits what cannot fail; a replaced record's old row is removed from the index last and its
// row number reused.
#include "quiver/collection.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/rw_lock.hpp"
#include "base/validate.hpp"
#include "collection/collection_impl.hpp"
#include "collection/filter.hpp"
#include "collection/metadata.hpp"
#include "index/common/kind_registry.hpp"
#include "quiver/error.hpp"
#include "quiver/isa.hpp"

namespace quiver {

using collection::check_record_id;
using collection::Columns;
using collection::Filter;
using collection::Json;
using collection::RowSet;
using collection::StagedValues;

Collection::Collection(const CollectionOptions& options) {
  if (options.dim == 0) throw Error(ErrorCode::InvalidArgument, "a collection needs dim >= 1");
  auto impl = std::make_unique<Impl>(options);
  const IndexKindEntry& kind = index_kind(parse_index_kind(options.index));
  KindOptions k;
  k.dim = options.dim;
  k.metric = options.metric;
  k.isa = active_isa();
  k.knobs = options.knobs;
  impl->index = kind.create(k);
  impl_ = std::move(impl);
}

Collection::~Collection() = default;
Collection::Collection(Collection&&) noexcept = default;
Collection& Collection::operator=(Collection&&) noexcept = default;

void Collection::Impl::write(const std::vector<Record>& records, bool must_be_new) {
  const size_t n = records.size();
  if (n == 0) return;
  const size_t dim = options.dim;

  // 1. Check and stage every record; nothing is changed yet.
  std::vector<std::string> new_keys(n), canonical(n);
  std::vector<StagedValues> staged(n);
  std::vector<int64_t> replaced(n, -1);  // the row a record replaces
  std::unordered_set<std::string> seen;
  seen.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Record& r = records[i];
    check_record_id(r.id);
    const std::string name = "record " + std::to_string(i) + " (id " + record_id_text(r.id) + ")";
    new_keys[i] = collection::id_key(r.id);
    if (!seen.insert(new_keys[i]).second)
      throw Error(ErrorCode::DuplicateId, "id " + record_id_text(r.id) + " appears twice in one write");
    if (const auto it = row_of.find(new_keys[i]); it != row_of.end()) {
      if (must_be_new) throw Error(ErrorCode::DuplicateId, "id " + record_id_text(r.id) + " is already present");
      replaced[i] = it->second;
    }
    if (r.values.size() != dim)
      throw Error(ErrorCode::DimensionMismatch, name + " has " + std::to_string(r.values.size()) +
                                                    " values, the collection's dimension is " + std::to_string(dim));
    collection::check_namespace(r.ns, name);
    const Json meta = collection::check_metadata(r.metadata, name, canonical[i]);
    staged[i] = columns.stage(meta, r.ns, name);
  }

  // 2. Rows: free ones first, then new ones at the end.
  const size_t reused = std::min(n, free_rows.size());
  if (rows() + (n - reused) > kMaxCollectionRows)
    throw Error(ErrorCode::InvalidArgument,
                "a collection holds at most " + std::to_string(kMaxCollectionRows) + " rows");
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i)
    ids[i] = i < reused ? free_rows[free_rows.size() - 1 - i] : uint64_t(rows()) + (i - reused);
  const size_t rows_after = rows() + (n - reused);
  std::vector<float> vectors(n * dim);
  for (size_t i = 0; i < n; ++i) std::copy(records[i].values.begin(), records[i].values.end(), &vectors[i * dim]);
  std::vector<uint64_t> old_rows;
  for (size_t i = 0; i < n; ++i)
    if (replaced[i] >= 0) old_rows.push_back(uint64_t(replaced[i]));

  // 3. Reserve everything the commit touches, and make the new id map entries.
  keys.reserve(rows_after);
  metadata.reserve(rows_after);
  live.reserve((rows_after + 63) / 64);
  free_rows.reserve(free_rows.size() + old_rows.size());
  columns.reserve(rows_after, staged);
  row_of.reserve(row_of.size() + n);
  std::unordered_map<std::string, uint32_t> entries;
  for (size_t i = 0; i < n; ++i)
    if (replaced[i] < 0) entries.emplace(new_keys[i], uint32_t(ids[i]));

  // 4. The index: all-or-nothing (it checks the vectors: NaN, Inf, norms, zero under cosine).
  index->add(ids.data(), vectors.data(), n);

  // 5. Commit: nothing below allocates.
  if (!old_rows.empty()) index->remove(old_rows.data(), old_rows.size());
  free_rows.resize(free_rows.size() - reused);
  if (keys.size() < rows_after) {
    keys.resize(rows_after);
    metadata.resize(rows_after);
    live.resize((rows_after + 63) / 64, 0);
  }
  // New rows first, old rows after: a string both hold keeps its dictionary code (clearing
  // the old row first could free it, and setting the new row would then allocate it again).
  for (size_t i = 0; i < n; ++i) {
    const uint32_t row = uint32_t(ids[i]);
    columns.set(row, staged[i]);
    keys[row] = std::move(new_keys[i]);
    metadata[row] = std::move(canonical[i]);
    live[row >> 6] |= uint64_t(1) << (row & 63);
    if (replaced[i] >= 0) {
      row_of.find(keys[row])->second = row;
    } else {
      row_of.insert(entries.extract(keys[row]));
      ++size;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (replaced[i] < 0) continue;
    const uint32_t old = uint32_t(replaced[i]);
    columns.clear(old);
    std::string().swap(keys[old]);  // frees the heap text, allocates nothing
    std::string().swap(metadata[old]);
    live[old >> 6] &= ~(uint64_t(1) << (old & 63));
    free_rows.push_back(old);
  }
}

void Collection::upsert(const std::vector<Record>& records) {
  core::WriteLock guard(impl_->lock);
  impl_->write(records, false);
}

void Collection::insert(const std::vector<Record>& records) {
  core::WriteLock guard(impl_->lock);
  impl_->write(records, true);
}

void Collection::Impl::erase(const std::vector<RecordId>& ids) {
  std::vector<uint64_t> rows_out(ids.size());
  std::unordered_set<std::string> seen;
  seen.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    check_record_id(ids[i]);
    const std::string key = collection::id_key(ids[i]);
    if (!seen.insert(key).second)
      throw Error(ErrorCode::DuplicateId, "id " + record_id_text(ids[i]) + " appears twice in one remove");
    const auto it = row_of.find(key);
    if (it == row_of.end()) throw Error(ErrorCode::UnknownId, "id " + record_id_text(ids[i]) + " is not present");
    rows_out[i] = it->second;
  }
  if (rows_out.empty()) return;
  free_rows.reserve(free_rows.size() + rows_out.size());
  index->remove(rows_out.data(), rows_out.size());
  for (const uint64_t r : rows_out) {
    const uint32_t row = uint32_t(r);
    row_of.erase(keys[row]);
    columns.clear(row);
    std::string().swap(keys[row]);  // frees the heap text, allocates nothing
    std::string().swap(metadata[row]);
    live[row >> 6] &= ~(uint64_t(1) << (row & 63));
    free_rows.push_back(row);
    --size;
  }
}

void Collection::remove(const std::vector<RecordId>& ids) {
  core::WriteLock guard(impl_->lock);
  impl_->erase(ids);
}

Record Collection::Impl::record(uint32_t row, bool values) const {
  Record r;
  r.id = collection::id_from_key(keys[row]);
  r.metadata = metadata[row];
  const uint32_t ns = columns.ns().codes[row];
  if (ns != 0) r.ns = columns.ns().dict.text(ns);
  if (values) {
    r.values.resize(options.dim);
    index->get(row, r.values.data());
  }
  return r;
}

std::vector<std::optional<Record>> Collection::get(const std::vector<RecordId>& ids, bool values) const {
  core::ReadLock guard(impl_->lock);
  if (values && !impl_->index->has_vectors()) throw_no_vectors(impl_->index->kind());
  std::vector<std::optional<Record>> out(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    check_record_id(ids[i]);
    const auto it = impl_->row_of.find(collection::id_key(ids[i]));
    if (it != impl_->row_of.end()) out[i] = impl_->record(it->second, values);
  }
  return out;
}

QueryResult Collection::Impl::query(const float* vector, const QueryOptions& o) const {
  QueryResult result;
  result.plan.total = size;
  bool filtered = !o.filter.empty() || o.ns.has_value();
  // The filter is compiled (and so checked) even when the collection is empty.
  std::optional<Filter> filter;
  if (!o.filter.empty()) filter.emplace(Filter::compile(o.filter, columns));
  if (o.ns) collection::check_namespace(*o.ns, "the query");

  size_t k = std::min(o.top_k, size);
  RowSet rows;  // the matching rows
  size_t matching = size;
  if (filtered) {
    if (filter) {
      rows = filter->evaluate(columns);
    } else {
      rows.assign(columns.rows(), true);
    }
    for (size_t w = 0; w < rows.words.size(); ++w) rows.words[w] &= w < live.size() ? live[w] : 0;
    if (o.ns) {
      const uint32_t code = o.ns->empty() ? 0 : columns.ns().dict.find(*o.ns);
      const uint32_t* ns = columns.ns().codes.data();
      if (code == 0 && !o.ns->empty()) {
        rows.assign(rows.rows, false);
      } else {
        for (size_t r = 0; r < rows.rows; ++r)
          if (ns[r] != code) rows.words[r >> 6] &= ~(uint64_t(1) << (r & 63));
      }
    }
    matching = rows.count();
    k = std::min(o.top_k, matching);
  }
  result.plan.matching = matching;
  result.plan.strategy = filtered ? "prefilter" : "unfiltered";
  if (k == 0) {
    result.plan.strategy = "empty";
    return result;
  }
  // A filter that admits every vector is no filter for the index (an allow list of all of
  // them would only cost its set-up).
  if (filtered && matching == size) {
    filtered = false;
    result.plan.strategy = "unfiltered";
  }

  // The plan. Row r of the collection is id r of its index, so the matching rows go to the
  // index as they are, an allow bitmap (no set-up per matching row: each kind tests the bit of
  // a vector it reaches, quiver/search_params.hpp). The flat kind scores exactly the matching
  // rows, the partitioned kind scans lists until it has scored enough of them (the
  // unpartitioned one skips blocks with none), and HNSW scores them exactly when few (at most
  // 1/16 of the vectors). When more match, HNSW walks its graph testing each node it reaches
  // against the rows ("filtered-walk", a predicate: no exact fallback inside the index), and
  // when the walk comes back short of min(k, matching) — the matches are too sparse around the
  // query for the beam — the query runs again with the bitmap, which HNSW fills exactly.
  AnySearchParams p = o.search;
  const auto use_allow_bits = [&] {
    p.allow_bits = rows.words.data();
    p.allow_bits_size = rows.rows;
    p.predicate = nullptr;
  };
  const bool walk = filtered && index->kind() == IndexKind::hnsw && matching * 16 > size;
  if (walk) {
    p.predicate = [](const void* ctx, uint64_t id) {
      const RowSet& set = *static_cast<const RowSet*>(ctx);
      return id < set.rows && set.test(size_t(id));
    };
    p.predicate_ctx = &rows;
    result.plan.strategy = "filtered-walk";
  } else if (filtered) {
    use_allow_bits();
  }
  std::vector<Neighbor> found(k);
  size_t got = index->search(vector, k, found.data(), p);
  if (walk && got < k) {
    use_allow_bits();
    got = index->search(vector, k, found.data(), p);
    result.plan.strategy = "filtered-walk+allow-list";
  }
  result.matches.resize(got);
  for (size_t i = 0; i < got; ++i) {
    const uint32_t row = uint32_t(found[i].id);
    Match& m = result.matches[i];
    m.id = collection::id_from_key(keys[row]);
    m.distance = found[i].distance;
    const uint32_t ns = columns.ns().codes[row];
    if (ns != 0) m.ns = columns.ns().dict.text(ns);
    if (o.return_metadata) m.metadata = metadata[row];
    if (o.return_values) {
      m.values.resize(options.dim);
      index->get(row, m.values.data());
    }
  }
  return result;
}

QueryResult Collection::query(const float* vector, size_t values, const QueryOptions& options) const {
  core::check_k(options.top_k);
  core::check_query_size(values, impl_->options.dim);
  if (options.search.allow != nullptr || options.search.allow_count != 0 || options.search.allow_bits != nullptr ||
      options.search.allow_bits_size != 0 || options.search.predicate != nullptr)
    throw Error(ErrorCode::InvalidArgument,
                "a collection query sets the index's allow set and predicate itself (use a filter)");
  if (options.return_values && !impl_->index->has_vectors()) throw_no_vectors(impl_->index->kind());
  core::check_vectors(vector, 1, impl_->options.dim, impl_->options.metric, "the query");
  core::ReadLock guard(impl_->lock);
  return impl_->query(vector, options);
}

bool Collection::contains(const RecordId& id) const {
  check_record_id(id);
  core::ReadLock guard(impl_->lock);
  return impl_->row_of.count(collection::id_key(id)) != 0;
}

size_t Collection::size() const {
  core::ReadLock guard(impl_->lock);
  return impl_->size;
}

size_t Collection::dim() const noexcept { return impl_->options.dim; }

CollectionStats Collection::describe() const {
  core::ReadLock guard(impl_->lock);
  const Impl& m = *impl_;
  CollectionStats s;
  s.size = m.size;
  s.dim = m.options.dim;
  s.metric = m.options.metric;
  s.index = index_kind_name(m.index->kind());
  s.index_detail = m.index->describe();
  s.fields = m.columns.fields();
  s.namespaces = m.columns.ns().dict.live_codes();
  s.index_bytes = m.index->memory_bytes();
  s.id_bytes = m.keys.capacity() * sizeof(std::string) + m.row_of.bucket_count() * sizeof(void*) +
               m.free_rows.capacity() * 4 + m.live.capacity() * 8;
  for (const std::string& key : m.keys)
    if (key.capacity() > 15) s.id_bytes += key.capacity() + 1;
  // A hash node: next pointer, the key (a std::string), the row, the cached hash.
  s.id_bytes += m.row_of.size() * (sizeof(void*) + sizeof(std::string) + 8 + sizeof(size_t));
  s.metadata_bytes = m.metadata.capacity() * sizeof(std::string);
  for (const std::string& meta : m.metadata)
    if (meta.capacity() > 15) s.metadata_bytes += meta.capacity() + 1;
  s.column_bytes = m.columns.memory_bytes();
  s.memory_bytes = s.index_bytes + s.id_bytes + s.metadata_bytes + s.column_bytes;
  return s;
}

}  // namespace quiver
