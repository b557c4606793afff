// QuantizedIndex <-> index file. Kind 2 (quantized). Header: metric, dim, count = live
// vectors, seed = rotation seed, and
//   params[0]  bits (2 or 4)
//   params[1]  keep_vectors (0 or 1)
//   params[2]  slots: slots in use (live + free), the high-water mark of the slot array
//   params[3]  free slots (slots - count)
//   params[4]  CRC-32C of the codebook (centroids then boundaries, f32 LE) for (dim, bits)
//   params[5]  CRC-32C of the rotation applied to a fixed probe vector, for (dim, seed)
//   params[6]  quantiser encoding version (1): what codes, offsets and scales mean
//   params[7]  0
// Sections (all required), one entry per slot in slot order unless said otherwise:
//   "SLOT"  slots x u64          caller id of the slot; 2^64 - 1 marks a free slot
//   "FREE"  free x u32           the free list (adds reuse slots from its back)
//   "CODE"  slots x ceil(s/2) u8 packed 4-bit codes per vector, s = sub-quantisers (dim at 4
//                                bits, ceil(dim/2) at 2 bits): byte j = code 2j | code 2j+1 << 4
//   "OFFS"  slots x f32          per-vector offset of the distance estimate
//   "SCAL"  slots x f32          per-vector scale of the distance estimate
//   "VECS"  slots x dim x f32    the kept f32 vectors (unit length under cosine); only when
//                                keep_vectors is 1
//   "RFIN"  the refine plane (refine_bits, its sub-codebook CRC, rows and scales); only for
//           an index with one (src/io/refine_section.hpp)
// Partitioned indexes (QuantizedIndexOptions::lists != 0) add three sections, all required, so
// a reader from before partitions rejects the file (UNSUPPORTED_VERSION) instead of loading a
// different index:
//   "PART"  4 x u64              lists option (2^64 - 1 = auto), lists now (1 before
//                                training), vectors at the last training (0 = never), 0
//   "CENT"  lists x dim x f32    the centroids, in the rotated space; absent before training
//   "LIST"  slots x u32          the list of each slot (0 for a free slot)
// and a trained partition under inner product one more, since issue 23 (files without it load,
// and rank their lists as before: -<q, c> alone):
//   "SPRD"  lists x f32          each list's spread term (quantized_coarse.hpp, ip_scores),
//                                measured at the last training; finite, >= 0
// Lists are rebuilt in slot order on load (the order inside a list never changes an answer).
// Section order: SLOT FREE [PART CENT LIST] CODE OFFS SCAL [VECS] [RFIN]. Readers find
// sections by tag, so the order changes no meaning, but it decides what a stream loader can
// decode as it arrives: with the partition before the codes (as written now), each slot's list is known when its codes come, and a streamed load places them straight
// into the lists (QuantizedDecoder). Older partitioned files store PART CENT LIST last; they
// load exactly as before (by the whole-file decoder, after the stream loader gathered them),
// and save in the new order. The container stays format 1.0: a reader of any 1.x version
// reads both orders.
// Free slots hold zeros everywhere, so the bytes depend only on the index's logical state.
// The rotation and the codebook are not stored: they are recomputed from (dim, bits, seed),
// which gives the same bits on every target; the two CRCs reject a file written by a build
// whose quantiser differs (UNSUPPORTED_VERSION). The codes are stored per vector, not in the
// 32-vector blocks the kernels scan, so the block layout is free to change.
//
// Loading checks every declared size against the bytes present before allocating, then
// decodes in bounded chunks straight into a new index, validating as it goes: ids unique and
// not 2^64 - 1, the free list exactly the free slots, code padding bits zero, every float
// finite, free slots all zero, kept vectors as add() would accept them (unit length under
// cosine, within the norm bound under l2/ip: core::check_stored_vectors), and each live
// slot's offset and scale what the encoder could have produced for its codes (EstimateCheck
// below). Any invalid content is Error(Corrupt).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/validate.hpp"
#include "index/quantized_state.hpp"
#include "io/crc32c.hpp"
#include "io/file.hpp"
#include "io/quantized_format.hpp"
#include "io/refine_section.hpp"
#include "io/section_producer.hpp"
#include "quiver/error.hpp"
#include "quiver/quantized_index.hpp"

