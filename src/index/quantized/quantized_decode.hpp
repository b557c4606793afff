// The quantised index file: what its writer and both of its loaders share — the section tags,
// the quantiser CRCs, the per-slot estimate check, and decode_quantized(), every check of a
// file in one order for the whole-file loader (quantized_format.cpp) and the stream decoder
// (quantized_stream_decoder.cpp), so that a damaged file gives the same first fault either way.
// The format itself is described at the top of quantized_format.cpp. Internal.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "base/validate.hpp"
#include "index/quantized/quantized_state.hpp"
#include "container/crc32c.hpp"
#include "container/file.hpp"
#include "index/common/slot_sections.hpp"
#include "index/quantized/quantized_format.hpp"
#include "index/quantized/refine/refine_section.hpp"
#include "container/section_producer.hpp"
#include "quiver/error.hpp"
#include "quiver/quantized_index.hpp"

namespace quiver::io::quantized_file {

using slot_sections::kFreeTag;
using slot_sections::kSlotTag;
constexpr uint32_t kCodeTag = io::fourcc("CODE");
constexpr uint32_t kOffsTag = io::fourcc("OFFS");
constexpr uint32_t kScalTag = io::fourcc("SCAL");
constexpr uint32_t kVecsTag = io::fourcc("VECS");
constexpr uint32_t kPartTag = io::fourcc("PART");
constexpr uint32_t kCentTag = io::fourcc("CENT");
constexpr uint32_t kListTag = io::fourcc("LIST");
constexpr uint32_t kSprdTag = io::fourcc("SPRD");
constexpr uint64_t kMaxLists = uint64_t(1) << 16;  // quantized::kMaxLists
constexpr uint64_t kEncodingVersion = 1;
static_assert(kNoId == QuantizedIndexAccess::kNoId, "a free slot is written with the public no-result id");

[[noreturn]] inline void corrupt(const std::string& message) {
  throw Error(ErrorCode::Corrupt, "index file: " + message);
}

inline size_t subquantizers(size_t dim, unsigned bits) { return bits == 4 ? dim : (dim + 1) / 2; }

inline uint32_t crc_of_floats(const float* v, size_t n) {
  io::SectionWriter w(0, 0);
  w.f32s(v, n);  // little-endian bytes on any host
  return io::crc32c(w.data().data(), w.size());
}

inline uint32_t codebook_crc(const quant::Codebook& cb) {
  io::SectionWriter w(0, 0);
  w.f32s(cb.centroids.data(), cb.centroids.size());
  w.f32s(cb.boundaries.data(), cb.boundaries.size());
  return io::crc32c(w.data().data(), w.size());
}

// The rotation applied to a fixed probe vector (exactly representable values, none zero).
inline uint32_t rotation_crc(const quant::Rotation& rotation, size_t dim) {
  std::vector<float> in(dim), out(dim), scratch(dim);
  for (size_t i = 0; i < dim; ++i) in[i] = float(int(i % 13) - 6) * 0.125f + 0.0625f;
  rotation.apply(in.data(), out.data(), scratch.data());
  return crc_of_floats(out.data(), dim);
}

// Throws Corrupt unless the section holds exactly n records of `record` bytes. The header
// checks (slots < 2^32, dim <= 2^20) keep n * record far from overflowing 64 bits.
inline void expect_records(const io::SectionCursor& c, uint64_t n, uint64_t record, const char* what) {
  c.expect_size(n * record, what);
}

inline bool all_zero(const void* p, size_t bytes) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < bytes; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

// The invariants of one live slot's distance estimate, distance = (c0 + offset) + scale * score
// (src/index/quantized/quantized_encode.cpp): what an encoder could have produced for a vector the
// index accepts. offset is |x|^2 under l2 (at most the norm bound) and 0 under ip and cosine;
// scale = -m * length / dot with m = 2 under l2 (else 1), length = |x| (1 under cosine) and
// dot = <rotated unit x, its reconstruction>. dot is at most |reconstruction| (computed from
// the codes) and at least dot_min, a bound of the codebook (below); so |scale| lies in
// [m * length / |recon|, m * length / dot_min], up to rounding. A zero vector (l2, ip) has
// scale 0, offset 0 and all codes 0. With kept vectors, length is the kept vector's norm and
// under l2 the offset must be its squared norm exactly (the encoder computes the same sum).
// Together these keep every estimate finite and its sign right.
class EstimateCheck {
 public:
  EstimateCheck(Metric metric, unsigned bits, size_t dim, const quant::Codebook& cb)
      : metric_(metric), bits_(bits), dim_(dim), centroids_(cb.centroids) {
    const auto sq = [&](unsigned code) { return double(centroids_[code]) * centroids_[code]; };
    for (unsigned b = 0; b < 256; ++b) {
      byte_squares_[b] =
          bits_ == 4 ? sq(b & 15) + sq(b >> 4) : (sq(b & 3) + sq((b >> 2) & 3)) + (sq((b >> 4) & 3) + sq(b >> 6));
    }
    // Each coordinate r of the rotated unit vector adds r * c(r) to dot, where c(r) is the
    // centroid of r's cell (same sign as r). Over the cell of a positive centroid c with upper
    // end u (the next boundary, or 1), r * c >= r^2 * c / u; mirrored for negative ones. So
    // dot >= sum r^2 * min(c / u) = min(c / u).
    const size_t levels = cb.centroids.size();
    double dot_min = 1.0;
    for (size_t l = 0; l < levels; ++l) {
      const double c = cb.centroids[l];
      const double end = c > 0 ? (l + 1 < levels ? cb.boundaries[l] : 1.0) : (l > 0 ? cb.boundaries[l - 1] : -1.0);
      if (c == 0.0 || end == 0.0) continue;
      dot_min = std::min(dot_min, std::fabs(c / end));
    }
    max_inv_dot_ = 1.0 / dot_min;
  }

