// The refine plane's section of a quantised index file (src/quant/refine_plane.hpp). Written
// only by an index with a refine plane, so files without one keep their bytes, and required,
// so a reader that predates the plane refuses the file with UNSUPPORTED_VERSION ("required
// section RFIN is not understood") instead of loading an index that lost its accuracy.
//
//   "RFIN"  u32 refine_bits (1..5)
//           u32 CRC-32C of the sub-codebook (values then thresholds, f32 LE) for (dim, bits,
//               refine_bits): a build that computes another one rejects the file
//               (UNSUPPORTED_VERSION), as the fast-scan codebook's CRC does
//           slots x { ceil(dim / 8) * refine_bits bytes: the refine row, f32: its scale }
//           a free slot is all zeros
//
// Loading checks the size against the bytes present before anything is allocated, then each
// live slot's row and scale against its fast-scan codes and scale (RefineCodec::check).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/quantized/quantized_state.hpp"
#include "container/format.hpp"
#include "quant/refine_plane.hpp"

namespace quiver::io {

inline constexpr uint32_t kRefineTag = fourcc("RFIN");

// Appends the section for an index with a refine plane (v.refine is not null), under the
// index's read lock.
void write_refine_section(Writer& w, const QuantizedIndex& index, const QuantizedIndexAccess::View& v);

class RefineSectionReader {
 public:
  // The file's refine plane, if any (bits() == 0 without one), its declared size checked
  // against the payload: Error(Corrupt) for an impossible bit width or a size that does not
  // match `slots` slots of dimension `dim`.
  RefineSectionReader() = default;  // a file without a refine plane
  RefineSectionReader(const Reader& r, uint64_t slots, uint64_t dim);
  // The same from the section's whole payload.
  RefineSectionReader(SectionCursor section, uint64_t slots, uint64_t dim);
  // The same checks for a section that is streamed (io::QuantizedDecoder): its first 8 bytes
  // (bits, CRC) and the size of the rest; its rows are checked with check().
  RefineSectionReader(uint32_t bits, uint32_t crc, uint64_t rows_size, uint64_t slots, uint64_t dim);
  size_t row_bytes() const noexcept { return row_bytes_; }

  unsigned bits() const noexcept { return bits_; }
  // The sub-codebook of the index built from the file's options must be the file's.
  void check_codebook(const quant::RefineCodec& codec) const;
  // Reads and validates the next n slots (ids: kNoId for a free slot; their packed fast-scan
  // codes and scales): free slots all zero, live slots what the encoder could have written.
  // rows() and scales() hold them until the next call.
  void read(size_t n, uint64_t first_slot, const uint64_t* ids, const uint8_t* coarse_rows, size_t coarse_row_bytes,
            const float* coarse_scales, const quant::RefineCodec& codec);
  // The checks of read() on rows already in hand (n rows of row_bytes(), their scales).
  void check(size_t n, uint64_t first_slot, const uint64_t* ids, const uint8_t* coarse_rows, size_t coarse_row_bytes,
             const float* coarse_scales, const quant::RefineCodec& codec, const uint8_t* rows,
             const float* scales) const;
  const uint8_t* rows() const noexcept { return rows_.data(); }
  const float* scales() const noexcept { return scales_.data(); }

 private:
  void init(uint32_t bits, uint32_t crc, uint64_t rows_size, uint64_t slots, uint64_t dim);
  unsigned bits_ = 0;
  uint32_t crc_ = 0;
  size_t row_bytes_ = 0;
  SectionCursor cursor_{kRefineTag, nullptr, 0};
  std::vector<uint8_t> rows_;
  std::vector<float> scales_;
};

}  // namespace quiver::io