namespace quiver {
namespace {

constexpr uint32_t kSlotTag = io::fourcc("SLOT");
constexpr uint32_t kFreeTag = io::fourcc("FREE");
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

[[noreturn]] void corrupt(const std::string& message) {
  throw Error(ErrorCode::Corrupt, "index file: " + message);
}

size_t subquantizers(size_t dim, unsigned bits) { return bits == 4 ? dim : (dim + 1) / 2; }

uint32_t crc_of_floats(const float* v, size_t n) {
  io::SectionWriter w(0, 0);
  w.f32s(v, n);  // little-endian bytes on any host
  return io::crc32c(w.data().data(), w.size());
}

uint32_t codebook_crc(const quant::Codebook& cb) {
  io::SectionWriter w(0, 0);
  w.f32s(cb.centroids.data(), cb.centroids.size());
  w.f32s(cb.boundaries.data(), cb.boundaries.size());
  return io::crc32c(w.data().data(), w.size());
}

// The rotation applied to a fixed probe vector (exactly representable values, none zero).
uint32_t rotation_crc(const quant::Rotation& rotation, size_t dim) {
  std::vector<float> in(dim), out(dim), scratch(dim);
  for (size_t i = 0; i < dim; ++i) in[i] = float(int(i % 13) - 6) * 0.125f + 0.0625f;
  rotation.apply(in.data(), out.data(), scratch.data());
  return crc_of_floats(out.data(), dim);
}

// The file of `index`; the caller holds QuantizedIndexAccess::read_lock() until the writer has
// written it: the per-slot sections are produced straight from the index's storage in 64 KiB
// pieces (io::per_slot_producer), so the peak of serialize() is the index and the file —
// not the index, a copy of every section and then the assembled file — and save() copies
// nothing.
io::Writer quantized_writer(const QuantizedIndex& index) {
  const QuantizedIndexAccess::View v = QuantizedIndexAccess::view(index);
  const size_t dim = index.dim();
  const size_t row_bytes = (v.subq + 1) / 2;
  const size_t slots = v.slots;
  const uint64_t* ids = v.slot_ids;
  io::Header h;
  h.kind = IndexKind::quantized;
  h.metric = index.metric();
  h.dim = dim;
  h.count = v.slots - v.free_count;
  h.seed = index.seed();
  h.params = {index.bits(), index.keeps_vectors() ? 1u : 0u, v.slots, v.free_count,
              codebook_crc(*v.codebook), rotation_crc(*v.rotation, dim), kEncodingVersion, 0};
  io::Writer w(h);
  const QuantizedIndex* ix = &index;
  try {
    w.add_section(kSlotTag).produce(uint64_t(slots) * 8, io::per_slot_producer(slots, 8, [ids](size_t s, uint8_t* out) {
      io::put_u64(out, ids[s]);
    }));
    auto& free = w.add_section(kFreeTag);
    free.u32s(v.free_slots, v.free_count);
    // The partition before the codes, so that a stream loader knows each slot's list when its
    // codes arrive (io::QuantizedDecoder places them as they come).
    const QuantizedIndexAccess::Partition part = QuantizedIndexAccess::partition(index);
    if (part.lists > 0) {
      auto& p = w.add_section(kPartTag);
      p.u64(part.lists_option == QuantizedIndexOptions::kAutoLists ? UINT64_MAX : uint64_t(part.lists_option));
      p.u64(part.lists);
      p.u64(part.trained_on);
      p.u64(0);
      if (!part.centroids.empty()) w.add_section(kCentTag).f32s(part.centroids.data(), part.centroids.size());
      if (!part.spreads.empty()) w.add_section(kSprdTag).f32s(part.spreads.data(), part.spreads.size());
      w.add_section(kListTag).produce(uint64_t(slots) * 4, io::per_slot_producer(slots, 4, [ix, ids](size_t s, uint8_t* out) {
        io::put_u32(out, ids[s] != kNoId ? QuantizedIndexAccess::list_of_slot(*ix, uint32_t(s)) : 0u);
      }));
    }
    w.add_section(kCodeTag).produce(uint64_t(slots) * row_bytes,
                                    io::per_slot_producer(slots, row_bytes, [ix, ids, row_bytes](size_t s, uint8_t* out) {
                                      if (ids[s] == kNoId) {
                                        std::memset(out, 0, row_bytes);
                                      } else {
                                        QuantizedIndexAccess::packed_codes(*ix, uint32_t(s), out);
                                      }
                                    }));
    for (const bool offsets : {true, false}) {
      w.add_section(offsets ? kOffsTag : kScalTag)
          .produce(uint64_t(slots) * 4, io::per_slot_producer(slots, 4, [ix, ids, offsets](size_t s, uint8_t* out) {
                     float off = 0.0f, sc = 0.0f;
                     if (ids[s] != kNoId) QuantizedIndexAccess::scalars(*ix, uint32_t(s), off, sc);
                     io::put_f32(out, offsets ? off : sc);
                   }));
    }
    if (index.keeps_vectors()) {  // even when empty: the loader requires VECS whenever the flag is set
      w.add_section(kVecsTag).produce(uint64_t(slots) * dim * 4,
                                      io::per_slot_producer(slots, dim * 4, [ix, ids, dim](size_t s, uint8_t* out) {
                                        if (ids[s] == kNoId) {
                                          std::memset(out, 0, dim * 4);
                                          return;
                                        }
                                        const float* x = QuantizedIndexAccess::vector(*ix, uint32_t(s));
                                        for (size_t i = 0; i < dim; ++i) io::put_f32(out + 4 * i, x[i]);
                                      }));
    }
    if (v.refine != nullptr) io::write_refine_section(w, index, v);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory serialising the index");
  }
  return w;
}

// Throws Corrupt unless the section holds exactly n records of `record` bytes. The header
// checks (slots < 2^32, dim <= 2^20) keep n * record far from overflowing 64 bits.
void expect_records(const io::SectionCursor& c, uint64_t n, uint64_t record, const char* what) {
  c.expect_size(n * record, what);
}

bool all_zero(const void* p, size_t bytes) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < bytes; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

// The invariants of one live slot's distance estimate, distance = (c0 + offset) + scale * score
// (src/index/quantized_encode.cpp): what an encoder could have produced for a vector the
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
    double recon2 = 0.0;  // |reconstruction|^2 from the codes
    bool zero_codes = true;
    for (size_t i = 0; i < dim_; ++i) {
      const unsigned code = bits_ == 4 ? unsigned(packed[i / 2] >> (i % 2 * 4)) & 15
                                       : unsigned(packed[i / 4] >> (i / 2 % 2 * 4 + i % 2 * 2)) & 3;
      recon2 += double(centroids_[code]) * centroids_[code];
      zero_codes = zero_codes && code == 0;
    }
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
  double max_inv_dot_ = 1.0;
};

}  // namespace