  void check(uint64_t slot, const uint8_t* packed, float offset, float scale, const float* kept) const {
    const double m = metric_ == Metric::l2 ? 2.0 : 1.0;
    double length;  // |x|; negative when unknown (ip without kept vectors)
    if (metric_ == Metric::l2) {
      if (!(offset >= 0.0f && double(offset) <= core::kMaxSquaredNorm)) {
        fail(slot, "offset " + std::to_string(offset) + ", but an l2 offset is a squared norm in [0, 2^100]");
      }
      length = std::sqrt(double(offset));
    } else {
      if (offset != 0.0f) fail(slot, "offset " + std::to_string(offset) + ", but it is 0 under ip and cosine");
      length = metric_ == Metric::cosine ? 1.0 : -1.0;
    }
    if (kept != nullptr && metric_ != Metric::cosine) {
      double norm2 = 0.0;
      for (size_t i = 0; i < dim_; ++i) norm2 += double(kept[i]) * kept[i];
      if (metric_ == Metric::l2 && offset != static_cast<float>(norm2)) {
        fail(slot, "offset " + std::to_string(offset) + ", which is not the squared norm of its kept vector");
      }
      length = std::sqrt(norm2);
    }
    // |reconstruction|^2 from the codes. A byte holds the codes of coordinates 2j, 2j + 1
    // (4 bits) or 4j .. 4j + 3 (2 bits, at shifts 0, 2, 4, 6); byte j adds its codes' squares
    // (byte_squares_) into partial sum j % 4, the coordinates of a last partial byte theirs one
    // by one, and the partial sums are added (0 + 1) + (2 + 3) at the end: independent chains
    // of adds, in a fixed order, so the same bits on every target.
    double part[4] = {0.0, 0.0, 0.0, 0.0};
    unsigned any = 0;  // the codes or-ed together: 0 for a zero vector's
    const size_t per_byte = bits_ == 4 ? 2 : 4, whole = dim_ / per_byte;
    for (size_t j = 0; j < whole; ++j) {
      part[j % 4] += byte_squares_[packed[j]];
      any |= packed[j];
    }
    for (size_t i = whole * per_byte; i < dim_; ++i) {
      const unsigned code = bits_ == 4 ? unsigned(packed[i / 2] >> (i % 2 * 4)) & 15
                                       : unsigned(packed[i / 4] >> (i / 2 % 2 * 4 + i % 2 * 2)) & 3;
      part[i % 4] += double(centroids_[code]) * centroids_[code];
      any |= code;
    }
    const double recon2 = (part[0] + part[1]) + (part[2] + part[3]);
    const bool zero_codes = any == 0;
    if (!(scale <= 0.0f)) fail(slot, "scale " + std::to_string(scale) + ", but scales are never positive");
    if (scale == 0.0f) {
      if (metric_ == Metric::cosine || (length != 0.0 && length != -1.0)) {
        fail(slot, "scale 0, which only a zero vector has (under l2 or ip)");
      }
      if (!zero_codes) fail(slot, "scale 0 (a zero vector) but codes that are not all 0");
      return;
    }
    const double mag = -double(scale);
    constexpr double kTolerance = 1e-3;  // float rounding of the scale, the rotation and |r| ~ 1
    const double max_length = length >= 0.0 ? length : std::sqrt(core::kMaxSquaredNorm);
    const double hi = m * max_length * max_inv_dot_ * (1.0 + kTolerance);
    const double lo = length >= 0.0 ? m * length / std::sqrt(recon2) * (1.0 - kTolerance) : 0.0;
    if (!(mag <= hi && mag >= lo)) {
      fail(slot, "scale " + std::to_string(scale) + ", outside the range [-" + std::to_string(hi) + ", -" +
                     std::to_string(lo) + "] that its codes and norm allow");
    }
  }

