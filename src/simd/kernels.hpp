// The kernel table: plain function pointers, one set per ISA level, so that no SIMD type
// ever crosses a file boundary. An index copies the table it needs when it is created.
//
// Naming follows <operation>_<element type>_<isa>, e.g. l2sq_f32_avx2.
//   l2sq  squared Euclidean distance           sum (a_i - b_i)^2
//   dot   inner product                        sum a_i b_i
//   cos   cosine distance                      1 - dot / sqrt(|a|^2 |b|^2)   (1 if either is zero)
// The *_many forms score one query against n rows that start `stride` floats apart.
// The *_u8 forms take unsigned 8-bit codes (HNSW sq8 storage) and return the exact integer
// sum, so every ISA level gives the same bits. d <= 65536 keeps it below 2^32.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quiver/isa.hpp"

namespace quiver::simd {

using DistanceFn = float (*)(const float* a, const float* b, size_t d);
using DistanceU8Fn = uint32_t (*)(const uint8_t* a, const uint8_t* b, size_t d);
using DistanceManyFn = void (*)(const float* query, const float* rows, size_t stride, size_t n, size_t d, float* out);
// One query's codes against n rows anywhere in memory (a graph node's neighbours): out[r] is
// exactly what the single-pair kernel gives for rows[r]. Scoring rows together lets their
// loads overlap where there is no prefetch (wasm).
using DistanceU8GatherFn = void (*)(const uint8_t* query, const uint8_t* const* rows, size_t n, size_t d,
                                    uint32_t* out);

// Column sums for the coarse quantiser: out[r * width + j] = sum over i ascending of
// x[r * x_stride + i] * cols[i * width + j], for `rows` vectors x and j < width, each term a
// product and then a sum (never fused), one running sum per row and column. Every ISA level
// vectorises across the columns and blocks rows (independent sums, so a wide level is not held
// up by one chain of adds), never across i, so each sum is the same sequence of IEEE operations
// as the scalar loop's: the same bits everywhere (training and assignment must not depend on
// the ISA).
using DotColumnsFn = void (*)(const float* x, size_t rows, size_t x_stride, const float* cols, size_t width, size_t d,
                              float* out);

struct KernelTable {
  Isa isa;
  DistanceFn l2sq_f32;
  DistanceFn dot_f32;
  DistanceFn cos_f32;
  DistanceManyFn l2sq_f32_many;
  DistanceManyFn dot_f32_many;
  DistanceManyFn cos_f32_many;
  DistanceU8Fn l2sq_u8;              // sum (a_i - b_i)^2
  DistanceU8Fn dot_u8;               // sum a_i b_i
  DistanceU8GatherFn dot_u8_gather;  // dot_u8 of a query against n rows by pointer
  DotColumnsFn dot_f32_columns;      // vectors against `width` columns (the same bits everywhere)
};

// The table for `isa`; throws Error(UnsupportedIsa) if this CPU/build lacks it. Defined in
// the distance-kernel registry, simd/dispatch.cpp.
KernelTable kernel_table(Isa isa);

// Throws Error(UnsupportedIsa) unless this CPU and build have `isa`: the check every kernel
// registry makes first (this layer's and quant/fastscan_dispatch.cpp), with one message.
void require_isa(Isa isa);

// Per-ISA tables, each defined in its own kernels_<isa>.cpp (a stub over kernels_body.hpp).
KernelTable scalar_kernels() noexcept;
#if defined(QUIVER_HAVE_AVX2)
KernelTable avx2_kernels() noexcept;
#endif
#if defined(QUIVER_HAVE_AVX512)
KernelTable avx512_kernels() noexcept;
#endif
#if defined(QUIVER_HAVE_NEON)
KernelTable neon_kernels() noexcept;
#endif
#if defined(QUIVER_HAVE_WASM128)
KernelTable wasm128_kernels() noexcept;
// Whether wasm128_kernels() scores the u8 gather with relaxed_dot: only in the relaxed-simd
// variant, and only where the engine computes it exactly (checked once; kernels_wasm128.cpp).
bool wasm128_relaxed_dot() noexcept;
#endif

// The *_many loop, written once: one query against n rows `stride` floats apart. Each ISA
// file instantiates it with its own single-pair kernel, so the kernel inlines into the loop
// and the loop is compiled with that file's ISA flags. The kernels passed in have internal linkage, so every
// instantiation is private to its file: the linker can never hand an AVX-512 copy to a
// caller on a CPU without it.
template <float (*PairKernel)(const float* a, const float* b, size_t d)>
void score_rows(const float* query, const float* rows, size_t stride, size_t n, size_t d, float* out) {
  for (size_t r = 0; r < n; ++r) out[r] = PairKernel(query, rows + r * stride, d);
}

// The gather loop over a single-pair u8 kernel, for ISA levels without a dedicated one (each
// file instantiates it with its own private kernel, as score_rows above).
template <uint32_t (*PairKernel)(const uint8_t* a, const uint8_t* b, size_t d)>
void gather_rows_u8(const uint8_t* query, const uint8_t* const* rows, size_t n, size_t d, uint32_t* out) {
  for (size_t r = 0; r < n; ++r) out[r] = PairKernel(query, rows[r], d);
}

// Shared finishing step of the cosine kernels (plain scalar code, same on every ISA).
inline float cosine_from_parts(float dot, float norm_a2, float norm_b2) noexcept;

}  // namespace quiver::simd

#include <cmath>

inline float quiver::simd::cosine_from_parts(float dot, float norm_a2, float norm_b2) noexcept {
  const float denom = norm_a2 * norm_b2;
  if (!(denom > 0.0f)) return 1.0f;
  return 1.0f - static_cast<float>(dot / std::sqrt(static_cast<double>(denom)));
}
