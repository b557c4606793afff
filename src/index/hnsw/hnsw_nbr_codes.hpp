// Internal: neighbour codes of HnswIndex (HnswIndexOptions::neighbor_codes) — how a node's
// level-0 neighbours are coded into fast-scan blocks beside its links, and how one query's
// lookup tables and scoring constants are built, so that one kernel call estimates the
// distances from the query to 32 neighbours at once. Not a public header (the scheme is
// summarised in quiver/hnsw_index.hpp, "Neighbour codes").
//
// A neighbour is coded from its sq8 point (hnsw_sq8.hpp: the rotated vector is p = a u, with
// u_i = code_i - 128), so its code depends on that point alone and is recomputed from it
// whenever a list changes or an index is loaded:
//   sign bits   b_i = 1 if u_i >= 0 else 0 (as +1 / -1), four dimensions per 4-bit code
//   factors     L = sum |u_i|, Q = sum u_i^2, and the RaBitQ estimate of a dot product
//                 <p_q, p> ~ <p_q, b> * a Q / L            (exact when p_q = p)
// stored per neighbour slot v of a block as the fast-scan epilogue's offset and scale
// (quant/fastscan.hpp: dist = c0 + offset[v] + scale[v] * score, score ~ <p_q, b>):
//   l2      c0 = |p_q|^2   offset = a^2 Q   scale = -2 a Q / L
//   ip      c0 = 0         offset = 0       scale = -a Q / L
//   cosine  c0 = 1         offset = 0       scale = -a Q / L
// (L = 0, the zero vector: scale 0.) The query tables hold, per 4 dimensions, the 16 values
// of sum +-u_q,i shifted to be >= 0 and divided by one integer step so that they fit in 7
// bits; score = bias + step * sum, with bias and step in units of <p_q, b>.
//
// Margin. The estimator's error has standard deviation about |p_q| * (a Q / L) * sqrt(1 - c^2)
// (RaBitQ, Gao & Long 2024: c = <x/|x|, b/sqrt(d)>, which concentrates at sqrt(2/pi) after a
// random rotation, so sqrt(1 - c^2) ~ 0.6). The same per-neighbour factor a Q / L is the
// scale, so raising the score by kMarginSigmas * 0.6 * |p_q| lowers every estimate by that
// many standard deviations of its own error: the kernel's hit mask (dist <= threshold, the
// beam's worst distance) then keeps a neighbour unless it is unlikely to enter the beam, and
// the lowered estimate is the key the search orders and stops its candidates by.
//
// Block layout per node, after its level-0 links (offset 64-byte aligned): ceil(2M / 32)
// blocks of groups * 64 code bytes (quant/fastscan.hpp), then 32 f32 offsets and 32 f32
// scales. Slot v of the level-0 list is lane v % 32 of block v / 32; lanes past the list's
// count are zero (code 0, offset 0, scale 0).
#pragma once

#include <cstddef>
#include <cstdint>

#include "quant/fastscan.hpp"
#include "quiver/metric.hpp"

namespace quiver::hnsw {

class NbrCodes {
 public:
  // Standard deviations of the estimator's error by which an estimate is lowered. Measured
  // (embedding-like 100k x 384, wasm simd, QPS at recall@10 0.95): 1 beat 0 (the candidates
  // are ordered and cut by too optimistic keys and the beam must be wider) and 2 (too many
  // candidates popped and scored).
  static constexpr double kMarginSigmas = 1.0;

  NbrCodes() = default;
  NbrCodes(size_t dim, size_t code_bytes, size_t max_links, Metric metric);

  size_t groups() const noexcept { return groups_; }
  size_t blocks() const noexcept { return blocks_; }
  size_t block_bytes() const noexcept { return groups_ * quant::kGroupCodeBytes + 2 * 32 * sizeof(float); }
  size_t bytes() const noexcept { return blocks_ * block_bytes(); }  // per node
  size_t table_bytes() const noexcept { return groups_ * quant::kGroupTableBytes; }

  // Block b of a node's area: its codes, offsets and scales.
  const uint8_t* codes(const uint8_t* area, size_t b) const noexcept { return area + b * block_bytes(); }
  const float* offsets(const uint8_t* area, size_t b) const noexcept {
    return reinterpret_cast<const float*>(codes(area, b) + groups_ * quant::kGroupCodeBytes);
  }
  const float* scales(const uint8_t* area, size_t b) const noexcept { return offsets(area, b) + 32; }

  // Writes the code and factors of the sq8 point `point` into slot v of `area` (a node's
  // blocks); clear() writes the empty slot (all zero).
  void put(uint8_t* area, size_t v, const uint8_t* point) const noexcept;
  void clear(uint8_t* area, size_t v) const noexcept;

  // One query: its tables (table_bytes()) and scoring constants from its
  // sq8 point; the threshold is left at +inf for the caller to set per block. `tables` must be
  // 64-byte aligned (the AVX-512 kernel loads them aligned).
  quant::BlockScoring prepare(const uint8_t* qpoint, uint8_t* tables) const noexcept;

 private:
  void write(uint8_t* area, size_t v, const uint8_t* point, float offset, float scale) const noexcept;
  size_t dim_ = 0;
  size_t code_bytes_ = 0;  // sq8: where a point's record (its scale first) starts
  size_t groups_ = 0;      // fast-scan groups of 4 sub-quantisers, 16 dimensions
  size_t blocks_ = 0;
  Metric metric_ = Metric::l2;
};

}  // namespace quiver::hnsw
