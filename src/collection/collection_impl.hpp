// The state of a Collection (quiver/collection.hpp), shared by its operations
// (collection.cpp) and its file section (collection_format.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/rw_lock.hpp"
#include "collection/columns.hpp"
#include "quiver/collection.hpp"

namespace quiver {

// Rows are 32-bit (the column arrays, the index's slot numbers).
inline constexpr size_t kMaxCollectionRows = UINT32_MAX - 1;

struct Collection::Impl {
  using Columns = collection::Columns;

  CollectionOptions options;
  std::unique_ptr<AnyIndex> index;
  Columns columns;
  std::unordered_map<std::string, uint32_t> row_of;  // id key -> row
  std::vector<std::string> keys;                     // row -> id key ("" for a free row)
  std::vector<std::string> metadata;                 // row -> compact JSON ("" for none)
  std::vector<uint64_t> live;                        // row -> holds a record (bits)
  std::vector<uint32_t> free_rows;
  size_t size = 0;
  mutable core::SharedMutex lock;

  explicit Impl(const CollectionOptions& o) : options(o), columns(o.fields) {}

  uint32_t rows() const noexcept { return uint32_t(keys.size()); }
  bool is_live(uint32_t row) const noexcept { return (live[row >> 6] >> (row & 63)) & 1; }

  void write(const std::vector<Record>& records, bool must_be_new);
  void erase(const std::vector<RecordId>& ids);
  QueryResult query(const float* vector, const QueryOptions& o) const;
  Record record(uint32_t row, bool values) const;
  std::vector<uint8_t> file_section() const;  // collection_format.cpp
};

}  // namespace quiver
