// Inverted lists of the partitioned quantised index: each list is a run of blocks of 32
// positions in the fast-scan layout (quant/fastscan.hpp); a block holds the codes, the
// per-vector offset and scale, and the slot of each position. Lists are dense: a removal moves
// the list's last position into the hole (positions past the end are padding, offset = +inf,
// so the scan never returns them). The caller maps slots to (list, position) and updates it
// from what append/remove report.
//
// Where the blocks live: one arena of equal-sized block places (core::RowBlocks, 64 KiB
// chunks), which grows a chunk at a time, so adding never copies the index and never needs
// twice its memory; each list is a table of places. Blocks taken one at a time as lists grow
// (adds, a load that streams slots in slot order, a re-training that fills the new lists as
// the old ones empty) land wherever a place was free, so a list's blocks end up scattered over
// the heap — and a scan that jumps to a new place every block waits on memory at each one
// (wasm has no prefetch, and a hardware prefetcher does not follow jumps). pack() moves the
// blocks, in place, so that every list's blocks are consecutive places; it runs after a load,
// after a re-training and whenever blocks out of place pass an eighth of them. On the 1M x 384
// embedding-like files (2 + 5 codes, 2,048 lists), one sitting, two rounds, same answers:
// wasm simd in Node, default 1,845 / 2,070 -> 3,164 / 3,275 QPS (1,000 topics) and 418 / 471 ->
// 821 / 822 (10,000 topics); natively default 4,802 / 4,935 -> 6,596 / 6,615
// (bench/ivf/results/packed-lists-ab-20261207.*).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/row_blocks.hpp"
#include "quant/fastscan.hpp"

namespace quiver::quantized {

// 4-bit codes of lane v (0..31) of one block: code s sits in the low (s even) or high nibble of
// byte (s / 2) * 32 + v. Shared by the unpartitioned storage and the lists.
inline void write_lane(uint8_t* block, size_t v, const uint8_t* codes, size_t subq) noexcept {
  for (size_t s = 0; s < subq; ++s) {
    uint8_t& byte = block[(s / 2) * quant::kBlockVectors + v];
    byte = (s % 2) ? uint8_t((byte & 0x0F) | (codes[s] << 4)) : uint8_t((byte & 0xF0) | codes[s]);
  }
}
// The same from a packed row (byte j = code 2j | code 2j + 1 << 4: the file's form), which is
// already the block's byte j of the lane, so a byte is one store (a load's whole cost here); of
// an odd last byte only the low nibble, as write_lane() leaves the padding nibble alone.
inline void write_lane_packed(uint8_t* block, size_t v, const uint8_t* packed, size_t subq) noexcept {
  for (size_t j = 0; j < subq / 2; ++j) block[j * quant::kBlockVectors + v] = packed[j];
  if (subq % 2 == 1) {
    uint8_t& byte = block[(subq / 2) * quant::kBlockVectors + v];
    byte = uint8_t((byte & 0xF0) | (packed[subq / 2] & 0x0F));
  }
}
// The lane's codes as a packed row ((subq + 1) / 2 bytes, the padding nibble zero).
inline void read_lane_packed(const uint8_t* block, size_t v, uint8_t* packed, size_t subq) noexcept {
  for (size_t j = 0; j < subq / 2; ++j) packed[j] = block[j * quant::kBlockVectors + v];
  if (subq % 2 == 1) packed[subq / 2] = block[(subq / 2) * quant::kBlockVectors + v] & 0x0F;
}
inline uint8_t read_lane(const uint8_t* block, size_t v, size_t s) noexcept {
  const uint8_t byte = block[(s / 2) * quant::kBlockVectors + v];
  return (s % 2) ? uint8_t(byte >> 4) : uint8_t(byte & 0x0F);
}

class InvertedLists {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  InvertedLists() = default;
  // `lists` empty lists whose blocks hold `code_bytes` bytes of codes (groups x 64).
  InvertedLists(size_t lists, size_t code_bytes);

  size_t lists() const noexcept { return lists_.size(); }
  size_t size(size_t list) const noexcept { return lists_[list].size; }
  size_t blocks(size_t list) const noexcept {
    return (lists_[list].size + quant::kBlockVectors - 1) / quant::kBlockVectors;
  }
  size_t memory_bytes() const noexcept;

  const uint8_t* codes(size_t list, size_t block) const noexcept { return block_at(list, block); }
  uint8_t* codes(size_t list, size_t block) noexcept { return block_at(list, block); }
  const float* offsets(size_t list, size_t block) const noexcept { return floats(list, block, 0); }
  const float* scales(size_t list, size_t block) const noexcept { return floats(list, block, 1); }
  const uint32_t* slots(size_t list, size_t block) const noexcept {
    return reinterpret_cast<const uint32_t*>(block_at(list, block) + code_bytes_ + 2 * kLaneFloatBytes);
  }

