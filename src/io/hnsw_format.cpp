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
//   "SQ8S"  sq8 only: slots x f32        each node's code scale (src/index/hnsw_sq8.hpp: the
//                                     rotated vector is ~ scale x (code - 128))
//   "CODE"  sq8 only: slots x dim x u8   the codes of the rotated vectors (the code sums the
//                                     distances use are recomputed)
//   "VECS"  slots x dim x f32         stored vectors (unit length under cosine), tombstones
//                                     included: the graph still walks through them; under
//                                     sq8 only with keep_vectors
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
// Loading checks everything before it allocates for the graph: the header parameters, every
// declared size against the bytes present, every level (<= 31, the entry on its own level),
// every link count (<= cap) and target (< slots) with zero padding, the free list (exactly
// the tombstones, each once). Then it fills a new index slot by slot, checking ids (unique,
// not 2^64 - 1), floats (finite, within the norm bound; unit length under cosine) and every
// sq8 scale against its codes (finite, not negative, zero exactly for the zero vector's codes,
// codes that span it, under cosine the one the codes imply). Any violation is Error(Corrupt).
#include <algorithm>
#include <cmath>
#include <mutex>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/validate.hpp"
#include "index/hnsw_state.hpp"
#include "io/file.hpp"
#include "io/hnsw_format.hpp"
#include "quiver/error.hpp"
#include "quiver/hnsw_index.hpp"

