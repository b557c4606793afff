// NEON kernels (AArch64, where NEON is always present). Tails fall back to scalar lanes.
#include <arm_neon.h>

#include "simd/kernels.hpp"

namespace quiver::simd {
namespace {

inline float l2sq_f32_neon(const float* a, const float* b, size_t d) {
  float32x4_t s0 = vdupq_n_f32(0), s1 = vdupq_n_f32(0), s2 = vdupq_n_f32(0), s3 = vdupq_n_f32(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const float32x4_t d0 = vsubq_f32(vld1q_f32(a + i), vld1q_f32(b + i));
    const float32x4_t d1 = vsubq_f32(vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
    const float32x4_t d2 = vsubq_f32(vld1q_f32(a + i + 8), vld1q_f32(b + i + 8));
    const float32x4_t d3 = vsubq_f32(vld1q_f32(a + i + 12), vld1q_f32(b + i + 12));
    s0 = vfmaq_f32(s0, d0, d0);
    s1 = vfmaq_f32(s1, d1, d1);
    s2 = vfmaq_f32(s2, d2, d2);
    s3 = vfmaq_f32(s3, d3, d3);
  }
  for (; i + 4 <= d; i += 4) {
    const float32x4_t d0 = vsubq_f32(vld1q_f32(a + i), vld1q_f32(b + i));
    s0 = vfmaq_f32(s0, d0, d0);
  }
  float sum = vaddvq_f32(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3)));
  for (; i < d; ++i) {
    const float diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

inline float dot_f32_neon(const float* a, const float* b, size_t d) {
  float32x4_t s0 = vdupq_n_f32(0), s1 = vdupq_n_f32(0), s2 = vdupq_n_f32(0), s3 = vdupq_n_f32(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
    s1 = vfmaq_f32(s1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
    s2 = vfmaq_f32(s2, vld1q_f32(a + i + 8), vld1q_f32(b + i + 8));
    s3 = vfmaq_f32(s3, vld1q_f32(a + i + 12), vld1q_f32(b + i + 12));
  }
  for (; i + 4 <= d; i += 4) s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
  float sum = vaddvq_f32(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3)));
  for (; i < d; ++i) sum += a[i] * b[i];
  return sum;
}

inline float cos_f32_neon(const float* a, const float* b, size_t d) {
  float32x4_t dot = vdupq_n_f32(0), na = vdupq_n_f32(0), nb = vdupq_n_f32(0);
  size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    const float32x4_t va = vld1q_f32(a + i), vb = vld1q_f32(b + i);
    dot = vfmaq_f32(dot, va, vb);
    na = vfmaq_f32(na, va, va);
    nb = vfmaq_f32(nb, vb, vb);
  }
  float sd = vaddvq_f32(dot), sa = vaddvq_f32(na), sb = vaddvq_f32(nb);
  for (; i < d; ++i) {
    sd += a[i] * b[i];
    sa += a[i] * a[i];
    sb += b[i] * b[i];
  }
  return cosine_from_parts(sd, sa, sb);
}

float l2sq_f32_neon_fn(const float* a, const float* b, size_t d) { return l2sq_f32_neon(a, b, d); }
float dot_f32_neon_fn(const float* a, const float* b, size_t d) { return dot_f32_neon(a, b, d); }
float cos_f32_neon_fn(const float* a, const float* b, size_t d) { return cos_f32_neon(a, b, d); }

// u8 codes: absolute differences (or the codes) multiply into 16-bit lanes (<= 255^2), which
// pairwise-accumulate into 32-bit lanes. Integer sums: the scalar reference's bits.
uint32_t l2sq_u8_neon(const uint8_t* a, const uint8_t* b, size_t d) {
  uint32x4_t s0 = vdupq_n_u32(0), s1 = vdupq_n_u32(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const uint8x16_t diff = vabdq_u8(vld1q_u8(a + i), vld1q_u8(b + i));
    s0 = vpadalq_u16(s0, vmull_u8(vget_low_u8(diff), vget_low_u8(diff)));
    s1 = vpadalq_u16(s1, vmull_high_u8(diff, diff));
  }
  uint32_t s = vaddvq_u32(vaddq_u32(s0, s1));
  for (; i < d; ++i) {
    const int32_t diff = int32_t(a[i]) - int32_t(b[i]);
    s += uint32_t(diff * diff);
  }
  return s;
}

uint32_t dot_u8_neon(const uint8_t* a, const uint8_t* b, size_t d) {
  uint32x4_t s0 = vdupq_n_u32(0), s1 = vdupq_n_u32(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const uint8x16_t va = vld1q_u8(a + i), vb = vld1q_u8(b + i);
    s0 = vpadalq_u16(s0, vmull_u8(vget_low_u8(va), vget_low_u8(vb)));
    s1 = vpadalq_u16(s1, vmull_high_u8(va, vb));
  }
  uint32_t s = vaddvq_u32(vaddq_u32(s0, s1));
  for (; i < d; ++i) s += uint32_t(a[i]) * uint32_t(b[i]);
  return s;
}

}  // namespace

KernelTable neon_kernels() noexcept {
  return {Isa::neon,         l2sq_f32_neon_fn,  dot_f32_neon_fn,  cos_f32_neon_fn,
          score_rows<l2sq_f32_neon>, score_rows<dot_f32_neon>, score_rows<cos_f32_neon>,
          l2sq_u8_neon, dot_u8_neon, gather_rows_u8<dot_u8_neon>};
}

}  // namespace quiver::simd