namespace io {

namespace {

bool present(const Head& head, uint32_t tag) {
  for (const auto& s : head.sections) {
    if (s.tag == tag) return true;
  }
  return false;
}

// The whole-file loader's view of the file: every section read from the bytes in memory.
class WholeFile {
 public:
  explicit WholeFile(const Reader& r) : r_(r) {}
  const Head& head() const { return r_.head(); }
  SectionCursor section(uint32_t tag) const { return r_.section(tag); }
  RefineSectionReader refine(uint64_t slots, uint64_t dim) const { return RefineSectionReader(r_, slots, dim); }
  QuantizedIndex make_index(const QuantizedIndexOptions& options, Isa isa) { return QuantizedIndex(options, isa); }
  void set_partition(QuantizedIndex& index, size_t lists, size_t trained_on, std::vector<float> centroids,
                     std::vector<float> spreads) {
    QuantizedIndexAccess::set_partition(index, lists, trained_on, std::move(centroids), std::move(spreads));
  }
  // The per-slot sections, once their sizes are checked.
  void open_rows(bool keep) {
    codes_ = r_.section(kCodeTag);
    offs_ = r_.section(kOffsTag);
    scal_ = r_.section(kScalTag);
    if (keep && present(r_.head(), kVecsTag)) vecs_ = r_.section(kVecsTag);
  }
  // The next n slots' packed codes (returned), offsets, scales and kept vectors.
  const uint8_t* rows(const QuantizedIndex&, size_t n, uint64_t, size_t row_bytes, float* off, float* scale, float* vec,
                      size_t dim) {
    const uint8_t* code_rows = codes_.bytes(n * row_bytes);
    offs_.f32s(off, n);
    scal_.f32s(scale, n);
    if (vec != nullptr) vecs_.f32s(vec, n * dim);
    return code_rows;
  }
  void refine_rows(RefineSectionReader& refine, const QuantizedIndex&, size_t n, uint64_t first, const uint64_t* ids,
                   const uint8_t* code_rows, size_t row_bytes, const float* scales, const quant::RefineCodec& codec) {
    refine.read(n, first, ids, code_rows, row_bytes, scales, codec);
  }
  void store(QuantizedIndex& index, size_t n, const uint64_t* ids, const uint8_t* code_rows, const float* off,
             const float* scale, const float* vec, const uint32_t* lists, const RefineSectionReader& refine, bool refined) {
    QuantizedIndexAccess::append_slots(index, n, ids, code_rows, off, scale, vec, lists,
                                       refined ? refine.rows() : nullptr, refined ? refine.scales() : nullptr);
  }

