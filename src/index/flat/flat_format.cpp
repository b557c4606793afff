// FlatIndex <-> index file. Kind 1 (flat), no parameters, seed 0, two required sections:
//   "IDS "  count x u64   caller id of each stored row, in slot order
//   "VECS"  count x dim x f32   the rows as stored (unit length under cosine), unpadded
// Loading decodes the payloads piece by piece straight into the index's row storage
// (FlatDecoder: no temporary copy), and any invalid content (a duplicate id, a NaN, a zero row
// under cosine) is reported as Error(Corrupt) before the index is handed out.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "index/flat/flat_state.hpp"
#include "container/file.hpp"
#include "index/common/index_shell.hpp"
#include "index/flat/flat_format.hpp"
#include "quiver/error.hpp"
#include "quiver/flat_index.hpp"

namespace quiver {
namespace {

constexpr uint32_t kIdsTag = io::fourcc("IDS ");
constexpr uint32_t kVecsTag = io::fourcc("VECS");

// The file of `index`; the caller holds FlatIndexAccess::read_lock() until the writer has
// written it: the sections are produced straight from the index's rows (no copy of the rows in
// the writer), so the peak of serialize() is the index and the file, and save() copies nothing.
io::Writer flat_writer(const FlatIndex& index) {
  const size_t n = FlatIndexAccess::size(index);
  const size_t dim = index.dim();
  io::Header h;
  h.kind = IndexKind::flat;
  h.metric = index.metric();
  h.dim = dim;
  h.count = n;
  io::Writer w(h);
  constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  w.add_section(kIdsTag).produce(uint64_t(n) * 8, [&index, n](const io::SectionWriter::Emit& emit) {
    uint8_t buf[4096];
    for (size_t slot = 0; slot < n;) {
      size_t k = 0;
      for (; k < sizeof buf / 8 && slot < n; ++k, ++slot) {
        const uint64_t id = index.stored_id(slot);
        for (int b = 0; b < 8; ++b) buf[k * 8 + b] = uint8_t(id >> (8 * b));
      }
      emit(buf, k * 8);
    }
  });
  w.add_section(kVecsTag).produce(uint64_t(n) * dim * 4, [&index, n, dim](const io::SectionWriter::Emit& emit) {
    std::vector<uint8_t> row(kLittleEndian ? 0 : dim * 4);
    for (size_t slot = 0; slot < n; ++slot) {
      const float* r = index.stored_row(slot);
      if (kLittleEndian) {
        emit(r, dim * 4);
        continue;
      }
      for (size_t i = 0; i < dim; ++i) {
        uint32_t bits;
        std::memcpy(&bits, r + i, 4);
        for (int b = 0; b < 4; ++b) row[i * 4 + b] = uint8_t(bits >> (8 * b));
      }
      emit(row.data(), row.size());
    }
  });
  return w;
}

}  // namespace

namespace io {
namespace {

[[noreturn]] void invalid_contents(const std::string& what) {
  throw Error(ErrorCode::Corrupt, "index file: invalid contents: " + what);
}

}  // namespace

FlatDecoder::FlatDecoder(const Head& head, Isa isa, bool reserve_all)
    : count_(0), dim_(0), index_(FlatIndexOptions{size_t(head.header.dim), head.header.metric}, isa) {
  expect_kind(head.header, IndexKind::flat);
  require_known_sections(head, {kIdsTag, kVecsTag});
  const Header& h = head.header;
  const SectionEntry& ids = required_section(head, kIdsTag);
  const SectionEntry& vecs = required_section(head, kVecsTag);
  // Compare the declared count with the payloads before multiplying or allocating.
  if (h.count > ids.size / 8 || h.count > vecs.size / (4 * h.dim)) {
    throw Error(ErrorCode::Corrupt, "index file: impossible vector count " + std::to_string(h.count) +
                                        ": the IDS and VECS sections hold " + std::to_string(ids.size) + " and " +
                                        std::to_string(vecs.size) + " bytes");
  }
  check_section_size(kIdsTag, ids.size, h.count * 8, "count x 8-byte ids");
  check_section_size(kVecsTag, vecs.size, h.count * h.dim * 4, "count x dim x 4-byte floats");
  if (h.count > UINT32_MAX) {
    throw Error(ErrorCode::Corrupt, "index file: a flat index holds at most 4294967295 vectors");
  }
  count_ = size_t(h.count);
  dim_ = size_t(h.dim);
  if (reserve_all) FlatIndexAccess::reserve_load(index_, count_);
}

void FlatDecoder::feed(uint32_t tag, const uint8_t* data, size_t n) {
  try {
    if (tag == kIdsTag) feed_ids(data, n);
    if (tag == kVecsTag) feed_rows(data, n);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  }
}

void FlatDecoder::feed_ids(const uint8_t* data, size_t n) {
  while (n > 0) {
    const size_t at = size_t(id_bytes_ % 8);
    const size_t take = std::min(n, 8 - at);
    std::memcpy(id_carry_ + at, data, take);
    data += take;
    n -= take;
    id_bytes_ += take;
    if (at + take < 8) break;
    uint64_t id = 0;
    for (int b = 7; b >= 0; --b) id = id << 8 | id_carry_[b];  // little-endian on every host
    const size_t slot = size_t(id_bytes_ / 8 - 1);
    try {
      FlatIndexAccess::load_id(index_, id);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::OutOfMemory) throw;
      invalid_contents(std::string(e.what()) + " (slot " + std::to_string(slot) + ")");
    }
  }
}

void FlatDecoder::feed_rows(const uint8_t* data, size_t n) {
  const size_t row_bytes = dim_ * 4;
  while (n > 0) {
    const size_t slot = size_t(row_bytes_ / row_bytes);
    const size_t at = size_t(row_bytes_ % row_bytes);
    const size_t take = std::min(n, row_bytes - at);
    float* row = FlatIndexAccess::load_row(index_, slot);  // grows the storage by a chunk when needed
    std::memcpy(reinterpret_cast<uint8_t*>(row) + at, data, take);
    data += take;
    n -= take;
    row_bytes_ += take;
    if (at + take < row_bytes) break;
    if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
      for (size_t i = 0; i < dim_; ++i) {
        uint8_t* p = reinterpret_cast<uint8_t*>(row + i);
        std::swap(p[0], p[3]);
        std::swap(p[1], p[2]);
      }
    }
    try {
      FlatIndexAccess::check_loaded_row(index_, row);
    } catch (const Error& e) {
      invalid_contents(std::string(e.what()) + " (slot " + std::to_string(slot) + ")");
    }
  }
}

