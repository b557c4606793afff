// AVX-512BW fast scan: one 64-byte load holds both pairs of a group (128 codes of 32 vectors);
// two vpshufb look all of them up against the group's tables, stored ready in 128-bit lanes.
// The multi-query form splits each code load into nibbles once for up to four queries.
#include <immintrin.h>

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
  const __m512i low_nibble = _mm512_set1_epi8(0x0F);
  const __m512i low_byte = _mm512_set1_epi16(0x00FF);
  __m512i total[Q][2];  // per query: vectors 0-15, 16-31
  for (size_t q = 0; q < Q; ++q) total[q][0] = total[q][1] = _mm512_setzero_si512();
  for (size_t g0 = 0; g0 < groups; g0 += kFlushGroups) {
    const size_t g1 = g0 + kFlushGroups < groups ? g0 + kFlushGroups : groups;
    __m512i even[Q], odd[Q];
    for (size_t q = 0; q < Q; ++q) even[q] = odd[q] = _mm512_setzero_si512();
    for (size_t g = g0; g < g1; ++g) {
      const __m512i packed = _mm512_loadu_si512(codes + g * kGroupCodeBytes);
      const __m512i lo = _mm512_and_si512(packed, low_nibble);
      const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(packed, 4), low_nibble);
      for (size_t q = 0; q < Q; ++q) {
        const uint8_t* t = tables[q] + g * kGroupTableBytes;
        const __m512i sum = _mm512_add_epi8(_mm512_shuffle_epi8(_mm512_load_si512(t), lo),
                                            _mm512_shuffle_epi8(_mm512_load_si512(t + 64), hi));
        even[q] = _mm512_add_epi16(even[q], _mm512_and_si512(sum, low_byte));
        odd[q] = _mm512_add_epi16(odd[q], _mm512_srli_epi16(sum, 8));
      }
    }
    for (size_t q = 0; q < Q; ++q) {
      // The two 256-bit halves hold the group's two pairs for the same vectors: add them
      // (each lane <= 128 * 254, so the sum fits 16 bits), then put vectors in order.
      const __m256i e = _mm256_add_epi16(_mm512_castsi512_si256(even[q]), _mm512_extracti64x4_epi64(even[q], 1));
      const __m256i o = _mm256_add_epi16(_mm512_castsi512_si256(odd[q]), _mm512_extracti64x4_epi64(odd[q], 1));
      const __m256i first = _mm256_unpacklo_epi16(e, o);   // vectors 0-7 | 16-23
      const __m256i second = _mm256_unpackhi_epi16(e, o);  // vectors 8-15 | 24-31
      total[q][0] = _mm512_add_epi32(total[q][0], _mm512_cvtepu16_epi32(_mm256_permute2x128_si256(first, second, 0x20)));
      total[q][1] = _mm512_add_epi32(total[q][1], _mm512_cvtepu16_epi32(_mm256_permute2x128_si256(first, second, 0x31)));
    }
  }
  for (size_t q = 0; q < Q; ++q) {
    const BlockScoring& bs = scoring[q];
    const __m512 c0 = _mm512_set1_ps(bs.c0), bias = _mm512_set1_ps(bs.bias);
    const __m512 step = _mm512_set1_ps(bs.step), threshold = _mm512_set1_ps(bs.threshold);
    uint32_t mask = 0;
    for (int i = 0; i < 2; ++i) {
      const __m512 score = _mm512_add_ps(bias, _mm512_mul_ps(_mm512_cvtepi32_ps(total[q][i]), step));
      const __m512 d = _mm512_add_ps(_mm512_add_ps(c0, _mm512_loadu_ps(offset + 16 * i)),
                                     _mm512_mul_ps(_mm512_loadu_ps(scale + 16 * i), score));
      _mm512_storeu_ps(dist + q * kBlockVectors + 16 * i, d);
      mask |= uint32_t(_mm512_cmp_ps_mask(d, threshold, _CMP_LE_OQ)) << (16 * i);
    }
    hits[q] = mask;
  }
}
};  // struct Kernel

}  // namespace

FastScanTable avx512_fastscan() noexcept { return make_fastscan_table<Kernel>(Isa::avx512); }

}  // namespace quiver::quant