 private:
  const Reader& r_;
  SectionCursor codes_{kCodeTag, nullptr, 0}, offs_{kOffsTag, nullptr, 0}, scal_{kScalTag, nullptr, 0},
      vecs_{kVecsTag, nullptr, 0};
};

// Every check of a quantised file, in one order for both loaders, so a damaged file gives the
// same first fault whether it was read whole or streamed: the head's parameters, the declared
// sizes, the partition, the quantiser's CRCs, then slot by slot (in chunks) the rows, then the
// free list. `src` is WholeFile or the stream's QuantizedDecoder::Source.
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
    throw Error(ErrorCode::UnsupportedVersion,
                "index file: quantiser encoding version " + std::to_string(h.params[6]) +
                    " is not supported; this reader reads version " + std::to_string(kEncodingVersion));
  }
  if (bits != 2 && bits != 4) corrupt("impossible bit width " + std::to_string(bits) + " (expected 2 or 4)");
  if (keep > 1) corrupt("impossible keep_vectors flag " + std::to_string(keep) + " (expected 0 or 1)");
  if (h.params[4] > UINT32_MAX || h.params[5] > UINT32_MAX || h.params[7] != 0) {
    corrupt("impossible quantiser parameters in the header");
  }
  if (h.dim > (1u << 20)) corrupt("impossible dimension " + std::to_string(h.dim) + " for a quantized index (at most 1048576)");
  if (slots > UINT32_MAX) corrupt("impossible slot count " + std::to_string(slots) + " (at most 4294967295)");
  if (nfree > slots || h.count != slots - nfree) {
    corrupt("the header's counts disagree: " + std::to_string(slots) + " slots, " + std::to_string(nfree) +
            " free, " + std::to_string(h.count) + " vectors");
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
  expect_records(ids, slots, 8, "slots x 8-byte ids");
  expect_records(free_list_section, nfree, 4, "free x 4-byte slot numbers");
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
    if (lists == 0 || lists > kMaxLists || pv[3] != 0 || trained_on > UINT32_MAX ||
        (trained_on == 0 && lists != 1) || (lists_option != UINT64_MAX && trained_on > 0 && lists != lists_option)) {
      corrupt("impossible partition parameters (" + std::to_string(lists) + " lists, trained on " +
              std::to_string(trained_on) + ")");
    }
    if ((trained_on > 0) != present(head, kCentTag)) {
      corrupt(trained_on > 0 ? "section CENT is missing for a trained partition" : "section CENT is present before training");
    }
    if (trained_on > 0) {
      cent_section = src.section(kCentTag);
      expect_records(cent_section, lists, uint64_t(dim) * 4, "lists x dim x 4-byte centroids");
    }
    if (present(head, kSprdTag)) {
      if (trained_on == 0 || h.metric != Metric::ip) corrupt("section SPRD is present without a trained inner-product partition");
      sprd_section = src.section(kSprdTag);
      expect_records(sprd_section, lists, 4, "lists x 4-byte spread terms");
    }
    list_section = src.section(kListTag);
    expect_records(list_section, slots, 4, "slots x 4-byte list numbers");
  } else if (present(head, kCentTag) || present(head, kListTag) || present(head, kSprdTag)) {
    corrupt("sections CENT, LIST or SPRD are present without PART");
  }

