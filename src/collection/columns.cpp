// The typed column indexes (columns.hpp).
#include "collection/columns.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collection/metadata.hpp"
#include "quiver/error.hpp"

namespace quiver::collection {

uint32_t Dictionary::find(const std::string& text) const {
  const auto it = codes_.find(text);
  return it == codes_.end() ? 0 : it->second;
}

uint32_t Dictionary::intern(const std::string& text) {
  if (const uint32_t code = find(text)) return code;
  uint32_t code;
  if (!free_.empty()) {
    code = free_.back();
    texts_[code] = text;
  } else {
    if (texts_.size() >= UINT32_MAX) throw Error(ErrorCode::InvalidArgument, "a column holds at most 2^32 - 1 strings");
    code = uint32_t(texts_.size());
    texts_.push_back(text);
    rows_.push_back(0);
    free_.reserve(texts_.size());  // so that unref(), which cannot fail, never allocates
  }
  codes_.emplace(text, code);
  if (!free_.empty() && free_.back() == code) free_.pop_back();
  return code;
}

void Dictionary::unref(uint32_t code) noexcept {
  if (code == 0 || --rows_[code] != 0) return;
  // The last row with this string is gone: forget it, reuse its code. (free_ has room: it never
  // holds more codes than texts_.)
  codes_.erase(texts_[code]);
  texts_[code].clear();
  texts_[code].shrink_to_fit();
  free_.push_back(code);
}

size_t Dictionary::memory_bytes() const noexcept {
  size_t bytes = texts_.capacity() * sizeof(std::string) + rows_.capacity() * sizeof(uint64_t) +
                 free_.capacity() * sizeof(uint32_t) + codes_.bucket_count() * sizeof(void*);
  for (const std::string& t : texts_) bytes += t.capacity() > 15 ? t.capacity() + 1 : 0;
  // A hash node: the key, the code, the next pointer and the cached hash.
  for (const auto& [text, code] : codes_)
    bytes += sizeof(std::string) + 24 + (text.capacity() > 15 ? text.capacity() + 1 : 0);
  return bytes;
}

Columns::Columns(std::vector<FieldSpec> fields) : fields_(std::move(fields)) {
  if (fields_.size() > kMaxDeclaredFields)
    throw Error(ErrorCode::InvalidArgument, "a collection declares at most " + std::to_string(kMaxDeclaredFields) +
                                                " filterable fields, not " + std::to_string(fields_.size()));
  for (size_t i = 0; i < fields_.size(); ++i) {
    check_field_name(fields_[i].name, "a declared field");
    for (size_t j = 0; j < i; ++j)
      if (fields_[j].name == fields_[i].name)
        throw Error(ErrorCode::InvalidArgument, "the field \"" + fields_[i].name + "\" is declared twice");
    const FieldType t = fields_[i].type;
    if (t != FieldType::string && t != FieldType::number && t != FieldType::boolean && t != FieldType::tags)
      throw Error(ErrorCode::InvalidArgument, "the field \"" + fields_[i].name + "\" has an unknown type");
  }
  columns_.resize(fields_.size());
  for (size_t i = 0; i < fields_.size(); ++i) columns_[i].type = fields_[i].type;
  ns_.type = FieldType::string;
}

int Columns::field_index(const std::string& name) const noexcept {
  for (size_t i = 0; i < fields_.size(); ++i)
    if (fields_[i].name == name) return int(i);
  return -1;
}

StagedValues Columns::stage(const Json& metadata, const std::string& ns, const std::string& record) const {
  StagedValues staged;
  staged.values.resize(fields_.size());
  staged.ns = ns;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Json* v = metadata.find(fields_[i].name);
    if (v == nullptr) continue;
    StagedValues::Value& out = staged.values[i];
    out.present = true;
    const FieldType t = fields_[i].type;
    const bool ok = (t == FieldType::string && v->is(Json::Type::string)) ||
                    (t == FieldType::number && v->is(Json::Type::number)) ||
                    (t == FieldType::boolean && v->is(Json::Type::boolean)) ||
                    (t == FieldType::tags && (v->is(Json::Type::array) || v->is(Json::Type::string)));
    if (!ok)
      throw Error(ErrorCode::InvalidArgument, "the metadata of " + record + ": \"" + fields_[i].name +
                                                  "\" is declared " + field_type_name(t) + ", but holds " +
                                                  json_type_name(v->type));
    if (t == FieldType::string) out.text = v->text;
    if (t == FieldType::number) out.number = v->number;
    if (t == FieldType::boolean) out.boolean = v->boolean;
    if (t == FieldType::tags) {
      // A single string is a list of one tag; a tag given twice counts once.
      if (v->is(Json::Type::string)) {
        out.tags.push_back(v->text);
      } else {
        for (const Json& item : v->items) {
          bool seen = false;
          for (const std::string& t2 : out.tags) seen = seen || t2 == item.text;
          if (!seen) out.tags.push_back(item.text);
        }
      }
    }
  }
  return staged;
}