 private:
  [[noreturn]] static void fail(uint64_t slot, const std::string& what) {
    corrupt("slot " + std::to_string(slot) + " has " + what);
  }
  Metric metric_;
  unsigned bits_;
  size_t dim_;
  std::vector<float> centroids_;
  double byte_squares_[256];  // the squared centroids of a byte's codes, summed
  double max_inv_dot_ = 1.0;
};

inline bool present(const Head& head, uint32_t tag) { return find_section(head, tag) != nullptr; }

// Every check of a quantised file, in one order for both loaders, so a damaged file gives the
// same first fault whether it was read whole or streamed: the head's parameters, the declared
// sizes, the partition, the quantiser's CRCs, then slot by slot (in chunks) the rows, then the
// free list. `src` is QuantizedFileDecoder::Source (a file in memory) or QuantizedDecoder::Source (a stream).
template <class Source>
QuantizedIndex decode_quantized(Source& src, Isa isa) {
  const Head& head = src.head();
  expect_kind(head.header, IndexKind::quantized);
  require_known_sections(head, {kSlotTag, kFreeTag, kCodeTag, kOffsTag, kScalTag, kVecsTag, io::kRefineTag, kPartTag,
                                kCentTag, kListTag, kSprdTag});
  const Header& h = head.header;
  // Header parameters.
  const uint64_t bits = h.params[0], keep = h.params[1], slots = h.params[2], nfree = h.params[3];
  if (h.params[6] != kEncodingVersion) {
    throw Error(ErrorCode::UnsupportedVersion, "index file: quantiser encoding version " + std::to_string(h.params[6]) +
                                                   " is not supported; this reader reads version " +
                                                   std::to_string(kEncodingVersion));
  }
  if (bits != 2 && bits != 4) corrupt("impossible bit width " + std::to_string(bits) + " (expected 2 or 4)");
  if (keep > 1) corrupt("impossible keep_vectors flag " + std::to_string(keep) + " (expected 0 or 1)");
  if (h.params[4] > UINT32_MAX || h.params[5] > UINT32_MAX || h.params[7] != 0) {
    corrupt("impossible quantiser parameters in the header");
  }
  if (h.dim > (1u << 20))
    corrupt("impossible dimension " + std::to_string(h.dim) + " for a quantized index (at most 1048576)");
  if (slots > UINT32_MAX) corrupt("impossible slot count " + std::to_string(slots) + " (at most 4294967295)");
  if (nfree > slots || h.count != slots - nfree) {
    corrupt("the header's counts disagree: " + std::to_string(slots) + " slots, " + std::to_string(nfree) + " free, " +
            std::to_string(h.count) + " vectors");
  }
  if (!keep && present(head, kVecsTag)) corrupt("section VECS is present but keep_vectors is 0");
  const size_t dim = size_t(h.dim);
  const size_t row_bytes = (subquantizers(dim, unsigned(bits)) + 1) / 2;
  // Declared sizes against the bytes present, before anything is allocated.
  SectionCursor ids = src.section(kSlotTag);
  SectionCursor free_list_section = src.section(kFreeTag);
  const uint64_t code_bytes = required_section(head, kCodeTag).size;
  const uint64_t off_bytes = required_section(head, kOffsTag).size;
  const uint64_t scale_bytes = required_section(head, kScalTag).size;
  expect_records(ids, slots, 8, slot_sections::kSlotRecords);
  expect_records(free_list_section, nfree, 4, slot_sections::kFreeRecords);
  check_section_size(kCodeTag, code_bytes, slots * row_bytes, "slots x packed codes");
  check_section_size(kOffsTag, off_bytes, slots * 4, "slots x 4-byte offsets");
  check_section_size(kScalTag, scale_bytes, slots * 4, "slots x 4-byte scales");
  // Writers before format 1.0's fix left VECS out of an empty index; nothing is missing then.
  if (keep && (slots > 0 || present(head, kVecsTag))) {
    check_section_size(kVecsTag, required_section(head, kVecsTag).size, slots * uint64_t(dim) * 4,
                       "slots x dim x 4-byte floats");
  }
  src.open_rows(keep == 1);

  // Partitions: PART says whether, CENT and LIST hold them.
  uint64_t lists_option = 0, lists = 0, trained_on = 0;
  SectionCursor list_section(kListTag, nullptr, 0);
  SectionCursor cent_section(kCentTag, nullptr, 0);
  SectionCursor sprd_section(kSprdTag, nullptr, 0);
  if (present(head, kPartTag)) {
    SectionCursor part = src.section(kPartTag);
    expect_records(part, 4, 8, "4 x 8-byte partition parameters");
    uint64_t pv[4];
    part.u64s(pv, 4);
    lists_option = pv[0];
    lists = pv[1];
    trained_on = pv[2];
    if (lists_option == 0 || (lists_option != UINT64_MAX && lists_option > kMaxLists)) {
      corrupt("impossible lists option " + std::to_string(lists_option));
    }
    if (lists == 0 || lists > kMaxLists || pv[3] != 0 || trained_on > UINT32_MAX || (trained_on == 0 && lists != 1) ||
        (lists_option != UINT64_MAX && trained_on > 0 && lists != lists_option)) {
      corrupt("impossible partition parameters (" + std::to_string(lists) + " lists, trained on " +
              std::to_string(trained_on) + ")");
    }
    if ((trained_on > 0) != present(head, kCentTag)) {
      corrupt(trained_on > 0 ? "section CENT is missing for a trained partition"
                             : "section CENT is present before training");
    }
    if (trained_on > 0) {
      cent_section = src.section(kCentTag);
      expect_records(cent_section, lists, uint64_t(dim) * 4, "lists x dim x 4-byte centroids");
    }
    if (present(head, kSprdTag)) {
      if (trained_on == 0 || h.metric != Metric::ip)
        corrupt("section SPRD is present without a trained inner-product partition");
      sprd_section = src.section(kSprdTag);
      expect_records(sprd_section, lists, 4, "lists x 4-byte spread terms");
    }
    list_section = src.section(kListTag);
    expect_records(list_section, slots, 4, "slots x 4-byte list numbers");
  } else if (present(head, kCentTag) || present(head, kListTag) || present(head, kSprdTag)) {
    corrupt("sections CENT, LIST or SPRD are present without PART");
  }

  RefineSectionReader refine = src.refine(slots, dim);
  const QuantizedIndexOptions options{
      dim,
      h.metric,
      unsigned(bits),
      h.seed,
      keep == 1,
      refine.bits(),
      lists_option == UINT64_MAX ? QuantizedIndexOptions::kAutoLists : size_t(lists_option)};
  try {
    QuantizedIndex index = src.make_index(options, isa);
    // The rotation and codebook this build computes must be the ones the file was written with.
    const QuantizedIndexAccess::View v = QuantizedIndexAccess::view(index);
    const uint32_t cb = codebook_crc(*v.codebook), rot = rotation_crc(*v.rotation, dim);
    if (cb != h.params[4] || rot != h.params[5]) {
      throw Error(ErrorCode::UnsupportedVersion,
                  "index file: the file's quantiser (codebook CRC " + std::to_string(h.params[4]) + ", rotation CRC " +
                      std::to_string(h.params[5]) + ") differs from the one this build computes for dim " +
                      std::to_string(dim) + ", " + std::to_string(bits) + " bits, seed " + std::to_string(h.seed) +
                      " (" + std::to_string(cb) + ", " + std::to_string(rot) +
                      "): the file was written by an incompatible build of quiver");
    }
    if (v.refine != nullptr) refine.check_codebook(*v.refine);
    const size_t subq = v.subq;
    const EstimateCheck estimates(h.metric, unsigned(bits), dim, *v.codebook);
    if (lists > 0) {
      std::vector<float> centroids(size_t(trained_on > 0 ? lists * dim : 0));
      cent_section.f32s(centroids.data(), centroids.size());
      for (size_t c = 0; c < centroids.size(); c += dim) {
        double n2 = 0.0;
        for (size_t d = 0; d < dim; ++d) {
          if (!std::isfinite(centroids[c + d])) corrupt("centroid " + std::to_string(c / dim) + " is not finite");
          n2 += double(centroids[c + d]) * centroids[c + d];
        }
        // Centroids are means of decoded vectors, whose norms are within the norm bound
        // (times the estimate's correction, well under 2^4).
        if (n2 > core::kMaxSquaredNorm * 256.0) corrupt("centroid " + std::to_string(c / dim) + " is impossibly large");
      }
      std::vector<float> spreads(present(head, kSprdTag) ? size_t(lists) : 0);
      sprd_section.f32s(spreads.data(), spreads.size());
      for (size_t l = 0; l < spreads.size(); ++l) {
        if (!std::isfinite(spreads[l]) || spreads[l] < 0.0f)
          corrupt("spread term of list " + std::to_string(l) + " is impossible");
      }
      src.set_partition(index, size_t(lists), size_t(trained_on), std::move(centroids), std::move(spreads));
    }
    QuantizedIndexAccess::reserve(index, size_t(slots), size_t(nfree));
    // Slots per chunk of checks: ~256 KiB of rows, what a load needs beside the index. Both
    // loaders use this (the first fault found can depend on the chunking).
    const size_t chunk =
        size_t(std::max<uint64_t>(1, std::min<uint64_t>(4096, (uint64_t(1) << 18) / (dim * 4 + row_bytes + 16))));
    const size_t buf_rows = size_t(std::min<uint64_t>(chunk, slots));
    std::vector<uint64_t> id_buf(buf_rows);
    std::vector<uint64_t> sorted(buf_rows);
    std::vector<float> off_buf(buf_rows), scale_buf(buf_rows);
    std::vector<float> vec_buf(keep ? buf_rows * dim : 0);
    std::vector<uint32_t> list_buf(lists > 0 ? buf_rows : 0);
    uint64_t dead = 0;
    for (uint64_t done = 0; done < slots;) {
      const size_t n = size_t(std::min<uint64_t>(chunk, slots - done));
      ids.u64s(id_buf.data(), n);
      const uint8_t* code_rows =
          src.rows(index, n, done, row_bytes, off_buf.data(), scale_buf.data(), keep ? vec_buf.data() : nullptr, dim);
      if (lists > 0) list_section.u32s(list_buf.data(), n);
      size_t live = 0;
      for (size_t i = 0; i < n; ++i) {
        const uint64_t slot = done + i;
        const uint8_t* c = code_rows + i * row_bytes;
        const float* x = keep ? vec_buf.data() + i * dim : nullptr;
        if (lists > 0 && list_buf[i] >= (id_buf[i] == kNoId ? 1 : lists)) {
          corrupt("slot " + std::to_string(slot) + " is in list " + std::to_string(list_buf[i]) + " of " +
                  std::to_string(lists) + (id_buf[i] == kNoId ? " (a free slot is in list 0)" : ""));
        }
        if (id_buf[i] == kNoId) {
          ++dead;
          if (!all_zero(c, row_bytes) || off_buf[i] != 0.0f || scale_buf[i] != 0.0f || std::signbit(off_buf[i]) ||
              std::signbit(scale_buf[i]) || (x && !all_zero(x, dim * 4))) {
            corrupt("free slot " + std::to_string(slot) + " holds data (codes, offset, scale or vector)");
          }
          continue;
        }
        if (index.contains(id_buf[i])) corrupt("id " + std::to_string(id_buf[i]) + " appears twice");
        sorted[live++] = id_buf[i];
        if (subq % 2 == 1 && (c[row_bytes - 1] >> 4) != 0) {
          corrupt("slot " + std::to_string(slot) + " has non-zero code padding bits");
        }
        if (bits == 2 && dim % 2 == 1 && ((c[row_bytes - 1] >> ((subq - 1) % 2 * 4)) & 0xC) != 0) {
          corrupt("slot " + std::to_string(slot) + " has a code for a coordinate past the dimension");
        }
        if (!std::isfinite(off_buf[i]) || !std::isfinite(scale_buf[i])) {
          corrupt("slot " + std::to_string(slot) + " has a non-finite offset or scale");
        }
        if (x) {
          try {
            core::check_stored_vectors(x, 1, dim, h.metric, "kept vector");
          } catch (const Error& e) {
            if (e.code() == ErrorCode::OutOfMemory) throw;
            corrupt("slot " + std::to_string(slot) + ": " + e.what());
          }
        }
        estimates.check(slot, c, off_buf[i], scale_buf[i], x);
      }
      std::sort(sorted.begin(), sorted.begin() + live);
      const auto dup = std::adjacent_find(sorted.begin(), sorted.begin() + live);
      if (dup != sorted.begin() + live) corrupt("id " + std::to_string(*dup) + " appears twice");
      if (v.refine != nullptr) {
        src.refine_rows(refine, index, n, done, id_buf.data(), code_rows, row_bytes, scale_buf.data(), *v.refine);
      }
      src.store(index, n, id_buf.data(), code_rows, off_buf.data(), scale_buf.data(), keep ? vec_buf.data() : nullptr,
                lists > 0 ? list_buf.data() : nullptr, refine, v.refine != nullptr);
      done += n;
    }
    if (dead != nfree) {
      corrupt(std::to_string(dead) + " slots are free but the header declares " + std::to_string(nfree));
    }
    // The free list must be exactly the free slots, each once.
    std::vector<uint32_t> free_list(static_cast<size_t>(nfree));
    free_list_section.u32s(free_list.data(), free_list.size());
    const uint64_t* slot_ids = QuantizedIndexAccess::view(index).slot_ids;
    slot_sections::check_free_list(
        free_list.data(), free_list.size(), slots, [&](uint32_t s) { return slot_ids[s] == kNoId; }, "free slot");
    QuantizedIndexAccess::set_free_slots(index, free_list.data(), free_list.size());
    QuantizedIndexAccess::pack_lists(index);
    if (const std::string fault = QuantizedIndexAccess::partition_fault(index); !fault.empty()) corrupt(fault);
    return index;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  } catch (const Error& e) {
    if (e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::UnsupportedIsa || e.code() == ErrorCode::Corrupt ||
        e.code() == ErrorCode::UnsupportedVersion) {
      throw;
    }
    throw Error(ErrorCode::Corrupt, std::string("index file: invalid contents: ") + e.what());
  }
}

}  // namespace quiver::io::quantized_file
