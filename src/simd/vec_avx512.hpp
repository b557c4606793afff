// AVX-512 (F/BW/VL) wrapper: the operations the kernel bodies (simd/kernels_body.hpp,
// quant/fastscan_body.hpp) are written over, for 512-bit registers. Include it only from a
// file compiled with the AVX-512 flags (kernels_avx512.cpp, fastscan_avx512.cpp).
// Internal linkage and no namespace-scope constants, for the reasons in vec_avx2.hpp.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace quiver::simd {
namespace {

struct Avx512 {
  static constexpr size_t kBytes = 64;  // one register: 64 bytes, 16 floats or 32-bit ints
  static constexpr size_t kLanes = 16;
  using F32 = __m512;
  using U32 = __m512i;
  using U16 = __m512i;
  using U8 = __m512i;

  // ---- f32
  static F32 f32_zero() { return _mm512_setzero_ps(); }
  static F32 f32_splat(float x) { return _mm512_set1_ps(x); }
  static F32 f32_loadu(const float* p) { return _mm512_loadu_ps(p); }
  static void f32_storeu(float* p, F32 v) { _mm512_storeu_ps(p, v); }
  static F32 f32_add(F32 a, F32 b) { return _mm512_add_ps(a, b); }
  static F32 f32_sub(F32 a, F32 b) { return _mm512_sub_ps(a, b); }
  static F32 f32_mul(F32 a, F32 b) { return _mm512_mul_ps(a, b); }
  static F32 f32_fmadd(F32 a, F32 b, F32 acc) { return _mm512_fmadd_ps(a, b, acc); }  // one rounding
  static F32 f32_from_i32(U32 v) { return _mm512_cvtepi32_ps(v); }
  // Bit i set where a[i] <= b[i] (ordered: never for NaN).
  static uint32_t f32_le_mask(F32 a, F32 b) { return uint32_t(_mm512_cmp_ps_mask(a, b, _CMP_LE_OQ)); }
  // Without _mm512_reduce_add_ps, whose GCC 12 expansion trips -Wuninitialized.
  static float f32_hsum(F32 v) {
    const __m256 lo = _mm512_castps512_ps256(v);
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    const __m256 s8 = _mm256_add_ps(lo, hi);
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    s4 = _mm_add_ss(s4, _mm_movehdup_ps(s4));
    return _mm_cvtss_f32(s4);
  }
  // A tail of 1..15 floats is one masked load: no element past the end is read.
  static constexpr bool kF32MaskedTail = true;
  using F32Mask = __mmask16;
  static F32Mask f32_tail_mask(size_t rem) { return static_cast<__mmask16>((1u << rem) - 1u); }
  static F32 f32_load_masked(F32Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }

