// HnswIndex <-> index file. Kind 3 (hnsw). Header: metric, dim, count = live vectors,
// seed = level seed, and
//   params[0]  M (2..128): links per node on upper levels, 2M on level 0
//   params[1]  ef_construction (M..1048576)
//   params[2]  ef_search (1..1048576), the default beam width
//   params[3]  storage: 0 f32, 1 sq8
//   params[4]  keep_vectors: 0 or 1 (always 1 for f32 storage, which holds its vectors)
//   params[5]  slots in use (live + tombstones), the high-water mark of the node array
//   params[6]  entry point: (level << 32) | slot, or 2^64 - 1 when slots is 0
//   params[7]  levels drawn so far (>= slots): where the level generator goes on
// Sections (all required), one record per slot in slot order unless said otherwise:
//   "SLOT"  slots x u64               caller id; 2^64 - 1 marks a tombstone
//   "FREE"  (slots - count) x u32     the tombstones, in the order adds reuse them (from the back)
//   "LEVL"  slots x u8                level of the node (0..31)
//   "LNK0"  slots x (1 + 2M) x u32    level-0 link list: count, then the links, zeros past count
//   "UPPR"  sum(levels) x (1 + M) x u32   upper link lists, slot order, level 1 upwards
//   "SQ8S"  sq8 only: slots x f32        each node's code scale (src/index/hnsw/hnsw_sq8.hpp: the
//                                     rotated vector is ~ scale x (code - 128))
//   "CODE"  sq8 only: slots x dim x u8   the codes of the rotated vectors (the code sums the
//                                     distances use are recomputed)
//   "VECS"  slots x dim x f32         stored vectors (unit length under cosine), tombstones
//                                     included: the graph still walks through them; under
//                                     sq8 only with keep_vectors
//   "NBRC"  sq8 only, present iff neighbor_codes is on: u32 1 (the scheme of
//           src/index/hnsw/hnsw_nbr_codes.hpp). The codes themselves are derived from the links and
//           the sq8 codes, so they are recomputed on load and never stored. A file without it
//           (every file written before the option) loads with the option off; a reader before
//           it refuses a file with it (an unknown required section is UNSUPPORTED_VERSION).
// The stride padding, the locks and the words past a list's count are not stored, so the
// bytes depend only on the logical state of the index.
//
// Older sq8 files (written before the rotated per-vector codes) hold "SQ8Q" — u32 trained,
// f32 scale s, dim x f32 minimums m: x_d ~ m_d + s code_d — instead of "SQ8S". A reader
// before SQ8S refuses a new file (an unknown required section is UNSUPPORTED_VERSION). This
// reader transcodes an old file on load: every node is coded afresh in the current scheme,
// from its kept f32 vector when the file has them, else from its old codes decoded with the
// old parameters. The graph is kept as it is; the codes-only distances (and so the answers
// without kept vectors) may differ slightly from what the old index returned, and the index
// is saved in the current format.
//
// Loading (io::HnswDecoder, the same code for a file in memory and for a stream) checks the
// header parameters and every declared size it can against the section sizes before it
// allocates anything. The level-0 links, codes and vectors are then copied straight into the
// node storage as they arrive (it grows with the bytes actually present, never with a declared
// count); the small sections are kept aside. Once all bytes are in, it checks every level
// (<= 31, the entry on its own level), every link count (<= cap) and target (< slots) with zero
// padding, the free list (exactly the tombstones, each once), then completes the index slot by
// slot, checking ids (unique, not 2^64 - 1), floats (finite, within the norm bound; unit length
// under cosine) and every sq8 scale against its codes (finite, not negative, zero exactly for
// the zero vector's codes, codes that span it, under cosine the one the codes imply). Any
// violation is Error(Corrupt), and the first one is the one the checks meet in this order,
// whatever order the sections come in.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "base/little_endian.hpp"
#include "base/validate.hpp"
#include "index/hnsw/hnsw_state.hpp"
#include "container/file.hpp"
#include "index/common/index_shell.hpp"
#include "index/common/slot_sections.hpp"
#include "index/hnsw/hnsw_format.hpp"
#include "quiver/error.hpp"
#include "quiver/hnsw_index.hpp"

