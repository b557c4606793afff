#include <wasm_simd128.h>
#include <stdint.h>
#include <stddef.h>
#define N 4096
#define D 384
static uint8_t rows[N * D];
static uint8_t q[D];
static uint32_t out[N];
static uint32_t seed = 1;
static uint32_t rnd(void) { seed = seed * 1664525u + 1013904223u; return seed >> 8; }
__attribute__((export_name("init"))) void init(void) {
  for (size_t i = 0; i < N * D; ++i) rows[i] = (uint8_t)rnd();
  for (size_t i = 0; i < D; ++i) q[i] = (uint8_t)rnd();
}
static uint32_t hsum(v128_t v) {
  return (uint32_t)wasm_i32x4_extract_lane(v, 0) + (uint32_t)wasm_i32x4_extract_lane(v, 1) +
         (uint32_t)wasm_i32x4_extract_lane(v, 2) + (uint32_t)wasm_i32x4_extract_lane(v, 3);
}
__attribute__((export_name("plain"))) uint32_t plain(int iters) {
  uint32_t check = 0;
  for (int it = 0; it < iters; ++it) {
    v128_t wide[2 * D / 16];
    for (size_t j = 0; j < D / 16; ++j) {
      v128_t vq = wasm_v128_load(q + 16 * j);
      wide[2 * j] = wasm_u16x8_extend_low_u8x16(vq);
      wide[2 * j + 1] = wasm_u16x8_extend_high_u8x16(vq);
    }
    for (size_t r = 0; r < N; r += 4) {
      v128_t s[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
      for (size_t j = 0; j < D / 16; ++j) {
        v128_t ql = wide[2 * j], qh = wide[2 * j + 1];
        for (int k = 0; k < 4; ++k) {
          v128_t v = wasm_v128_load(rows + (r + k) * D + 16 * j);
          s[k] = wasm_i32x4_add(s[k], wasm_i32x4_add(wasm_i32x4_dot_i16x8(ql, wasm_u16x8_extend_low_u8x16(v)),
                                                     wasm_i32x4_dot_i16x8(qh, wasm_u16x8_extend_high_u8x16(v))));
        }
      }
      for (int k = 0; k < 4; ++k) out[r + k] = hsum(s[k]);
    }
    check += out[it % N];
  }
  return check;
}
__attribute__((export_name("relaxed2"))) uint32_t relaxed2(int iters) {
  uint32_t check = 0;
  for (int it = 0; it < iters; ++it) {
    v128_t hi[D / 16], lo[D / 16];
    uint32_t qsum = 0;
    for (size_t i = 0; i < D; ++i) qsum += q[i];
    for (size_t j = 0; j < D / 16; ++j) {
      v128_t vq = wasm_v128_load(q + 16 * j);
      hi[j] = wasm_v128_and(wasm_u16x8_shr(vq, 1), wasm_i8x16_splat(0x7f));
      lo[j] = wasm_v128_and(vq, wasm_i8x16_splat(1));
    }
    const v128_t flip = wasm_i8x16_splat((int8_t)0x80);
    for (size_t r = 0; r < N; r += 4) {
      v128_t a[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
      v128_t b[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
      for (size_t j = 0; j < D / 16; ++j) {
        for (int k = 0; k < 4; ++k) {
          v128_t v = wasm_v128_xor(wasm_v128_load(rows + (r + k) * D + 16 * j), flip);
          a[k] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(v, hi[j], a[k]);
          b[k] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(v, lo[j], b[k]);
        }
      }
      for (int k = 0; k < 4; ++k) out[r + k] = 2u * hsum(a[k]) + hsum(b[k]) + 128u * qsum;
    }
    check += out[it % N];
  }
  return check;
}
__attribute__((export_name("relaxed1"))) uint32_t relaxed1(int iters) {
  uint32_t check = 0;
  for (int it = 0; it < iters; ++it) {
    v128_t hi[D / 16];
    for (size_t j = 0; j < D / 16; ++j) {
      v128_t vq = wasm_v128_load(q + 16 * j);
      hi[j] = wasm_v128_and(wasm_u16x8_shr(vq, 1), wasm_i8x16_splat(0x7f));
    }
    const v128_t flip = wasm_i8x16_splat((int8_t)0x80);
    for (size_t r = 0; r < N; r += 4) {
      v128_t a[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
      for (size_t j = 0; j < D / 16; ++j) {
        for (int k = 0; k < 4; ++k) {
          v128_t v = wasm_v128_xor(wasm_v128_load(rows + (r + k) * D + 16 * j), flip);
          a[k] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(v, hi[j], a[k]);
        }
      }
      for (int k = 0; k < 4; ++k) out[r + k] = hsum(a[k]);
    }
    check += out[it % N];
  }
  return check;
}
// reference: exact scalar sums, to check plain and relaxed2 agree
__attribute__((export_name("verify"))) int verify(void) {
  uint32_t ref[N];
  for (size_t r = 0; r < N; ++r) { uint32_t s = 0; for (size_t i = 0; i < D; ++i) s += (uint32_t)q[i] * rows[r * D + i]; ref[r] = s; }
  plain(1); for (size_t r = 0; r < N; ++r) if (out[r] != ref[r]) return 1;
  relaxed2(1); for (size_t r = 0; r < N; ++r) if (out[r] != ref[r]) return 2;
  return 0;
}
