// The typed column indexes of a collection's filterable fields: one array per declared field,
// indexed by row, so a filter is evaluated by scanning small fixed-width arrays and never
// touches a record's JSON.
//   string   a dictionary code per row (u32; 0 = the field is missing)
//   number   a float64 per row (NaN = missing)
//   boolean  a byte per row (0 missing, 1 false, 2 true)
//   tags     a list of dictionary codes per row, kept in one pool (u32 offset + u16 count)
// The namespace of every row is a string column of its own (Columns::ns).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collection/json.hpp"
#include "quiver/collection.hpp"

namespace quiver::collection {

// Strings of one column, each with a code (1, 2, ...) and the number of rows that hold it; a
// code no row holds is reused.
class Dictionary {
 public:
  // The code of `text`, or 0.
  uint32_t find(const std::string& text) const;
  // The code of `text`, adding it (with no rows) if needed.
  uint32_t intern(const std::string& text);
  void ref(uint32_t code) noexcept { ++rows_[code]; }
  void unref(uint32_t code) noexcept;
  const std::string& text(uint32_t code) const noexcept { return texts_[code]; }
  size_t codes() const noexcept { return texts_.size(); }  // 1 + the largest code
  size_t live_codes() const noexcept { return codes_.size(); }
  size_t memory_bytes() const noexcept;

 private:
  std::unordered_map<std::string, uint32_t> codes_;
  std::vector<std::string> texts_{std::string()};  // code 0: missing
  std::vector<uint64_t> rows_{0};
  std::vector<uint32_t> free_;
};

// One row's values of the declared fields, checked against their types but not yet coded.
struct StagedValues {
  struct Value {
    bool present = false;
    double number = 0;
    bool boolean = false;
    std::string text;
    std::vector<std::string> tags;
  };
  std::vector<Value> values;  // one per declared field, in declaration order
  std::string ns;
};

class Columns {
 public:
  explicit Columns(std::vector<FieldSpec> fields);

  const std::vector<FieldSpec>& fields() const noexcept { return fields_; }
  // The declared field's position, or -1.
  int field_index(const std::string& name) const noexcept;

  // Reads the declared fields of a metadata object (already a valid record: see
  // check_metadata); Error(InvalidArgument) naming the record for a value of the wrong type.
  StagedValues stage(const Json& metadata, const std::string& ns, const std::string& record) const;

  // Makes room for rows [0, rows) and for `values` being set (so that set() below allocates only
  // in the dictionaries).
  void reserve(size_t rows, const std::vector<StagedValues>& values);
  void set(uint32_t row, const StagedValues& values);
  void clear(uint32_t row) noexcept;

  // What a filter reads.
  struct Column {
    FieldType type;
    Dictionary dict;                  // string, tags
    std::vector<uint32_t> codes;      // string
    std::vector<double> numbers;      // number
    std::vector<uint8_t> booleans;    // boolean
    std::vector<uint32_t> tag_start;  // tags: row -> offset in tag_pool
    std::vector<uint16_t> tag_count;
    std::vector<uint32_t> tag_pool;
    size_t tag_garbage = 0;  // pool entries no row points at
  };
  const Column& column(size_t field) const noexcept { return columns_[field]; }
  const Column& ns() const noexcept { return ns_; }
  size_t rows() const noexcept { return rows_; }

  size_t memory_bytes() const noexcept;

 private:
  void compact_tags(Column& c);

  std::vector<FieldSpec> fields_;
  std::vector<Column> columns_;
  Column ns_;
  size_t rows_ = 0;
};

}  // namespace quiver::collection
