#include "quant/refine_plane.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "quiver/error.hpp"

namespace quiver::quant {
namespace {

unsigned coarse_level(CoarseCodes c, size_t i, unsigned coarse_bits) noexcept {
  const size_t bit = i * coarse_bits;
  return unsigned(c.bytes[(bit / 8) * c.stride] >> (bit % 8)) & ((1u << coarse_bits) - 1);
}

// check()'s four sums over a packed coarse row and a refine row, with both widths known at
// compile time (constant shifts): 8 coordinates at a time, their CB-bit coarse codes read as one
// little-endian integer of CB bytes (coordinate i sits at bit i * CB of the row) and their
// B-bit refine codes as one of B bytes; each coordinate adds its pair's four terms
// (terms[cell << B | code]) into one of four partial sums by i % 4, which are added
// ((0 + 1) + (2 + 3)) at the end. Four independent chains of adds instead of one, each term
// one 4-float vector add; the order is fixed, so the bits are the same on every target. Float sums of dim terms in [0,
// 1] err by ~dim * 2^-24 relatively, far inside check()'s 1e-3 tolerance.
template <unsigned CB, unsigned B>
RefineCodec::CheckSums check_sums(const uint8_t* coarse_row, const uint8_t* row, size_t dim,
                                  const RefineCodec::PairTerms* terms) noexcept {
  // A 4-float vector type (GCC and clang): SSE natively, SIMD128 in wasm, NEON on arm64, and
  // scalar code where there is none; its adds are elementwise, so the same bits everywhere.
  typedef float F4 __attribute__((vector_size(16)));
  F4 acc[4] = {};
  for (size_t i0 = 0; i0 < dim; i0 += 8) {
    const size_t n = std::min<size_t>(8, dim - i0);
    uint64_t g = 0, c = 0;
    for (unsigned k = 0; k < B; ++k) g |= uint64_t(row[i0 / 8 * B + k]) << (8 * k);
    for (size_t k = 0; k < (n * CB + 7) / 8; ++k) c |= uint64_t(coarse_row[i0 / 8 * CB + k]) << (8 * k);
    const auto add = [&](size_t t) {
      const unsigned pair =
          (unsigned(c >> (t * CB)) & ((1u << CB) - 1)) << B | (unsigned(g >> (t * B)) & ((1u << B) - 1));
      F4 term;
      std::memcpy(&term, terms[pair].v, sizeof term);
      acc[t % 4] += term;
    };
    if (n == 8) {
      for (size_t t = 0; t < 8; ++t) add(t);
    } else {
      for (size_t t = 0; t < n; ++t) add(t);
    }
  }
  const F4 total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  return {total[0], total[1], total[2], total[3]};
}

template <unsigned CB>
RefineCodec::SumChecks check_sums_for(unsigned bits) noexcept {
  switch (bits) {
    case 1: return check_sums<CB, 1>;
    case 2: return check_sums<CB, 2>;
    case 3: return check_sums<CB, 3>;
    case 4: return check_sums<CB, 4>;
    default: return check_sums<CB, 5>;
  }
}

}  // namespace

RefineCodec::RefineCodec(size_t dim, Metric metric, const Codebook& coarse, unsigned coarse_bits, unsigned bits)
    : dim_(dim),
      metric_factor_(metric == Metric::l2 ? 2.0 : 1.0),
      coarse_bits_(coarse_bits),
      bits_(bits),
      coarse_(coarse) {
  if (bits < 1 || bits > kMaxRefineBits) {
    throw Error(ErrorCode::InvalidArgument, "refine_bits must be 0 (no refine plane) or 1.." +
                                                std::to_string(kMaxRefineBits) + ", got " + std::to_string(bits));
  }
  book_ = refine_codebook(dim, coarse, bits);
  check_sums_ = coarse_bits == 4 ? check_sums_for<4>(bits) : check_sums_for<2>(bits);
  const size_t cells = coarse_.centroids.size(), levels = size_t(1) << bits_;
  pair_terms_.resize(cells * levels);
  for (size_t l = 0; l < cells; ++l) {
    const double a = l > 0 ? double(coarse_.boundaries[l - 1]) : -1.0;
    const double b = l + 1 < cells ? double(coarse_.boundaries[l]) : 1.0;
    const double c = coarse_.centroids[l];
    const float* fb = book_.bounds.data() + l * (levels - 1);
    for (size_t f = 0; f < levels; ++f) {
      const double fa = f > 0 ? double(fb[f - 1]) : a;
      const double fz = f + 1 < levels ? double(fb[f]) : b;
      const double v = book_.value(unsigned(l), unsigned(f));
      pair_terms_[l * levels + f] = {
          {float(c * c), float(std::min(a * c, b * c)), float(v * v), float(std::min(fa * v, fz * v))}};
    }
  }
}

void RefineCodec::encode(const float* r, double length, uint8_t* row, float& scale) const noexcept {
  std::memset(row, 0, row_bytes());
  if (length == 0.0) {
    scale = 0.0f;
    return;
  }
  double dot = 0.0;  // <r, reconstruction>
  uint64_t group = 0;
  for (size_t i = 0; i < dim_; ++i) {
    const unsigned level = coarse_.encode(r[i]);
    const unsigned f = book_.encode(level, r[i]);
    dot += double(r[i]) * book_.value(level, f);
    group |= uint64_t(f) << ((i % 8) * bits_);
    if (i % 8 == 7 || i + 1 == dim_) {
      uint8_t* out = row + (i / 8) * bits_;
      for (unsigned b = 0; b < bits_; ++b) out[b] = uint8_t(group >> (8 * b));
      group = 0;
    }
  }
  // The same correction as the fast-scan plane's, for the finer reconstruction.
  const double correction = dot > 1e-12 ? length / dot : length;
  scale = static_cast<float>(-metric_factor_ * correction);
}

namespace {

// score() for fixed bit widths: a group of 8 coordinates at a time, whose refine codes are one
// RB-byte integer and whose coarse codes are CB bytes (8 * CB bits: 4 bits -> 4 bytes, 2 bits -> 2
// bytes), so every shift and mask is a constant. The sums are exactly those of the generic loop
// (coordinate i into partial sum i % 4, i ascending: 8 is a multiple of 4), so the bits are too.
template <unsigned CB, unsigned RB>
float score_fixed(const float* q, size_t dim, CoarseCodes coarse, const uint8_t* row, const float* values) noexcept {
  constexpr uint32_t kCoarseMask = (1u << CB) - 1, kMask = (1u << RB) - 1;
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  const size_t full = dim / 8;
  for (size_t g = 0; g < full; ++g) {
    uint64_t fine = 0;  // RB bytes: up to 40 bits
    uint32_t levels = 0;
    for (unsigned b = 0; b < RB; ++b) fine |= uint64_t(row[g * RB + b]) << (8 * b);
    for (unsigned t = 0; t < CB; ++t) levels |= uint32_t(coarse.bytes[(g * CB + t) * coarse.stride]) << (8 * t);
    float v[8];
    for (unsigned t = 0; t < 8; ++t) {
      v[t] = values[(((levels >> (t * CB)) & kCoarseMask) << RB) | ((fine >> (t * RB)) & kMask)];
    }
    const float* x = q + 8 * g;
    s0 += x[0] * v[0];
    s1 += x[1] * v[1];
    s2 += x[2] * v[2];
    s3 += x[3] * v[3];
    s0 += x[4] * v[4];
    s1 += x[5] * v[5];
    s2 += x[6] * v[6];
    s3 += x[7] * v[7];
  }
  float sum[4] = {s0, s1, s2, s3};
  for (size_t i = 8 * full; i < dim; ++i) {  // the last, partial group
    const size_t g = i / 8, t = i % 8;
    uint64_t fine = 0;
    for (unsigned b = 0; b < RB; ++b) fine |= uint64_t(row[g * RB + b]) << (8 * b);
    const size_t bit = i * CB;
    const uint32_t level = uint32_t(coarse.bytes[(bit / 8) * coarse.stride] >> (bit % 8)) & kCoarseMask;
    sum[i % 4] += q[i] * values[(level << RB) | ((fine >> (t * RB)) & kMask)];
  }
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

template <unsigned CB>
float score_coarse(unsigned bits, const float* q, size_t dim, CoarseCodes coarse, const uint8_t* row,
                   const float* values) noexcept {
  switch (bits) {
    case 1: return score_fixed<CB, 1>(q, dim, coarse, row, values);
    case 2: return score_fixed<CB, 2>(q, dim, coarse, row, values);
    case 3: return score_fixed<CB, 3>(q, dim, coarse, row, values);
    case 4: return score_fixed<CB, 4>(q, dim, coarse, row, values);
    default: return score_fixed<CB, 5>(q, dim, coarse, row, values);
  }
}

}  // namespace

// Candidates are re-scored one at a time (k * depth per search), so this runs 40 times a query
// at the defaults: the fixed-width forms above, not a loop over run-time widths.
float RefineCodec::score(const float* q, CoarseCodes coarse, const uint8_t* row) const noexcept {
  static_assert(kMaxRefineBits == 5, "score_coarse has one case per refine width");
  const float* values = book_.values.data();
  return coarse_bits_ == 4 ? score_coarse<4>(bits_, q, dim_, coarse, row, values)
                           : score_coarse<2>(bits_, q, dim_, coarse, row, values);
}

// The plain form of score(): what the fixed-width forms must equal bit for bit (the tests
// compare them at every width and at dimensions that end in a partial group).
float RefineCodec::score_reference(const float* q, CoarseCodes coarse, const uint8_t* row) const noexcept {
  const unsigned mask = (1u << bits_) - 1;
  const unsigned per_byte = 8 / coarse_bits_;  // coordinates per coarse byte
  const unsigned coarse_mask = (1u << coarse_bits_) - 1;
  const float* values = book_.values.data();
  // Four partial sums, each over coordinates i = 4m + j in order: no long dependency chain
  // and the same order, so the same bits, everywhere.
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  size_t i = 0;
  for (size_t g = 0; i < dim_; ++g) {
    uint64_t group = 0;
    for (unsigned b = 0; b < bits_; ++b) group |= uint64_t(row[g * bits_ + b]) << (8 * b);
    for (unsigned t = 0; t < coarse_bits_ && i < dim_; ++t) {  // coarse bytes of the group
      const unsigned byte = coarse.bytes[(g * coarse_bits_ + t) * coarse.stride];
      for (unsigned u = 0; u < per_byte && i < dim_; ++u, ++i) {
        const unsigned level = (byte >> (u * coarse_bits_)) & coarse_mask;
        const unsigned f = unsigned(group >> ((i % 8) * bits_)) & mask;
        sum[i % 4] += q[i] * values[(level << bits_) | f];
      }
    }
  }
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

void RefineCodec::decode(CoarseCodes coarse, const uint8_t* row, float* out) const noexcept {
  for (size_t i = 0; i < dim_; ++i) {
    const uint8_t* group = row + (i / 8) * bits_;
    uint64_t g = 0;
    for (unsigned b = 0; b < bits_; ++b) g |= uint64_t(group[b]) << (8 * b);
    const unsigned f = unsigned(g >> ((i % 8) * bits_)) & ((1u << bits_) - 1);
    out[i] = book_.value(coarse_level(coarse, i, coarse_bits_), f);
  }
}

std::string RefineCodec::check(const uint8_t* coarse_row, float coarse_scale, const uint8_t* row, float scale) const {
  // Padding: the bits past the last coordinate of the last group.
  if (dim_ % 8 != 0) {
    const uint8_t* last = row + (dim_ / 8) * bits_;
    uint64_t g = 0;
    for (unsigned b = 0; b < bits_; ++b) g |= uint64_t(last[b]) << (8 * b);
    if ((g >> ((dim_ % 8) * bits_)) != 0) return "non-zero refine code padding bits";
  }
  if (!std::isfinite(scale)) return "a non-finite refine scale";
  if (coarse_scale == 0.0f || scale == 0.0f) {
    if (coarse_scale != scale) return "a refine scale of 0 where the vector is not zero, or the reverse";
    for (size_t b = 0; b < row_bytes(); ++b) {
      if (row[b] != 0) return "a zero vector with refine codes that are not all 0";
    }
    return {};
  }
  if (!(scale < 0.0f)) return "a positive refine scale";
  // scale / coarse_scale = <r, coarse recon> / <r, refine recon> (r: the rotated unit vector).
  // Each inner product is at most the reconstruction's norm (|r| = 1) and at least
  // sum_i min(a_i v_i, b_i v_i), where [a_i, b_i] is the cell the code of coordinate i names
  // (r_i lies in it) and v_i the cell's value: bounds computed from the codes alone.
  const CheckSums sums = check_sums_(coarse_row, row, dim_, pair_terms_.data());
  const double coarse_norm2 = sums.coarse_norm2, coarse_low = sums.coarse_low;
  const double refine_norm2 = sums.refine_norm2, refine_low = sums.refine_low;
  constexpr double kTolerance = 1e-3;  // float rounding of the scales, the rotation and |r| ~ 1
  const double ratio = double(scale) / double(coarse_scale);
  const double lo = coarse_low / std::sqrt(refine_norm2) * (1.0 - kTolerance);
  const double hi = refine_low > 0.0 ? std::sqrt(coarse_norm2) / refine_low * (1.0 + kTolerance) : INFINITY;
  if (!(ratio >= lo && ratio <= hi)) {
    return "a refine scale " + std::to_string(scale) + " that its codes and fast-scan scale " +
           std::to_string(coarse_scale) + " do not allow";
  }
  return {};
}

}  // namespace quiver::quant
