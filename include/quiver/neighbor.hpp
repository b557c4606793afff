// One search result: a caller id and its distance (smaller is closer, see metric.hpp).
#pragma once

#include <cstdint>

namespace quiver {

struct Neighbor {
  uint64_t id;
  float distance;
};

// The id of "no result". No index accepts it as a caller id. search_batch of every index
// kind returns k' = min(k, size()) and gives every row k' slots: the row's hits first
// (closest first), then Neighbor{kNoId, +inf} for each slot the row could not fill (an
// allow list or filter that admits fewer ids, an approximate search that reached fewer).
inline constexpr uint64_t kNoId = UINT64_MAX;

// Result order used by every index: by distance, ties broken by the smaller id. With this
// total order every ISA level and every target returns the same list.
inline bool neighbor_before(const Neighbor& a, const Neighbor& b) noexcept {
  return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
}

}  // namespace quiver
