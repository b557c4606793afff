// The refine plane: a second code plane of the quantised index that makes codes-only search
// accurate without the f32 vectors.
//
// The fast-scan plane (4- or 2-bit Lloyd–Max codes of the rotated unit vector, scanned for
// every vector) stays the first pass. The refine plane stores `bits` more bits per rotated
// coordinate — where the coordinate lies inside its coarse cell (refine_codebook.hpp) — plus
// one correction scalar per vector, and is read only for the candidates the first pass keeps.
// A candidate is re-scored from both planes together:
//
//   x_i  ~ v(coarse_i, refine_i)                   the (bits + refine bits)-bit reconstruction
//   <q, x> ~ length / <r, v> * <R q, v>            r = rotated unit x, length = |x| (1: cosine)
//
// The per-vector factor length / <r, v> makes the estimate unbiased, as the fast-scan plane's
// own scale does for its coarser reconstruction (the extended-RaBitQ construction, with
// Lloyd–Max cells in place of uniform ones). It is stored in the same form as the fast-scan
// scale, so a re-scored distance is (c0 + offset) + scale * score with the index's own c0 and
// offset.
//
// Row layout, per vector: ceil(dim / 8) groups of `bits` bytes; group g holds the refine codes
// of coordinates 8g .. 8g + 7, coordinate 8g + t at bits [t * bits, (t + 1) * bits) of the
// group read as a little-endian integer. Bits past the dimension are zero. At dim 384 and
// 3 bits a row is 144 bytes (+ 4 for the scalar).
//
// Encoding and scoring are plain scalar code in a fixed order (no FMA: the build turns FP
// contraction off), so codes, scalars and re-scored distances are the same bits at every ISA
// level and in every wasm variant. Candidates are few (k * depth), so no SIMD kernel is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/aligned_buffer.hpp"
#include "base/row_blocks.hpp"
#include "quant/codebook.hpp"
#include "quant/refine_codebook.hpp"
#include "quiver/metric.hpp"
#include "quiver/quantized_index.hpp"

namespace quiver::quant {

inline constexpr unsigned kMaxRefineBits = QuantizedIndexOptions::kMaxRefineBits;

// Coarse codes as the fast-scan blocks and the index file hold them: byte j packs
// sub-quantisers 2j (low nibble) and 2j + 1; at 4 bits a sub-quantiser is one coordinate, at
// 2 bits coordinates (2s, 2s + 1) as level(2s) | level(2s + 1) << 2. Either way coordinate i
// sits at byte i * bits / 8, shift (i * bits) % 8. `stride` is the distance between
// consecutive bytes: 1 for a packed row, kBlockVectors inside a fast-scan block.
struct CoarseCodes {
  const uint8_t* bytes;
  size_t stride;
};

class RefineCodec {
 public:
  RefineCodec() = default;  // no refine plane
  // `coarse` is the fast-scan codebook (lloyd_max_codebook(dim, coarse_bits)); bits 1..4.
  RefineCodec(size_t dim, Metric metric, const Codebook& coarse, unsigned coarse_bits, unsigned bits);

  bool enabled() const noexcept { return bits_ != 0; }
  unsigned bits() const noexcept { return bits_; }
  size_t dim() const noexcept { return dim_; }
  size_t row_bytes() const noexcept { return (dim_ + 7) / 8 * bits_; }
  const RefineCodebook& codebook() const noexcept { return book_; }

  // The refine row and scale of one vector, given its rotated unit vector and its length
  // (|x| under l2 and ip, 1 under cosine; 0 for a zero vector, which gets an all-zero row and
  // scale 0 like its fast-scan codes). Writes row_bytes() bytes.
  void encode(const float* rotated_unit, double length, uint8_t* row, float& scale) const noexcept;

  // <rotated query, reconstruction> of a vector from its coarse codes and refine row: four
  // partial sums (coordinate i into sum i % 4, i ascending), then (s0 + s1) + (s2 + s3).
  float score(const float* rotated_query, CoarseCodes coarse, const uint8_t* row) const noexcept;
  // The same sums written plainly over run-time bit widths: the reference score() is tested
  // against, bit for bit.
  float score_reference(const float* rotated_query, CoarseCodes coarse, const uint8_t* row) const noexcept;