  RefineSectionReader refine = src.refine(slots, dim);
  const QuantizedIndexOptions options{dim, h.metric, unsigned(bits), h.seed, keep == 1, refine.bits(),
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
        if (!std::isfinite(spreads[l]) || spreads[l] < 0.0f) corrupt("spread term of list " + std::to_string(l) + " is impossible");
      }
      src.set_partition(index, size_t(lists), size_t(trained_on), std::move(centroids), std::move(spreads));
    }
    QuantizedIndexAccess::reserve(index, size_t(slots), size_t(nfree));
    // Slots per chunk of checks: ~256 KiB of rows, what a load needs beside the index. Both
    // loaders use this (the first fault found can depend on the chunking).
    const size_t chunk = size_t(std::max<uint64_t>(1, std::min<uint64_t>(4096, (uint64_t(1) << 18) / (dim * 4 + row_bytes + 16))));
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
          if (!all_zero(c, row_bytes) || off_buf[i] != 0.0f || scale_buf[i] != 0.0f ||
              std::signbit(off_buf[i]) || std::signbit(scale_buf[i]) || (x && !all_zero(x, dim * 4))) {
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
    std::vector<bool> seen(static_cast<size_t>(slots), false);
    const uint64_t* slot_ids = QuantizedIndexAccess::view(index).slot_ids;
    for (uint32_t s : free_list) {
      if (s >= slots || slot_ids[s] != kNoId || seen[s]) {
        corrupt("the free list names slot " + std::to_string(s) + ", which is not a distinct free slot");
      }
      seen[s] = true;
    }
    QuantizedIndexAccess::set_free_slots(index, free_list.data(), free_list.size());
    if (const std::string fault = QuantizedIndexAccess::partition_fault(index); !fault.empty()) corrupt(fault);
    return index;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  } catch (const Error& e) {
    if (e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::UnsupportedIsa ||
        e.code() == ErrorCode::Corrupt || e.code() == ErrorCode::UnsupportedVersion) {
      throw;
    }
    throw Error(ErrorCode::Corrupt, std::string("index file: invalid contents: ") + e.what());
  }
}

}  // namespace

QuantizedIndex load_quantized(const Reader& r, Isa isa) {
  WholeFile src(r);
  return decode_quantized(src, isa);
}


namespace {
uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
float le_f32(const uint8_t* p) {
  const uint32_t bits = le32(p);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
const SectionEntry* entry_of(const Head& head, uint32_t tag) {
  for (const auto& s : head.sections) {
    if (s.tag == tag) return &s;
  }
  return nullptr;
}
// Whether a partitioned file can be placed into its lists as it streams: the ids and the
// partition (PART, LIST) arrive before the codes, and the codes before their scalars.
bool partition_precedes_codes(const Head& head) {
  const SectionEntry *ids = entry_of(head, kSlotTag), *part = entry_of(head, kPartTag), *list = entry_of(head, kListTag),
                     *codes = entry_of(head, kCodeTag), *offs = entry_of(head, kOffsTag), *scal = entry_of(head, kScalTag);
  if (!ids || !part || !list || !codes || !offs || !scal) return false;
  // The table check put the sections in offset order without overlaps, within the file.
  const auto ends_before = [](const SectionEntry* a, const SectionEntry* b) { return a->offset + a->size <= b->offset; };
  return ends_before(ids, codes) && ends_before(part, codes) && ends_before(list, codes) && ends_before(codes, offs) &&
         ends_before(codes, scal);
}
}  // namespace

// load_quantized's view of a streamed file: the small sections as kept, the per-slot rows read
// back from the index they were decoded into.
class QuantizedDecoder::Source {
 public:
  explicit Source(QuantizedDecoder& d) : d_(d) {}
  const Head& head() const { return d_.head_; }
  SectionCursor section(uint32_t tag) const {
    required_section(d_.head_, tag);  // the whole-file loader's message for a missing one
    const std::vector<uint8_t>* held = tag == kSlotTag   ? &d_.ids_
                                       : tag == kFreeTag ? &d_.free_
                                       : tag == kPartTag ? &d_.part_
                                       : tag == kCentTag ? &d_.cent_
                                       : tag == kListTag ? &d_.list_
                                       : tag == kSprdTag ? &d_.sprd_
                                                         : nullptr;
    if (held == nullptr) throw Error(ErrorCode::Internal, "quantised stream decoder: section not kept");
    return SectionCursor(tag, held->data(), held->size());
  }
  RefineSectionReader refine(uint64_t slots, uint64_t dim) const {
    const SectionEntry* e = entry_of(d_.head_, kRefineTag);
    if (e == nullptr) return RefineSectionReader();  // no refine plane
    const std::vector<uint8_t>& h = d_.refine_head_;  // open() made sure the section has 8 bytes
    return RefineSectionReader(le32(h.data()), le32(h.data() + 4), e->size - 8, slots, dim);
  }
  QuantizedIndex make_index(const QuantizedIndexOptions&, Isa) { return std::move(d_.index_); }
  void set_partition(QuantizedIndex& index, size_t lists, size_t trained_on, std::vector<float> centroids,
                     std::vector<float> spreads) {
    // (the lists are filled)
    QuantizedIndexAccess::set_centroids(index, lists, trained_on, std::move(centroids), std::move(spreads));
  }
  void open_rows(bool) {}
  const uint8_t* rows(const QuantizedIndex& index, size_t n, uint64_t first, size_t row_bytes, float* off, float* scale,
                      float* vec, size_t dim) {
    codes_.resize(n * row_bytes);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t slot = uint32_t(first + i);
      uint8_t* c = codes_.data() + i * row_bytes;
      if (!d_.partitioned_ || d_.placed(slot)) {
        QuantizedIndexAccess::packed_codes(index, slot, c);
        QuantizedIndexAccess::scalars(index, slot, off[i], scale[i]);
      } else {
        // A slot with no place in the lists: a free slot (zeros, or a marker that it held
        // something, which the checks reject as the stored bytes would be), or a live slot in
        // a list that does not exist (rejected by the list check before its rows are looked at).
        std::memset(c, 0, row_bytes);
        off[i] = slot == d_.dirty_free_slot_ ? 1.0f : 0.0f;
        scale[i] = 0.0f;
      }
      if (slot == d_.padding_slot_) c[row_bytes - 1] |= uint8_t(d_.padding_nibble_ << 4);
      if (vec != nullptr) std::memcpy(vec + i * dim, QuantizedIndexAccess::vector(index, slot), dim * 4);
    }
    return codes_.data();
  }
  void refine_rows(RefineSectionReader& refine, const QuantizedIndex& index, size_t n, uint64_t first, const uint64_t* ids,
                   const uint8_t* code_rows, size_t row_bytes, const float* scales, const quant::RefineCodec& codec) {
    const size_t rb = refine.row_bytes();
    refine_.resize(n * rb);
    refine_scales_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t slot = uint32_t(first + i);
      std::memcpy(refine_.data() + i * rb, QuantizedIndexAccess::refine_row(index, slot), rb);
      refine_scales_[i] = QuantizedIndexAccess::refine_scale(index, slot);
    }
    refine.check(n, first, ids, code_rows, row_bytes, scales, codec, refine_.data(), refine_scales_.data());
  }
  void store(QuantizedIndex& index, size_t n, const uint64_t* ids, const uint8_t*, const float*, const float*, const float*,
             const uint32_t*, const RefineSectionReader&, bool) {
    QuantizedIndexAccess::commit_slots(index, n, ids);  // the rows are in place already
  }

 private:
  QuantizedDecoder& d_;
  std::vector<uint8_t> codes_, refine_;
  std::vector<float> refine_scales_;
};

