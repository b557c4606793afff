// SearchableIndex — the small read-only interface the index cache (and the benchmarks) hold
// indexes through, so one cache serves the flat, quantised and HNSW indexes alike.
//
//   auto handle = quiver::parallel::make_searchable(std::move(flat_index));   // shared_ptr<const ...>
//   handle->search(query, 10, out);
//
// Any index type with dim(), size(), memory_bytes(), search(query, k, out) and
// search_batch(queries, nq, k, out) (the FlatIndex signatures) plugs in through Searchable<T>;
// specialise index_kind<T> to name it (or pass the name to make_searchable). Only const member functions are reachable through the
// interface, so a cached index is never mutated while searches run on it: to change an index,
// build or copy a new one and put() it into the cache under the same name.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "quiver/flat_index.hpp"
#include "quiver/neighbor.hpp"

namespace quiver::parallel {

class SearchableIndex {
 public:
  virtual ~SearchableIndex() = default;
  // "flat", "quantised", "hnsw", ...
  virtual const char* kind() const noexcept = 0;
  virtual size_t dim() const noexcept = 0;
  virtual size_t size() const noexcept = 0;
  // Bytes the index holds; the cache charges this against its budget.
  virtual size_t memory_bytes() const noexcept = 0;
  // Same contract as FlatIndex::search / search_batch: allocate nothing, results closest
  // first with ties broken by id, return how many were written per query.
  virtual size_t search(const float* query, size_t k, Neighbor* out) const = 0;
  virtual size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out) const = 0;
};

template <typename Index>
struct index_kind {
  static constexpr const char* value = "index";
};
template <>
struct index_kind<FlatIndex> {
  static constexpr const char* value = "flat";
};

// Owns an index and exposes it as a SearchableIndex.
template <typename Index>
class Searchable final : public SearchableIndex {
 public:
  explicit Searchable(Index index, const char* kind = index_kind<Index>::value)
      : index_(std::move(index)), kind_(kind) {}

  const Index& index() const noexcept { return index_; }

  const char* kind() const noexcept override { return kind_; }
  size_t dim() const noexcept override { return index_.dim(); }
  size_t size() const noexcept override { return index_.size(); }
  size_t memory_bytes() const noexcept override { return index_.memory_bytes(); }
  size_t search(const float* query, size_t k, Neighbor* out) const override {
    return index_.search(query, k, out);
  }
  size_t search_batch(const float* queries, size_t nq, size_t k, Neighbor* out) const override {
    return index_.search_batch(queries, nq, k, out);
  }

 private:
  Index index_;
  const char* kind_;  // a string literal
};

// What caches and benchmarks hold: a shared, read-only index.
using IndexHandle = std::shared_ptr<const SearchableIndex>;

// `kind` must be a string literal (or otherwise outlive the index).
template <typename Index>
std::shared_ptr<const SearchableIndex> make_searchable(Index index, const char* kind = index_kind<Index>::value) {
  return std::make_shared<const Searchable<Index>>(std::move(index), kind);
}

}  // namespace quiver::parallel
