// The two sections every kind with a free list stores alike (HNSW, quantised; flat has no free
// list): SLOT, each slot's id, kNoId for a free slot, 8 bytes a slot; FREE, the free slots as
// 4-byte slot numbers in the order later adds take them. Their tags, their declared sizes and
// the free-list check are written here once. Writing stays with each kind: HNSW copies its
// sections under its update lock (adds go on while the file is written), the quantised
// writer produces them lazily under its read lock. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "container/format.hpp"
#include "quiver/error.hpp"

namespace quiver::io::slot_sections {

constexpr uint32_t kSlotTag = io::fourcc("SLOT");
constexpr uint32_t kFreeTag = io::fourcc("FREE");

// What the size checks say a section holds.
inline constexpr const char* kSlotRecords = "slots x 8-byte ids";
inline constexpr const char* kFreeRecords = "free x 4-byte slot numbers";

// The free list must be exactly the free slots, each once: throws Error(Corrupt) naming the
// first entry that is out of range, not free (`is_free(slot)` false) or named again. `free_slot`
// is what the kind calls a free slot in its messages ("tombstone", "free slot"). The caller
// checks separately that the free slots number the header's count (each kind at its place in
// its loader's order, which fixes a damaged file's first fault).
template <class IsFree>
void check_free_list(const uint32_t* free_list, size_t n, uint64_t slots, IsFree&& is_free, const char* free_slot) {
  std::vector<bool> seen(static_cast<size_t>(slots), false);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t s = free_list[i];
    if (s >= slots || !is_free(s) || seen[s]) {
      throw Error(ErrorCode::Corrupt, "index file: the free list names slot " + std::to_string(s) +
                                          ", which is not a distinct " + free_slot);
    }
    seen[s] = true;
  }
}

}  // namespace quiver::io::slot_sections