namespace quiver {
namespace {

constexpr uint32_t kSlotTag = io::fourcc("SLOT");
constexpr uint32_t kFreeTag = io::fourcc("FREE");
constexpr uint32_t kLevlTag = io::fourcc("LEVL");
constexpr uint32_t kLnk0Tag = io::fourcc("LNK0");
constexpr uint32_t kUpprTag = io::fourcc("UPPR");
constexpr uint32_t kVecsTag = io::fourcc("VECS");
constexpr uint32_t kSq8qTag = io::fourcc("SQ8Q");  // older sq8 scheme, read only
constexpr uint32_t kSq8sTag = io::fourcc("SQ8S");
constexpr uint32_t kCodeTag = io::fourcc("CODE");
static_assert(kNoId == HnswIndexAccess::kNoId, "a tombstone is written with the public no-result id");
constexpr uint64_t kNoEntry = HnswIndexAccess::kNoEntry;
constexpr uint64_t kMaxEf = uint64_t(1) << 20;

[[noreturn]] void corrupt(const std::string& message) {
  throw Error(ErrorCode::Corrupt, "index file: " + message);
}

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
  h.params = {M, index.ef_construction(), index.ef_search(), uint64_t(index.storage()), index.keeps_vectors() ? 1u : 0u,
              v.slots, v.entry, v.draws};
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

// Checks one link list read from the file: count <= cap, targets < slots, zeros past count.
void check_list(io::SectionCursor& c, size_t cap, uint64_t slots, uint64_t slot, int level) {
  const uint32_t n = c.u32();
  if (n > cap) {
    corrupt("slot " + std::to_string(slot) + " has " + std::to_string(n) + " links on level " +
            std::to_string(level) + " (at most " + std::to_string(cap) + ")");
  }
  for (size_t i = 0; i < cap; ++i) {
    const uint32_t x = c.u32();
    if (i < n && x >= slots) {
      corrupt("slot " + std::to_string(slot) + " links to slot " + std::to_string(x) + " on level " +
              std::to_string(level) + ", which does not exist (" + std::to_string(slots) + " slots)");
    }
    if (i >= n && x != 0) corrupt("slot " + std::to_string(slot) + " has non-zero link padding");
  }
}

void read_list(io::SectionCursor& c, size_t cap, uint32_t* out) { c.u32s(out, 1 + cap); }

}  // namespace

namespace io {

HnswIndex load_hnsw(const Reader& r, Isa isa) {
  r.expect_kind(IndexKind::hnsw);
  r.require_known_sections({kSlotTag, kFreeTag, kLevlTag, kLnk0Tag, kUpprTag, kVecsTag, kSq8qTag, kSq8sTag, kCodeTag});
  const Header& h = r.header();
  const uint64_t M = h.params[0], efc = h.params[1], efs = h.params[2], storage = h.params[3],
                 keep = h.params[4], slots = h.params[5], entry = h.params[6], draws = h.params[7];
  // --- header parameters ---
  if (M < 2 || M > 128) corrupt("impossible M " + std::to_string(M) + " (expected 2 to 128)");
  if (efc < M || efc > kMaxEf) corrupt("impossible ef_construction " + std::to_string(efc));
  if (efs < 1 || efs > kMaxEf) corrupt("impossible ef_search " + std::to_string(efs));
  if (storage > 1) corrupt("unknown vector storage " + std::to_string(storage) + " (expected 0 f32 or 1 sq8)");
  const bool sq8 = storage == 1;
  if (keep > 1 || (!sq8 && keep != 1)) {
    corrupt("impossible keep_vectors flag " + std::to_string(keep) + " for " + (sq8 ? "sq8" : "f32") + " storage");
  }
  if (sq8 && h.dim > 65536) corrupt("impossible dimension " + std::to_string(h.dim) + " for sq8 storage (at most 65536)");
  if (!keep && r.find(kVecsTag) != nullptr) corrupt("section VECS is present but keep_vectors is 0");
  const bool legacy = r.find(kSq8qTag) != nullptr;
  if (legacy && r.find(kSq8sTag) != nullptr) corrupt("both the old (SQ8Q) and the current (SQ8S) sq8 sections");
  if (!sq8 && (legacy || r.find(kSq8sTag) != nullptr || r.find(kCodeTag) != nullptr)) {
    corrupt("sq8 sections in a file with f32 storage");
  }
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
  const size_t dim = size_t(h.dim), M0 = size_t(2 * M);
  // --- declared sizes against the bytes present (dim < 2^25, slots < 2^32: no overflow) ---
  SectionCursor ids = r.section(kSlotTag);
  SectionCursor free_section = r.section(kFreeTag);
  SectionCursor levels_section = r.section(kLevlTag);
  SectionCursor lnk0 = r.section(kLnk0Tag);
  SectionCursor upper = r.section(kUpprTag);
  SectionCursor vecs(kVecsTag, nullptr, 0), quant(kSq8qTag, nullptr, 0), scales(kSq8sTag, nullptr, 0),
      codes(kCodeTag, nullptr, 0);
  if (keep) vecs = r.section(kVecsTag);
  if (sq8) {
    codes = r.section(kCodeTag);
    codes.expect_size(slots * dim, "slots x dim codes");
    if (legacy) {
      quant = r.section(kSq8qTag);
      quant.expect_size(8 + uint64_t(dim) * 4, "trained flag, scale and dim x 4-byte minimums");
    } else {
      scales = r.section(kSq8sTag);
      scales.expect_size(slots * 4, "slots x 4-byte scales");
    }
  }
  ids.expect_size(slots * 8, "slots x 8-byte ids");
  free_section.expect_size(nfree * 4, "free x 4-byte slot numbers");
  levels_section.expect_size(slots, "slots x 1-byte levels");
  lnk0.expect_size(slots * (1 + M0) * 4, "slots x (1 + 2M) x 4-byte links");
  if (keep) vecs.expect_size(slots * dim * 4, "slots x dim x 4-byte floats");
  // An old file's sq8 quantiser: trained before any node exists only under cosine (fixed
  // [-1, 1]).
  std::vector<float> mins;
  float scale = 0.0f;
  bool trained = false;
  if (sq8 && legacy) {
    const uint32_t flag = quant.u32();
    scale = quant.f32();
    try {
      mins.resize(dim);
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
    }
    quant.f32s(mins.data(), dim);
    if (flag > 1) corrupt("impossible sq8 trained flag " + std::to_string(flag));
    trained = flag == 1;
    if (slots > 0 && !trained) corrupt("an sq8 index with nodes has no quantiser");
    if (trained && !(std::isfinite(scale) && scale > 0.0f)) corrupt("impossible sq8 scale");
    for (float m : mins) {
      if (!std::isfinite(m) || (!trained && m != 0.0f)) corrupt("impossible sq8 minimum");
    }
    if (h.metric == Metric::cosine) {
      bool fixed = trained && scale == 2.0f / 255.0f;
      for (float m : mins) fixed = fixed && m == -1.0f;
      if (!fixed) corrupt("the sq8 quantiser of a cosine index must be the fixed [-1, 1] one");
    }
  }
  // --- levels, links and the free list, before allocating for the graph ---
  const uint8_t* levels = levels_section.bytes(size_t(slots));
  uint64_t upper_lists = 0;
  for (uint64_t s = 0; s < slots; ++s) {
    if (levels[s] > HnswIndexAccess::kMaxLevel) {
      corrupt("slot " + std::to_string(s) + " has impossible level " + std::to_string(levels[s]));
    }
    upper_lists += levels[s];
  }
  if (slots > 0 && levels[entry & 0xFFFFFFFFu] != (entry >> 32)) {
    corrupt("the entry point's level " + std::to_string(entry >> 32) + " is not the level of its node");
  }
  upper.expect_size(upper_lists * (1 + M) * 4, "sum of levels x (1 + M) x 4-byte links");
  {
    SectionCursor c0 = lnk0, cu = upper;
    for (uint64_t s = 0; s < slots; ++s) {
      check_list(c0, M0, slots, s, 0);
      for (int l = 1; l <= levels[s]; ++l) check_list(cu, size_t(M), slots, s, l);
    }
  }
  std::vector<uint32_t> free_list;
  std::vector<uint64_t> slot_ids;
  try {
    free_list.resize(size_t(nfree));
    free_section.u32s(free_list.data(), free_list.size());
    slot_ids.resize(size_t(slots));
    ids.u64s(slot_ids.data(), slot_ids.size());
    std::vector<uint8_t> seen(size_t(slots), 0);
    for (uint32_t s : free_list) {
      if (s >= slots || slot_ids[s] != kNoId || seen[s]) {
        corrupt("the free list names slot " + std::to_string(s) + ", which is not a distinct tombstone");
      }
      seen[s] = 1;
    }
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  }
  // Every tombstone is on the free list: as many tombstones as free-list entries.
  const uint64_t tombstones = uint64_t(std::count(slot_ids.begin(), slot_ids.end(), kNoId));
  if (tombstones != nfree) {
    corrupt(std::to_string(tombstones) + " slots are tombstones but the header declares " + std::to_string(nfree));
  }

  // --- fill a new index ---
  HnswIndexOptions options;
  options.dim = dim;
  options.metric = h.metric;
  options.M = size_t(M);
  options.ef_construction = size_t(efc);
  options.ef_search = size_t(efs);
  options.seed = h.seed;
  options.storage = sq8 ? HnswStorage::sq8 : HnswStorage::f32;
  options.keep_vectors = keep == 1;
  try {
    HnswIndex index(options, isa);
    std::vector<float> decoded, scratch;  // transcoding an old sq8 file
    if (sq8 && legacy) {
      decoded.resize(dim);
      scratch.resize(HnswIndexAccess::encode_scratch_floats(index));
    }
    HnswIndexAccess::begin_load(index, size_t(slots), size_t(nfree));
    for (uint64_t s = 0; s < slots; ++s) {
      const uint32_t slot = uint32_t(s);
      const bool tombstone = slot_ids[s] == kNoId;
      HnswIndexAccess::set_node(index, slot, slot_ids[s], tombstone, levels[s]);
      if (keep) {
        float* v = HnswIndexAccess::mutable_vector(index, slot);
        vecs.f32s(v, dim);
        try {
          core::check_stored_vectors(v, 1, dim, h.metric, "stored vector");
        } catch (const Error& e) {
          if (e.code() == ErrorCode::OutOfMemory) throw;
          corrupt("slot " + std::to_string(s) + ": " + e.what());
        }
      }
      if (sq8 && !legacy) {
        const float node_scale = scales.f32();
        const std::string problem = HnswIndexAccess::set_codes(index, slot, codes.bytes(dim), node_scale);
        if (!problem.empty()) corrupt("slot " + std::to_string(s) + ": " + problem);
      } else if (sq8) {
        // Old scheme: code afresh from the kept vector, else from the old codes decoded.
        const uint8_t* old_codes = codes.bytes(dim);
        const float* source = keep ? HnswIndexAccess::mutable_vector(index, slot) : decoded.data();
        if (!keep) {
          for (size_t i = 0; i < dim; ++i) decoded[i] = mins[i] + scale * float(old_codes[i]);
          try {
            core::check_vectors(decoded.data(), 1, dim, Metric::l2, "decoded sq8 vector");
          } catch (const Error& e) {
            if (e.code() == ErrorCode::OutOfMemory) throw;
            corrupt("slot " + std::to_string(s) + ": " + e.what());
          }
        }
        HnswIndexAccess::encode(index, slot, source, scratch.data());
      }
      read_list(lnk0, M0, HnswIndexAccess::mutable_links(index, slot, 0));
      for (int l = 1; l <= levels[s]; ++l) read_list(upper, size_t(M), HnswIndexAccess::mutable_links(index, slot, l));
    }
    HnswIndexAccess::finish_load(index, free_list.data(), free_list.size(), entry, draws);
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

HnswIndex HnswIndex::load(const uint8_t* data, size_t size, Isa isa) {
  return io::load_hnsw(io::Reader(data, size), isa);
}

HnswIndex HnswIndex::load(const uint8_t* data, size_t size) { return load(data, size, active_isa()); }

HnswIndex HnswIndex::load(const std::vector<uint8_t>& bytes) { return load(bytes.data(), bytes.size()); }

HnswIndex HnswIndex::load_file(const std::string& path) {
  io::MappedFile file(path);
  return load(file.data(), file.size());
}

}  // namespace quiver
