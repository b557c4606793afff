// The stream decoder of quantised index files (QuantizedDecoder, quantized_format.hpp): the
// payloads go straight into the index as they arrive; finish() runs decode_quantized()
// (quantized_decode.hpp) over what arrived, as the whole-file loader does.
#include "base/little_endian.hpp"
#include "index/quantized/quantized_decode.hpp"

namespace quiver::io {

using namespace quantized_file;

namespace {
constexpr auto le32 = le::u32;
constexpr auto le_f32 = le::f32;
// Whether a partitioned file can be placed into its lists as it streams: the ids and the
// partition (PART, LIST) arrive before the codes, and the codes before their scalars.
bool partition_precedes_codes(const Head& head) {
  const SectionEntry *ids = find_section(head, kSlotTag), *part = find_section(head, kPartTag),
                     *list = find_section(head, kListTag), *codes = find_section(head, kCodeTag),
                     *offs = find_section(head, kOffsTag), *scal = find_section(head, kScalTag);
  if (!ids || !part || !list || !codes || !offs || !scal) return false;
  // The table check put the sections in offset order without overlaps, within the file.
  const auto ends_before = [](const SectionEntry* a, const SectionEntry* b) {
    return a->offset + a->size <= b->offset;
  };
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
    const SectionEntry* e = find_section(d_.head_, kRefineTag);
    if (e == nullptr) return RefineSectionReader();   // no refine plane
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
  void refine_rows(RefineSectionReader& refine, const QuantizedIndex& index, size_t n, uint64_t first,
                   const uint64_t* ids, const uint8_t* code_rows, size_t row_bytes, const float* scales,
                   const quant::RefineCodec& codec) {
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
  void store(QuantizedIndex& index, size_t n, const uint64_t* ids, const uint8_t*, const float*, const float*,
             const float*, const uint32_t*, const RefineSectionReader&, bool) {
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
  if (partitioned ? !partition_precedes_codes(head)
                  : present(head, kCentTag) || present(head, kListTag) || present(head, kSprdTag)) {
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
  if (const SectionEntry* e = find_section(head, io::kRefineTag)) {
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
  const QuantizedIndexOptions options{size_t(h.dim),
                                      h.metric,
                                      unsigned(bits),
                                      h.seed,
                                      keep == 1,
                                      refine_bits,
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
  const SectionEntry* e = find_section(head_, kPartTag);
  if (e == nullptr || e->size != 32 || part_.size() != 32) return;
  uint64_t pv[2];
  for (int i = 0; i < 2; ++i)
    pv[i] = uint64_t(le32(part_.data() + 8 * i)) | uint64_t(le32(part_.data() + 8 * i + 4)) << 32;
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
  // Room for every slot this piece reaches, once a piece (put() then only writes rows, and
  // allocates nothing).
  if (in + n > skip) {
    const uint64_t reached = std::min<uint64_t>(slots_, (in + n - skip + record - 1) / record);
    if (reached > 0) QuantizedIndexAccess::reserve_rows(index_, size_t(reached));
  }
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
      put(uint32_t(slot), data);
      in += record, data += record, n -= record;
      continue;
    }
    const size_t take = std::min(n, record - at);
    pending_.insert(pending_.end(), data, data + take);
    in += take, data += take, n -= take;
    if (pending_.size() == record) {
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
        if (const SectionEntry* e = find_section(head_, tag)) {
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
            QuantizedIndexAccess::put_codes(ix, slot, row);
          } else if (placed(slot)) {
            QuantizedIndexAccess::place_codes(ix, slot, list_of(slot), row);
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

}  // namespace quiver::io
