// NEON fast scan: tbl looks up 16 codes per instruction; widening adds keep vector order.
// One query per pass over the codes (a multi-query pass reloads the codes per query here:
// NEON has registers for only one query's accumulators).
#include <arm_neon.h>

#include "quant/fastscan.hpp"

namespace quiver::quant {
namespace {

// Sums Q queries over a block, one after another; see scan_pass() in fastscan.hpp.
struct Kernel {
  template <size_t Q>
  static void scan(const uint8_t* codes, const uint8_t* const* tables, size_t groups,
                   const float* offset, const float* scale, const BlockScoring* scoring,
                   float* dist, uint32_t* hits) {
    scan_pass<Kernel, Q>(codes, tables, groups, offset, scale, scoring, dist, hits);
  }

  template <size_t Q>
  static void sums(const uint8_t* codes, const uint8_t* const* tables, size_t groups,
                   int32_t (*out)[kBlockVectors]) {
    for (size_t q = 0; q < Q; ++q) one_query(codes, tables[q], groups, out[q]);
  }

  static void one_query(const uint8_t* codes, const uint8_t* tables, size_t groups, int32_t* out) {
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
    for (int i = 0; i < 8; ++i) vst1q_s32(out + 4 * i, vreinterpretq_s32_u32(total[i]));
  }
};

}  // namespace

FastScanTable neon_fastscan() noexcept { return make_fastscan_table<Kernel>(Isa::neon); }

}  // namespace quiver::quant
