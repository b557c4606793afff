// WebAssembly SIMD128 wrapper: the operations the kernel bodies (simd/kernels_body.hpp,
// quant/fastscan_body.hpp) are written over, for 128-bit registers. Compiled with -msimd128
// only in the simd and simd-mt variants (a wasm module cannot probe at run time; the JS loader
// picks the variant). Internal linkage, for the reasons in vec_avx2.hpp.
//
// QUIVER_WASM_RELAXED_SIMD (the relaxed-simd variant, compiled by clang-19 with -mrelaxed-simd)
// swaps in relaxed instructions only where their result is fully determined, so that the
// variant's answers are the simd variant's bit for bit: the swizzle of lookups whose indices are
// nibbles (< 16, where relaxed and plain agree). Relaxed madd is not used: fused or not is the
// engine's choice, and the float kernels must round as the simd variant does.
// i32x4.relaxed_dot_i8x16_i7x16_add, exact by the spec for a 0..127 second operand, scores the
// u8 gather (centred rows times the query's 7-bit halves, kernels_wasm128.cpp) only where a
// start-up check finds the engine computes it exactly: Node 20's baseline compiler (Liftoff,
// V8 11.3) does not (8 a b per lane for splats a and b, the accumulator dropped) while its
// optimising tier does, so the check's answer is kept for the module instance.
#pragma once

#include <wasm_simd128.h>

#if defined(QUIVER_WASM_RELAXED_SIMD) && !defined(__wasm_relaxed_simd__)
#error "QUIVER_WASM_RELAXED_SIMD needs a compiler with standard relaxed SIMD (clang-19, -mrelaxed-simd)"
#endif

#include <cstddef>
#include <cstdint>

namespace quiver::simd {
namespace {

struct Wasm128 {
  static constexpr size_t kBytes = 16;  // one register: 16 bytes, 4 floats or 32-bit ints
  static constexpr size_t kLanes = 4;
  using F32 = v128_t;
  using U32 = v128_t;
  using U16 = v128_t;
  using U8 = v128_t;

  // ---- f32 (tails fall back to scalar lanes: no masked loads)
  static F32 f32_zero() { return wasm_f32x4_splat(0); }
  static F32 f32_splat(float x) { return wasm_f32x4_splat(x); }
  static F32 f32_loadu(const float* p) { return wasm_v128_load(p); }
  static void f32_storeu(float* p, F32 v) { wasm_v128_store(p, v); }
  static F32 f32_add(F32 a, F32 b) { return wasm_f32x4_add(a, b); }
  static F32 f32_sub(F32 a, F32 b) { return wasm_f32x4_sub(a, b); }
  static F32 f32_mul(F32 a, F32 b) { return wasm_f32x4_mul(a, b); }
  // No fused multiply-add in SIMD128 (relaxed madd may or may not fuse, engine by engine): a
  // product and a sum, each rounded.
  static F32 f32_fmadd(F32 a, F32 b, F32 acc) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
  static F32 f32_from_i32(U32 v) { return wasm_f32x4_convert_i32x4(v); }
  // Bit i set where a[i] <= b[i] (never for NaN).
  static uint32_t f32_le_mask(F32 a, F32 b) { return uint32_t(wasm_i32x4_bitmask(wasm_f32x4_le(a, b))); }
  static float f32_hsum(F32 v) {
    return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
           (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
  }
  static constexpr bool kF32MaskedTail = false;

  // ---- u8 codes, exact integer sums in 32-bit lanes
  static U32 u32_zero() { return wasm_i32x4_splat(0); }
  static U32 u32_add(U32 a, U32 b) { return wasm_i32x4_add(a, b); }
  static uint32_t u32_hsum(U32 v) {
    return uint32_t(wasm_i32x4_extract_lane(v, 0)) + uint32_t(wasm_i32x4_extract_lane(v, 1)) +
           uint32_t(wasm_i32x4_extract_lane(v, 2)) + uint32_t(wasm_i32x4_extract_lane(v, 3));
  }
  // Codes widened to 16-bit lanes, and i32x4.dot_i16x8: adjacent products summed into 32-bit
  // lanes (each term <= 2 x 255^2).
  static U16 u8_widen_low(U8 v) { return wasm_u16x8_extend_low_u8x16(v); }
  static U16 u8_widen_high(U8 v) { return wasm_u16x8_extend_high_u8x16(v); }
  static U32 u16_dot(U16 a, U16 b) { return wasm_i32x4_dot_i16x8(a, b); }
  // One step of kBytes codes, its low 8 into s0 and its high 8 into s1.
  static void u8_l2sq_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    const v128_t va = wasm_v128_load(a), vb = wasm_v128_load(b);
    const v128_t lo = wasm_i16x8_sub(u8_widen_low(va), u8_widen_low(vb));
    const v128_t hi = wasm_i16x8_sub(u8_widen_high(va), u8_widen_high(vb));
    s0 = wasm_i32x4_add(s0, u16_dot(lo, lo));
    s1 = wasm_i32x4_add(s1, u16_dot(hi, hi));
  }
  static void u8_dot_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    const v128_t va = wasm_v128_load(a), vb = wasm_v128_load(b);
    s0 = wasm_i32x4_add(s0, u16_dot(u8_widen_low(va), u8_widen_low(vb)));
    s1 = wasm_i32x4_add(s1, u16_dot(u8_widen_high(va), u8_widen_high(vb)));
  }
  static constexpr bool kU8MaskedTail = false;