FlatIndex FlatDecoder::finish() {
  if (id_bytes_ != uint64_t(count_) * 8 || row_bytes_ != uint64_t(count_) * dim_ * 4) {
    throw Error(ErrorCode::Internal, "flat decoder finished before every id and row arrived");
  }
  FlatIndexAccess::finish_load(index_, count_);
  return std::move(index_);
}

FlatIndex load_flat(const Reader& r, Isa isa) {
  FlatDecoder decoder(r.head(), isa, /*reserve_all=*/true);
  for (uint32_t tag : {kIdsTag, kVecsTag}) {
    SectionCursor c = r.section(tag);
    const size_t n = c.remaining();
    decoder.feed(tag, c.bytes(n), n);
  }
  return decoder.finish();
}

}  // namespace io

std::vector<uint8_t> FlatIndex::serialize() const {
  const core::ReadLock lock = FlatIndexAccess::read_lock(*this);  // writers wait, searches go on
  return flat_writer(*this).to_bytes();
}

void FlatIndex::save(const std::string& path) const {
  const core::ReadLock lock = FlatIndexAccess::read_lock(*this);
  flat_writer(*this).write_file(path);
}

QUIVER_INDEX_LOAD_OVERLOADS(FlatIndex, io::load_flat);

}  // namespace quiver
