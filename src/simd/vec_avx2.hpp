// AVX2 + FMA wrapper: the operations the kernel bodies (simd/kernels_body.hpp,
// quant/fastscan_body.hpp) are written over, for 256-bit registers. Include it only from a
// file compiled with -mavx2 -mfma (kernels_avx2.cpp, fastscan_avx2.cpp).
//
// Everything is in an anonymous namespace: each including file compiles its own private copy
// with its own flags, so the linker can never hand these (or a body instantiated over them)
// to a caller on a CPU without AVX2. Constants are built inside the functions: a
// namespace-scope SIMD constant would run at load time on any CPU.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace quiver::simd {
namespace {

struct Avx2 {
  static constexpr size_t kBytes = 32;  // one register: 32 bytes, 8 floats or 32-bit ints
  static constexpr size_t kLanes = 8;
  using F32 = __m256;
  using U32 = __m256i;
  using U16 = __m256i;
  using U8 = __m256i;

  // ---- f32
  static F32 f32_zero() { return _mm256_setzero_ps(); }
  static F32 f32_splat(float x) { return _mm256_set1_ps(x); }
  static F32 f32_loadu(const float* p) { return _mm256_loadu_ps(p); }
  static void f32_storeu(float* p, F32 v) { _mm256_storeu_ps(p, v); }
  static F32 f32_add(F32 a, F32 b) { return _mm256_add_ps(a, b); }
  static F32 f32_sub(F32 a, F32 b) { return _mm256_sub_ps(a, b); }
  static F32 f32_mul(F32 a, F32 b) { return _mm256_mul_ps(a, b); }
  static F32 f32_fmadd(F32 a, F32 b, F32 acc) { return _mm256_fmadd_ps(a, b, acc); }  // one rounding
  static F32 f32_from_i32(U32 v) { return _mm256_cvtepi32_ps(v); }
  // Bit i set where a[i] <= b[i] (ordered: never for NaN).
  static uint32_t f32_le_mask(F32 a, F32 b) { return uint32_t(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LE_OQ))); }
  static float f32_hsum(F32 v) {
    __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
    return _mm_cvtss_f32(lo);
  }
  // A tail of 1..7 floats is one masked load: masked lanes read as zero and touch no memory.
  static constexpr bool kF32MaskedTail = true;
  using F32Mask = __m256i;
  static F32Mask f32_tail_mask(size_t rem) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rem)), lanes);
  }
  static F32 f32_load_masked(F32Mask m, const float* p) { return _mm256_maskload_ps(p, m); }

  // ---- u8 codes, exact integer sums in 32-bit lanes
  static U32 u32_zero() { return _mm256_setzero_si256(); }
  static U32 u32_add(U32 a, U32 b) { return _mm256_add_epi32(a, b); }
  static uint32_t u32_hsum(U32 v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return uint32_t(_mm_cvtsi128_si32(s));
  }
  // One step of kBytes codes, its first half into s0 and its second into s1: 16 codes widen
  // to 16-bit lanes, madd sums adjacent products into 32-bit lanes (each term <= 2 x 255^2).
  static __m256i widen16(const uint8_t* p) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static void u8_l2sq_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    const __m256i d0 = _mm256_sub_epi16(widen16(a), widen16(b));
    const __m256i d1 = _mm256_sub_epi16(widen16(a + 16), widen16(b + 16));
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(d0, d0));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(d1, d1));
  }
  static void u8_dot_step(U32& s0, U32& s1, const uint8_t* a, const uint8_t* b) {
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(widen16(a), widen16(b)));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(widen16(a + 16), widen16(b + 16)));
  }
  static constexpr bool kU8MaskedTail = false;  // byte masked loads need AVX-512BW

  // ---- byte lookups (fast scan): each 128-bit lane shuffles its own 16-entry table
  static U8 u8_loadu(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static U8 u8_load(const uint8_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static U8 u8_low_nibbles(U8 v) { return _mm256_and_si256(v, _mm256_set1_epi8(0x0F)); }
  static U8 u8_high_nibbles(U8 v) { return _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0F)); }
  static U8 u8_lookup(U8 table, U8 index) { return _mm256_shuffle_epi8(table, index); }
  static U8 u8_add(U8 a, U8 b) { return _mm256_add_epi8(a, b); }
  // Bytes summed into two 16-bit accumulators: add0 takes the even bytes and add1 the odd
  // ones, with an AND and a shift (no cross-lane shuffle in the loop); the flush puts them back
  // in byte order. Two ops on plain registers rather than one on a pair: arrays of pairs do
  // not scalarise early, and the kernel would no longer inline into its entry points.
  static U16 u16_zero() { return _mm256_setzero_si256(); }
  static U16 bytesums_add0(U16 even, U8 v) {
    return _mm256_add_epi16(even, _mm256_and_si256(v, _mm256_set1_epi16(0x00FF)));
  }
  static U16 bytesums_add1(U16 odd, U8 v) { return _mm256_add_epi16(odd, _mm256_srli_epi16(v, 8)); }
  // total[i] += sums of bytes 8i .. 8i+7, as 32-bit lanes.
  static void bytesums_flush(U16 even, U16 odd, U32* total) {
    // even lane i < 8 is byte 2i, lane 8 + i is byte 16 + 2i; odd likewise + 1.
    const __m256i first = _mm256_unpacklo_epi16(even, odd);   // bytes 0-7 | 16-23
    const __m256i second = _mm256_unpackhi_epi16(even, odd);  // bytes 8-15 | 24-31
    total[0] = _mm256_add_epi32(total[0], _mm256_cvtepu16_epi32(_mm256_castsi256_si128(first)));
    total[1] = _mm256_add_epi32(total[1], _mm256_cvtepu16_epi32(_mm256_castsi256_si128(second)));
    total[2] = _mm256_add_epi32(total[2], _mm256_cvtepu16_epi32(_mm256_extracti128_si256(first, 1)));
    total[3] = _mm256_add_epi32(total[3], _mm256_cvtepu16_epi32(_mm256_extracti128_si256(second, 1)));
  }
};

}  // namespace
}  // namespace quiver::simd
