// NEON wrapper (AArch64, where NEON is always present): the operations the kernel bodies
// (simd/kernels_body.hpp, quant/fastscan_body.hpp) are written over, for 128-bit registers.
// Internal linkage and no namespace-scope constants, for the reasons in vec_avx2.hpp.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

namespace quiver::simd {
namespace {

struct Neon {
  static constexpr size_t kBytes = 16;  // one register: 16 bytes, 4 floats or 32-bit ints
  static constexpr size_t kLanes = 4;
  using F32 = float32x4_t;
  using U32 = uint32x4_t;
  using U16 = uint16x8_t;
  using U8 = uint8x16_t;

  // ---- f32 (tails fall back to scalar lanes: no masked loads)
  static F32 f32_zero() { return vdupq_n_f32(0); }
  static F32 f32_loadu(const float* p) { return vld1q_f32(p); }
  static F32 f32_splat(float x) { return vdupq_n_f32(x); }
  static void f32_storeu(float* p, F32 v) { vst1q_f32(p, v); }
  static F32 f32_mul(F32 a, F32 b) { return vmulq_f32(a, b); }
  static F32 f32_add(F32 a, F32 b) { return vaddq_f32(a, b); }
  static F32 f32_sub(F32 a, F32 b) { return vsubq_f32(a, b); }
  static F32 f32_fmadd(F32 a, F32 b, F32 acc) { return vfmaq_f32(acc, a, b); }  // one rounding
  static float f32_hsum(F32 v) { return vaddvq_f32(v); }
  static constexpr bool kF32MaskedTail = false;

  // ---- u8 codes, exact integer sums in 32-bit lanes
  static U32 u32_zero() { return vdupq_n_u32(0); }
  static U32 u32_add(U32 a, U32 b) { return vaddq_u32(a, b); }
  static uint32_t u32_hsum(U32 v) { return vaddvq_u32(v); }
  // As int32 (fast-scan sums are below 2^31), for the plain-code epilogue.
  static void u32_storeu(int32_t* p, U32 v) { vst1q_s32(p, vreinterpretq_s32_u32(v)); }
  // One step of kBytes codes, its low 8 into s0 and its high 8 into s1: absolute differences
  // (or the codes) multiply into 16-bit lanes (<= 255^2), which pairwise-accumulate into
  // 32-bit lanes.
  static void u8_l2sq_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    const uint8x16_t diff = vabdq_u8(vld1q_u8(a), vld1q_u8(b));
    s0 = vpadalq_u16(s0, vmull_u8(vget_low_u8(diff), vget_low_u8(diff)));
    s1 = vpadalq_u16(s1, vmull_high_u8(diff, diff));
  }
  static void u8_dot_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    const uint8x16_t va = vld1q_u8(a), vb = vld1q_u8(b);
    s0 = vpadalq_u16(s0, vmull_u8(vget_low_u8(va), vget_low_u8(vb)));
    s1 = vpadalq_u16(s1, vmull_high_u8(va, vb));
  }
  static constexpr bool kU8MaskedTail = false;

  // ---- byte lookups (fast scan): tbl looks up 16 bytes in a 16-entry table
  static U8 u8_loadu(const uint8_t* p) { return vld1q_u8(p); }
  static U8 u8_load(const uint8_t* p) { return vld1q_u8(p); }
  static U8 u8_low_nibbles(U8 v) { return vandq_u8(v, vdupq_n_u8(0x0F)); }
  static U8 u8_high_nibbles(U8 v) { return vshrq_n_u8(v, 4); }
  static U8 u8_lookup(U8 table, U8 index) { return vqtbl1q_u8(table, index); }
  static U8 u8_add(U8 a, U8 b) { return vaddq_u8(a, b); }
  // Bytes summed into two 16-bit accumulators by widening adds, which keep byte order: add0
  // takes bytes 0-7, add1 bytes 8-15.
  static U16 u16_zero() { return vdupq_n_u16(0); }
  static U16 bytesums_add0(U16 low, U8 v) { return vaddw_u8(low, vget_low_u8(v)); }
  static U16 bytesums_add1(U16 high, U8 v) { return vaddw_high_u8(high, v); }
  // total[i] += sums of bytes 4i .. 4i+3, as 32-bit lanes.
  static void bytesums_flush(U16 low, U16 high, U32* total) {
    total[0] = vaddw_u16(total[0], vget_low_u16(low));
    total[1] = vaddw_high_u16(total[1], low);
    total[2] = vaddw_u16(total[2], vget_low_u16(high));
    total[3] = vaddw_high_u16(total[3], high);
  }
};

}  // namespace
}  // namespace quiver::simd
