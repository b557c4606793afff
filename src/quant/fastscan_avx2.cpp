// AVX2 fast scan: one 32-byte load holds a pair of 4-bit codes for 32 vectors; two vpshufb
// look up 64 codes, an 8-bit add folds the pair, and even/odd bytes widen into two 16-bit
// accumulators with an AND and a shift (no cross-lane shuffles in the loop). The multi-query
// form splits each code load into nibbles once for up to four queries.
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
  const __m256i low_nibble = _mm256_set1_epi8(0x0F);
  const __m256i low_byte = _mm256_set1_epi16(0x00FF);
  __m256i total[Q][4];  // per query, exact 32-bit sums: total[q][i] = vectors 8i .. 8i+7
  for (size_t q = 0; q < Q; ++q) {
    for (int i = 0; i < 4; ++i) total[q][i] = _mm256_setzero_si256();
  }
  for (size_t g0 = 0; g0 < groups; g0 += kFlushGroups) {
    const size_t g1 = g0 + kFlushGroups < groups ? g0 + kFlushGroups : groups;
    __m256i even[Q], odd[Q];
    for (size_t q = 0; q < Q; ++q) even[q] = odd[q] = _mm256_setzero_si256();
    for (size_t g = g0; g < g1; ++g) {
      const uint8_t* c = codes + g * kGroupCodeBytes;
      for (size_t j = 0; j < 2; ++j) {
        const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j * 32));
        const __m256i lo = _mm256_and_si256(packed, low_nibble);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(packed, 4), low_nibble);
        for (size_t q = 0; q < Q; ++q) {
          const uint8_t* t = tables[q] + g * kGroupTableBytes;
          const __m256i ta = _mm256_load_si256(reinterpret_cast<const __m256i*>(t + j * 32));
          const __m256i tb = _mm256_load_si256(reinterpret_cast<const __m256i*>(t + 64 + j * 32));
          const __m256i sum = _mm256_add_epi8(_mm256_shuffle_epi8(ta, lo), _mm256_shuffle_epi8(tb, hi));
          even[q] = _mm256_add_epi16(even[q], _mm256_and_si256(sum, low_byte));
          odd[q] = _mm256_add_epi16(odd[q], _mm256_srli_epi16(sum, 8));
        }
      }
    }
    for (size_t q = 0; q < Q; ++q) {
      // even lane i < 8 is vector 2i, lane 8 + i is vector 16 + 2i; odd likewise + 1.
      const __m256i first = _mm256_unpacklo_epi16(even[q], odd[q]);   // vectors 0-7 | 16-23
      const __m256i second = _mm256_unpackhi_epi16(even[q], odd[q]);  // vectors 8-15 | 24-31
      total[q][0] = _mm256_add_epi32(total[q][0], _mm256_cvtepu16_epi32(_mm256_castsi256_si128(first)));
      total[q][1] = _mm256_add_epi32(total[q][1], _mm256_cvtepu16_epi32(_mm256_castsi256_si128(second)));
      total[q][2] = _mm256_add_epi32(total[q][2], _mm256_cvtepu16_epi32(_mm256_extracti128_si256(first, 1)));
      total[q][3] = _mm256_add_epi32(total[q][3], _mm256_cvtepu16_epi32(_mm256_extracti128_si256(second, 1)));
    }
  }
  for (size_t q = 0; q < Q; ++q) {
    const BlockScoring& bs = scoring[q];
    const __m256 c0 = _mm256_set1_ps(bs.c0), bias = _mm256_set1_ps(bs.bias);
    const __m256 step = _mm256_set1_ps(bs.step), threshold = _mm256_set1_ps(bs.threshold);
    uint32_t mask = 0;
    for (int i = 0; i < 4; ++i) {
      const __m256 score = _mm256_add_ps(bias, _mm256_mul_ps(_mm256_cvtepi32_ps(total[q][i]), step));
      const __m256 d = _mm256_add_ps(_mm256_add_ps(c0, _mm256_loadu_ps(offset + 8 * i)),
                                     _mm256_mul_ps(_mm256_loadu_ps(scale + 8 * i), score));
      _mm256_storeu_ps(dist + q * kBlockVectors + 8 * i, d);
      mask |= uint32_t(_mm256_movemask_ps(_mm256_cmp_ps(d, threshold, _CMP_LE_OQ))) << (8 * i);
    }
    hits[q] = mask;
  }
}
};  // struct Kernel

}  // namespace

FastScanTable avx2_fastscan() noexcept { return make_fastscan_table<Kernel>(Isa::avx2); }

}  // namespace quiver::quant
