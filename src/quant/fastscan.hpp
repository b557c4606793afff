// Fast-scan lookup-table kernels: score blocks of 32 vectors' 4-bit codes against 8-bit
// lookup tables with one byte-shuffle per 16–64 codes (AVX2 vpshufb, AVX-512BW vpshufb,
// NEON tbl, wasm i8x16.swizzle), plus the scalar reference.
//
// Terms: a sub-quantiser is one 4-bit code with a 16-entry table (a coordinate at 4 bits, a
// pair of coordinates at 2 bits). Sub-quantisers are padded to a multiple of 4 ("groups" of
// two "pairs"); padding codes are 0 and padding tables are all zero.
//
// Code layout of one block (32 vectors), pair p = sub-quantisers (2p, 2p+1):
//   codes[p*32 + v] = code(2p, v) | code(2p+1, v) << 4        v = 0..31
// Table layout, 128 bytes per group g = pairs (2g, 2g+1), each 16-entry table stored twice
// (once per 128-bit lane) so AVX2/AVX-512 load it ready to shuffle:
//   [  0, 32) sub-quantiser 4g      [ 32, 64) sub-quantiser 4g+2
//   [ 64, 96) sub-quantiser 4g+1    [ 96,128) sub-quantiser 4g+3
// Table entries are at most 127, so the two lookups of a pair add in 8 bits without overflow
// before widening; 16-bit accumulators are flushed to 32 bits every kFlushGroups groups.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/check.hpp"
#include "quiver/isa.hpp"

