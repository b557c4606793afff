// Collection filters: the JSON filter language (quiver/collection.hpp) compiled against the
// declared fields, and evaluated on the column indexes into the set of matching rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collection/columns.hpp"

namespace quiver::collection {

// A set of rows, one bit each.
struct RowSet {
  std::vector<uint64_t> words;
  size_t rows = 0;

  void assign(size_t n, bool value);
  bool test(size_t row) const noexcept { return (words[row >> 6] >> (row & 63)) & 1; }
  void set(size_t row) noexcept { words[row >> 6] |= uint64_t(1) << (row & 63); }
  void invert() noexcept;  // within [0, rows)
  void intersect(const RowSet& other) noexcept;
  void unite(const RowSet& other) noexcept;
  size_t count() const noexcept;
};

struct FilterNode;

// A filter checked against the declared fields: compile() throws Error(InvalidArgument) for an
// unknown operator, an undeclared field, a value of the wrong type or a malformed filter.
class Filter {
 public:
  static Filter compile(std::string_view json, const Columns& columns);
  Filter(Filter&&) noexcept;
  Filter& operator=(Filter&&) noexcept;
  ~Filter();

  // The rows [0, columns.rows()) the filter admits (rows that hold no record are left to the
  // caller to mask out). `columns` must be the one compiled against.
  RowSet evaluate(const Columns& columns) const;
  // Whether one row passes (the reference the tests hold evaluate() to).
  bool matches(const Columns& columns, uint32_t row) const;

 private:
  Filter();
  std::unique_ptr<FilterNode> root_;
};

}  // namespace quiver::collection