  // ---- u8 codes, exact integer sums in 32-bit lanes
  static U32 u32_zero() { return _mm512_setzero_si512(); }
  static U32 u32_add(U32 a, U32 b) { return _mm512_add_epi32(a, b); }
  // Vector adds (wrapping; the total is below 2^32): _mm512_reduce_add_epi32 adds the lanes
  // as signed ints, which overflows at the largest sums.
  static uint32_t u32_hsum(U32 v) {
    const __m256i s = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4E));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
    return uint32_t(_mm_cvtsi128_si32(t));
  }
  // One step of kBytes codes, its first half into s0 and its second into s1: 32 codes widen
  // to 16-bit lanes, madd sums adjacent products into 32-bit lanes.
  static __m512i widen32(const uint8_t* p) {
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static void u8_l2sq_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    const __m512i d0 = _mm512_sub_epi16(widen32(a), widen32(b));
    const __m512i d1 = _mm512_sub_epi16(widen32(a + 32), widen32(b + 32));
    s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(d0, d0));
    s1 = _mm512_add_epi32(s1, _mm512_madd_epi16(d1, d1));
  }
  static void u8_dot_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(widen32(a), widen32(b)));
    s1 = _mm512_add_epi32(s1, _mm512_madd_epi16(widen32(a + 32), widen32(b + 32)));
  }
  // The tail is masked loads of half a step, the next min(n, 32) codes; zeros add nothing.
  static constexpr bool kU8MaskedTail = true;
  using U8Mask = __mmask32;
  static U8Mask u8_tail_mask(size_t n) {
    const size_t rem = n < 32 ? n : 32;
    return rem == 32 ? ~__mmask32(0) : __mmask32((1u << rem) - 1);
  }
  static __m512i widen32_masked(const uint8_t* p, U8Mask m) {
    return _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, p));
  }
  static U32 u8_l2sq_masked(U32 s, const uint8_t* a, const uint8_t* b, U8Mask m) {
    const __m512i d0 = _mm512_sub_epi16(widen32_masked(a, m), widen32_masked(b, m));
    return _mm512_add_epi32(s, _mm512_madd_epi16(d0, d0));
  }
  static U32 u8_dot_masked(U32 s, const uint8_t* a, const uint8_t* b, U8Mask m) {
    return _mm512_add_epi32(s, _mm512_madd_epi16(widen32_masked(a, m), widen32_masked(b, m)));
  }

  // ---- byte lookups (fast scan): each 128-bit lane shuffles its own 16-entry table
  static U8 u8_loadu(const uint8_t* p) { return _mm512_loadu_si512(p); }
  static U8 u8_load(const uint8_t* p) { return _mm512_load_si512(p); }
  static U8 u8_low_nibbles(U8 v) { return _mm512_and_si512(v, _mm512_set1_epi8(0x0F)); }
  static U8 u8_high_nibbles(U8 v) { return _mm512_and_si512(_mm512_srli_epi16(v, 4), _mm512_set1_epi8(0x0F)); }
  static U8 u8_lookup(U8 table, U8 index) { return _mm512_shuffle_epi8(table, index); }
  static U8 u8_add(U8 a, U8 b) { return _mm512_add_epi8(a, b); }
  // Bytes summed into two 16-bit accumulators, add0 the even bytes and add1 the odd ones (an
  // AND and a shift), as in vec_avx2.hpp.
  static U16 u16_zero() { return _mm512_setzero_si512(); }
  static U16 bytesums_add0(U16 even, U8 v) {
    return _mm512_add_epi16(even, _mm512_and_si512(v, _mm512_set1_epi16(0x00FF)));
  }
  static U16 bytesums_add1(U16 odd, U8 v) { return _mm512_add_epi16(odd, _mm512_srli_epi16(v, 8)); }
  // total[i] += sums of bytes 16i .. 16i+15 and 32+16i .. 32+16i+15 (byte p goes to lane
  // p mod 32): in fast scan the two 256-bit halves hold two pairs for the same 32 vectors.
  static void bytesums_flush(U16 even, U16 odd, U32* total) {
    // Fold the halves (each lane <= 128 * 254, so the sum fits 16 bits), then put bytes in order.
    const __m256i e = _mm256_add_epi16(_mm512_castsi512_si256(even), _mm512_extracti64x4_epi64(even, 1));
    const __m256i o = _mm256_add_epi16(_mm512_castsi512_si256(odd), _mm512_extracti64x4_epi64(odd, 1));
    const __m256i first = _mm256_unpacklo_epi16(e, o);   // bytes 0-7 | 16-23
    const __m256i second = _mm256_unpackhi_epi16(e, o);  // bytes 8-15 | 24-31
    total[0] = _mm512_add_epi32(total[0], _mm512_cvtepu16_epi32(_mm256_permute2x128_si256(first, second, 0x20)));
    total[1] = _mm512_add_epi32(total[1], _mm512_cvtepu16_epi32(_mm256_permute2x128_si256(first, second, 0x31)));
  }
};

}  // namespace
}  // namespace quiver::simd
