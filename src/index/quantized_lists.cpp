// Inverted lists (quantized_lists.hpp): block allocation, append, and the move-last removal.
#include "index/quantized_lists.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

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

void InvertedLists::reserve(size_t list, size_t extra) {
  List& l = lists_[list];
  const size_t need = (size_t(l.size) + extra + kBlockVectors - 1) / kBlockVectors;
  if (need <= l.blocks.size()) return;
  l.blocks.reserve(std::max(need, l.blocks.size() + l.blocks.size() / 2));
  while (l.blocks.size() < need) {
    core::AlignedBuffer<uint8_t> block;
    block.reserve(block_bytes(), 0);  // zeroed: codes 0, slots 0
    float* off = reinterpret_cast<float*>(block.data() + code_bytes_);
    for (size_t v = 0; v < kBlockVectors; ++v) off[v] = INFINITY;  // padding never scores
    l.blocks.push_back(std::move(block));  // capacity reserved above: cannot throw
  }
}

uint32_t InvertedLists::append(size_t list, uint32_t slot, const uint8_t* codes, size_t subq, float offset,
                               float scale) noexcept {
  List& l = lists_[list];
  const uint32_t pos = l.size++;
  const size_t b = pos / kBlockVectors, v = pos % kBlockVectors;
  write_lane(this->codes(list, b), v, codes, subq);
  floats(list, b, 0)[v] = offset;
  floats(list, b, 1)[v] = scale;
  slot_lane(list, b)[v] = slot;
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