namespace quiver {
namespace {

using io::slot_sections::kFreeTag;
using io::slot_sections::kSlotTag;
constexpr uint32_t kLevlTag = io::fourcc("LEVL");
constexpr uint32_t kLnk0Tag = io::fourcc("LNK0");
constexpr uint32_t kUpprTag = io::fourcc("UPPR");
constexpr uint32_t kVecsTag = io::fourcc("VECS");
constexpr uint32_t kSq8qTag = io::fourcc("SQ8Q");  // older sq8 scheme, read only
constexpr uint32_t kSq8sTag = io::fourcc("SQ8S");
constexpr uint32_t kCodeTag = io::fourcc("CODE");
constexpr uint32_t kNbrcTag = io::fourcc("NBRC");
constexpr uint32_t kNbrcScheme = 1;  // 1-bit sign codes in fast-scan blocks (hnsw_nbr_codes.hpp)
static_assert(kNoId == HnswIndexAccess::kNoId, "a tombstone is written with the public no-result id");
constexpr uint64_t kNoEntry = HnswIndexAccess::kNoEntry;
constexpr uint64_t kMaxEf = uint64_t(1) << 20;

[[noreturn]] void corrupt(const std::string& message) { throw Error(ErrorCode::Corrupt, "index file: " + message); }

// Writes one link list with zeros past its count (a list is [count, links...]).
void put_list(io::SectionWriter& w, const uint32_t* list, size_t cap) {
  const size_t n = std::min<size_t>(list[0], cap);
  w.u32(uint32_t(n));
  w.u32s(list + 1, n);
  for (size_t i = n; i < cap; ++i) w.u32(0);
}

io::Writer hnsw_writer(const HnswIndex& index) {
  const HnswIndexAccess::View v = HnswIndexAccess::view(index);
  const size_t dim = index.dim(), M = index.M(), M0 = 2 * M;
  io::Header h;
  h.kind = IndexKind::hnsw;
  h.metric = index.metric();
  h.dim = dim;
  h.count = v.slots - v.free_count;
  h.seed = index.seed();
  const bool sq8 = index.storage() == HnswStorage::sq8;
  h.params = {M,
              index.ef_construction(),
              index.ef_search(),
              uint64_t(index.storage()),
              index.keeps_vectors() ? 1u : 0u,
              v.slots,
              v.entry,
              v.draws};
  io::Writer w(h);
  try {
    auto& ids = w.add_section(kSlotTag);
    ids.reserve(v.slots * 8);
    for (size_t s = 0; s < v.slots; ++s) ids.u64(v.deleted[s] ? kNoId : v.slot_ids[s]);
    auto& free = w.add_section(kFreeTag);
    free.u32s(v.free_slots, v.free_count);
    auto& levels = w.add_section(kLevlTag);
    levels.bytes(v.levels, v.slots);
    auto& lnk0 = w.add_section(kLnk0Tag);
    lnk0.reserve(v.slots * (1 + M0) * 4);
    for (size_t s = 0; s < v.slots; ++s) put_list(lnk0, HnswIndexAccess::links(index, uint32_t(s), 0), M0);
    auto& upper = w.add_section(kUpprTag);
    for (size_t s = 0; s < v.slots; ++s) {
      for (int l = 1; l <= v.levels[s]; ++l) put_list(upper, HnswIndexAccess::links(index, uint32_t(s), l), M);
    }
    if (sq8) {
      auto& scales = w.add_section(kSq8sTag);
      scales.reserve(v.slots * 4);
      for (size_t s = 0; s < v.slots; ++s) scales.f32(HnswIndexAccess::sq8_scale(index, uint32_t(s)));
      auto& codes = w.add_section(kCodeTag);
      codes.reserve(v.slots * dim);
      for (size_t s = 0; s < v.slots; ++s) codes.bytes(HnswIndexAccess::codes(index, uint32_t(s)), dim);
    }
    if (index.neighbor_codes()) w.add_section(kNbrcTag).u32(kNbrcScheme);
    if (index.keeps_vectors()) {
      auto& vecs = w.add_section(kVecsTag);
      vecs.reserve(v.slots * dim * 4);
      for (size_t s = 0; s < v.slots; ++s) vecs.f32s(HnswIndexAccess::vector(index, uint32_t(s)), dim);
    }
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory serialising the index");
  }
  return w;
}

// Little-endian words as stored in a file.
constexpr auto le32 = le::u32;
constexpr auto le64 = le::u64;
constexpr auto le_f32 = le::f32;
// Rows copied in place keep the file's byte order: turn them into the host's.
void host_order_u32(uint32_t* words, size_t n) {
  if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) return;
  for (size_t i = 0; i < n; ++i) words[i] = le32(reinterpret_cast<const uint8_t*>(words + i));
}

// Checks one link list: count <= cap, targets < slots, zeros past count. `list` is [count,
// links...] in host order.
void check_list(const uint32_t* list, size_t cap, uint64_t slots, uint64_t slot, int level) {
  const uint32_t n = list[0];
  if (n > cap) {
    corrupt("slot " + std::to_string(slot) + " has " + std::to_string(n) + " links on level " + std::to_string(level) +
            " (at most " + std::to_string(cap) + ")");
  }
  for (size_t i = 0; i < cap; ++i) {
    const uint32_t x = list[1 + i];
    if (i < n && x >= slots) {
      corrupt("slot " + std::to_string(slot) + " links to slot " + std::to_string(x) + " on level " +
              std::to_string(level) + ", which does not exist (" + std::to_string(slots) + " slots)");
    }
    if (i >= n && x != 0) corrupt("slot " + std::to_string(slot) + " has non-zero link padding");
  }
}

using io::find_section;

// Called from a handler of `e`: errors other than these while decoding mean the file's
// contents are impossible.
[[noreturn]] void rethrow_as_corrupt(const Error& e) {
  if (e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::UnsupportedIsa || e.code() == ErrorCode::Corrupt ||
      e.code() == ErrorCode::UnsupportedVersion) {
    throw;  // the Error being handled, as it is
  }
  throw Error(ErrorCode::Corrupt, std::string("index file: invalid contents: ") + e.what());
}

// Every check the head allows, in the whole-file loader's order: kind, known sections, header
// parameters, which sections are present, and every declared size but the upper links' (which
// depends on the levels). Returns the index's options.
HnswIndexOptions check_head(const io::Head& head) {
  io::expect_kind(head.header, IndexKind::hnsw);
  io::require_known_sections(
      head, {kSlotTag, kFreeTag, kLevlTag, kLnk0Tag, kUpprTag, kVecsTag, kSq8qTag, kSq8sTag, kCodeTag, kNbrcTag});
  const io::Header& h = head.header;
  const uint64_t M = h.params[0], efc = h.params[1], efs = h.params[2], storage = h.params[3], keep = h.params[4],
                 slots = h.params[5], entry = h.params[6], draws = h.params[7];
  // --- header parameters ---
  if (M < 2 || M > 128) corrupt("impossible M " + std::to_string(M) + " (expected 2 to 128)");
  if (efc < M || efc > kMaxEf) corrupt("impossible ef_construction " + std::to_string(efc));
  if (efs < 1 || efs > kMaxEf) corrupt("impossible ef_search " + std::to_string(efs));
  if (storage > 1) corrupt("unknown vector storage " + std::to_string(storage) + " (expected 0 f32 or 1 sq8)");
  const bool sq8 = storage == 1;
  if (keep > 1 || (!sq8 && keep != 1)) {
    corrupt("impossible keep_vectors flag " + std::to_string(keep) + " for " + (sq8 ? "sq8" : "f32") + " storage");
  }
  if (sq8 && h.dim > 65536)
    corrupt("impossible dimension " + std::to_string(h.dim) + " for sq8 storage (at most 65536)");
  if (!keep && find_section(head, kVecsTag) != nullptr) corrupt("section VECS is present but keep_vectors is 0");
  const bool legacy = find_section(head, kSq8qTag) != nullptr;
  if (legacy && find_section(head, kSq8sTag) != nullptr)
    corrupt("both the old (SQ8Q) and the current (SQ8S) sq8 sections");
  const io::SectionEntry* nbrc = find_section(head, kNbrcTag);
  if (!sq8 && (legacy || find_section(head, kSq8sTag) != nullptr || find_section(head, kCodeTag) != nullptr ||
               nbrc != nullptr)) {
    corrupt("sq8 sections in a file with f32 storage");
  }
  if (nbrc != nullptr) io::check_section_size(kNbrcTag, nbrc->size, 4, "a 4-byte neighbour-code scheme");
  if (slots > UINT32_MAX - 1) corrupt("impossible slot count " + std::to_string(slots));
  if (h.count > slots) {
    corrupt("the header declares " + std::to_string(h.count) + " vectors in " + std::to_string(slots) + " slots");
  }
  if (draws < slots) corrupt("the header declares fewer levels drawn than slots");
  if ((slots == 0) != (entry == kNoEntry)) corrupt("the entry point does not match the slot count");
  if (slots > 0 && ((entry & 0xFFFFFFFFu) >= slots || (entry >> 32) > uint64_t(HnswIndexAccess::kMaxLevel))) {
    corrupt("impossible entry point (level " + std::to_string(entry >> 32) + ", slot " +
            std::to_string(entry & 0xFFFFFFFFu) + ")");
  }
  const uint64_t nfree = slots - h.count;
  const uint64_t dim = h.dim, M0 = 2 * M;
  // --- which sections are present, then their declared sizes (dim < 2^25, slots < 2^32) ---
  const io::SectionEntry& ids = io::required_section(head, kSlotTag);
  const io::SectionEntry& free_section = io::required_section(head, kFreeTag);
  const io::SectionEntry& levels = io::required_section(head, kLevlTag);
  const io::SectionEntry& lnk0 = io::required_section(head, kLnk0Tag);
  io::required_section(head, kUpprTag);
  const io::SectionEntry* vecs = keep ? &io::required_section(head, kVecsTag) : nullptr;
  if (sq8) {
    const io::SectionEntry& codes = io::required_section(head, kCodeTag);
    io::check_section_size(kCodeTag, codes.size, slots * dim, "slots x dim codes");
    if (legacy) {
      io::check_section_size(kSq8qTag, find_section(head, kSq8qTag)->size, 8 + dim * 4,
                             "trained flag, scale and dim x 4-byte minimums");
    } else {
      io::check_section_size(kSq8sTag, io::required_section(head, kSq8sTag).size, slots * 4, "slots x 4-byte scales");
    }
  }
  io::check_section_size(kSlotTag, ids.size, slots * 8, io::slot_sections::kSlotRecords);
  io::check_section_size(kFreeTag, free_section.size, nfree * 4, io::slot_sections::kFreeRecords);
  io::check_section_size(kLevlTag, levels.size, slots, "slots x 1-byte levels");
  io::check_section_size(kLnk0Tag, lnk0.size, slots * (1 + M0) * 4, "slots x (1 + 2M) x 4-byte links");
  if (keep) io::check_section_size(kVecsTag, vecs->size, slots * dim * 4, "slots x dim x 4-byte floats");
  HnswIndexOptions options;
  options.dim = size_t(dim);
  options.metric = h.metric;
  options.M = size_t(M);
  options.ef_construction = size_t(efc);
  options.ef_search = size_t(efs);
  options.seed = h.seed;
  options.storage = sq8 ? HnswStorage::sq8 : HnswStorage::f32;
  options.keep_vectors = keep == 1;
  options.neighbor_codes = nbrc != nullptr;
  return options;
}

HnswIndex open_index(const io::Head& head, Isa isa) {
  const HnswIndexOptions options = check_head(head);
  try {
    return HnswIndex(options, isa);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  } catch (const Error& e) {
    rethrow_as_corrupt(e);
  }
}

}  // namespace

