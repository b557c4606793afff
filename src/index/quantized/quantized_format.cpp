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
//           an index with one (src/index/quantized/refine/refine_section.hpp)
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
// decode as it arrives: with the partition before the codes (as written now), each slot's list is known when its codes
// come, and a streamed load places them straight into the lists (QuantizedDecoder). Older partitioned files store PART
// CENT LIST last; they load exactly as before (by the whole-file decoder, after the stream loader gathered them), and
// save in the new order. The container stays format 1.0: a reader of any 1.x version reads both orders. Free slots hold
// zeros everywhere, so the bytes depend only on the index's logical state. The rotation and the codebook are not
// stored: they are recomputed from (dim, bits, seed), which gives the same bits on every target; the two CRCs reject a
// file written by a build whose quantiser differs (UNSUPPORTED_VERSION). The codes are stored per vector, not in the
// 32-vector blocks the kernels scan, so the block layout is free to change.
//
// Loading checks every declared size against the bytes present before allocating, then
// decodes in bounded chunks straight into a new index, validating as it goes: ids unique and
// not 2^64 - 1, the free list exactly the free slots, code padding bits zero, every float
// finite, free slots all zero, kept vectors as add() would accept them (unit length under
// cosine, within the norm bound under l2/ip: core::check_stored_vectors), and each live
// slot's offset and scale what the encoder could have produced for its codes (EstimateCheck
// below). Any invalid content is Error(Corrupt).
#include "index/common/index_shell.hpp"
#include "index/quantized/quantized_decode.hpp"

namespace quiver {
namespace {

using namespace io::quantized_file;

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
  h.params = {index.bits(),
              index.keeps_vectors() ? 1u : 0u,
              v.slots,
              v.free_count,
              codebook_crc(*v.codebook),
              rotation_crc(*v.rotation, dim),
              kEncodingVersion,
              0};
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
      w.add_section(kListTag).produce(
          uint64_t(slots) * 4, io::per_slot_producer(slots, 4, [ix, ids](size_t s, uint8_t* out) {
            io::put_u32(out, ids[s] != kNoId ? QuantizedIndexAccess::list_of_slot(*ix, uint32_t(s)) : 0u);
          }));
    }
    w.add_section(kCodeTag).produce(
        uint64_t(slots) * row_bytes,
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

}  // namespace

namespace io {

using namespace quantized_file;

const QuantizedFileDecoder::Payload* QuantizedFileDecoder::payload(uint32_t tag) const noexcept {
  for (const Payload& p : payloads_) {
    if (p.tag == tag) return &p;
  }
  return nullptr;
}

void QuantizedFileDecoder::feed(uint32_t tag, const uint8_t* data, size_t n) {
  try {
    for (Payload& p : payloads_) {
      if (p.tag != tag) continue;
      if (p.copy.empty()) p.copy.assign(p.data, p.data + p.size);  // a second piece: copy the first
      p.copy.insert(p.copy.end(), data, data + n);
      p.data = p.copy.data();
      p.size = p.copy.size();
      return;
    }
    payloads_.push_back(Payload{tag, data, n, {}});
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  }
}

// decode_quantized's view of a file in memory: every section read straight from its payload.
class QuantizedFileDecoder::Source {
 public:
  explicit Source(const QuantizedFileDecoder& d) : d_(d) {}
  const Head& head() const { return d_.head_; }
  SectionCursor section(uint32_t tag) const {
    required_section(d_.head_, tag);  // the message for a missing one
    const Payload* p = d_.payload(tag);
    if (p == nullptr) throw Error(ErrorCode::Internal, "quantised file decoder: section " + tag_name(tag) + " not fed");
    return SectionCursor(tag, p->data, p->size);
  }
  RefineSectionReader refine(uint64_t slots, uint64_t dim) const {
    if (find_section(d_.head_, io::kRefineTag) == nullptr) return RefineSectionReader();  // no refine plane
    return RefineSectionReader(section(io::kRefineTag), slots, dim);
  }
  QuantizedIndex make_index(const QuantizedIndexOptions& options, Isa isa) { return QuantizedIndex(options, isa); }
  void set_partition(QuantizedIndex& index, size_t lists, size_t trained_on, std::vector<float> centroids,
                     std::vector<float> spreads) {
    QuantizedIndexAccess::set_partition(index, lists, trained_on, std::move(centroids), std::move(spreads));
  }
  // The per-slot sections, once their sizes are checked.
  void open_rows(bool keep) {
    codes_ = section(kCodeTag);
    offs_ = section(kOffsTag);
    scal_ = section(kScalTag);
    if (keep && present(d_.head_, kVecsTag)) vecs_ = section(kVecsTag);
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
             const float* scale, const float* vec, const uint32_t* lists, const RefineSectionReader& refine,
             bool refined) {
    QuantizedIndexAccess::append_slots(index, n, ids, code_rows, off, scale, vec, lists,
                                       refined ? refine.rows() : nullptr, refined ? refine.scales() : nullptr);
  }

 private:
  const QuantizedFileDecoder& d_;
  SectionCursor codes_{kCodeTag, nullptr, 0}, offs_{kOffsTag, nullptr, 0}, scal_{kScalTag, nullptr, 0},
      vecs_{kVecsTag, nullptr, 0};
};

QuantizedIndex QuantizedFileDecoder::finish() {
  Source src(*this);
  return decode_quantized(src, isa_);
}

QuantizedIndex load_quantized(const Reader& r, Isa isa) {
  QuantizedFileDecoder decoder(r.head(), isa);
  feed_sections(r, decoder);
  return decoder.finish();
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

QUIVER_INDEX_LOAD_OVERLOADS(QuantizedIndex, io::load_quantized);

}  // namespace quiver
