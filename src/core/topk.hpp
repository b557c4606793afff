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

// neighbor_before as a function object, so the heap operations inline it.
struct NeighborBefore {
  bool operator()(const Neighbor& a, const Neighbor& b) const noexcept { return neighbor_before(a, b); }
};

class TopK {
 public:
  TopK(Neighbor* slots, size_t k) noexcept : slots_(slots), k_(k) {}

  // Distance a candidate must beat once the heap is full (+inf before that). Scans use it to
  // skip candidates without touching the heap.
  float threshold() const noexcept { return size_ < k_ ? INFINITY : slots_[0].distance; }

  void push(uint64_t id, float distance) noexcept {
    // NaN can only arise from overflowing arithmetic on finite inputs (inf - inf); it ranks
    // last instead of poisoning the heap order.
    if (std::isnan(distance)) distance = INFINITY;
    Neighbor candidate{id, distance};
    if (size_ < k_) {
      slots_[size_++] = candidate;
      std::push_heap(slots_, slots_ + size_, NeighborBefore{});
    } else if (neighbor_before(candidate, slots_[0])) {
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
  Neighbor* slots_;
  size_t k_;
  size_t size_ = 0;
};

}  // namespace quiver::core
