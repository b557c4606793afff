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

#include "core/check.hpp"
#include "quiver/isa.hpp"

namespace quiver::quant {

inline constexpr size_t kBlockVectors = 32;
inline constexpr size_t kGroupSubquantizers = 4;
inline constexpr size_t kGroupTableBytes = 128;
inline constexpr size_t kGroupCodeBytes = 64;     // two pairs x 32 vectors
inline constexpr unsigned kMaxTableEntry = 127;
inline constexpr size_t kFlushGroups = 128;      // 2 pair-sums <= 254 per group per u16 lane

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
using FastScanBlockFn = uint32_t (*)(const uint8_t* codes, const uint8_t* tables, size_t groups,
                                     const float* offset, const float* scale,
                                     const BlockScoring& scoring, float* dist);

// Several queries per pass over the codes (batch search): the codes of a block are loaded
// and split into nibbles once and looked up in each query's tables. For query i: tables[i],
// scoring[i], dist[i * 32 .. i * 32 + 32), hits[i]. nq <= kMaxQueriesPerPass.
inline constexpr size_t kMaxQueriesPerPass = 4;
using FastScanMultiFn = void (*)(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                                 size_t groups, const float* offset, const float* scale,
                                 const BlockScoring* scoring, float* dist, uint32_t* hits);

struct FastScanTable {
  Isa isa;
  FastScanBlockFn scan_block;
  FastScanMultiFn scan_block_multi;
};

// For the per-ISA files: each defines, in its anonymous namespace, a struct with
//   template <size_t Q> static void scan(codes, tables, groups, offset, scale, scoring, dist, hits)
// scoring Q queries in one pass, and builds its single- and multi-query entry points from it
// with these two helpers (plain pointers only; instantiated inside the ISA's own file).
template <typename Kernel>
uint32_t scan_one_query(const uint8_t* codes, const uint8_t* tables, size_t groups,
                        const float* offset, const float* scale, const BlockScoring& scoring,
                        float* dist) {
  uint32_t hits;
  Kernel::template scan<1>(codes, &tables, groups, offset, scale, &scoring, dist, &hits);
  return hits;
}

template <typename Kernel>
void scan_queries(const uint8_t* codes, const uint8_t* const* tables, size_t nq, size_t groups,
                  const float* offset, const float* scale, const BlockScoring* scoring,
                  float* dist, uint32_t* hits) {
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

// Throws Error(UnsupportedIsa) if this CPU/build lacks `isa`.
FastScanTable fastscan_table(Isa isa);

uint32_t fastscan_block_scalar(const uint8_t* codes, const uint8_t* tables, size_t groups,
                            const float* offset, const float* scale, const BlockScoring& scoring,
                            float* dist);
void fastscan_block_multi_scalar(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                            size_t groups, const float* offset, const float* scale,
                            const BlockScoring* scoring, float* dist, uint32_t* hits);
#if defined(QUIVER_HAVE_AVX2)
uint32_t fastscan_block_avx2(const uint8_t* codes, const uint8_t* tables, size_t groups,
                            const float* offset, const float* scale, const BlockScoring& scoring,
                            float* dist);
void fastscan_block_multi_avx2(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                            size_t groups, const float* offset, const float* scale,
                            const BlockScoring* scoring, float* dist, uint32_t* hits);
#endif
#if defined(QUIVER_HAVE_AVX512)
uint32_t fastscan_block_avx512(const uint8_t* codes, const uint8_t* tables, size_t groups,
                            const float* offset, const float* scale, const BlockScoring& scoring,
                            float* dist);
void fastscan_block_multi_avx512(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                            size_t groups, const float* offset, const float* scale,
                            const BlockScoring* scoring, float* dist, uint32_t* hits);
#endif
#if defined(QUIVER_HAVE_NEON)
uint32_t fastscan_block_neon(const uint8_t* codes, const uint8_t* tables, size_t groups,
                            const float* offset, const float* scale, const BlockScoring& scoring,
                            float* dist);
void fastscan_block_multi_neon(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                            size_t groups, const float* offset, const float* scale,
                            const BlockScoring* scoring, float* dist, uint32_t* hits);
#endif
#if defined(QUIVER_HAVE_WASM128)
uint32_t fastscan_block_wasm128(const uint8_t* codes, const uint8_t* tables, size_t groups,
                            const float* offset, const float* scale, const BlockScoring& scoring,
                            float* dist);
void fastscan_block_multi_wasm128(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                            size_t groups, const float* offset, const float* scale,
                            const BlockScoring* scoring, float* dist, uint32_t* hits);
#endif

}  // namespace quiver::quant