std::unique_ptr<QuantizedDecoder> QuantizedDecoder::open(const Head& head, Isa isa, bool length_known) {
  const Header& h = head.header;
  if (h.kind != IndexKind::quantized) return nullptr;
  const bool partitioned = present(head, kPartTag);
  if (partitioned ? !partition_precedes_codes(head) : present(head, kCentTag) || present(head, kListTag) || present(head, kSprdTag)) {
    return nullptr;
  }
  const uint64_t bits = h.params[0], keep = h.params[1], slots = h.params[2], nfree = h.params[3];
  if ((bits != 2 && bits != 4) || keep > 1 || h.params[6] != kEncodingVersion || h.params[4] > UINT32_MAX ||
      h.params[5] > UINT32_MAX || h.params[7] != 0 || h.dim == 0 || h.dim > (1u << 20) || slots > UINT32_MAX ||
      nfree > slots || h.count != slots - nfree) {
    return nullptr;
  }
  try {
    require_known_sections(head, {kSlotTag, kFreeTag, kCodeTag, kOffsTag, kScalTag, kVecsTag, io::kRefineTag, kPartTag,
                                  kCentTag, kListTag, kSprdTag});
  } catch (const Error&) {
    return nullptr;
  }
  // The refine plane's bit width is in its section, which comes after the codes: read it from
  // the section's size (each bit width gives another size), and let finish() check the
  // declared one against it.
  unsigned refine_bits = 0;
  size_t refine_row_bytes = 0;
  if (const SectionEntry* e = entry_of(head, io::kRefineTag)) {
    const uint64_t per_bits = (h.dim + 7) / 8;
    if (slots == 0 || e->size < 8 || (e->size - 8) % slots != 0) return nullptr;
    const uint64_t record = (e->size - 8) / slots;
    if (record < 4 || (record - 4) % per_bits != 0) return nullptr;
    const uint64_t rb = (record - 4) / per_bits;
    if (rb < 1 || rb > quant::kMaxRefineBits) return nullptr;
    refine_bits = unsigned(rb);
    refine_row_bytes = size_t(record - 4);
  }
  // Partitioned: the lists option comes with PART (begin_lists); until then, any non-zero one.
  const QuantizedIndexOptions options{size_t(h.dim), h.metric, unsigned(bits), h.seed, keep == 1, refine_bits,
                                      partitioned ? QuantizedIndexOptions::kAutoLists : 0};
  std::optional<QuantizedIndex> index;
  try {
    index.emplace(options, isa);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::OutOfMemory) throw;
    return nullptr;  // load_quantized says what is wrong
  }
  return std::unique_ptr<QuantizedDecoder>(
      new QuantizedDecoder(head, std::move(*index), isa, refine_row_bytes, partitioned, length_known));
}

