// The SIMD fast-scan kernel, written once over a vector wrapper V (simd/vec_<isa>.hpp). Each
// ISA's stub (fastscan_<isa>.cpp) includes its wrapper and this body, is compiled with that
// ISA's flags and builds its table with make_fastscan_table<FastScanKernel<V, ...>>(). The
// scalar reference (fastscan_scalar.cpp) stays separate and plain. Layout: fastscan.hpp.
//
// A register holds W = V::kBytes code bytes (16, 32 or 64). A group's 64 code bytes (pairs
// 2g and 2g+1, 32 vectors each) are read in steps of max(W, 32) bytes: with W <= 32 step s is
// pair s, whose tables are at t + 32 s (low nibbles) and t + 64 + 32 s (high nibbles); with
// W = 64 one step holds both pairs, and the 64 table bytes at t (and t + 64) are both pairs'
// tables side by side, as the codes are. A W = 16 load of a 32-byte table slot gets one copy.
//
// A step is 32 / W chunks when W < 32: chunk h holds vectors 16h .. 16h+15 and goes to byte-
// sum accumulator pair h (16-bit lanes, V::bytesums_*) of each query; otherwise there is one
// accumulator, and with W = 64 its two halves hold the two pairs for the same 32 vectors (the
// flush folds them). Every kFlushGroups groups the accumulators are flushed into exact 32-bit
// totals in vector order, kBlockVectors / V::kLanes registers per query.
//
// Everything is in an anonymous namespace, as V is: each stub's instantiation is private to
// its file (see simd/vec_avx2.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "quant/fastscan.hpp"

namespace quiver::quant {
namespace {

// kSharedCodePass: the codes of a pass are loaded and split into nibbles once for all (up to
// kMaxQueriesPerPass) queries; without it each query is a pass of its own (for ISAs with too
// few registers for several queries' accumulators). kSimdEpilogue: sums -> distances and the
// hit mask in registers (compare + movemask); without it the sums are stored and the shared
// finish_block() does it in plain code. The SIMD epilogue measured 10-47% faster per block
// than plain code on x86 (AVX-512 most), since the compiler does not turn the hit-mask loop
// into a compare + movemask.
template <class V, bool kSharedCodePass = true, bool kSimdEpilogue = true>
struct FastScanKernel {
  static constexpr size_t W = V::kBytes;
  static constexpr size_t kStepBytes = W > 32 ? W : 32;
  static constexpr size_t kSteps = kGroupCodeBytes / kStepBytes;
  static constexpr size_t kChunks = kStepBytes / W;             // chunks per step = accumulators per query
  static constexpr size_t kTotals = kBlockVectors / V::kLanes;  // u32 registers per query
  static constexpr size_t kPer = kTotals / kChunks;             // of them, per accumulator pair
  static_assert(kSteps * kStepBytes == kGroupCodeBytes && kTotals % kChunks == 0, "unsupported width");

  // Scores Q queries over one block; see make_fastscan_table() in fastscan.hpp. The pass is
  // written here, not in a helper that scan() calls, and its byte sums are arrays of plain
  // registers (not of pairs, which do not scalarise early), so that GCC still inlines the
  // one-query pass into the table's entry points: it refuses once the estimated stack frame
  // passes 256 bytes (--param large-stack-frame). The NEON pass is over that (its plain-code
  // epilogue stores the sums) and is called, once per block.
  template <size_t Q>
  static void scan(const uint8_t* codes, const uint8_t* const* tables, size_t groups, const float* offset,
                   const float* scale, const BlockScoring* scoring, float* dist, uint32_t* hits) {
    if constexpr (!kSharedCodePass && Q > 1) {
      for (size_t q = 0; q < Q; ++q) {
        scan<1>(codes, tables + q, groups, offset, scale, scoring + q, dist + q * kBlockVectors, hits + q);
      }
    } else {
      using U8 = typename V::U8;
      typename V::U32 total[Q][kTotals];  // per query, exact sums; register i: vectors kLanes * i ..
      for (size_t q = 0; q < Q; ++q) {
        for (size_t i = 0; i < kTotals; ++i) total[q][i] = V::u32_zero();
      }
      for (size_t g0 = 0; g0 < groups; g0 += kFlushGroups) {
        const size_t g1 = g0 + kFlushGroups < groups ? g0 + kFlushGroups : groups;
        typename V::U16 acc0[Q][kChunks], acc1[Q][kChunks];  // byte sums (see the wrapper)
        for (size_t q = 0; q < Q; ++q) {
          for (size_t h = 0; h < kChunks; ++h) acc0[q][h] = acc1[q][h] = V::u16_zero();
        }
        for (size_t g = g0; g < g1; ++g) {
          const uint8_t* c = codes + g * kGroupCodeBytes;
          for (size_t s = 0; s < kSteps; ++s) {
            for (size_t h = 0; h < kChunks; ++h) {
              const U8 packed = V::u8_loadu(c + s * kStepBytes + h * W);
              const U8 lo = V::u8_low_nibbles(packed), hi = V::u8_high_nibbles(packed);
              for (size_t q = 0; q < Q; ++q) {
                // The step's tables, the same for each of its chunks (loaded once after CSE).
                const uint8_t* t = tables[q] + g * kGroupTableBytes;
                const U8 ta = V::u8_load(t + s * 32), tb = V::u8_load(t + 64 + s * 32);
                const U8 sum = V::u8_add(V::u8_lookup(ta, lo), V::u8_lookup(tb, hi));
                acc0[q][h] = V::bytesums_add0(acc0[q][h], sum);
                acc1[q][h] = V::bytesums_add1(acc1[q][h], sum);
              }
            }
          }
        }
        for (size_t q = 0; q < Q; ++q) {
          for (size_t h = 0; h < kChunks; ++h) {
            V::bytesums_flush(acc0[q][h], acc1[q][h], total[q] + h * kPer);
          }
        }
      }
      // Exact sums -> distances and the hit mask, as BlockScoring specifies.
      constexpr size_t L = V::kLanes;
      for (size_t q = 0; q < Q; ++q) {
        const BlockScoring& bs = scoring[q];
        if constexpr (kSimdEpilogue) {
          using F = typename V::F32;
          const F c0 = V::f32_splat(bs.c0), bias = V::f32_splat(bs.bias);
          const F step = V::f32_splat(bs.step), threshold = V::f32_splat(bs.threshold);
          uint32_t mask = 0;
          for (size_t i = 0; i < kTotals; ++i) {
            const F score = V::f32_add(bias, V::f32_mul(V::f32_from_i32(total[q][i]), step));
            const F d = V::f32_add(V::f32_add(c0, V::f32_loadu(offset + L * i)),
                                   V::f32_mul(V::f32_loadu(scale + L * i), score));
            V::f32_storeu(dist + q * kBlockVectors + L * i, d);
            mask |= V::f32_le_mask(d, threshold) << (L * i);
          }
          hits[q] = mask;
        } else {
          alignas(64) int32_t sums[kBlockVectors];
          for (size_t i = 0; i < kTotals; ++i) V::u32_storeu(sums + L * i, total[q][i]);
          hits[q] = finish_block(sums, offset, scale, bs, dist + q * kBlockVectors);
        }
      }
    }
  }
};

}  // namespace
}  // namespace quiver::quant