  // The reconstruction v (dim floats) of a vector: what score() takes the inner product with.
  void decode(CoarseCodes coarse, const uint8_t* row, float* out) const noexcept;

  // Checks a row and scale read from a file against the vector's coarse codes (packed row)
  // and fast-scan scale: padding bits zero, scale finite and of the fast-scan scale's sign
  // (both 0 only for a zero vector, whose row is all zero), and the ratio of the two scales
  // (= <r, coarse reconstruction> / <r, refine reconstruction>) inside the range the two
  // codebooks allow. Returns an empty string if valid, else what is wrong.
  std::string check(const uint8_t* coarse_row, float coarse_scale, const uint8_t* row, float scale) const;

 private:
  size_t dim_ = 0;
  double metric_factor_ = 1.0;  // 2 under l2 (distance = ... - 2 <q, x>), else 1
  unsigned coarse_bits_ = 0;
  unsigned bits_ = 0;
  Codebook coarse_;
  RefineCodebook book_;

 public:
  // check()'s per-coordinate terms, which depend only on the (coarse cell l, refine code f) pair
  // a coordinate's codes name: c_l^2 and min(a c_l, b c_l) over the cell [a, b], and the same
  // of the refine value over its sub-cell; and their sums over a row.
  struct alignas(16) PairTerms {
    float v[4];  // coarse_norm2, coarse_low, refine_norm2, refine_low
  };
  struct CheckSums {
    double coarse_norm2, coarse_low, refine_norm2, refine_low;
  };
  using SumChecks = CheckSums (*)(const uint8_t* coarse_row, const uint8_t* row, size_t dim,
                                  const PairTerms* terms) noexcept;

 private:
  std::vector<PairTerms> pair_terms_;  // [cell << bits | code], computed once at construction
  SumChecks check_sums_ = nullptr;     // for (coarse_bits_, bits_), chosen at construction
};

// Per-slot storage of the plane: rows and scales, grown with the index's slots in chunks
// (core::RowBlocks), so growing never copies the rows already stored.
class RefinePlane {
 public:
  RefinePlane() : RefinePlane(0) {}
  explicit RefinePlane(size_t row_bytes)
      : row_bytes_(row_bytes),
        rows_(row_bytes > 0 ? row_bytes : 1,
              core::RowBlocks<uint8_t>::rows_per_chunk_within(row_bytes > 0 ? row_bytes : 1, kChunkBytes)),
        scales_(1, kScalesPerChunk) {}

  size_t row_bytes() const noexcept { return row_bytes_; }
  // Room for `slots` slots; stored slots stay where they are, new ones are zero. Throws
  // Error(OutOfMemory) and changes nothing if the memory is not there.
  void reserve(size_t slots) {
    if (row_bytes_ == 0) return;
    const size_t had = scales_.capacity_rows();
    rows_.reserve(slots);
    try {
      scales_.reserve(slots);
    } catch (...) {
      rows_.shrink_to(had);
      throw;
    }
  }
  // Frees chunks holding no slot below `slots` (undoing a reserve() whose add failed).
  void shrink_to(size_t slots) noexcept {
    rows_.shrink_to(slots);
    scales_.shrink_to(slots);
  }
  void store(uint32_t slot, const uint8_t* row, float scale) noexcept {
    std::memcpy(rows_.row(slot), row, row_bytes_);
    *scales_.row(slot) = scale;
  }
  const uint8_t* row(uint32_t slot) const noexcept { return rows_.row(slot); }
  float scale(uint32_t slot) const noexcept { return *scales_.row(slot); }
  const float* scale_address(uint32_t slot) const noexcept { return scales_.row(slot); }
  size_t memory_bytes() const noexcept { return row_bytes_ == 0 ? 0 : rows_.memory_bytes() + scales_.memory_bytes(); }

 private:
  // Small chunks: a small index stays small, and the chunk tables of a large one stay tiny.
  static constexpr size_t kChunkBytes = size_t(32) << 10;  // at most, for the rows
  static constexpr size_t kScalesPerChunk = 1024;          // 4 KiB of scales
  size_t row_bytes_ = 0;
  core::RowBlocks<uint8_t> rows_;
  core::RowBlocks<float> scales_;
};

}  // namespace quiver::quant