void Columns::reserve(size_t rows, const std::vector<StagedValues>& values) {
  const auto grow = [](auto& v, size_t n) {
    if (v.size() < n) {
      if (v.capacity() < n) v.reserve(std::max(n, v.capacity() + v.capacity() / 2));
    }
  };
  for (size_t i = 0; i < columns_.size(); ++i) {
    Column& c = columns_[i];
    switch (c.type) {
      case FieldType::string: grow(c.codes, rows); break;
      case FieldType::number: grow(c.numbers, rows); break;
      case FieldType::boolean: grow(c.booleans, rows); break;
      case FieldType::tags: {
        grow(c.tag_start, rows);
        grow(c.tag_count, rows);
        size_t adding = 0;
        for (const StagedValues& s : values) adding += s.values[i].tags.size();
        if (c.tag_pool.size() + adding > UINT32_MAX)
          throw Error(ErrorCode::InvalidArgument, "a tags column holds at most 2^32 - 1 tags");
        grow(c.tag_pool, c.tag_pool.size() + adding);
        break;
      }
    }
  }
  grow(ns_.codes, rows);
  // Every string the rows will hold gets its code now, so that set() only looks codes up (a
  // string interned here by a write that then fails stays in the dictionary, unused).
  for (const StagedValues& s : values) {
    for (size_t i = 0; i < columns_.size(); ++i) {
      const StagedValues::Value& v = s.values[i];
      if (!v.present) continue;
      if (columns_[i].type == FieldType::string) columns_[i].dict.intern(v.text);
      if (columns_[i].type == FieldType::tags)
        for (const std::string& tag : v.tags) columns_[i].dict.intern(tag);
    }
    if (!s.ns.empty()) ns_.dict.intern(s.ns);
  }
}

namespace {

template <typename T>
void put(std::vector<T>& v, uint32_t row, T value) {
  if (v.size() <= row) v.resize(size_t(row) + 1, T());  // within the reserved capacity
  v[row] = value;
}

}  // namespace

void Columns::set(uint32_t row, const StagedValues& staged) {
  if (row >= rows_) rows_ = size_t(row) + 1;
  for (size_t i = 0; i < columns_.size(); ++i) {
    Column& c = columns_[i];
    const StagedValues::Value& v = staged.values[i];
    switch (c.type) {
      case FieldType::string: {
        const uint32_t code = v.present ? c.dict.intern(v.text) : 0;
        if (code != 0) c.dict.ref(code);
        put(c.codes, row, code);
        break;
      }
      case FieldType::number:
        put(c.numbers, row, v.present ? v.number : std::numeric_limits<double>::quiet_NaN());
        break;
      case FieldType::boolean: put(c.booleans, row, uint8_t(v.present ? (v.boolean ? 2 : 1) : 0)); break;
      case FieldType::tags: {
        put(c.tag_start, row, uint32_t(c.tag_pool.size()));
        put(c.tag_count, row, uint16_t(v.tags.size()));
        for (const std::string& tag : v.tags) {
          const uint32_t code = c.dict.intern(tag);
          c.dict.ref(code);
          c.tag_pool.push_back(code);
        }
        break;
      }
    }
  }
  const uint32_t ns_code = staged.ns.empty() ? 0 : ns_.dict.intern(staged.ns);
  if (ns_code != 0) ns_.dict.ref(ns_code);
  put(ns_.codes, row, ns_code);
}

void Columns::clear(uint32_t row) noexcept {
  if (row >= rows_) return;
  for (Column& c : columns_) {
    switch (c.type) {
      case FieldType::string:
        c.dict.unref(c.codes[row]);
        c.codes[row] = 0;
        break;
      case FieldType::number: c.numbers[row] = std::numeric_limits<double>::quiet_NaN(); break;
      case FieldType::boolean: c.booleans[row] = 0; break;
      case FieldType::tags:
        for (uint32_t i = 0; i < c.tag_count[row]; ++i) c.dict.unref(c.tag_pool[c.tag_start[row] + i]);
        c.tag_garbage += c.tag_count[row];
        c.tag_count[row] = 0;
        if (c.tag_garbage > 1024 && c.tag_garbage * 2 > c.tag_pool.size()) compact_tags(c);
        break;
    }
  }
  ns_.dict.unref(ns_.codes[row]);
  ns_.codes[row] = 0;
}

void Columns::compact_tags(Column& c) {
  // In place, front to back: every live list moves down (rows in pool order are not sorted by
  // row, so order the moves by start offset).
  std::vector<uint32_t> order;
  try {
    order.reserve(c.tag_start.size());
  } catch (...) {
    return;  // no memory to compact now: the garbage stays until the next clear
  }
  for (uint32_t r = 0; r < c.tag_start.size(); ++r)
    if (c.tag_count[r] != 0) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return c.tag_start[a] < c.tag_start[b]; });
  uint32_t end = 0;
  for (uint32_t r : order) {
    for (uint32_t i = 0; i < c.tag_count[r]; ++i) c.tag_pool[end + i] = c.tag_pool[c.tag_start[r] + i];
    c.tag_start[r] = end;
    end += c.tag_count[r];
  }
  c.tag_pool.resize(end);
  c.tag_garbage = 0;
}

namespace {

size_t column_bytes(const Columns::Column& c) noexcept {
  return c.dict.memory_bytes() + c.codes.capacity() * 4 + c.numbers.capacity() * 8 + c.booleans.capacity() +
         c.tag_start.capacity() * 4 + c.tag_count.capacity() * 2 + c.tag_pool.capacity() * 4;
}

}  // namespace

size_t Columns::memory_bytes() const noexcept {
  size_t bytes = column_bytes(ns_);
  for (const Column& c : columns_) bytes += column_bytes(c);
  return bytes;
}

}  // namespace quiver::collection
