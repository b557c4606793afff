// Inverted lists (quantized_lists.hpp): block allocation, append, and the move-last removal.
#include "index/quantized/partition/quantized_lists.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/check.hpp"

namespace quiver::quantized {

using quant::kBlockVectors;

InvertedLists::InvertedLists(size_t lists, size_t code_bytes) : lists_(lists), code_bytes_(code_bytes) {}

size_t InvertedLists::memory_bytes() const noexcept {
  size_t bytes = lists_.capacity() * sizeof(List);
  for (const List& l : lists_) {
    bytes += l.blocks.capacity() * sizeof(core::AlignedBuffer<uint8_t>);
    for (const auto& b : l.blocks) bytes += b.capacity();
  }
  return bytes;
}

InvertedLists::Block InvertedLists::make_block() const {
  Block block;
  block.reserve(block_bytes(), 0);  // zeroed: codes 0, slots 0
  float* off = reinterpret_cast<float*>(block.data() + code_bytes_);
  for (size_t v = 0; v < kBlockVectors; ++v) off[v] = INFINITY;  // padding never scores
  return block;
}

void InvertedLists::reset_block(Block& block) const noexcept {
  std::memset(block.data(), 0, block_bytes());
  float* off = reinterpret_cast<float*>(block.data() + code_bytes_);
  for (size_t v = 0; v < kBlockVectors; ++v) off[v] = INFINITY;
}

void InvertedLists::reserve(size_t list, size_t extra) {
  List& l = lists_[list];
  const size_t need = (size_t(l.size) + extra + kBlockVectors - 1) / kBlockVectors;
  if (need <= l.blocks.size()) return;
  l.blocks.reserve(std::max(need, l.blocks.size() + l.blocks.size() / 2));
  while (l.blocks.size() < need) l.blocks.push_back(make_block());  // capacity reserved above: cannot throw
}

void InvertedLists::release_spare_blocks(std::vector<Block>& pool) noexcept {
  for (size_t list = 0; list < lists_.size(); ++list) {
    List& l = lists_[list];
    while (l.blocks.size() > blocks(list)) {
      pool.push_back(std::move(l.blocks.back()));  // the caller reserved room in the pool
      l.blocks.pop_back();
    }
  }
}

void InvertedLists::release_block(size_t list, size_t block, std::vector<Block>& pool) noexcept {
  pool.push_back(std::move(lists_[list].blocks[block]));  // leaves an empty buffer in the table
}

void InvertedLists::ensure_block(size_t list, std::vector<Block>& pool) noexcept {
  List& l = lists_[list];
  if (size_t(l.size) < l.blocks.size() * kBlockVectors) return;
  QUIVER_DCHECK(!pool.empty() && l.blocks.size() < l.blocks.capacity(), "re-partitioning ran out of planned blocks");
  Block block = std::move(pool.back());
  pool.pop_back();
  reset_block(block);
  l.blocks.push_back(std::move(block));  // the block table was sized beforehand
}

uint32_t InvertedLists::append_moved(size_t list, uint32_t slot, const InvertedLists& from, size_t from_list,
                                     uint32_t from_pos, std::vector<Block>& pool) noexcept {
  ensure_block(list, pool);
  List& l = lists_[list];
  const uint32_t pos = l.size++;
  const size_t b = pos / kBlockVectors, v = pos % kBlockVectors;
  const size_t fb = from_pos / kBlockVectors, fv = from_pos % kBlockVectors;
  uint8_t* dst = codes(list, b);
  const uint8_t* src = from.codes(from_list, fb);
  for (size_t p = 0; p < code_bytes_ / kBlockVectors; ++p) dst[p * kBlockVectors + v] = src[p * kBlockVectors + fv];
  floats(list, b, 0)[v] = from.offsets(from_list, fb)[fv];
  floats(list, b, 1)[v] = from.scales(from_list, fb)[fv];
  slot_lane(list, b)[v] = slot;
  return pos;
}

uint32_t InvertedLists::append_pooled(size_t list, uint32_t slot, const uint8_t* codes, size_t subq, float offset,
                                      float scale, std::vector<Block>& pool) noexcept {
  ensure_block(list, pool);
  return append(list, slot, codes, subq, offset, scale);
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
  while (l.blocks.size() > blocks(list)) l.blocks.pop_back();  // free emptied (and spare) blocks
  return moved;
}

}  // namespace quiver::quantized
