// Fixed-capacity top-k selection that works in caller-provided storage, so a search
// allocates nothing. The k slots form a max-heap on (distance, id): the root is the current
// worst kept neighbour, and a candidate enters only if it is strictly better.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "quiver/neighbor.hpp"

namespace quiver::core {

// neighbor_before for any record with `distance` and `id` (Neighbor, or a candidate that also
// carries where it is stored), as a function object so the heap operations inline it.
struct NeighborBefore {
  template <typename T>
  bool operator()(const T& a, const T& b) const noexcept {
    return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
  }
};

// T: Neighbor, or any aggregate whose first two members are a uint64_t id and a float
// distance (further members ride along).
template <typename T>
class BasicTopK {
 public:
  BasicTopK(T* slots, size_t k) noexcept : slots_(slots), k_(k) {}

  // Distance a candidate must beat once the heap is full (+inf before that). Scans use it to
  // skip candidates without touching the heap.
  float threshold() const noexcept { return size_ < k_ ? INFINITY : slots_[0].distance; }

  template <typename... Extra>
  void push(uint64_t id, float distance, Extra... extra) noexcept {
    // NaN can only arise from overflowing arithmetic on finite inputs (inf - inf); it ranks
    // last instead of poisoning the heap order.
    if (std::isnan(distance)) distance = INFINITY;
    const T candidate{id, distance, extra...};
    if (size_ < k_) {
      slots_[size_++] = candidate;
      std::push_heap(slots_, slots_ + size_, NeighborBefore{});
    } else if (NeighborBefore{}(candidate, slots_[0])) {
      std::pop_heap(slots_, slots_ + size_, NeighborBefore{});
      slots_[size_ - 1] = candidate;
      std::push_heap(slots_, slots_ + size_, NeighborBefore{});
    }
  }

  // Sorts the kept neighbours best first and returns how many there are.
  size_t finish() noexcept {
    std::sort_heap(slots_, slots_ + size_, NeighborBefore{});
    return size_;
  }

 private:
  T* slots_;
  size_t k_;
  size_t size_ = 0;
};

using TopK = BasicTopK<Neighbor>;

}  // namespace quiver::core