QuantizedDecoder::QuantizedDecoder(const Head& head, QuantizedIndex index, Isa isa, size_t refine_row_bytes,
                                   bool partitioned, bool length_known)
    : head_(head),
      index_(std::move(index)),
      isa_(isa),
      refine_row_bytes_(refine_row_bytes),
      partitioned_(partitioned),
      length_known_(length_known) {
  const Header& h = head.header;
  dim_ = size_t(h.dim);
  subq_ = subquantizers(dim_, unsigned(h.params[0]));
  row_bytes_ = (subq_ + 1) / 2;
  slots_ = h.params[2];
  scratch_.resize(subq_);
}

bool QuantizedDecoder::is_free(uint64_t slot) const noexcept {
  if (ids_.size() / 8 <= slot) return false;
  const uint8_t* p = ids_.data() + slot * 8;
  return (uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32) == kNoId;
}

uint32_t QuantizedDecoder::list_of(uint64_t slot) const noexcept {
  return list_.size() / 4 > slot ? le32(list_.data() + slot * 4) : UINT32_MAX;
}

bool QuantizedDecoder::placed(uint64_t slot) const noexcept {
  return lists_ > 0 && ids_.size() / 8 > slot && !is_free(slot) && list_of(slot) < lists_;
}

// PART's four values, once all of them are here and only if load_quantized would accept them
// (else finish() rejects PART before it looks at a row, and no list is begun).
void QuantizedDecoder::on_part() {
  const SectionEntry* e = entry_of(head_, kPartTag);
  if (e == nullptr || e->size != 32 || part_.size() != 32) return;
  uint64_t pv[2];
  for (int i = 0; i < 2; ++i) pv[i] = uint64_t(le32(part_.data() + 8 * i)) | uint64_t(le32(part_.data() + 8 * i + 4)) << 32;
  const bool option_ok = pv[0] != 0 && (pv[0] == UINT64_MAX || pv[0] <= kMaxLists);
  if (!option_ok || pv[1] == 0 || pv[1] > kMaxLists) return;
  QuantizedIndexAccess::begin_lists(index_, pv[0] == UINT64_MAX ? QuantizedIndexOptions::kAutoLists : size_t(pv[0]),
                                    size_t(pv[1]));
  lists_ = size_t(pv[1]);
}

void QuantizedDecoder::note_dirty_free(uint64_t slot, const uint8_t* bytes, size_t n) noexcept {
  if (slot >= dirty_free_slot_) return;
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] != 0) {
      dirty_free_slot_ = slot;
      return;
    }
  }
}

template <class Put>
void QuantizedDecoder::feed_records(uint64_t& in, size_t skip, size_t record, const uint8_t* data, size_t n, Put put) {
  while (n > 0) {
    if (in < skip) {
      const size_t take = size_t(std::min<uint64_t>(n, skip - in));
      refine_head_.insert(refine_head_.end(), data, data + take);
      in += take, data += take, n -= take;
      continue;
    }
    const uint64_t slot = (in - skip) / record;
    if (slot >= slots_) {  // more than the header declares: finish() rejects the size
      in += n;
      return;
    }
    const size_t at = size_t((in - skip) % record);
    if (at == 0 && n >= record) {
      QuantizedIndexAccess::reserve_rows(index_, size_t(slot) + 1);
      put(uint32_t(slot), data);
      in += record, data += record, n -= record;
      continue;
    }
    const size_t take = std::min(n, record - at);
    pending_.insert(pending_.end(), data, data + take);
    in += take, data += take, n -= take;
    if (pending_.size() == record) {
      QuantizedIndexAccess::reserve_rows(index_, size_t(slot) + 1);
      put(uint32_t(slot), pending_.data());
      pending_.clear();
    }
  }
}

