// One search result: a caller id and its distance (smaller is closer, see metric.hpp).
#pragma once

#include <cstdint>

namespace quiver {

struct Neighbor {
  uint64_t id;
  float distance;
};

// Result order used by every index: by distance, ties broken by the smaller id. With this
// total order every ISA level and every target returns the same list.
inline bool neighbor_before(const Neighbor& a, const Neighbor& b) noexcept {
  return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
}

}  // namespace quiver
