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

// dot_u8 of one query against n rows, four at a time: the query's 16 bytes are loaded and
// widened once per step for four rows, and the four rows' loads are independent, so they
// overlap (wasm has no prefetch). Integer sums are exact in any order: the same results as
// dot_u8_wasm128 row by row.
void dot_u8_gather_wasm128(const uint8_t* q, const uint8_t* const* rows, size_t n, size_t d, uint32_t* out) {
  size_t r = 0;
  for (; r + 4 <= n; r += 4) {
    const uint8_t* b0 = rows[r];
    const uint8_t* b1 = rows[r + 1];
    const uint8_t* b2 = rows[r + 2];
    const uint8_t* b3 = rows[r + 3];
    v128_t s0 = wasm_i32x4_splat(0), s1 = wasm_i32x4_splat(0), s2 = wasm_i32x4_splat(0), s3 = wasm_i32x4_splat(0);
    size_t i = 0;
    for (; i + 16 <= d; i += 16) {
      const v128_t vq = wasm_v128_load(q + i);
      const v128_t ql = wasm_u16x8_extend_low_u8x16(vq), qh = wasm_u16x8_extend_high_u8x16(vq);
      const v128_t v0 = wasm_v128_load(b0 + i), v1 = wasm_v128_load(b1 + i);
      const v128_t v2 = wasm_v128_load(b2 + i), v3 = wasm_v128_load(b3 + i);
      s0 = wasm_i32x4_add(s0, wasm_i32x4_add(wasm_i32x4_dot_i16x8(ql, wasm_u16x8_extend_low_u8x16(v0)),
                                             wasm_i32x4_dot_i16x8(qh, wasm_u16x8_extend_high_u8x16(v0))));
      s1 = wasm_i32x4_add(s1, wasm_i32x4_add(wasm_i32x4_dot_i16x8(ql, wasm_u16x8_extend_low_u8x16(v1)),
                                             wasm_i32x4_dot_i16x8(qh, wasm_u16x8_extend_high_u8x16(v1))));
      s2 = wasm_i32x4_add(s2, wasm_i32x4_add(wasm_i32x4_dot_i16x8(ql, wasm_u16x8_extend_low_u8x16(v2)),
                                             wasm_i32x4_dot_i16x8(qh, wasm_u16x8_extend_high_u8x16(v2))));
      s3 = wasm_i32x4_add(s3, wasm_i32x4_add(wasm_i32x4_dot_i16x8(ql, wasm_u16x8_extend_low_u8x16(v3)),
                                             wasm_i32x4_dot_i16x8(qh, wasm_u16x8_extend_high_u8x16(v3))));
    }
    uint32_t t0 = hsum_i32x4(s0), t1 = hsum_i32x4(s1), t2 = hsum_i32x4(s2), t3 = hsum_i32x4(s3);
    for (; i < d; ++i) {
      const uint32_t x = q[i];
      t0 += x * b0[i];
      t1 += x * b1[i];
      t2 += x * b2[i];
      t3 += x * b3[i];
    }
    out[r] = t0;
    out[r + 1] = t1;
    out[r + 2] = t2;
    out[r + 3] = t3;
  }
  for (; r < n; ++r) out[r] = dot_u8_wasm128(q, rows[r], d);
}

}  // namespace

KernelTable wasm128_kernels() noexcept {
  return {Isa::wasm128,         l2sq_f32_wasm128_fn,  dot_f32_wasm128_fn,  cos_f32_wasm128_fn,
          score_rows<l2sq_f32_wasm128>, score_rows<dot_f32_wasm128>, score_rows<cos_f32_wasm128>,
          l2sq_u8_wasm128, dot_u8_wasm128, dot_u8_gather_wasm128};
}

}  // namespace quiver::simd