void QuantizedDecoder::feed(uint32_t tag, const uint8_t* data, size_t n) {
  if (tag != pending_tag_) {
    pending_.clear();
    pending_tag_ = tag;
  }
  QuantizedIndex& ix = index_;
  try {
    // The small sections are kept whole. With the stream's length known (or expected) to be
    // the head's, room for all of one at its first bytes, so it is not copied as it grows;
    // otherwise a head may declare any size: the room starts at 1 MiB at most and grows with
    // the bytes that really arrive.
    const auto keep = [&](std::vector<uint8_t>& held) {
      if (held.empty()) {
        if (const SectionEntry* e = entry_of(head_, tag)) {
          held.reserve(size_t(std::min<uint64_t>(e->size, length_known_ ? SIZE_MAX : uint64_t(1) << 20)));
        }
      }
      held.insert(held.end(), data, data + n);
    };
    switch (tag) {
      case kSlotTag: keep(ids_); break;
      case kFreeTag: keep(free_); break;
      case kPartTag:
        keep(part_);
        if (partitioned_) on_part();
        break;
      case kCentTag: keep(cent_); break;
      case kSprdTag: keep(sprd_); break;
      case kListTag: keep(list_); break;
      case kCodeTag:
        feed_records(codes_in_, 0, row_bytes_, data, n, [&](uint32_t slot, const uint8_t* row) {
          if (!partitioned_) {
            QuantizedIndexAccess::put_codes(ix, slot, row, scratch_.data());
          } else if (placed(slot)) {
            QuantizedIndexAccess::place_codes(ix, slot, list_of(slot), row, scratch_.data());
          } else if (is_free(slot)) {
            note_dirty_free(slot, row, row_bytes_);
          }
          if (subq_ % 2 == 1 && (row[row_bytes_ - 1] >> 4) != 0 && slot < padding_slot_) {
            padding_slot_ = slot;
            padding_nibble_ = uint8_t(row[row_bytes_ - 1] >> 4);
          }
        });
        break;
      case kOffsTag:
        feed_records(offs_in_, 0, 4, data, n, [&](uint32_t slot, const uint8_t* p) {
          if (!partitioned_ || placed(slot)) {
            QuantizedIndexAccess::put_offset(ix, slot, le_f32(p));
          } else if (is_free(slot)) {
            note_dirty_free(slot, p, 4);
          }
        });
        break;
      case kScalTag:
        feed_records(scales_in_, 0, 4, data, n, [&](uint32_t slot, const uint8_t* p) {
          if (!partitioned_ || placed(slot)) {
            QuantizedIndexAccess::put_scale(ix, slot, le_f32(p));
          } else if (is_free(slot)) {
            note_dirty_free(slot, p, 4);
          }
        });
        break;
      case kVecsTag:
        if (!index_.keeps_vectors()) break;  // finish() rejects VECS without keep_vectors
        feed_records(vectors_in_, 0, dim_ * 4, data, n, [&](uint32_t slot, const uint8_t* p) {
          float* row = QuantizedIndexAccess::vector_row(ix, slot);
          for (size_t i = 0; i < dim_; ++i) row[i] = le_f32(p + 4 * i);
        });
        break;
      case io::kRefineTag:
        feed_records(refine_in_, 8, refine_row_bytes_ + 4, data, n, [&](uint32_t slot, const uint8_t* p) {
          QuantizedIndexAccess::put_refine(ix, slot, p, le_f32(p + refine_row_bytes_));
        });
        break;
      default: break;  // sections this reader does not know are not read
    }
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  }
}

QuantizedIndex QuantizedDecoder::finish() {
  Source src(*this);
  return decode_quantized(src, isa_);
}

}  // namespace io

std::vector<uint8_t> QuantizedIndex::serialize() const {
  const core::ReadLock lock = QuantizedIndexAccess::read_lock(*this);  // writers wait, searches go on
  return quantized_writer(*this).to_bytes();
}

void QuantizedIndex::save(const std::string& path) const {
  const core::ReadLock lock = QuantizedIndexAccess::read_lock(*this);
  quantized_writer(*this).write_file(path);
}

QuantizedIndex QuantizedIndex::load(const uint8_t* data, size_t size, Isa isa) {
  return io::load_quantized(io::Reader(data, size), isa);
}

QuantizedIndex QuantizedIndex::load(const uint8_t* data, size_t size) { return load(data, size, active_isa()); }

QuantizedIndex QuantizedIndex::load(const std::vector<uint8_t>& bytes) { return load(bytes.data(), bytes.size()); }

QuantizedIndex QuantizedIndex::load_file(const std::string& path) {
  io::MappedFile file(path);
  return load(file.data(), file.size());
}

}  // namespace quiver
