// NEON fast scan: tbl looks up 16 codes per instruction; widening adds keep vector order.
#include <arm_neon.h>

#include "quant/fastscan.hpp"

namespace quiver::quant {

uint32_t fastscan_block_neon(const uint8_t* codes, const uint8_t* tables, size_t groups,
                             const float* offset, const float* scale, const BlockScoring& bs,
                             float* dist) {
  const uint8x16_t low_nibble = vdupq_n_u8(0x0F);
  uint32x4_t total[8];
  for (auto& t : total) t = vdupq_n_u32(0);
  for (size_t g0 = 0; g0 < groups; g0 += kFlushGroups) {
    const size_t g1 = g0 + kFlushGroups < groups ? g0 + kFlushGroups : groups;
    uint16x8_t acc[4] = {vdupq_n_u16(0), vdupq_n_u16(0), vdupq_n_u16(0), vdupq_n_u16(0)};
    for (size_t g = g0; g < g1; ++g) {
      const uint8_t* t = tables + g * kGroupTableBytes;
      const uint8_t* c = codes + g * kGroupCodeBytes;
      for (size_t j = 0; j < 2; ++j) {
        const uint8x16_t ta = vld1q_u8(t + j * 32);
        const uint8x16_t tb = vld1q_u8(t + 64 + j * 32);
        for (size_t h = 0; h < 2; ++h) {
          const uint8x16_t packed = vld1q_u8(c + j * 32 + h * 16);
          const uint8x16_t sum = vaddq_u8(vqtbl1q_u8(ta, vandq_u8(packed, low_nibble)),
                                          vqtbl1q_u8(tb, vshrq_n_u8(packed, 4)));
          acc[2 * h] = vaddw_u8(acc[2 * h], vget_low_u8(sum));  // vectors 16h + 0..7
          acc[2 * h + 1] = vaddw_high_u8(acc[2 * h + 1], sum);  // vectors 16h + 8..15
        }
      }
    }
    for (int i = 0; i < 4; ++i) {
      total[2 * i] = vaddw_u16(total[2 * i], vget_low_u16(acc[i]));
      total[2 * i + 1] = vaddw_high_u16(total[2 * i + 1], acc[i]);
    }
  }
  const float32x4_t c0 = vdupq_n_f32(bs.c0), bias = vdupq_n_f32(bs.bias), step = vdupq_n_f32(bs.step);
  for (int i = 0; i < 8; ++i) {
    const float32x4_t score = vaddq_f32(bias, vmulq_f32(vcvtq_f32_u32(total[i]), step));
    const float32x4_t d = vaddq_f32(vaddq_f32(c0, vld1q_f32(offset + 4 * i)),
                                    vmulq_f32(vld1q_f32(scale + 4 * i), score));
    vst1q_f32(dist + 4 * i, d);
  }
  uint32_t hits = 0;
  for (size_t v = 0; v < kBlockVectors; ++v) hits |= uint32_t(dist[v] <= bs.threshold) << v;
  return hits;
}

void fastscan_block_multi_neon(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                               size_t groups, const float* offset, const float* scale,
                               const BlockScoring* scoring, float* dist, uint32_t* hits) {
  for (size_t q = 0; q < nq; ++q) {
    hits[q] = fastscan_block_neon(codes, tables[q], groups, offset, scale, scoring[q],
                                  dist + q * kBlockVectors);
  }
}

}  // namespace quiver::quant
