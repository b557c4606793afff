// Inverted lists (quantized_lists.hpp): block allocation, append, and the move-last removal.
#include "index/quantized/partition/quantized_lists.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/check.hpp"
#include "quiver/error.hpp"

namespace quiver::quantized {

using quant::kBlockVectors;

InvertedLists::InvertedLists(size_t lists, size_t code_bytes)
    : lists_(lists),
      code_bytes_(code_bytes),
      arena_(block_bytes(), core::RowBlocks<uint8_t>::rows_per_chunk_within(block_bytes(), kChunkBytes)) {}

size_t InvertedLists::memory_bytes() const noexcept {
  size_t bytes = lists_.capacity() * sizeof(List) + arena_.memory_bytes() + free_.capacity() * sizeof(uint32_t);
  for (const List& l : lists_) bytes += l.places.capacity() * sizeof(uint32_t);
  return bytes;
}

void InvertedLists::reset_block(uint8_t* block) const noexcept {
  std::memset(block, 0, block_bytes());
  float* off = reinterpret_cast<float*>(block + code_bytes_);
  for (size_t v = 0; v < kBlockVectors; ++v) off[v] = INFINITY;  // padding never scores
}

void InvertedLists::ensure_free(size_t need) {
  if (free_.size() >= need) return;
  const size_t had = arena_.capacity_rows();
  if (need - free_.size() > size_t(UINT32_MAX) - had) {
    throw Error(ErrorCode::OutOfMemory, "more blocks than a partitioned index can hold");
  }
  arena_.reserve(had + (need - free_.size()));  // whole chunks; Error(OutOfMemory), nothing added
  try {
    // Every place can be free at once: releasing a block never allocates.
    free_.reserve(arena_.capacity_rows());
  } catch (const std::bad_alloc&) {
    arena_.shrink_to(had);
    throw Error(ErrorCode::OutOfMemory, "out of memory growing the inverted lists' block table");
  }
  free_in_front(had, arena_.capacity_rows());
}

void InvertedLists::free_in_front(size_t first, size_t end) noexcept {
  // Free places are taken from the back, so new ones go in front, highest first: the free
  // places already there (the last chunk's) are taken before these, and these in ascending
  // order, so that a list growing alone gets consecutive places. (Room reserved: the insert
  // cannot throw.)
  free_.insert(free_.begin(), end - first, 0);
  for (size_t i = 0; i < end - first; ++i) free_[i] = uint32_t(end - 1 - i);
}

void InvertedLists::take_place(size_t list) noexcept {
  QUIVER_DCHECK(!free_.empty(), "inverted lists: no free place was reserved");
  std::vector<uint32_t>& places = lists_[list].places;
  const uint32_t place = free_.back();
  free_.pop_back();
  reset_block(arena_.row(place));
  places.push_back(place);  // capacity reserved by the caller
  ++used_places_;
  breaks_ += is_break(places, places.size() - 1);
}

void InvertedLists::drop_place(size_t list) noexcept {
  std::vector<uint32_t>& places = lists_[list].places;
  breaks_ -= is_break(places, places.size() - 1);
  free_.push_back(places.back());  // capacity: every place of the arena
  places.pop_back();
  --used_places_;
}

void InvertedLists::reserve(size_t list, size_t extra) {
  List& l = lists_[list];
  const size_t need = (size_t(l.size) + extra + kBlockVectors - 1) / kBlockVectors;
  if (need <= l.places.size()) return;
  l.places.reserve(std::max(need, l.places.size() + l.places.size() / 2));
  ensure_free(need - l.places.size());
  while (l.places.size() < need) take_place(list);
}

void InvertedLists::reserve_places(size_t spare) { ensure_free(spare); }

void InvertedLists::adopt_arena(InvertedLists& old) noexcept {
  // The old lists' spare blocks (room reserved beyond their positions) are free from now on.
  for (size_t l = 0; l < old.lists(); ++l) {
    while (old.lists_[l].places.size() > old.blocks(l)) old.drop_place(l);
  }
  arena_ = std::move(old.arena_);
  free_ = std::move(old.free_);
  used_places_ = old.used_places_;
  breaks_ = 0;  // the new lists are empty
}

void InvertedLists::release_block(InvertedLists& from, size_t from_list, size_t block) noexcept {
  free_.push_back(from.lists_[from_list].places[block]);  // the arena's, adopted from `from`
  --used_places_;
}

void InvertedLists::ensure_room(size_t list) noexcept {
  if (size_t(lists_[list].size) >= lists_[list].places.size() * kBlockVectors) take_place(list);
}

uint32_t InvertedLists::append_moved(size_t list, uint32_t slot, const InvertedLists& from, size_t from_list,
                                     uint32_t from_pos) noexcept {
  ensure_room(list);
  List& l = lists_[list];
  const uint32_t pos = l.size++;
  const size_t b = pos / kBlockVectors, v = pos % kBlockVectors;
  const size_t fb = from_pos / kBlockVectors, fv = from_pos % kBlockVectors;
  uint8_t* dst = codes(list, b);
  // `from`'s blocks are in this arena now (adopt_arena).
  const uint8_t* src = arena_.row(from.lists_[from_list].places[fb]);
  const float* src_floats = reinterpret_cast<const float*>(src + code_bytes_);
  for (size_t p = 0; p < code_bytes_ / kBlockVectors; ++p) dst[p * kBlockVectors + v] = src[p * kBlockVectors + fv];
  floats(list, b, 0)[v] = src_floats[fv];
  floats(list, b, 1)[v] = src_floats[kBlockVectors + fv];
  slot_lane(list, b)[v] = slot;
  return pos;
}

uint32_t InvertedLists::append_planned(size_t list, uint32_t slot, const uint8_t* codes, size_t subq, float offset,
                                       float scale) noexcept {
  ensure_room(list);
  return append(list, slot, codes, subq, offset, scale);
}

void InvertedLists::pack() noexcept {
  const size_t capacity = arena_.capacity_rows();
  std::vector<uint64_t> owner;  // place -> 1 + (list << 32 | block), 0 when free
  std::vector<uint8_t> spare;   // one block, for a swap
  try {
    owner.assign(capacity, 0);
    spare.resize(block_bytes());
  } catch (...) {
    return;  // no scratch: the lists stay as they are, only slower to scan
  }
  for (size_t l = 0; l < lists_.size(); ++l) {
    const std::vector<uint32_t>& places = lists_[l].places;
    for (size_t b = 0; b < places.size(); ++b) owner[places[b]] = 1 + (uint64_t(l) << 32 | b);
  }
  // Place t, in list order, gets its block: whatever holds t now (not yet final, since every
  // place below t is) moves to where that block was.
  size_t t = 0;
  for (size_t l = 0; l < lists_.size(); ++l) {
    std::vector<uint32_t>& places = lists_[l].places;
    for (size_t b = 0; b < places.size(); ++b, ++t) {
      const uint32_t from = places[b];
      if (from == t) continue;
      uint8_t* target = arena_.row(t);
      uint8_t* source = arena_.row(from);
      const uint64_t occupant = owner[t];
      if (occupant != 0) {
        std::memcpy(spare.data(), target, block_bytes());
        std::memcpy(target, source, block_bytes());
        std::memcpy(source, spare.data(), block_bytes());
        lists_[size_t((occupant - 1) >> 32)].places[size_t((occupant - 1) & UINT32_MAX)] = from;
      } else {
        std::memcpy(target, source, block_bytes());
      }
      owner[from] = occupant;
      owner[t] = 1 + (uint64_t(l) << 32 | b);
      places[b] = uint32_t(t);
    }
  }
  // Places [t, capacity) are free: the chunks past them go back, the rest are the free places.
  arena_.shrink_to(t);
  free_.clear();
  free_in_front(t, arena_.capacity_rows());
  used_places_ = t;
  breaks_ = 0;
}

void InvertedLists::pack_if_scattered() noexcept {
  constexpr size_t kMinScattered = 32;
  if (breaks_ > kMinScattered && breaks_ > used_places_ / 8) pack();
}

uint32_t InvertedLists::push(size_t list, uint32_t slot, float offset, float scale) noexcept {
  const uint32_t pos = lists_[list].size++;
  const size_t b = pos / kBlockVectors, v = pos % kBlockVectors;
  floats(list, b, 0)[v] = offset;
  floats(list, b, 1)[v] = scale;
  slot_lane(list, b)[v] = slot;
  return pos;
}

uint32_t InvertedLists::append(size_t list, uint32_t slot, const uint8_t* codes, size_t subq, float offset,
                               float scale) noexcept {
  const uint32_t pos = push(list, slot, offset, scale);
  write_lane(this->codes(list, pos / kBlockVectors), pos % kBlockVectors, codes, subq);
  return pos;
}

uint32_t InvertedLists::append_packed(size_t list, uint32_t slot, const uint8_t* packed, size_t subq, float offset,
                                      float scale) noexcept {
  const uint32_t pos = push(list, slot, offset, scale);
  write_lane_packed(this->codes(list, pos / kBlockVectors), pos % kBlockVectors, packed, subq);
  return pos;
}

uint32_t InvertedLists::remove(size_t list, uint32_t pos) noexcept {
  List& l = lists_[list];
  const uint32_t last = --l.size;
  const size_t lb = last / kBlockVectors, lv = last % kBlockVectors;
  uint32_t moved = kNone;
  if (pos != last) {
    const size_t b = pos / kBlockVectors, v = pos % kBlockVectors;
    uint8_t* dst = codes(list, b);
    const uint8_t* src = codes(list, lb);
    for (size_t p = 0; p < code_bytes_ / kBlockVectors; ++p) dst[p * kBlockVectors + v] = src[p * kBlockVectors + lv];
    floats(list, b, 0)[v] = floats(list, lb, 0)[lv];
    floats(list, b, 1)[v] = floats(list, lb, 1)[lv];
    moved = slot_lane(list, lb)[lv];
    slot_lane(list, b)[v] = moved;
  }
  // The old last position becomes padding.
  uint8_t* c = codes(list, lb);
  for (size_t p = 0; p < code_bytes_ / kBlockVectors; ++p) c[p * kBlockVectors + lv] = 0;
  floats(list, lb, 0)[lv] = INFINITY;
  floats(list, lb, 1)[lv] = 0.0f;
  slot_lane(list, lb)[lv] = 0;
  while (l.places.size() > blocks(list)) drop_place(list);  // emptied (and spare) blocks back to the arena
  return moved;
}

}  // namespace quiver::quantized
