// WebAssembly SIMD128 fast scan: i8x16.swizzle looks up 16 codes per instruction; even/odd
// bytes widen into 16-bit accumulators (the pair-sum bytes added whole, and their odd bytes
// by a shift, see below). The multi-query form splits each code load into nibbles once for up
// to four queries.
#include <wasm_simd128.h>

#include "quant/fastscan.hpp"

namespace quiver::quant {
namespace {

// Scores Q queries per pass over a block; see make_fastscan_table() in fastscan.hpp.
// The epilogue (sums -> distances, hit mask) stays in SIMD here rather than using the shared
// finish_block(): as plain code it measured 10-47% slower per block (AVX-512 worst), since
// the compiler does not turn the hit-mask loop into a compare + movemask.
struct Kernel {
template <size_t Q>
static void scan(const uint8_t* codes, const uint8_t* const* tables, size_t groups, const float* offset,
          const float* scale, const BlockScoring* scoring, float* dist, uint32_t* hits) {
  const v128_t low_nibble = wasm_i8x16_splat(0x0F);
  v128_t total[Q][8];  // per query: vectors 4i .. 4i+3
  for (size_t q = 0; q < Q; ++q) {
    for (int i = 0; i < 8; ++i) total[q][i] = wasm_i32x4_splat(0);
  }
  for (size_t g0 = 0; g0 < groups; g0 += kFlushGroups) {
    const size_t g1 = g0 + kFlushGroups < groups ? g0 + kFlushGroups : groups;
    // Per half (vectors 0-15, 16-31): `both` adds each pair-sum byte vector as 8 u16 lanes,
    // lane i = sum(2i) + 256 * sum(2i + 1) (mod 2^16), and `odd` adds sum(2i + 1) alone; the
    // even sums are both - (odd << 8) at the flush. Exact: each even or odd sum is at most
    // kFlushGroups * 2 * 254 < 2^16, so its residue mod 2^16 is itself. One AND fewer per
    // lookup pair than masking the even bytes out.
    v128_t acc[Q][4];  // both0, odd0, both1, odd1
    for (size_t q = 0; q < Q; ++q) {
      for (int i = 0; i < 4; ++i) acc[q][i] = wasm_i16x8_splat(0);
    }
    for (size_t g = g0; g < g1; ++g) {
      const uint8_t* c = codes + g * kGroupCodeBytes;
      for (size_t j = 0; j < 2; ++j) {
        const v128_t p0 = wasm_v128_load(c + j * 32);
        const v128_t p1 = wasm_v128_load(c + j * 32 + 16);
        // High nibbles by a 16-bit shift and the nibble mask: an 8-bit shift is not an x86
        // instruction, and engines emulate it with a shift, a mask built on the spot and an AND.
        const v128_t lo0 = wasm_v128_and(p0, low_nibble), hi0 = wasm_v128_and(wasm_u16x8_shr(p0, 4), low_nibble);
        const v128_t lo1 = wasm_v128_and(p1, low_nibble), hi1 = wasm_v128_and(wasm_u16x8_shr(p1, 4), low_nibble);
        for (size_t q = 0; q < Q; ++q) {
          const uint8_t* t = tables[q] + g * kGroupTableBytes;
          const v128_t ta = wasm_v128_load(t + j * 32);
          const v128_t tb = wasm_v128_load(t + 64 + j * 32);
          const v128_t s0 = wasm_i8x16_add(wasm_i8x16_swizzle(ta, lo0), wasm_i8x16_swizzle(tb, hi0));
          const v128_t s1 = wasm_i8x16_add(wasm_i8x16_swizzle(ta, lo1), wasm_i8x16_swizzle(tb, hi1));
          acc[q][0] = wasm_i16x8_add(acc[q][0], s0);
          acc[q][1] = wasm_i16x8_add(acc[q][1], wasm_u16x8_shr(s0, 8));
          acc[q][2] = wasm_i16x8_add(acc[q][2], s1);
          acc[q][3] = wasm_i16x8_add(acc[q][3], wasm_u16x8_shr(s1, 8));
        }
      }
    }
    for (size_t q = 0; q < Q; ++q) {
      const v128_t even0 = wasm_i16x8_sub(acc[q][0], wasm_i16x8_shl(acc[q][1], 8));
      const v128_t even1 = wasm_i16x8_sub(acc[q][2], wasm_i16x8_shl(acc[q][3], 8));
      // even lane i is vector 2i (of its half), odd lane i is 2i + 1: interleave into order.
      const v128_t n[4] = {
          wasm_i16x8_shuffle(even0, acc[q][1], 0, 8, 1, 9, 2, 10, 3, 11),
          wasm_i16x8_shuffle(even0, acc[q][1], 4, 12, 5, 13, 6, 14, 7, 15),
          wasm_i16x8_shuffle(even1, acc[q][3], 0, 8, 1, 9, 2, 10, 3, 11),
          wasm_i16x8_shuffle(even1, acc[q][3], 4, 12, 5, 13, 6, 14, 7, 15),
      };
      for (int i = 0; i < 4; ++i) {
        total[q][2 * i] = wasm_i32x4_add(total[q][2 * i], wasm_u32x4_extend_low_u16x8(n[i]));
        total[q][2 * i + 1] = wasm_i32x4_add(total[q][2 * i + 1], wasm_u32x4_extend_high_u16x8(n[i]));
      }
    }
  }
  for (size_t q = 0; q < Q; ++q) {
    const BlockScoring& bs = scoring[q];
    const v128_t c0 = wasm_f32x4_splat(bs.c0), bias = wasm_f32x4_splat(bs.bias);
    const v128_t step = wasm_f32x4_splat(bs.step), threshold = wasm_f32x4_splat(bs.threshold);
    uint32_t mask = 0;
    for (int i = 0; i < 8; ++i) {
      const v128_t score = wasm_f32x4_add(bias, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(total[q][i]), step));
      const v128_t d = wasm_f32x4_add(wasm_f32x4_add(c0, wasm_v128_load(offset + 4 * i)),
                                      wasm_f32x4_mul(wasm_v128_load(scale + 4 * i), score));
      wasm_v128_store(dist + q * kBlockVectors + 4 * i, d);
      mask |= uint32_t(wasm_i32x4_bitmask(wasm_f32x4_le(d, threshold))) << (4 * i);
    }
    hits[q] = mask;
  }
}
};  // struct Kernel

}  // namespace

FastScanTable wasm128_fastscan() noexcept { return make_fastscan_table<Kernel>(Isa::wasm128); }

}  // namespace quiver::quant
