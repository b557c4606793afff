// AVX2 + FMA kernels. Compiled with -mavx2 -mfma; called only after CPU detection says yes.
// No namespace-scope SIMD constants: they would run at load time on any CPU.
#include <immintrin.h>

#include "simd/kernels.hpp"

namespace quiver::simd {
namespace {

inline float hsum256(__m256 v) {
  __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
  return _mm_cvtss_f32(lo);
}

// Mask that loads the first `rem` (0..7) lanes; the rest read as zero.
inline __m256i tail_mask(size_t rem) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rem)), lanes);
}

inline float l2sq_f32_avx2(const float* a, const float* b, size_t d) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    const __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
    const __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
    s2 = _mm256_fmadd_ps(d2, d2, s2);
    s3 = _mm256_fmadd_ps(d3, d3, s3);
  }
  for (; i + 8 <= d; i += 8) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
  }
  if (i < d) {
    const __m256i m = tail_mask(d - i);
    const __m256 d0 = _mm256_sub_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m));
    s1 = _mm256_fmadd_ps(d0, d0, s1);
  }
  return hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

inline float dot_f32_avx2(const float* a, const float* b, size_t d) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= d; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  }
  if (i < d) {
    const __m256i m = tail_mask(d - i);
    s1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), s1);
  }
  return hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

inline float cos_f32_avx2(const float* a, const float* b, size_t d) {
  __m256 dot = _mm256_setzero_ps(), na = _mm256_setzero_ps(), nb = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= d; i += 8) {
    const __m256 va = _mm256_loadu_ps(a + i), vb = _mm256_loadu_ps(b + i);
    dot = _mm256_fmadd_ps(va, vb, dot);
    na = _mm256_fmadd_ps(va, va, na);
    nb = _mm256_fmadd_ps(vb, vb, nb);
  }
  if (i < d) {
    const __m256i m = tail_mask(d - i);
    const __m256 va = _mm256_maskload_ps(a + i, m), vb = _mm256_maskload_ps(b + i, m);
    dot = _mm256_fmadd_ps(va, vb, dot);
    na = _mm256_fmadd_ps(va, va, na);
    nb = _mm256_fmadd_ps(vb, vb, nb);
  }
  return cosine_from_parts(hsum256(dot), hsum256(na), hsum256(nb));
}

float l2sq_f32_avx2_fn(const float* a, const float* b, size_t d) { return l2sq_f32_avx2(a, b, d); }
float dot_f32_avx2_fn(const float* a, const float* b, size_t d) { return dot_f32_avx2(a, b, d); }
float cos_f32_avx2_fn(const float* a, const float* b, size_t d) { return cos_f32_avx2(a, b, d); }

// u8 codes: 16 codes widen to 16-bit lanes, madd sums adjacent products into 32-bit lanes
// (each term <= 2 x 255^2). Integer sums: the same bits as the scalar reference.
inline uint32_t hsum256_epi32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return uint32_t(_mm_cvtsi128_si32(s));
}

uint32_t l2sq_u8_avx2(const uint8_t* a, const uint8_t* b, size_t d) {
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {
    const __m256i d0 = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i))),
                                        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i))));
    const __m256i d1 = _mm256_sub_epi16(
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 16))),
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16))));
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(d0, d0));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(d1, d1));
  }
  uint32_t s = hsum256_epi32(_mm256_add_epi32(s0, s1));
  for (; i < d; ++i) {
    const int32_t diff = int32_t(a[i]) - int32_t(b[i]);
    s += uint32_t(diff * diff);
  }
  return s;
}

uint32_t dot_u8_avx2(const uint8_t* a, const uint8_t* b, size_t d) {
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= d; i += 32) {
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(
                                  _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i))),
                                  _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)))));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(
                                  _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 16))),
                                  _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16)))));
  }
  uint32_t s = hsum256_epi32(_mm256_add_epi32(s0, s1));
  for (; i < d; ++i) s += uint32_t(a[i]) * uint32_t(b[i]);
  return s;
}

}  // namespace

KernelTable avx2_kernels() noexcept {
  return {Isa::avx2,        l2sq_f32_avx2_fn,  dot_f32_avx2_fn,  cos_f32_avx2_fn,
          score_rows<l2sq_f32_avx2>, score_rows<dot_f32_avx2>, score_rows<cos_f32_avx2>,
          l2sq_u8_avx2, dot_u8_avx2, gather_rows_u8<dot_u8_avx2>};
}

}  // namespace quiver::simd
