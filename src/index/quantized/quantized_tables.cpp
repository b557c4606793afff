// Query tables, the quantised index's second job: a query is normalised (cosine), rotated once
// with the same transform as the codes, and turned into one 16-entry float table per
// sub-quantiser (query coordinate x codebook centroid) and the 8-bit tables the fast-scan
// kernels shuffle through (each table shifted by its minimum, one scale for all). One set of
// tables scores every block of the index. Plain scalar code: the same query gives the same
// tables, bit for bit, on every ISA level and target.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "index/quantized/quantized_impl.hpp"

namespace quiver {

using quant::kGroupSubquantizers;
using quant::kGroupTableBytes;

namespace {

// One table's 16 entries in units of the 8-bit scale (rounded to nearest, at most
// kMaxTableEntry), stored twice (once per 128-bit lane). x = (entry - lo) * to_units + 0.5 is
// at least 0.5 (lo is the table's minimum and float rounding is monotone), so floor(x) is the
// truncation a float -> int conversion does: converting min(x, 127) gives the bytes
// floor-then-clamp gave, NaN included (both 127), in a loop the compiler vectorises (it left
// the floor form scalar).
void quantize_row(const float* __restrict row, float lo, float to_units, uint8_t* __restrict dst) noexcept {
  constexpr float kMax = float(quant::kMaxTableEntry);
  int32_t units[16];
  for (size_t c = 0; c < 16; ++c) {
    const float x = (row[c] - lo) * to_units + 0.5f;
    units[c] = int32_t(x < kMax ? x : kMax);
  }
  for (size_t c = 0; c < 16; ++c) dst[c] = uint8_t(units[c]);
  std::memcpy(dst + 16, dst, 16);
}

// quantize_row() of the 4-bit table x * cent[0..16), forming each entry (the same product)
// inside the loop: no row of floats to build and read back.
void quantize_products(float x, const float* __restrict cent, float lo, float to_units,
                       uint8_t* __restrict dst) noexcept {
  constexpr float kMax = float(quant::kMaxTableEntry);
  int32_t units[16];
  for (size_t c = 0; c < 16; ++c) {
    const float v = (x * cent[c] - lo) * to_units + 0.5f;
    units[c] = int32_t(v < kMax ? v : kMax);
  }
  for (size_t c = 0; c < 16; ++c) dst[c] = uint8_t(units[c]);
  std::memcpy(dst + 16, dst, 16);
}

}  // namespace

// Rotates the query and builds the 8-bit kernel tables (s.tables) and, if float_tables, the
// float tables (s.ftables). Deterministic scalar code: the same query gives the same tables
// anywhere.
quantized::QueryTables QuantizedIndex::Impl::build_tables(const float* query, quantized::QueryLane& s, float* rot_tmp,
                                                          bool float_tables) const {
  const float* q = query;
  quantized::QueryTables t{0.0f, 0.0f, 1.0f};
  if (metric == Metric::cosine) {
    double n2 = 0.0;
    for (size_t i = 0; i < dim; ++i) n2 += double(query[i]) * query[i];
    scale_to_unit(query, n2, s.query.data());
    q = s.query.data();
    t.c0 = 1.0f;
  } else if (metric == Metric::l2) {
    double n2 = 0.0;
    for (size_t i = 0; i < dim; ++i) n2 += double(query[i]) * query[i];
    t.c0 = static_cast<float>(n2);
  }
  rotation.apply(q, s.rotated.data(), rot_tmp);
  const float* qr = s.rotated.data();
  const float* cent = codebook.centroids.data();
  // Entry c of sub-quantiser sq's table: the query coordinate(s) times the code's level(s).
  const auto entry = [&](size_t sq, size_t c) {
    if (bits == 4) return qr[sq] * cent[c];
    const float q0 = qr[2 * sq];
    const float q1 = 2 * sq + 1 < dim ? qr[2 * sq + 1] : 0.0f;
    return q0 * cent[c & 3] + q1 * cent[c >> 2];
  };
  // The 16 entries of sq's table (the same products as entry(), the bit width tested once).
  const auto fill_row = [&](size_t sq, float* row) {
    if (bits == 4) {
      const float x = qr[sq];
      for (size_t c = 0; c < 16; ++c) row[c] = x * cent[c];
    } else {
      for (size_t c = 0; c < 16; ++c) row[c] = entry(sq, c);
    }
  };
  // 8-bit tables: subtract each table's minimum, one scale for all so sums stay comparable.
  // Entries are monotone in each coordinate's level (q * centroid, centroids ascending), so
  // a table's extremes sit at its corner codes 0, 3, 12, 15 (4 bits: 0 or 15): a first pass
  // over the corners alone finds the minima and the scale.
  float* lows = s.lows.data();
  double bias = 0.0;
  float range = 0.0f;
  for (size_t sq = 0; sq < subq; ++sq) {
    const float e0 = entry(sq, 0), e3 = entry(sq, 3), e12 = entry(sq, 12), e15 = entry(sq, 15);
    const float lo = std::min(std::min(e0, e3), std::min(e12, e15));
    const float hi = std::max(std::max(e0, e3), std::max(e12, e15));
    lows[sq] = lo;
    bias += lo;
    range = std::max(range, hi - lo);
  }
  const float to_units = range > 0.0f ? float(quant::kMaxTableEntry) / range : 0.0f;
  t.bias = static_cast<float>(bias);
  t.step = range > 0.0f ? range / float(quant::kMaxTableEntry) : 0.0f;
  // Second pass: every entry, into the 8-bit tables and, when the search reads them, the
  // float tables (a codes-only search with a refine plane never does).
  float* ft = s.ftables.data();
  uint8_t* tab = s.tables.data();
  for (size_t sq = 0; sq < subq; ++sq) {
    // Sub-quantiser 4g + r sits at offset: r=0 -> 0, r=2 -> 32, r=1 -> 64, r=3 -> 96.
    const size_t g = sq / 4, r = sq % 4;
    uint8_t* dst = tab + g * kGroupTableBytes + (r % 2) * 64 + (r / 2) * 32;
    if (bits == 4 && !float_tables) {  // the common case, products formed in the rounding loop
      quantize_products(qr[sq], cent, lows[sq], to_units, dst);
      continue;
    }
    float local[16];
    float* row = float_tables ? ft + sq * 16 : local;
    fill_row(sq, row);
    quantize_row(row, lows[sq], to_units, dst);
  }
  // Padding sub-quantisers of the last group look up zeros.
  for (size_t sq = subq; sq < groups * kGroupSubquantizers; ++sq) {
    const size_t g = sq / 4, r = sq % 4;
    std::memset(tab + g * kGroupTableBytes + (r % 2) * 64 + (r / 2) * 32, 0, 32);
  }
  return t;
}

}  // namespace quiver