namespace quiver::quant {

inline constexpr size_t kBlockVectors = 32;
inline constexpr size_t kGroupSubquantizers = 4;
inline constexpr size_t kGroupTableBytes = 128;
inline constexpr size_t kGroupCodeBytes = 64;  // two pairs x 32 vectors
inline constexpr unsigned kMaxTableEntry = 127;
inline constexpr size_t kFlushGroups = 128;  // 2 pair-sums <= 254 per group per u16 lane

// Per-query constants that turn a block's integer sums into distances.
struct BlockScoring {
  float c0;         // per-query distance constant
  float bias;       // score of all-zero table entries
  float step;       // score of one table unit
  float threshold;  // report vectors with distance <= threshold
};

// Scores one block of 32 vectors:
//   acc[v]   = sum over sub-quantisers s of table_s[code(s, v)]      (exact integers)
//   score[v] = bias + float(acc[v]) * step
//   dist[v]  = (c0 + offset[v]) + scale[v] * score[v]
// with a separate multiply and add at every step (no FMA), so every ISA produces the same
// bits. Writes dist[0..32) and returns the mask of v with dist[v] <= threshold.
using FastScanBlockFn = uint32_t (*)(const uint8_t* codes, const uint8_t* tables, size_t groups, const float* offset,
                                     const float* scale, const BlockScoring& scoring, float* dist);

// Several queries per pass over the codes (batch search): the codes of a block are loaded
// and split into nibbles once and looked up in each query's tables. For query i: tables[i],
// scoring[i], dist[i * 32 .. i * 32 + 32), hits[i]. nq <= kMaxQueriesPerPass.
inline constexpr size_t kMaxQueriesPerPass = 4;
using FastScanMultiFn = void (*)(const uint8_t* codes, const uint8_t* const* tables, size_t nq, size_t groups,
                                 const float* offset, const float* scale, const BlockScoring* scoring, float* dist,
                                 uint32_t* hits);

struct FastScanTable {
  Isa isa;
  FastScanBlockFn scan_block;
  FastScanMultiFn scan_block_multi;
};

// The shared epilogue: exact sums -> distances and the hit mask, exactly as specified above
// for BlockScoring, shared by the kernels whose epilogue is plain code (scalar, NEON; AVX2,
// AVX-512 and wasm SIMD128 keep a SIMD epilogue for speed, see fastscan_body.hpp) and the
// definition those SIMD epilogues must match. `static` so each ISA file compiles its own
// private copy with its own flags (the compiler vectorises it there), where an inline function
// with external linkage could be merged by the linker into one copy built for AVX-512.
// sums < 2^31 (at most 4 * 127 per group), so the int32 -> float conversion is exact-same on
// every path and vectorises without an unsigned-conversion sequence.
static inline uint32_t finish_block(const int32_t* sums, const float* offset, const float* scale,
                                    const BlockScoring& bs, float* dist) {
  for (size_t v = 0; v < kBlockVectors; ++v) {
    const float score = bs.bias + float(sums[v]) * bs.step;
    dist[v] = (bs.c0 + offset[v]) + scale[v] * score;
  }
  uint32_t hits = 0;
  for (size_t v = 0; v < kBlockVectors; ++v) hits |= uint32_t(dist[v] <= bs.threshold) << v;
  return hits;
}

// For the kernel files: each level's kernel (FastScanKernel<V, ...> in fastscan_body.hpp for
// the SIMD levels, its own struct in fastscan_scalar.cpp) has, with internal linkage,
//   template <size_t Q> static void scan(codes, tables, groups, offset, scale, scoring, dist, hits)
// scoring Q queries in one pass, and its file builds the table with make_fastscan_table<Kernel>()
// (plain pointers only; instantiated inside the level's own file). A kernel whose epilogue is
// plain code can implement scan() as scan_pass(): it writes only the exact sums of each query
// and finish_block() does the rest.
template <typename Kernel, size_t Q>
void scan_pass(const uint8_t* codes, const uint8_t* const* tables, size_t groups, const float* offset,
               const float* scale, const BlockScoring* scoring, float* dist, uint32_t* hits) {
  alignas(64) int32_t sums[Q][kBlockVectors];
  Kernel::template sums<Q>(codes, tables, groups, sums);
  for (size_t q = 0; q < Q; ++q) {
    hits[q] = finish_block(sums[q], offset, scale, scoring[q], dist + q * kBlockVectors);
  }
}

template <typename Kernel>
uint32_t scan_one_query(const uint8_t* codes, const uint8_t* tables, size_t groups, const float* offset,
                        const float* scale, const BlockScoring& scoring, float* dist) {
  uint32_t hits;
  Kernel::template scan<1>(codes, &tables, groups, offset, scale, &scoring, dist, &hits);
  return hits;
}

template <typename Kernel>
void scan_queries(const uint8_t* codes, const uint8_t* const* tables, size_t nq, size_t groups, const float* offset,
                  const float* scale, const BlockScoring* scoring, float* dist, uint32_t* hits) {
  static_assert(kMaxQueriesPerPass == 4, "one case per query count");
  // More than 4 would silently score only 4; 0 would read tables[0..3] that do not exist.
  QUIVER_DCHECK(nq >= 1 && nq <= kMaxQueriesPerPass, "fast-scan pass with an invalid query count");
  switch (nq) {
    case 1: return Kernel::template scan<1>(codes, tables, groups, offset, scale, scoring, dist, hits);
    case 2: return Kernel::template scan<2>(codes, tables, groups, offset, scale, scoring, dist, hits);
    case 3: return Kernel::template scan<3>(codes, tables, groups, offset, scale, scoring, dist, hits);
    default: return Kernel::template scan<4>(codes, tables, groups, offset, scale, scoring, dist, hits);
  }
}

template <typename Kernel>
FastScanTable make_fastscan_table(Isa isa) noexcept {
  return {isa, scan_one_query<Kernel>, scan_queries<Kernel>};
}

// Throws Error(UnsupportedIsa) if this CPU/build lacks `isa`. Defined in the fast-scan
// registry, quant/fastscan_dispatch.cpp.
FastScanTable fastscan_table(Isa isa);

// Per-ISA tables, each defined in its own fastscan_<isa>.cpp (a stub over fastscan_body.hpp).
FastScanTable scalar_fastscan() noexcept;
#if defined(QUIVER_HAVE_AVX2)
FastScanTable avx2_fastscan() noexcept;
#endif
#if defined(QUIVER_HAVE_AVX512)
FastScanTable avx512_fastscan() noexcept;
#endif
#if defined(QUIVER_HAVE_NEON)
FastScanTable neon_fastscan() noexcept;
#endif
#if defined(QUIVER_HAVE_WASM128)
FastScanTable wasm128_fastscan() noexcept;
#endif

// The scalar reference every SIMD level must match bit for bit (the tests compare against it).
uint32_t fastscan_block_scalar(const uint8_t* codes, const uint8_t* tables, size_t groups, const float* offset,
                               const float* scale, const BlockScoring& scoring, float* dist);

}  // namespace quiver::quant
