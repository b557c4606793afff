// AVX-512 (F) kernels. Compiled with -mavx512f -mavx512bw -mavx512vl -mfma; called only after
// CPU detection says yes. Tails use masked loads, so no element past the end is read.
#include <immintrin.h>

#include "simd/kernels.hpp"

namespace quiver::simd {
namespace {

// Horizontal sum without _mm512_reduce_add_ps, whose GCC 12 expansion trips -Wuninitialized.
inline float hsum512(__m512 v) {
  const __m256 lo = _mm512_castps512_ps256(v);
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  const __m256 s8 = _mm256_add_ps(lo, hi);
  __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  s4 = _mm_add_ss(s4, _mm_movehdup_ps(s4));
  return _mm_cvtss_f32(s4);
}

inline __mmask16 tail_mask(size_t rem) { return static_cast<__mmask16>((1u << rem) - 1u); }

inline float l2sq_f32_avx512(const float* a, const float* b, size_t d) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  __m512 s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= d; i += 64) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16));
    const __m512 d2 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32));
    const __m512 d3 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48));
    s0 = _mm512_fmadd_ps(d0, d0, s0);
    s1 = _mm512_fmadd_ps(d1, d1, s1);
    s2 = _mm512_fmadd_ps(d2, d2, s2);
    s3 = _mm512_fmadd_ps(d3, d3, s3);
  }
  for (; i + 16 <= d; i += 16) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    s0 = _mm512_fmadd_ps(d0, d0, s0);
  }
  if (i < d) {
    const __mmask16 m = tail_mask(d - i);
    const __m512 d0 = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    s1 = _mm512_fmadd_ps(d0, d0, s1);
  }
  return hsum512(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

inline float dot_f32_avx512(const float* a, const float* b, size_t d) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  __m512 s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= d; i += 64) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
    s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), s2);
    s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), s3);
  }
  for (; i + 16 <= d; i += 16) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
  }
  if (i < d) {
    const __mmask16 m = tail_mask(d - i);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s1);
  }
  return hsum512(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

inline float cos_f32_avx512(const float* a, const float* b, size_t d) {
  __m512 dot = _mm512_setzero_ps(), na = _mm512_setzero_ps(), nb = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    const __m512 va = _mm512_loadu_ps(a + i), vb = _mm512_loadu_ps(b + i);
    dot = _mm512_fmadd_ps(va, vb, dot);
    na = _mm512_fmadd_ps(va, va, na);
    nb = _mm512_fmadd_ps(vb, vb, nb);
  }
  if (i < d) {
    const __mmask16 m = tail_mask(d - i);
    const __m512 va = _mm512_maskz_loadu_ps(m, a + i), vb = _mm512_maskz_loadu_ps(m, b + i);
    dot = _mm512_fmadd_ps(va, vb, dot);
    na = _mm512_fmadd_ps(va, va, na);
    nb = _mm512_fmadd_ps(vb, vb, nb);
  }
  return cosine_from_parts(hsum512(dot), hsum512(na),
                           hsum512(nb));
}

float l2sq_f32_avx512_fn(const float* a, const float* b, size_t d) { return l2sq_f32_avx512(a, b, d); }
float dot_f32_avx512_fn(const float* a, const float* b, size_t d) { return dot_f32_avx512(a, b, d); }
float cos_f32_avx512_fn(const float* a, const float* b, size_t d) { return cos_f32_avx512(a, b, d); }

// u8 codes: 32 codes widen to 16-bit lanes, madd sums adjacent products into 32-bit lanes;
// the tail is a masked load (zeros add nothing). Integer sums: the scalar reference's bits.
// The lanes are summed with vector adds (wrapping; the total is below 2^32):
// _mm512_reduce_add_epi32 adds them as signed ints, which overflows at the largest sums.
inline uint32_t hsum512_epi32(__m512i v) {
  const __m256i s = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4E));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
  return uint32_t(_mm_cvtsi128_si32(t));
}

uint32_t l2sq_u8_avx512(const uint8_t* a, const uint8_t* b, size_t d) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 64 <= d; i += 64) {
    const __m512i d0 = _mm512_sub_epi16(_mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i))),
                                        _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i))));
    const __m512i d1 = _mm512_sub_epi16(
        _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i + 32))),
        _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i + 32))));
    s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(d0, d0));
    s1 = _mm512_add_epi32(s1, _mm512_madd_epi16(d1, d1));
  }
  for (; i < d; i += 32) {
    const size_t rem = d - i < 32 ? d - i : 32;
    const __mmask32 m = rem == 32 ? ~__mmask32(0) : __mmask32((1u << rem) - 1);
    const __m512i d0 = _mm512_sub_epi16(_mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, a + i)),
                                        _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, b + i)));
    s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(d0, d0));
  }
  return hsum512_epi32(_mm512_add_epi32(s0, s1));
}

uint32_t dot_u8_avx512(const uint8_t* a, const uint8_t* b, size_t d) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 64 <= d; i += 64) {
    s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(
                                  _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i))),
                                  _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)))));
    s1 = _mm512_add_epi32(s1, _mm512_madd_epi16(
                                  _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i + 32))),
                                  _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i + 32)))));
  }
  for (; i < d; i += 32) {
    const size_t rem = d - i < 32 ? d - i : 32;
    const __mmask32 m = rem == 32 ? ~__mmask32(0) : __mmask32((1u << rem) - 1);
    s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(_mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, a + i)),
                                                _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, b + i))));
  }
  return hsum512_epi32(_mm512_add_epi32(s0, s1));
}

}  // namespace

KernelTable avx512_kernels() noexcept {
  return {Isa::avx512,         l2sq_f32_avx512_fn,  dot_f32_avx512_fn,  cos_f32_avx512_fn,
          score_rows<l2sq_f32_avx512>, score_rows<dot_f32_avx512>, score_rows<cos_f32_avx512>,
          l2sq_u8_avx512, dot_u8_avx512, gather_rows_u8<dot_u8_avx512>};
}

}  // namespace quiver::simd