  // ---- byte lookups (fast scan): i8x16.swizzle looks up 16 bytes in a 16-entry table
  static U8 u8_loadu(const uint8_t* p) { return wasm_v128_load(p); }
  static U8 u8_load(const uint8_t* p) { return wasm_v128_load(p); }
  static U8 u8_low_nibbles(U8 v) { return wasm_v128_and(v, wasm_i8x16_splat(0x0F)); }
  // By a 16-bit shift and the nibble mask: an 8-bit shift is not an x86 instruction, and
  // engines emulate it with a shift, a mask built on the spot and an AND.
  static U8 u8_high_nibbles(U8 v) { return wasm_v128_and(wasm_u16x8_shr(v, 4), wasm_i8x16_splat(0x0F)); }
  // Every index is a nibble (< 16): relaxed_swizzle, which skips the plain swizzle's zeroing of
  // indices past 15 (a compare-and-fix-up on x86), gives the same bytes.
#if defined(QUIVER_WASM_RELAXED_SIMD)
  static U8 u8_lookup(U8 table, U8 index) { return wasm_i8x16_relaxed_swizzle(table, index); }
#else
  static U8 u8_lookup(U8 table, U8 index) { return wasm_i8x16_swizzle(table, index); }
#endif
  static U8 u8_add(U8 a, U8 b) { return wasm_i8x16_add(a, b); }
  // Bytes summed into two 16-bit accumulators: add0 (`both`) adds the byte vector as 8 u16
  // lanes, lane i = byte(2i) + 256 * byte(2i + 1) (mod 2^16), and add1 (`odd`) adds
  // byte(2i + 1) alone; the even sums are both - (odd << 8) at the flush. Exact while each even
  // or odd sum stays below 2^16 (fast scan: at most kFlushGroups * 2 * 254), so its residue mod
  // 2^16 is itself. One AND fewer per add than masking the even bytes out.
  static U16 u16_zero() { return wasm_i16x8_splat(0); }
  static U16 bytesums_add0(U16 both, U8 v) { return wasm_i16x8_add(both, v); }
  static U16 bytesums_add1(U16 odd, U8 v) { return wasm_i16x8_add(odd, wasm_u16x8_shr(v, 8)); }
  // total[i] += sums of bytes 4i .. 4i+3, as 32-bit lanes.
  static void bytesums_flush(U16 both, U16 odd, U32* total) {
    const v128_t even = wasm_i16x8_sub(both, wasm_i16x8_shl(odd, 8));
    // even lane i is byte 2i, odd lane i is byte 2i + 1: interleave into order.
    const v128_t n0 = wasm_i16x8_shuffle(even, odd, 0, 8, 1, 9, 2, 10, 3, 11);
    const v128_t n1 = wasm_i16x8_shuffle(even, odd, 4, 12, 5, 13, 6, 14, 7, 15);
    total[0] = wasm_i32x4_add(total[0], wasm_u32x4_extend_low_u16x8(n0));
    total[1] = wasm_i32x4_add(total[1], wasm_u32x4_extend_high_u16x8(n0));
    total[2] = wasm_i32x4_add(total[2], wasm_u32x4_extend_low_u16x8(n1));
    total[3] = wasm_i32x4_add(total[3], wasm_u32x4_extend_high_u16x8(n1));
  }
};

}  // namespace
}  // namespace quiver::simd
