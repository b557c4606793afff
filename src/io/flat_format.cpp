// FlatIndex <-> index file. Kind 1 (flat), no parameters, seed 0, two required sections:
//   "IDS "  count x u64   caller id of each stored row, in slot order
//   "VECS"  count x dim x f32   the rows as stored (unit length under cosine), unpadded
// Loading decodes in bounded chunks straight into the index (no full temporary copy), and
// any invalid content (a duplicate id, a NaN, a zero row under cosine) is reported as
// Error(Corrupt) before the index is handed out.
#include <algorithm>
#include <vector>

#include "index/flat_state.hpp"
#include "io/file.hpp"
#include "io/flat_format.hpp"
#include "quiver/error.hpp"
#include "quiver/flat_index.hpp"

namespace quiver {
namespace {

constexpr uint32_t kIdsTag = io::fourcc("IDS ");
constexpr uint32_t kVecsTag = io::fourcc("VECS");

io::Writer flat_writer(const FlatIndex& index) {
  const core::ReadLock lock = FlatIndexAccess::read_lock(index);  // writers wait, searches go on
  const size_t n = FlatIndexAccess::size(index);
  io::Header h;
  h.kind = IndexKind::flat;
  h.metric = index.metric();
  h.dim = index.dim();
  h.count = n;
  io::Writer w(h);
  const size_t dim = index.dim();
  try {
    auto& ids = w.add_section(kIdsTag);
    ids.reserve(n * 8);
    for (size_t slot = 0; slot < n; ++slot) ids.u64(index.stored_id(slot));
    auto& vecs = w.add_section(kVecsTag);
    vecs.reserve(n * dim * 4);
    for (size_t slot = 0; slot < n; ++slot) vecs.f32s(index.stored_row(slot), dim);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory serialising the index");
  }
  return w;
}

}  // namespace

namespace io {

FlatIndex load_flat(const Reader& r, Isa isa) {
  r.expect_kind(IndexKind::flat);
  r.require_known_sections({kIdsTag, kVecsTag});
  const Header& h = r.header();
  SectionCursor ids = r.section(kIdsTag);
  SectionCursor vecs = r.section(kVecsTag);
  // Compare the declared count with the payloads before multiplying or allocating.
  if (h.count > ids.remaining() / 8 || h.count > vecs.remaining() / (4 * h.dim)) {
    throw Error(ErrorCode::Corrupt, "index file: impossible vector count " + std::to_string(h.count) +
                                        ": the IDS and VECS sections hold " +
                                        std::to_string(ids.remaining()) + " and " +
                                        std::to_string(vecs.remaining()) + " bytes");
  }
  ids.expect_size(h.count * 8, "count x 8-byte ids");
  vecs.expect_size(h.count * h.dim * 4, "count x dim x 4-byte floats");
  if (h.count > UINT32_MAX) {
    throw Error(ErrorCode::Corrupt, "index file: a flat index holds at most 4294967295 vectors");
  }
  const size_t count = size_t(h.count);
  const size_t dim = size_t(h.dim);
  FlatIndex index({dim, h.metric}, isa);
  try {
    index.reserve(count);
    const size_t chunk = std::max<size_t>(1, (size_t(1) << 20) / (dim * 4));
    std::vector<uint64_t> id_buf(std::min(chunk, count));
    std::vector<float> row_buf(std::min(chunk, count) * dim);
    for (size_t done = 0; done < count;) {
      const size_t n = std::min(chunk, count - done);
      ids.u64s(id_buf.data(), n);
      vecs.f32s(row_buf.data(), n * dim);
      index.add_stored(id_buf.data(), row_buf.data(), n);
      done += n;
    }
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory loading the index");
  } catch (const Error& e) {
    if (e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::UnsupportedIsa) throw;
    throw Error(ErrorCode::Corrupt, std::string("index file: invalid contents: ") + e.what());
  }
  return index;
}

}  // namespace io

std::vector<uint8_t> FlatIndex::serialize() const { return flat_writer(*this).to_bytes(); }

void FlatIndex::save(const std::string& path) const { flat_writer(*this).write_file(path); }

FlatIndex FlatIndex::load(const uint8_t* data, size_t size, Isa isa) {
  return io::load_flat(io::Reader(data, size), isa);
}

FlatIndex FlatIndex::load(const uint8_t* data, size_t size) { return load(data, size, active_isa()); }

FlatIndex FlatIndex::load(const std::vector<uint8_t>& bytes) { return load(bytes.data(), bytes.size()); }

FlatIndex FlatIndex::load_file(const std::string& path) {
  io::MappedFile file(path);
  return load(file.data(), file.size());
}

}  // namespace quiver
