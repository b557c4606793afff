// The SIMD distance kernels, written once over a vector wrapper V (simd/vec_<isa>.hpp). Each
// ISA's stub (kernels_<isa>.cpp) includes its wrapper and this body, is compiled with that
// ISA's flags and builds its table with make_kernel_table<V>(). The scalar reference
// (kernels_scalar.cpp) stays separate and plain.
//
// Each level keeps the accumulation order it has always had, so its bits never change: four
// accumulators of one register unrolled over 4 * kLanes floats, then single registers into the
// first, then the tail — one masked step into the second where the ISA has masked loads (x86),
// else scalar lanes after the reduction (NEON, wasm); the reduction is (s0 + s1) + (s2 + s3)
// then V's horizontal sum. V::f32_fmadd is one fused rounding where the ISA has FMA, a product
// and a sum where it does not (wasm). The u8 kernels return exact integer sums.
//
// Everything is in an anonymous namespace, as V is: each stub's instantiations are private to
// its file (see vec_avx2.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "simd/kernels.hpp"

namespace quiver::simd {
namespace {

template <class V>
inline float l2sq_f32(const float* a, const float* b, size_t d) {
  using F = typename V::F32;
  constexpr size_t L = V::kLanes;
  F s0 = V::f32_zero(), s1 = V::f32_zero(), s2 = V::f32_zero(), s3 = V::f32_zero();
  size_t i = 0;
  for (; i + 4 * L <= d; i += 4 * L) {
    const F d0 = V::f32_sub(V::f32_loadu(a + i), V::f32_loadu(b + i));
    const F d1 = V::f32_sub(V::f32_loadu(a + i + L), V::f32_loadu(b + i + L));
    const F d2 = V::f32_sub(V::f32_loadu(a + i + 2 * L), V::f32_loadu(b + i + 2 * L));
    const F d3 = V::f32_sub(V::f32_loadu(a + i + 3 * L), V::f32_loadu(b + i + 3 * L));
    s0 = V::f32_fmadd(d0, d0, s0);
    s1 = V::f32_fmadd(d1, d1, s1);
    s2 = V::f32_fmadd(d2, d2, s2);
    s3 = V::f32_fmadd(d3, d3, s3);
  }
  for (; i + L <= d; i += L) {
    const F d0 = V::f32_sub(V::f32_loadu(a + i), V::f32_loadu(b + i));
    s0 = V::f32_fmadd(d0, d0, s0);
  }
  if constexpr (V::kF32MaskedTail) {
    if (i < d) {
      const auto m = V::f32_tail_mask(d - i);
      const F d0 = V::f32_sub(V::f32_load_masked(m, a + i), V::f32_load_masked(m, b + i));
      s1 = V::f32_fmadd(d0, d0, s1);
    }
  }
  float sum = V::f32_hsum(V::f32_add(V::f32_add(s0, s1), V::f32_add(s2, s3)));
  if constexpr (!V::kF32MaskedTail) {
    for (; i < d; ++i) {
      const float diff = a[i] - b[i];
      sum += diff * diff;
    }
  }
  return sum;
}

template <class V>
inline float dot_f32(const float* a, const float* b, size_t d) {
  using F = typename V::F32;
  constexpr size_t L = V::kLanes;
  F s0 = V::f32_zero(), s1 = V::f32_zero(), s2 = V::f32_zero(), s3 = V::f32_zero();
  size_t i = 0;
  for (; i + 4 * L <= d; i += 4 * L) {
    s0 = V::f32_fmadd(V::f32_loadu(a + i), V::f32_loadu(b + i), s0);
    s1 = V::f32_fmadd(V::f32_loadu(a + i + L), V::f32_loadu(b + i + L), s1);
    s2 = V::f32_fmadd(V::f32_loadu(a + i + 2 * L), V::f32_loadu(b + i + 2 * L), s2);
    s3 = V::f32_fmadd(V::f32_loadu(a + i + 3 * L), V::f32_loadu(b + i + 3 * L), s3);
  }
  for (; i + L <= d; i += L) s0 = V::f32_fmadd(V::f32_loadu(a + i), V::f32_loadu(b + i), s0);
  if constexpr (V::kF32MaskedTail) {
    if (i < d) {
      const auto m = V::f32_tail_mask(d - i);
      s1 = V::f32_fmadd(V::f32_load_masked(m, a + i), V::f32_load_masked(m, b + i), s1);
    }
  }
  float sum = V::f32_hsum(V::f32_add(V::f32_add(s0, s1), V::f32_add(s2, s3)));
  if constexpr (!V::kF32MaskedTail) {
    for (; i < d; ++i) sum += a[i] * b[i];
  }
  return sum;
}

// One register each for the dot product and the two squared norms.
template <class V>
inline float cos_f32(const float* a, const float* b, size_t d) {
  using F = typename V::F32;
  constexpr size_t L = V::kLanes;
  F dot = V::f32_zero(), na = V::f32_zero(), nb = V::f32_zero();
  size_t i = 0;
  for (; i + L <= d; i += L) {
    const F va = V::f32_loadu(a + i), vb = V::f32_loadu(b + i);
    dot = V::f32_fmadd(va, vb, dot);
    na = V::f32_fmadd(va, va, na);
    nb = V::f32_fmadd(vb, vb, nb);
  }
  if constexpr (V::kF32MaskedTail) {
    if (i < d) {
      const auto m = V::f32_tail_mask(d - i);
      const F va = V::f32_load_masked(m, a + i), vb = V::f32_load_masked(m, b + i);
      dot = V::f32_fmadd(va, vb, dot);
      na = V::f32_fmadd(va, va, na);
      nb = V::f32_fmadd(vb, vb, nb);
    }
    return cosine_from_parts(V::f32_hsum(dot), V::f32_hsum(na), V::f32_hsum(nb));
  } else {
    float sd = V::f32_hsum(dot), sa = V::f32_hsum(na), sb = V::f32_hsum(nb);
    for (; i < d; ++i) {
      sd += a[i] * b[i];
      sa += a[i] * a[i];
      sb += b[i] * b[i];
    }
    return cosine_from_parts(sd, sa, sb);
  }
}

// u8 codes: steps of kBytes codes into two accumulators (V's step op says which half goes
// where), then the tail — masked half-steps into the first where the ISA has byte masked loads
// (AVX-512), else scalar lanes after the reduction. Integer sums: the scalar reference's bits.
template <class V>
uint32_t l2sq_u8(const uint8_t* a, const uint8_t* b, size_t d) {
  typename V::U32 s0 = V::u32_zero(), s1 = V::u32_zero();
  size_t i = 0;
  for (; i + V::kBytes <= d; i += V::kBytes) V::u8_l2sq_step(s0, s1, a + i, b + i);
  if constexpr (V::kU8MaskedTail) {
    for (; i < d; i += V::kBytes / 2) {
      const auto m = V::u8_tail_mask(d - i);
      s0 = V::u8_l2sq_masked(s0, a + i, b + i, m);
    }
  }
  uint32_t s = V::u32_hsum(V::u32_add(s0, s1));
  if constexpr (!V::kU8MaskedTail) {
    for (; i < d; ++i) {
      const int32_t diff = int32_t(a[i]) - int32_t(b[i]);
      s += uint32_t(diff * diff);
    }
  }
  return s;
}

template <class V>
uint32_t dot_u8(const uint8_t* a, const uint8_t* b, size_t d) {
  typename V::U32 s0 = V::u32_zero(), s1 = V::u32_zero();
  size_t i = 0;
  for (; i + V::kBytes <= d; i += V::kBytes) V::u8_dot_step(s0, s1, a + i, b + i);
  if constexpr (V::kU8MaskedTail) {
    for (; i < d; i += V::kBytes / 2) {
      const auto m = V::u8_tail_mask(d - i);
      s0 = V::u8_dot_masked(s0, a + i, b + i, m);
    }
  }
  uint32_t s = V::u32_hsum(V::u32_add(s0, s1));
  if constexpr (!V::kU8MaskedTail) {
    for (; i < d; ++i) s += uint32_t(a[i]) * uint32_t(b[i]);
  }
  return s;
}

// dot_u8 of one query against n rows, four at a time, for ISAs without prefetch (wasm): the
// four rows' loads are independent, so they overlap. The query is split once per tile of up to
// kGatherWideDims dimensions into the registers a step needs (on the stack; one tile at
// d <= 2,048) and read back from there for every row: Chromium's V8 (M156) compiled the
// widening inside the loop so badly that the kernel took 25 ns a row of 384 against 9.7 ns with
// the widened query read from memory (Node 20: 10.4 and 10.5; a 4,096 x 384 scratch loop),
// which made the coarse step a third of a query at 4,096 lists in Chromium. Integer sums are
// exact in any order: the same results as dot_u8 row by row.
//
// `Form` says how a 16-byte step is scored: kParts query registers a step (split()), kSums
// accumulators a row (add()), a row's total from them (total()) and a constant added to every
// row (bias()). WidenedQuery is the plain form; the relaxed-simd variant has its own
// (simd/kernels_wasm128.cpp).
inline constexpr size_t kGatherWideDims = 2048;
template <class V>
struct WidenedQuery {  // the query's 16-bit halves, two i32x4.dot_i16x8 a step
  static constexpr size_t kParts = 2, kSums = 1;
  static void split(typename V::U8 vq, typename V::U16* part) {
    part[0] = V::u8_widen_low(vq);
    part[1] = V::u8_widen_high(vq);
  }
  static void add(typename V::U8 v, const typename V::U16* part, typename V::U32* sum) {
    sum[0] = V::u32_add(sum[0],
                        V::u32_add(V::u16_dot(part[0], V::u8_widen_low(v)), V::u16_dot(part[1], V::u8_widen_high(v))));
  }
  static uint32_t total(const typename V::U32* sum) { return V::u32_hsum(sum[0]); }
  static uint32_t bias(const uint8_t*, size_t) { return 0; }
};
template <class V, class Form = WidenedQuery<V>>
void dot_u8_gather4(const uint8_t* q, const uint8_t* const* rows, size_t n, size_t d, uint32_t* out) {
  using U16 = typename V::U16;
  using U32 = typename V::U32;
  constexpr size_t P = Form::kParts, S = Form::kSums;
  U16 part[P * (kGatherWideDims / V::kBytes)];  // per step of the tile: the query's P registers
  const size_t full = n - n % 4;                // rows scored four at a time; the rest by dot_u8
  const size_t vector_dims = d - d % V::kBytes;
  const uint32_t bias = Form::bias(q, vector_dims);
  for (size_t r = 0; r < full; ++r) out[r] = bias;
  for (size_t tile = 0; tile < vector_dims; tile += kGatherWideDims) {
    const size_t steps = std::min(kGatherWideDims, vector_dims - tile) / V::kBytes;
    for (size_t j = 0; j < steps; ++j) Form::split(V::u8_loadu(q + tile + j * V::kBytes), part + P * j);
    for (size_t r = 0; r < full; r += 4) {
      const uint8_t* b[4] = {rows[r] + tile, rows[r + 1] + tile, rows[r + 2] + tile, rows[r + 3] + tile};
      U32 sum[4][S];
      for (int k = 0; k < 4; ++k) {
        for (size_t i = 0; i < S; ++i) sum[k][i] = V::u32_zero();
      }
      for (size_t j = 0; j < steps; ++j) {
        for (int k = 0; k < 4; ++k) Form::add(V::u8_loadu(b[k] + j * V::kBytes), part + P * j, sum[k]);
      }
      for (int k = 0; k < 4; ++k) out[r + k] += Form::total(sum[k]);
    }
  }
  for (size_t r = 0; r < full; ++r) {
    for (size_t i = vector_dims; i < d; ++i) out[r] += uint32_t(q[i]) * rows[r][i];
  }
  for (size_t r = full; r < n; ++r) out[r] = dot_u8<V>(q, rows[r], d);
}

// The single-pair entry of the table: a separate function into which the kernel inlines, as
// into the *_many loops (score_rows). Pointing the table at the kernel itself compiled its loop
// control a little differently; this way each level's code is what its hand-written file gave.
template <float (*PairKernel)(const float* a, const float* b, size_t d)>
float score_pair(const float* a, const float* b, size_t d) {
  return PairKernel(a, b, d);
}

// dot_f32_columns (kernels.hpp): R rows x N registers of columns at a time, each register one
// lane per column, so no lane ever mixes two columns, two rows or two orders; f32_mul then
// f32_add, never fmadd. R x N = 8 independent sums at every width (an add's latency is about 4
// cycles: 2 chains left AVX-512 waiting), and a column load serves R rows.
template <class V, size_t R, size_t N>
inline void dot_columns_block(const float* x, size_t x_stride, const float* cols, size_t width, size_t d, float* out) {
  using F = typename V::F32;
  constexpr size_t L = V::kLanes;
  F acc[R][N];
  for (size_t r = 0; r < R; ++r)
    for (size_t n = 0; n < N; ++n) acc[r][n] = V::f32_zero();
  for (size_t i = 0; i < d; ++i) {
    const float* c = cols + i * width;
    F col[N];
    for (size_t n = 0; n < N; ++n) col[n] = V::f32_loadu(c + n * L);
    for (size_t r = 0; r < R; ++r) {
      const F xr = V::f32_splat(x[r * x_stride + i]);
      for (size_t n = 0; n < N; ++n) acc[r][n] = V::f32_add(acc[r][n], V::f32_mul(xr, col[n]));
    }
  }
  for (size_t r = 0; r < R; ++r)
    for (size_t n = 0; n < N; ++n) V::f32_storeu(out + r * width + n * L, acc[r][n]);
}

// R rows against every column: full passes of N registers, then single registers, then the
// last columns one at a time with the scalar loop's operations.
template <class V, size_t R, size_t N>
inline void dot_columns_rows(const float* x, size_t x_stride, const float* cols, size_t width, size_t d, float* out) {
  constexpr size_t L = V::kLanes;
  size_t j = 0;
  for (; j + N * L <= width; j += N * L) dot_columns_block<V, R, N>(x, x_stride, cols + j, width, d, out + j);
  for (; j + L <= width; j += L) dot_columns_block<V, R, 1>(x, x_stride, cols + j, width, d, out + j);
  for (; j < width; ++j) {
    for (size_t r = 0; r < R; ++r) {
      float acc = 0.0f;
      for (size_t i = 0; i < d; ++i) acc += x[r * x_stride + i] * cols[i * width + j];
      out[r * width + j] = acc;
    }
  }
}

template <class V>
void dot_f32_columns(const float* x, size_t rows, size_t x_stride, const float* cols, size_t width, size_t d,
                     float* out) {
  constexpr size_t L = V::kLanes;
  constexpr size_t N = 32 / L > 0 ? 32 / L : 1;  // 32 columns a pass: a coarse tile (kTile)
  constexpr size_t R = 8 / N > 0 ? 8 / N : 1;    // rows a pass: 8 sums in flight
  size_t r = 0;
  for (; r + R <= rows; r += R) dot_columns_rows<V, R, N>(x + r * x_stride, x_stride, cols, width, d, out + r * width);
  for (; r < rows; ++r) dot_columns_rows<V, 1, N>(x + r * x_stride, x_stride, cols, width, d, out + r * width);
}

// The table of one ISA level; dot_u8_gather is the row-by-row loop (a stub may swap in
// dot_u8_gather4). score_rows / gather_rows_u8 inline the pair kernel into the loop.
template <class V>
KernelTable make_kernel_table(Isa isa) noexcept {
  return {isa,
          score_pair<l2sq_f32<V>>,
          score_pair<dot_f32<V>>,
          score_pair<cos_f32<V>>,
          score_rows<l2sq_f32<V>>,
          score_rows<dot_f32<V>>,
          score_rows<cos_f32<V>>,
          l2sq_u8<V>,
          dot_u8<V>,
          gather_rows_u8<dot_u8<V>>,
          dot_f32_columns<V>};
}

}  // namespace
}  // namespace quiver::simd
