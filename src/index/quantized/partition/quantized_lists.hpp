// Inverted lists of the partitioned quantised index: each list is a run of blocks of 32
// positions in the fast-scan layout (quant/fastscan.hpp), and each block is its own 64-byte
// aligned allocation holding the codes, the per-vector offset and scale, and the slot of each
// position. A list grows one block at a time, so adding never copies the index and never
// needs twice its memory. Lists are dense: a removal moves the list's last position into the
// hole (positions past the end are padding, offset = +inf, so the scan never returns them).
// The caller maps slots to (list, position) and updates it from what append/remove report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/aligned_buffer.hpp"
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

  const uint8_t* codes(size_t list, size_t block) const noexcept { return lists_[list].blocks[block].data(); }
  uint8_t* codes(size_t list, size_t block) noexcept { return lists_[list].blocks[block].data(); }
  const float* offsets(size_t list, size_t block) const noexcept { return floats(list, block, 0); }
  const float* scales(size_t list, size_t block) const noexcept { return floats(list, block, 1); }
  const uint32_t* slots(size_t list, size_t block) const noexcept {
    return reinterpret_cast<const uint32_t*>(lists_[list].blocks[block].data() + code_bytes_ + 2 * kLaneFloatBytes);
  }

  // Room for `extra` more positions in `list`: allocates the blocks now (throws
  // Error(OutOfMemory) or std::bad_alloc; the lists' contents are unchanged either way).
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
  // Re-partitioning without holding every code twice (quantized_partition.cpp): the new lists
  // take their blocks from a pool, which the old lists' blocks return to as they empty. The
  // caller sizes the pool and each new list's block table beforehand, so these allocate nothing.
  using Block = core::AlignedBuffer<uint8_t>;
  Block make_block() const;  // a padding block; throws std::bad_alloc or Error(OutOfMemory)
  size_t allocated_blocks(size_t list) const noexcept { return lists_[list].blocks.size(); }
  void reserve_block_table(size_t list, size_t blocks) { lists_[list].blocks.reserve(blocks); }
  // The blocks every list holds beyond its positions (room reserved earlier) go to `pool`.
  void release_spare_blocks(std::vector<Block>& pool) noexcept;
  // Block `block` of `list`, whose positions have all been moved away, goes to `pool`.
  void release_block(size_t list, size_t block, std::vector<Block>& pool) noexcept;
  // Appends position `from_pos` of list `from_list` in `from` (its codes, offset and scale) as
  // slot `slot`; append_pooled() is append(). Both take a block from `pool` when the list has
  // no room left (it must hold one then). Return the new position.
  uint32_t append_moved(size_t list, uint32_t slot, const InvertedLists& from, size_t from_list, uint32_t from_pos,
                        std::vector<Block>& pool) noexcept;
  uint32_t append_pooled(size_t list, uint32_t slot, const uint8_t* codes, size_t subq, float offset, float scale,
                         std::vector<Block>& pool) noexcept;

  // Removes a position by moving the last one into it. Returns the slot that moved to `pos`,
  // or kNone when `pos` was the last. A block left empty is freed.
  uint32_t remove(size_t list, uint32_t pos) noexcept;

 private:
  static constexpr size_t kLaneFloatBytes = quant::kBlockVectors * sizeof(float);
  // A new last position holding slot, offset and scale (its codes are the caller's to write).
  uint32_t push(size_t list, uint32_t slot, float offset, float scale) noexcept;
  struct List {
    std::vector<core::AlignedBuffer<uint8_t>> blocks;  // blocks() in use; more may be reserved
    uint32_t size = 0;
  };
  const float* floats(size_t list, size_t block, size_t which) const noexcept {
    return reinterpret_cast<const float*>(lists_[list].blocks[block].data() + code_bytes_ + which * kLaneFloatBytes);
  }
  float* floats(size_t list, size_t block, size_t which) noexcept {
    return reinterpret_cast<float*>(lists_[list].blocks[block].data() + code_bytes_ + which * kLaneFloatBytes);
  }
  uint32_t* slot_lane(size_t list, size_t block) noexcept {
    return reinterpret_cast<uint32_t*>(lists_[list].blocks[block].data() + code_bytes_ + 2 * kLaneFloatBytes);
  }
  size_t block_bytes() const noexcept { return code_bytes_ + 3 * kLaneFloatBytes; }
  void reset_block(Block& block) const noexcept;  // codes 0, offsets +inf, scales 0, slots 0
  void ensure_block(size_t list, std::vector<Block>& pool) noexcept;

  std::vector<List> lists_;
  size_t code_bytes_ = 0;
};

}  // namespace quiver::quantized
