// Query tables, the quantised index's second job: a query is normalised (cosine), rotated once
// with the same transform as the codes, and turned into one 16-entry float table per
// sub-quantiser (query coordinate x codebook centroid) and the 8-bit tables the fast-scan
// kernels shuffle through (each table shifted by its minimum, one scale for all). One set of
// tables scores every block of the index. Plain scalar code: the same query gives the same
// tables, bit for bit, on every ISA level and target.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "index/quantized_impl.hpp"

namespace quiver {

using quant::kGroupSubquantizers;
using quant::kGroupTableBytes;

// Rotates the query and builds the float tables (s.ftables) and the 8-bit kernel tables
// (s.tables). Deterministic scalar code: the same query gives the same tables anywhere.
quantized::QueryTables QuantizedIndex::Impl::build_tables(const float* query, quantized::QueryLane& s,
                                                          float* rot_tmp) const {
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
  const std::vector<float>& cent = codebook.centroids;
  float* ft = s.ftables.data();
  for (size_t sq = 0; sq < subq; ++sq) {
    float* row = ft + sq * 16;
    if (bits == 4) {
      for (size_t c = 0; c < 16; ++c) row[c] = qr[sq] * cent[c];
    } else {
      const float q0 = qr[2 * sq];
      const float q1 = 2 * sq + 1 < dim ? qr[2 * sq + 1] : 0.0f;
      for (size_t c = 0; c < 16; ++c) row[c] = q0 * cent[c & 3] + q1 * cent[c >> 2];
    }
  }
  // 8-bit tables: subtract each table's minimum, one scale for all so sums stay comparable.
  // Entries are monotone in each coordinate's level (q * centroid, centroids ascending), so
  // a table's extremes sit at its corner codes 0, 3, 12, 15 (4 bits: 0 or 15).
  float* lows = s.lows.data();
  double bias = 0.0;
  float range = 0.0f;
  for (size_t sq = 0; sq < subq; ++sq) {
    const float* row = ft + sq * 16;
    const float lo = std::min(std::min(row[0], row[3]), std::min(row[12], row[15]));
    const float hi = std::max(std::max(row[0], row[3]), std::max(row[12], row[15]));
    lows[sq] = lo;
    bias += lo;
    range = std::max(range, hi - lo);
  }
  const float to_units = range > 0.0f ? float(quant::kMaxTableEntry) / range : 0.0f;
  t.bias = static_cast<float>(bias);
  t.step = range > 0.0f ? range / float(quant::kMaxTableEntry) : 0.0f;
  uint8_t* tab = s.tables.data();
  for (size_t sq = 0; sq < subq; ++sq) {
    const float* row = ft + sq * 16;
    // Sub-quantiser 4g + r sits at offset: r=0 -> 0, r=2 -> 32, r=1 -> 64, r=3 -> 96.
    const size_t g = sq / 4, r = sq % 4;
    uint8_t* dst = tab + g * kGroupTableBytes + (r % 2) * 64 + (r / 2) * 32;
    const float lo = lows[sq];
    for (size_t c = 0; c < 16; ++c) {  // simple enough for the compiler to vectorise
      const float units = std::floor((row[c] - lo) * to_units + 0.5f);
      dst[c] = uint8_t(int32_t(units < float(quant::kMaxTableEntry) ? units : float(quant::kMaxTableEntry)));
    }
    std::memcpy(dst + 16, dst, 16);
  }
  // Padding sub-quantisers of the last group look up zeros.
  for (size_t sq = subq; sq < groups * kGroupSubquantizers; ++sq) {
    const size_t g = sq / 4, r = sq % 4;
    std::memset(tab + g * kGroupTableBytes + (r % 2) * 64 + (r / 2) * 32, 0, 32);
  }
  return t;
}

}  // namespace quiver
