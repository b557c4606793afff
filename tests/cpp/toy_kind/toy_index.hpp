// A toy index kind for the kind registry test: exact L2 search over a plain array, its own
// file section ("TOYV") and its own header number (200). It lives in this folder only and is
// registered by one line (toy_kind.cpp), which is all a new kind needs to be created, loaded,
// streamed, inspected and searched through every generic part of quiver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "quiver/any_index.hpp"

namespace toy {

inline constexpr quiver::IndexKind kToyKind = quiver::IndexKind(200);

class ToyIndex {
 public:
  ToyIndex(size_t dim, std::string label) : dim_(dim), label_(std::move(label)) {}

  size_t dim() const noexcept { return dim_; }
  quiver::Metric metric() const noexcept { return quiver::Metric::l2; }
  quiver::Isa isa() const noexcept { return quiver::Isa::scalar; }
  size_t size() const noexcept { return ids_.size(); }
  bool contains(uint64_t id) const noexcept;
  size_t memory_bytes() const noexcept { return ids_.size() * 8 + rows_.size() * 4; }
  const std::string& label() const noexcept { return label_; }

  void add(const uint64_t* ids, const float* vectors, size_t n);
  void remove(const uint64_t* ids, size_t n);
  size_t search(const float* query, size_t k, quiver::Neighbor* out, const quiver::SearchParams& params) const;
  size_t search_batch(const float* queries, size_t nq, size_t k, quiver::Neighbor* out,
                      const quiver::SearchParams& params) const;

  std::vector<uint8_t> serialize() const;
  void save(const std::string& path) const;
  // The index of a TOYV payload: u32 label length, label, then per row u64 id and dim floats.
  static ToyIndex decode(size_t dim, size_t count, const uint8_t* data, size_t n);

 private:
  size_t dim_;
  std::string label_;
  std::vector<uint64_t> ids_;
  std::vector<float> rows_;
};

// What AnyIndex needs of a kind, found by argument-dependent lookup.
inline quiver::IndexKind kind_of(const ToyIndex&) noexcept { return kToyKind; }
inline quiver::SearchParams kind_params(const ToyIndex&, const quiver::AnySearchParams& p) { return p; }
inline std::string describe(const ToyIndex& index) { return "toy, label " + index.label(); }

}  // namespace toy
