// WebAssembly SIMD128 kernels. Compiled with -msimd128 only in the simd and simd-mt variants;
// a wasm module cannot probe at run time, so the JS loader picks the variant instead.
// SIMD128 has no fused multiply-add (relaxed SIMD is not usable with this toolchain), so
// products and sums are separate instructions.
#include <wasm_simd128.h>

#include "simd/kernels.hpp"

namespace quiver::simd {
namespace {

inline float hsum128(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

inline float l2sq_f32_wasm128(const float* a, const float* b, size_t d) {
  v128_t s0 = wasm_f32x4_splat(0), s1 = wasm_f32x4_splat(0);
  v128_t s2 = wasm_f32x4_splat(0), s3 = wasm_f32x4_splat(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const v128_t d0 = wasm_f32x4_sub(wasm_v128_load(a + i), wasm_v128_load(b + i));
    const v128_t d1 = wasm_f32x4_sub(wasm_v128_load(a + i + 4), wasm_v128_load(b + i + 4));
    const v128_t d2 = wasm_f32x4_sub(wasm_v128_load(a + i + 8), wasm_v128_load(b + i + 8));
    const v128_t d3 = wasm_f32x4_sub(wasm_v128_load(a + i + 12), wasm_v128_load(b + i + 12));
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(d0, d0));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(d1, d1));
    s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(d2, d2));
    s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(d3, d3));
  }
  for (; i + 4 <= d; i += 4) {
    const v128_t d0 = wasm_f32x4_sub(wasm_v128_load(a + i), wasm_v128_load(b + i));
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(d0, d0));
  }
  float sum = hsum128(wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3)));
  for (; i < d; ++i) {
    const float diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

inline float dot_f32_wasm128(const float* a, const float* b, size_t d) {
  v128_t s0 = wasm_f32x4_splat(0), s1 = wasm_f32x4_splat(0);
  v128_t s2 = wasm_f32x4_splat(0), s3 = wasm_f32x4_splat(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(wasm_v128_load(a + i + 4), wasm_v128_load(b + i + 4)));
    s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(wasm_v128_load(a + i + 8), wasm_v128_load(b + i + 8)));
    s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(wasm_v128_load(a + i + 12), wasm_v128_load(b + i + 12)));
  }
  for (; i + 4 <= d; i += 4) {
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  }
  float sum = hsum128(wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3)));
  for (; i < d; ++i) sum += a[i] * b[i];
  return sum;
}

inline float cos_f32_wasm128(const float* a, const float* b, size_t d) {
  v128_t dot = wasm_f32x4_splat(0), na = wasm_f32x4_splat(0), nb = wasm_f32x4_splat(0);
  size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    const v128_t va = wasm_v128_load(a + i), vb = wasm_v128_load(b + i);
    dot = wasm_f32x4_add(dot, wasm_f32x4_mul(va, vb));
    na = wasm_f32x4_add(na, wasm_f32x4_mul(va, va));
    nb = wasm_f32x4_add(nb, wasm_f32x4_mul(vb, vb));
  }
  float sd = hsum128(dot), sa = hsum128(na), sb = hsum128(nb);
  for (; i < d; ++i) {
    sd += a[i] * b[i];
    sa += a[i] * a[i];
    sb += b[i] * b[i];
  }
  return cosine_from_parts(sd, sa, sb);
}

float l2sq_f32_wasm128_fn(const float* a, const float* b, size_t d) { return l2sq_f32_wasm128(a, b, d); }
float dot_f32_wasm128_fn(const float* a, const float* b, size_t d) { return dot_f32_wasm128(a, b, d); }
float cos_f32_wasm128_fn(const float* a, const float* b, size_t d) { return cos_f32_wasm128(a, b, d); }

// u8 codes: 8 codes widen to 16-bit lanes, i32x4.dot_i16x8 sums adjacent products into
// 32-bit lanes (each term <= 2 x 255^2). Integer sums: the scalar reference's bits.
inline uint32_t hsum_i32x4(v128_t v) {
  return uint32_t(wasm_i32x4_extract_lane(v, 0)) + uint32_t(wasm_i32x4_extract_lane(v, 1)) +
         uint32_t(wasm_i32x4_extract_lane(v, 2)) + uint32_t(wasm_i32x4_extract_lane(v, 3));
}

uint32_t l2sq_u8_wasm128(const uint8_t* a, const uint8_t* b, size_t d) {
  v128_t s0 = wasm_i32x4_splat(0), s1 = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const v128_t va = wasm_v128_load(a + i), vb = wasm_v128_load(b + i);
    const v128_t lo = wasm_i16x8_sub(wasm_u16x8_extend_low_u8x16(va), wasm_u16x8_extend_low_u8x16(vb));
    const v128_t hi = wasm_i16x8_sub(wasm_u16x8_extend_high_u8x16(va), wasm_u16x8_extend_high_u8x16(vb));
    s0 = wasm_i32x4_add(s0, wasm_i32x4_dot_i16x8(lo, lo));
    s1 = wasm_i32x4_add(s1, wasm_i32x4_dot_i16x8(hi, hi));
  }
  uint32_t s = hsum_i32x4(wasm_i32x4_add(s0, s1));
  for (; i < d; ++i) {
    const int32_t diff = int32_t(a[i]) - int32_t(b[i]);
    s += uint32_t(diff * diff);
  }
  return s;
}

uint32_t dot_u8_wasm128(const uint8_t* a, const uint8_t* b, size_t d) {
  v128_t s0 = wasm_i32x4_splat(0), s1 = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const v128_t va = wasm_v128_load(a + i), vb = wasm_v128_load(b + i);
    s0 = wasm_i32x4_add(s0, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(va), wasm_u16x8_extend_low_u8x16(vb)));
    s1 = wasm_i32x4_add(s1, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(va), wasm_u16x8_extend_high_u8x16(vb)));
  }
  uint32_t s = hsum_i32x4(wasm_i32x4_add(s0, s1));
  for (; i < d; ++i) s += uint32_t(a[i]) * uint32_t(b[i]);
  return s;
}

}  // namespace

KernelTable wasm128_kernels() noexcept {
  return {Isa::wasm128,         l2sq_f32_wasm128_fn,  dot_f32_wasm128_fn,  cos_f32_wasm128_fn,
          score_rows<l2sq_f32_wasm128>, score_rows<dot_f32_wasm128>, score_rows<cos_f32_wasm128>,
          l2sq_u8_wasm128, dot_u8_wasm128};
}

}  // namespace quiver::simd