  // Room for `extra` more positions in `list`: takes the blocks now (throws Error(OutOfMemory)
  // or std::bad_alloc; the lists' contents are unchanged either way).
  void reserve(size_t list, size_t extra);
  // Appends a position (room reserved); `codes` are subq unpacked 4-bit codes. Returns it.
  uint32_t append(size_t list, uint32_t slot, const uint8_t* codes, size_t subq, float offset, float scale) noexcept;
  // The same with the codes as a packed row (write_lane_packed).
  uint32_t append_packed(size_t list, uint32_t slot, const uint8_t* packed, size_t subq, float offset,
                         float scale) noexcept;
  // The offset or scale of a position already appended: a streamed load appends a slot's
  // codes first, and its scalars arrive later, one section each.
  void set_offset(size_t list, uint32_t pos, float offset) noexcept {
    floats(list, pos / quant::kBlockVectors, 0)[pos % quant::kBlockVectors] = offset;
  }
  void set_scale(size_t list, uint32_t pos, float scale) noexcept {
    floats(list, pos / quant::kBlockVectors, 1)[pos % quant::kBlockVectors] = scale;
  }
  // Removes a position by moving the last one into it. Returns the slot that moved to `pos`,
  // or kNone when `pos` was the last. A block left empty goes back to the arena.
  uint32_t remove(size_t list, uint32_t pos) noexcept;

  // Re-partitioning without holding every code twice (quantized_partition.cpp): the new lists
  // (this, created empty) take over the old lists' arena and take their blocks from the places
  // the old lists give back as they empty. Before (may throw; nothing changes on failure): the
  // new lists' block tables are sized (reserve_block_table) and the old arena holds `spare`
  // free places beyond its blocks (reserve_places). Then, allocating nothing: adopt_arena(old),
  // append_moved for each moved position, release_block(old, ...) for each emptied old block.
  // Places of the arena holding a block of some list (spare ones included), and free ones.
  size_t places_in_use() const noexcept { return used_places_; }
  size_t free_places() const noexcept { return free_.size(); }
  void reserve_block_table(size_t list, size_t blocks) { lists_[list].places.reserve(blocks); }
  void reserve_places(size_t spare);
  void adopt_arena(InvertedLists& old) noexcept;
  uint32_t append_moved(size_t list, uint32_t slot, const InvertedLists& from, size_t from_list,
                        uint32_t from_pos) noexcept;
  // append() that takes a free place when the list's blocks are full (the plan counted it).
  uint32_t append_planned(size_t list, uint32_t slot, const uint8_t* codes, size_t subq, float offset,
                          float scale) noexcept;
  void release_block(InvertedLists& from, size_t from_list, size_t block) noexcept;

  // Moves the blocks so that each list's are consecutive places, lists in order, and frees the
  // arena's chunks past them. Answers, positions and files are unchanged (only where the bytes
  // are). Needs 8 bytes a block of scratch; if that is not there it does nothing (the layout
  // is only ever a matter of speed).
  void pack() noexcept;
  // pack() when the blocks that do not follow their list's previous block are more than an
  // eighth of all blocks (and a few): amortised, each block added moves about 8 more.
  void pack_if_scattered() noexcept;
  // Blocks that do not follow their list's previous block (0 after pack()).
  size_t scattered_blocks() const noexcept { return breaks_; }

 private:
  static constexpr size_t kLaneFloatBytes = quant::kBlockVectors * sizeof(float);
  static constexpr size_t kChunkBytes = size_t(64) << 10;  // arena chunks, at most
  // A new last position holding slot, offset and scale (its codes are the caller's to write).
  uint32_t push(size_t list, uint32_t slot, float offset, float scale) noexcept;
  struct List {
    std::vector<uint32_t> places;  // arena place of each block: blocks() in use, more may be reserved
    uint32_t size = 0;
  };
  uint8_t* block_at(size_t list, size_t block) const noexcept {
    return const_cast<uint8_t*>(arena_.row(lists_[list].places[block]));
  }
  const float* floats(size_t list, size_t block, size_t which) const noexcept {
    return reinterpret_cast<const float*>(block_at(list, block) + code_bytes_ + which * kLaneFloatBytes);
  }
  float* floats(size_t list, size_t block, size_t which) noexcept {
    return reinterpret_cast<float*>(block_at(list, block) + code_bytes_ + which * kLaneFloatBytes);
  }
  uint32_t* slot_lane(size_t list, size_t block) noexcept {
    return reinterpret_cast<uint32_t*>(block_at(list, block) + code_bytes_ + 2 * kLaneFloatBytes);
  }
  size_t block_bytes() const noexcept { return code_bytes_ + 3 * kLaneFloatBytes; }
  void reset_block(uint8_t* block) const noexcept;  // codes 0, offsets +inf, scales 0, slots 0
  // Appends a free place (reset) to the list's table; room in both reserved beforehand.
  void take_place(size_t list) noexcept;
  // Drops the list's last table entry, its place back to the free places.
  void drop_place(size_t list) noexcept;
  // take_place() when the list's blocks are full: a re-partition's moves and rows (planned).
  void ensure_room(size_t list) noexcept;
  // Places [first, end) become free, taken after the free places there are, lowest first.
  void free_in_front(size_t first, size_t end) noexcept;
  // Whether block b of a table does not follow block b - 1.
  static bool is_break(const std::vector<uint32_t>& places, size_t b) noexcept {
    return b > 0 && places[b] != places[b - 1] + 1;
  }
  // Free places beyond `need`: grows the arena by whole chunks (throws OutOfMemory).
  void ensure_free(size_t need);

  std::vector<List> lists_;
  size_t code_bytes_ = 0;
  core::RowBlocks<uint8_t> arena_{1, 1};
  std::vector<uint32_t> free_;  // free places, taken from the back (capacity: every place)
  size_t used_places_ = 0;      // places holding a block of some list
  size_t breaks_ = 0;           // blocks that do not follow their list's previous block
};

}  // namespace quiver::quantized
