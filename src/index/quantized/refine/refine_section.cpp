#include "index/quantized/refine/refine_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "container/crc32c.hpp"
#include "container/section_producer.hpp"
#include "quiver/error.hpp"

namespace quiver::io {
namespace {

[[noreturn]] void corrupt(const std::string& message) { throw Error(ErrorCode::Corrupt, "index file: " + message); }

uint32_t refine_codebook_crc(const quant::RefineCodebook& book) {
  SectionWriter w(0, 0);
  w.f32s(book.values.data(), book.values.size());
  w.f32s(book.bounds.data(), book.bounds.size());
  return crc32c(w.data().data(), w.size());
}

}  // namespace

void write_refine_section(Writer& w, const QuantizedIndex& index, const QuantizedIndexAccess::View& v) {
  const quant::RefineCodec& codec = *v.refine;
  const size_t row_bytes = codec.row_bytes();
  // Produced from the plane when the file is written (the caller holds the index's read lock).
  uint8_t head[8];
  put_u32(head, codec.bits());
  put_u32(head + 4, refine_codebook_crc(codec.codebook()));
  const QuantizedIndex* ix = &index;
  const uint64_t* ids = v.slot_ids;
  const auto records = per_slot_producer(v.slots, row_bytes + 4, [ix, ids, row_bytes](size_t slot, uint8_t* out) {
    if (ids[slot] == QuantizedIndexAccess::kNoId) {
      std::memset(out, 0, row_bytes + 4);
      return;
    }
    std::memcpy(out, QuantizedIndexAccess::refine_row(*ix, uint32_t(slot)), row_bytes);
    put_f32(out + row_bytes, QuantizedIndexAccess::refine_scale(*ix, uint32_t(slot)));
  });
  w.add_section(kRefineTag)
      .produce(8 + uint64_t(v.slots) * (row_bytes + 4), [head, records](const SectionWriter::Emit& emit) {
        emit(head, sizeof head);
        records(emit);
      });
}

RefineSectionReader::RefineSectionReader(const Reader& r, uint64_t slots, uint64_t dim) {
  if (r.find(kRefineTag) != nullptr) *this = RefineSectionReader(r.section(kRefineTag), slots, dim);
}

RefineSectionReader::RefineSectionReader(SectionCursor section, uint64_t slots, uint64_t dim) : cursor_(section) {
  const uint32_t bits = cursor_.u32();
  const uint32_t crc = cursor_.u32();
  init(bits, crc, cursor_.remaining(), slots, dim);
}

RefineSectionReader::RefineSectionReader(uint32_t bits, uint32_t crc, uint64_t rows_size, uint64_t slots,
                                         uint64_t dim) {
  init(bits, crc, rows_size, slots, dim);
}

void RefineSectionReader::init(uint32_t bits, uint32_t crc, uint64_t rows_size, uint64_t slots, uint64_t dim) {
  crc_ = crc;
  if (bits < 1 || bits > quant::kMaxRefineBits) {
    corrupt("impossible refine plane bit width " + std::to_string(bits) + " (expected 1.." +
            std::to_string(quant::kMaxRefineBits) + ")");
  }
  bits_ = bits;
  row_bytes_ = size_t((dim + 7) / 8 * bits);
  // slots < 2^32 and dim <= 2^20 (checked from the header first): no overflow.
  check_section_size(kRefineTag, rows_size, slots * (row_bytes_ + 4), "slots x (refine row + 4-byte scale)");
}

void RefineSectionReader::check_codebook(const quant::RefineCodec& codec) const {
  const uint32_t ours = refine_codebook_crc(codec.codebook());
  if (ours != crc_) {
    throw Error(ErrorCode::UnsupportedVersion,
                "index file: the file's refine plane sub-codebook (CRC " + std::to_string(crc_) +
                    ") differs from the one this build computes (" + std::to_string(ours) +
                    "): the file was written by an incompatible build of quiver");
  }
}

void RefineSectionReader::read(size_t n, uint64_t first_slot, const uint64_t* ids, const uint8_t* coarse_rows,
                               size_t coarse_row_bytes, const float* coarse_scales, const quant::RefineCodec& codec) {
  rows_.resize(n * row_bytes_);
  scales_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* src = cursor_.bytes(row_bytes_);
    std::copy(src, src + row_bytes_, rows_.data() + i * row_bytes_);
    scales_[i] = cursor_.f32();
  }
  check(n, first_slot, ids, coarse_rows, coarse_row_bytes, coarse_scales, codec, rows_.data(), scales_.data());
}

void RefineSectionReader::check(size_t n, uint64_t first_slot, const uint64_t* ids, const uint8_t* coarse_rows,
                                size_t coarse_row_bytes, const float* coarse_scales, const quant::RefineCodec& codec,
                                const uint8_t* rows, const float* scales) const {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* row = rows + i * row_bytes_;
    const float scale = scales[i];
    const uint64_t slot = first_slot + i;
    if (ids[i] == QuantizedIndexAccess::kNoId) {
      bool zero = scale == 0.0f && !std::signbit(scale);
      for (size_t b = 0; b < row_bytes_; ++b) zero = zero && row[b] == 0;
      if (!zero) corrupt("free slot " + std::to_string(slot) + " holds refine plane data");
      continue;
    }
    const std::string problem = codec.check(coarse_rows + i * coarse_row_bytes, coarse_scales[i], row, scale);
    if (!problem.empty()) corrupt("slot " + std::to_string(slot) + " has " + problem);
  }
}

}  // namespace quiver::io
