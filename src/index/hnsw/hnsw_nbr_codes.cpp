// Neighbour codes (scheme in hnsw_nbr_codes.hpp). Plain integer arithmetic, then a few scalar
// double operations in a fixed order (compiled without FP contraction), so codes, factors,
// tables and scoring constants are the same bits on every ISA level and target.
#include "index/hnsw/hnsw_nbr_codes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "index/hnsw/hnsw_sq8.hpp"

namespace quiver::hnsw {
namespace {

// Where sub-quantiser r (0..3) of a group keeps its 16-entry table, stored twice
// (quant/fastscan.hpp: sub-quantisers 4g, 4g+2, 4g+1, 4g+3 in that order).
constexpr size_t kTableAt[4] = {0, 64, 32, 96};

// sqrt(1 - 2/pi): the estimator's error scale at c = sqrt(2/pi) (see the header).
constexpr double kErrorScale = 0.6028102749890869;

}  // namespace

NbrCodes::NbrCodes(size_t dim, size_t code_bytes, size_t max_links, Metric metric)
    : dim_(dim), code_bytes_(code_bytes), groups_((dim + 15) / 16), blocks_((max_links + 31) / 32), metric_(metric) {}

void NbrCodes::write(uint8_t* area, size_t v, const uint8_t* point, float offset, float scale) const noexcept {
  uint8_t* block = area + (v / 32) * block_bytes();
  const size_t lane = v % 32;
  // Pair p holds sub-quantisers 2p (low nibble) and 2p + 1 (high): dimension i is bit i % 8
  // of pair i / 8 (bit k of a sub-quantiser's code is its k-th dimension).
  for (size_t p = 0; p < groups_ * 2; ++p) {
    uint32_t byte = 0;
    if (point != nullptr) {
      const size_t end = std::min(dim_, 8 * p + 8);
      for (size_t i = 8 * p; i < end; ++i) byte |= uint32_t(point[i] >= 128) << (i - 8 * p);
    }
    block[p * 32 + lane] = uint8_t(byte);
  }
  float* off = reinterpret_cast<float*>(block + groups_ * quant::kGroupCodeBytes);
  off[lane] = offset;
  off[32 + lane] = scale;
}

void NbrCodes::put(uint8_t* area, size_t v, const uint8_t* point) const noexcept {
  uint64_t l1 = 0, square = 0;
  for (size_t i = 0; i < dim_; ++i) {
    const int32_t u = int32_t(point[i]) - 128;
    l1 += uint64_t(u < 0 ? -u : u);
    square += uint64_t(u * u);
  }
  const double a = Sq8Codec::scale_of(point, code_bytes_);
  const double unit = l1 == 0 ? 0.0 : a * double(square) / double(l1);
  float offset = 0.0f, scale = float(-unit);
  if (metric_ == Metric::l2) {
    offset = float(a * a * double(square));
    scale = float(-2.0 * unit);
  }
  write(area, v, point, offset, scale);
}

void NbrCodes::clear(uint8_t* area, size_t v) const noexcept { write(area, v, nullptr, 0.0f, 0.0f); }

quant::BlockScoring NbrCodes::prepare(const uint8_t* qpoint, uint8_t* tables) const noexcept {
  // Per sub-quantiser s and 4-bit code j: sum over its dimensions of (bit ? u : -u), shifted
  // by + sum |u| to be >= 0: e_s(j) = sum (bit ? 2 max(u, 0) : 2 max(-u, 0)) <= 1016.
  const size_t subquantizers = groups_ * 4;
  uint64_t l1 = 0, square = 0;
  uint32_t widest = 0;  // largest e_s(j): 2 sum |u| over the sub-quantiser
  for (size_t s = 0; s < subquantizers; ++s) {
    uint32_t span = 0;
    for (size_t k = 0; k < 4; ++k) {
      const size_t i = 4 * s + k;
      const int32_t u = i < dim_ ? int32_t(qpoint[i]) - 128 : 0;
      const uint32_t m = uint32_t(u < 0 ? -u : u);
      span += 2 * m;
      l1 += m;
      square += uint64_t(m) * m;
    }
    widest = std::max(widest, span);
  }
  // One step for every table, a power of two (a shift, not a division per entry) with
  // widest <= 127 step, so every rounded entry fits in 7 bits.
  unsigned shift = 0;
  while ((uint32_t(quant::kMaxTableEntry) << shift) < widest) ++shift;
  const uint32_t step = uint32_t(1) << shift;
  for (size_t s = 0; s < subquantizers; ++s) {
    uint32_t up[4], down[4];
    for (size_t k = 0; k < 4; ++k) {
      const size_t i = 4 * s + k;
      const int32_t u = i < dim_ ? int32_t(qpoint[i]) - 128 : 0;
      up[k] = u > 0 ? uint32_t(2 * u) : 0;
      down[k] = u < 0 ? uint32_t(-2 * u) : 0;
    }
    uint8_t* t = tables + (s / 4) * quant::kGroupTableBytes + kTableAt[s % 4];
    for (uint32_t j = 0; j < 16; ++j) {
      uint32_t e = 0;
      for (size_t k = 0; k < 4; ++k) e += (j >> k & 1) ? up[k] : down[k];
      const uint8_t entry = uint8_t((e + step / 2) >> shift);
      t[j] = entry;
      t[16 + j] = entry;
    }
  }
  const double a = Sq8Codec::scale_of(qpoint, code_bytes_);
  const double norm = a * std::sqrt(double(square));  // |p_q|
  quant::BlockScoring bs;
  bs.c0 = metric_ == Metric::l2 ? float(a * a * double(square)) : metric_ == Metric::cosine ? 1.0f : 0.0f;
  // score = <p_q, b> ~ a (step * sum - l1), raised by the margin (the scales are negative).
  bs.bias = float(kMarginSigmas * kErrorScale * norm - a * double(l1));
  bs.step = float(a * double(step));
  bs.threshold = INFINITY;
  return bs;
}

}  // namespace quiver::hnsw
