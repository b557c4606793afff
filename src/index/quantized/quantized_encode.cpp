// Encoding, the quantised index's first job: a vector becomes TurboQuant-style codes — normalised,
// rotated by the seeded orthogonal transform, each rotated coordinate (pair, at 2 bits) quantised
// with the Lloyd–Max codebook — and two per-vector scalars (offset, scale) that turn a code score
// into an unbiased distance estimate. Also the storage those codes live in: 32-vector blocks in
// the layout the fast-scan kernels read (quant/fastscan.hpp), grown by reserve_slots.
// Everything here is plain scalar code in a fixed order, so codes are the same bits on every
// ISA level and target (index files depend on it).
#include <algorithm>
#include <cmath>
#include <vector>

#include "index/quantized/quantized_impl.hpp"

namespace quiver {

using quant::kBlockVectors;

// unit = x / |x| (norm2 = |x|^2, summed in double). The float reciprocal where it is finite
// (the codes of every file written so far depend on those bits); the double one for a
// vector so small that 1 / |x| overflows float.
void QuantizedIndex::Impl::scale_to_unit(const float* x, double norm2, float* unit) const {
  const double inv = 1.0 / std::sqrt(norm2);
  const float inv_f = static_cast<float>(inv);
  if (std::isfinite(inv_f)) {
    for (size_t i = 0; i < dim; ++i) unit[i] = x[i] * inv_f;
  } else {
    for (size_t i = 0; i < dim; ++i) unit[i] = static_cast<float>(x[i] * inv);
  }
}

// Codes and scalars for n rows. Plain scalar code in a fixed order: bit-identical anywhere.
QuantizedIndex::Impl::Encoded QuantizedIndex::Impl::encode(const float* rows, size_t n) const {
  Encoded e;
  e.codes.resize(n * subq);
  e.offset.resize(n);
  e.scale.resize(n);
  const size_t refine_row = refine.row_bytes();
  e.refine_rows.resize(n * refine_row);
  e.refine_scale.resize(refine_codec.enabled() ? n : 0);
  std::vector<float> unit(dim), rotated(dim), tmp(dim);
  for (size_t r = 0; r < n; ++r) {
    const float* x = rows + r * dim;
    double norm2 = 0.0;
    for (size_t i = 0; i < dim; ++i) norm2 += double(x[i]) * x[i];
    uint8_t* c = e.codes.data() + r * subq;
    if (norm2 == 0.0) {
      // A zero vector (l2, ip; cosine rejects it): scale 0 makes every estimate exact, |q|^2
      // under l2 and 0 under ip, whatever the codes, which are all 0.
      std::fill(c, c + subq, uint8_t(0));
      e.offset[r] = 0.0f;
      e.scale[r] = 0.0f;
      if (refine_codec.enabled())
        refine_codec.encode(rotated.data(), 0.0, e.refine_rows.data() + r * refine_row, e.refine_scale[r]);
      continue;
    }
    const double norm = std::sqrt(norm2);
    scale_to_unit(x, norm2, unit.data());
    rotation.apply(unit.data(), rotated.data(), tmp.data());
    double dot = 0.0;  // <rotated unit vector, its reconstruction>
    for (size_t i = 0; i < dim; ++i) {
      const unsigned level = codebook.encode(rotated[i]);
      dot += double(rotated[i]) * codebook.centroids[level];
      if (bits == 4) {
        c[i] = uint8_t(level);
      } else if (i % 2 == 0) {
        c[i / 2] = uint8_t(level);
      } else {
        c[i / 2] = uint8_t(c[i / 2] | (level << 2));
      }
    }
    // Unbiased inner-product estimate: <q, x> ~ correction * <R q, reconstruction>.
    const double length = metric == Metric::cosine ? 1.0 : norm;
    const double correction = dot > 1e-12 ? length / dot : length;
    // The refine plane's row and its own correction, from the same rotated unit vector.
    if (refine_codec.enabled())
      refine_codec.encode(rotated.data(), length, e.refine_rows.data() + r * refine_row, e.refine_scale[r]);
    switch (metric) {
      case Metric::l2:  // |q|^2 + |x|^2 - 2 <q, x>
        e.offset[r] = static_cast<float>(norm2);
        e.scale[r] = static_cast<float>(-2.0 * correction);
        break;
      case Metric::ip:  // -<q, x>
        e.offset[r] = 0.0f;
        e.scale[r] = static_cast<float>(-correction);
        break;
      case Metric::cosine:  // 1 - <q/|q|, x/|x|>
        e.offset[r] = 0.0f;
        e.scale[r] = static_cast<float>(-correction);
        break;
    }
  }
  return e;
}

// Unpartitioned storage only (the lists write their own: InvertedLists::append).
void QuantizedIndex::Impl::write_codes(uint32_t slot, const uint8_t* c) {
  quantized::write_lane(codes.row(slot / kBlockVectors), slot % kBlockVectors, c, subq);
}

void QuantizedIndex::Impl::write_packed_codes(uint32_t slot, const uint8_t* packed) noexcept {
  quantized::write_lane_packed(codes.row(slot / kBlockVectors), slot % kBlockVectors, packed, subq);
}

size_t QuantizedIndex::Impl::blocks() const {
  if (!partitioned()) return (slots.used() + kBlockVectors - 1) / kBlockVectors;
  size_t total = 0;
  for (size_t l = 0; l < ivf.lists(); ++l) total += ivf.blocks(l);
  return total;
}

// Room for `slots` slots in every per-slot array; new slots start dead (offset = +inf).
// Partitioned, the per-slot arrays are only where each slot is (and the kept vectors, the
// refine plane): the codes grow in the lists, block by block. Every array grows by chunks,
// so what is stored never moves; if one cannot grow, the others give their new chunks back.
void QuantizedIndex::Impl::reserve_slots(size_t slots) {
  if (slots <= capacity_slots) return;
  const size_t old_cap = capacity_slots;
  const size_t new_cap = (slots + kBlockVectors - 1) / kBlockVectors * kBlockVectors;
  try {
    if (partitioned()) {
      slot_list.reserve(new_cap);
      slot_pos.reserve(new_cap);
    } else {
      codes.reserve(new_cap / kBlockVectors);
      offset.reserve(new_cap);
      scale.reserve(new_cap);
    }
    if (keep_vectors) vectors.reserve(new_cap);
    refine.reserve(new_cap);  // nothing without a refine plane
  } catch (...) {
    slot_list.shrink_to(old_cap);
    slot_pos.shrink_to(old_cap);
    codes.shrink_to(old_cap / kBlockVectors);
    offset.shrink_to(old_cap);
    scale.shrink_to(old_cap);
    vectors.shrink_to(old_cap);
    refine.shrink_to(old_cap);
    throw;
  }
  if (!partitioned()) {
    for (size_t s = old_cap; s < new_cap; ++s) *offset.row(s) = INFINITY;
  }
  capacity_slots = new_cap;
}

}  // namespace quiver