namespace io {

HnswDecoder::HnswDecoder(const Head& head, Isa isa) : index_(open_index(head, isa)) {
  const Header& h = head.header;
  metric_ = h.metric;
  M_ = h.params[0];
  slots_ = h.params[5];
  entry_ = h.params[6];
  draws_ = h.params[7];
  nfree_ = slots_ - h.count;
  dim_ = size_t(h.dim);
  M0_ = size_t(2 * M_);
  sq8_ = h.params[3] == 1;
  keep_ = h.params[4] == 1;
  legacy_ = find_section(head, kSq8qTag) != nullptr;
  nbr_codes_ = find_section(head, kNbrcTag) != nullptr;
}

void HnswDecoder::feed(uint32_t tag, const uint8_t* data, size_t n) {
  try {
    switch (tag) {
      case kSlotTag: ids_.insert(ids_.end(), data, data + n); break;
      case kFreeTag: free_.insert(free_.end(), data, data + n); break;
      case kLevlTag: levels_.insert(levels_.end(), data, data + n); break;
      case kUpprTag: upper_.insert(upper_.end(), data, data + n); break;
      case kSq8sTag: scales_.insert(scales_.end(), data, data + n); break;
      case kSq8qTag: quant_.insert(quant_.end(), data, data + n); break;
      case kNbrcTag: nbrc_.insert(nbrc_.end(), data, data + n); break;
      case kLnk0Tag:
      case kCodeTag:
      case kVecsTag: feed_rows(tag, data, n); break;
      default: break;  // optional sections this reader does not use
    }
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  }
}

// A section of fixed-size rows, one per slot, copied into the slot's row of the index as the
// bytes come (a row may arrive in pieces).
void HnswDecoder::feed_rows(uint32_t tag, const uint8_t* data, size_t n) {
  uint64_t& done = tag == kLnk0Tag ? links_in_ : tag == kCodeTag ? codes_in_ : vectors_in_;
  const size_t row_bytes = tag == kLnk0Tag ? (1 + M0_) * 4 : tag == kCodeTag ? dim_ : dim_ * 4;
  while (n > 0) {
    const uint32_t slot = uint32_t(done / row_bytes);
    const size_t at = size_t(done % row_bytes);
    const size_t take = std::min(n, row_bytes - at);
    uint8_t* row = tag == kLnk0Tag   ? reinterpret_cast<uint8_t*>(HnswIndexAccess::load_links(index_, slot))
                   : tag == kCodeTag ? HnswIndexAccess::load_point(index_, slot)
                                     : reinterpret_cast<uint8_t*>(HnswIndexAccess::load_vector(index_, slot));
    std::memcpy(row + at, data, take);
    data += take;
    n -= take;
    done += take;
    if (at + take == row_bytes && tag != kCodeTag) host_order_u32(reinterpret_cast<uint32_t*>(row), row_bytes / 4);
  }
}

// The content checks of the whole-file loader, in its order, on the small sections and on the
// level-0 lists already in the index.
void HnswDecoder::check_contents() {
  const uint64_t slots = slots_;
  // An old file's sq8 quantiser: trained before any node exists only under cosine (fixed
  // [-1, 1]).
  if (sq8_ && legacy_) {
    const uint32_t flag = le32(quant_.data());
    const float scale = le_f32(quant_.data() + 4);
    if (flag > 1) corrupt("impossible sq8 trained flag " + std::to_string(flag));
    const bool trained = flag == 1;
    if (slots > 0 && !trained) corrupt("an sq8 index with nodes has no quantiser");
    if (trained && !(std::isfinite(scale) && scale > 0.0f)) corrupt("impossible sq8 scale");
    for (size_t i = 0; i < dim_; ++i) {
      const float m = le_f32(quant_.data() + 8 + 4 * i);
      if (!std::isfinite(m) || (!trained && m != 0.0f)) corrupt("impossible sq8 minimum");
    }
    if (metric_ == Metric::cosine) {
      bool fixed = trained && scale == 2.0f / 255.0f;
      for (size_t i = 0; i < dim_; ++i) fixed = fixed && le_f32(quant_.data() + 8 + 4 * i) == -1.0f;
      if (!fixed) corrupt("the sq8 quantiser of a cosine index must be the fixed [-1, 1] one");
    }
  }
  if (nbr_codes_ && le32(nbrc_.data()) != kNbrcScheme) {
    corrupt("unknown neighbour-code scheme " + std::to_string(le32(nbrc_.data())) + " (expected 1)");
  }
  // --- levels and links ---
  const uint8_t* levels = levels_.data();
  uint64_t upper_lists = 0;
  for (uint64_t s = 0; s < slots; ++s) {
    if (levels[s] > HnswIndexAccess::kMaxLevel) {
      corrupt("slot " + std::to_string(s) + " has impossible level " + std::to_string(levels[s]));
    }
    upper_lists += levels[s];
  }
  if (slots > 0 && levels[entry_ & 0xFFFFFFFFu] != (entry_ >> 32)) {
    corrupt("the entry point's level " + std::to_string(entry_ >> 32) + " is not the level of its node");
  }
  check_section_size(kUpprTag, upper_.size(), upper_lists * (1 + M_) * 4, "sum of levels x (1 + M) x 4-byte links");
  std::vector<uint32_t> list(1 + M0_);
  size_t upper_at = 0;
  for (uint64_t s = 0; s < slots; ++s) {
    check_list(HnswIndexAccess::load_links(index_, uint32_t(s)), M0_, slots, s, 0);
    for (int l = 1; l <= levels[s]; ++l) {
      for (size_t i = 0; i <= M_; ++i, upper_at += 4) list[i] = le32(upper_.data() + upper_at);
      check_list(list.data(), size_t(M_), slots, s, l);
    }
  }
  // --- the free list: exactly the tombstones, each once ---
  std::vector<uint32_t> free_list(static_cast<size_t>(nfree_));
  for (size_t i = 0; i < free_list.size(); ++i) free_list[i] = le32(free_.data() + 4 * i);
  slot_sections::check_free_list(
      free_list.data(), free_list.size(), slots, [&](uint32_t s) { return le64(ids_.data() + 8 * size_t(s)) == kNoId; },
      "tombstone");
  uint64_t tombstones = 0;
  for (uint64_t s = 0; s < slots; ++s) tombstones += le64(ids_.data() + 8 * s) == kNoId;
  if (tombstones != nfree_) {
    corrupt(std::to_string(tombstones) + " slots are tombstones but the header declares " + std::to_string(nfree_));
  }
}

// Builds the index around the rows already in place, slot by slot, checking ids, vectors and
// codes as the whole-file loader does.
void HnswDecoder::fill() {
  const size_t slots = size_t(slots_);
  std::vector<uint32_t> free_list(static_cast<size_t>(nfree_));
  for (size_t i = 0; i < free_list.size(); ++i) free_list[i] = le32(free_.data() + 4 * i);
  std::vector<uint8_t>().swap(free_);
  // An old sq8 file: every node is coded afresh, from its kept vector, else from its old
  // codes decoded with the old parameters.
  std::vector<float> mins, decoded, scratch;
  float old_scale = 0.0f;
  if (sq8_ && legacy_) {
    old_scale = le_f32(quant_.data() + 4);
    mins.resize(dim_);
    for (size_t i = 0; i < dim_; ++i) mins[i] = le_f32(quant_.data() + 8 + 4 * i);
    decoded.resize(dim_);
    scratch.resize(HnswIndexAccess::encode_scratch_floats(index_));
  }
  HnswIndexAccess::begin_load(index_, slots, free_list.size());
  size_t upper_at = 0;
  for (size_t s = 0; s < slots; ++s) {
    const uint32_t slot = uint32_t(s);
    const uint64_t id = le64(ids_.data() + 8 * s);
    const bool tombstone = id == kNoId;
    const int level = levels_[s];
    HnswIndexAccess::set_node(index_, slot, id, tombstone, level);
    if (keep_) {
      const float* v = HnswIndexAccess::mutable_vector(index_, slot);
      try {
        core::check_stored_vectors(v, 1, dim_, metric_, "stored vector");
      } catch (const Error& e) {
        if (e.code() == ErrorCode::OutOfMemory) throw;
        corrupt("slot " + std::to_string(s) + ": " + e.what());
      }
    }
    if (sq8_ && !legacy_) {
      const uint8_t* codes = HnswIndexAccess::load_point(index_, slot);
      const std::string problem = HnswIndexAccess::set_codes(index_, slot, codes, le_f32(scales_.data() + 4 * s));
      if (!problem.empty()) corrupt("slot " + std::to_string(s) + ": " + problem);
    } else if (sq8_) {
      const uint8_t* old_codes = HnswIndexAccess::load_point(index_, slot);
      const float* source = keep_ ? HnswIndexAccess::mutable_vector(index_, slot) : decoded.data();
      if (!keep_) {
        for (size_t i = 0; i < dim_; ++i) decoded[i] = mins[i] + old_scale * float(old_codes[i]);
        try {
          core::check_vectors(decoded.data(), 1, dim_, Metric::l2, "decoded sq8 vector");
        } catch (const Error& e) {
          if (e.code() == ErrorCode::OutOfMemory) throw;
          corrupt("slot " + std::to_string(s) + ": " + e.what());
        }
      }
      HnswIndexAccess::encode(index_, slot, source, scratch.data());
    }
    for (int l = 1; l <= level; ++l) {
      uint32_t* list = HnswIndexAccess::mutable_links(index_, slot, l);
      for (size_t i = 0; i <= M_; ++i, upper_at += 4) list[i] = le32(upper_.data() + upper_at);
    }
  }
  HnswIndexAccess::finish_load(index_, free_list.data(), free_list.size(), entry_, draws_);
}

HnswIndex HnswDecoder::finish() {
  const uint64_t link_bytes = slots_ * (1 + M0_) * 4;
  const uint64_t code_bytes = sq8_ ? slots_ * dim_ : 0;
  const uint64_t vector_bytes = keep_ ? slots_ * dim_ * 4 : 0;
  if (ids_.size() != slots_ * 8 || free_.size() != nfree_ * 4 || levels_.size() != slots_ || links_in_ != link_bytes ||
      codes_in_ != code_bytes || vectors_in_ != vector_bytes || scales_.size() != (sq8_ && !legacy_ ? slots_ * 4 : 0) ||
      quant_.size() != (sq8_ && legacy_ ? 8 + dim_ * 4 : 0) || nbrc_.size() != (nbr_codes_ ? 4u : 0u)) {
    throw Error(ErrorCode::Internal, "HNSW decoder finished before every section arrived");
  }
  try {
    check_contents();
    fill();
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  } catch (const Error& e) {
    rethrow_as_corrupt(e);
  }
  std::vector<uint8_t>().swap(ids_);
  std::vector<uint8_t>().swap(upper_);
  return std::move(index_);
}

HnswIndex load_hnsw(const Reader& r, Isa isa) {
  HnswDecoder decoder(r.head(), isa);
  feed_sections(r, decoder);
  return decoder.finish();
}

}  // namespace io

std::vector<uint8_t> HnswIndex::serialize() const {
  const auto updates = HnswIndexAccess::lock_updates(*this);
  return hnsw_writer(*this).to_bytes();
}

void HnswIndex::save(const std::string& path) const {
  io::Writer w = [&] {
    const auto updates = HnswIndexAccess::lock_updates(*this);
    return hnsw_writer(*this);
  }();
  w.write_file(path);  // the sections are copies: adds may go on while the file is written
}

QUIVER_INDEX_LOAD_OVERLOADS(HnswIndex, io::load_hnsw);

}  // namespace quiver
