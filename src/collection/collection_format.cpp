// A collection's file (Collection::serialize / save / load): the index's own file with one
// more section, optional so that any reader of the index kind still loads it as a plain index.
//
// Section "COLL" (little-endian), version 1:
//   u32 version (1)
//   u32 F, the declared fields; per field: u8 type (quiver::FieldType), u8 name bytes, name
//   u64 R, the rows; per row:
//     u16 id key bytes K (0: a free row, nothing follows)
//     K   id key: 0x00 + u64 integer id, or 0x01 + the UTF-8 string id
//     u8  namespace bytes N, then N bytes
//     u32 metadata bytes M, then M bytes of compact JSON (0: none)
// Row r's vector is the index's id r. Loading checks every field declaration, id, namespace
// and record by the rules a write checks (an id present once; a live row in the index and a
// free row not; as many live rows as the index holds vectors) and rebuilds the column indexes
// from the records.
#include <cstring>

#include "collection/collection_impl.hpp"
#include "collection/metadata.hpp"
#include "container/file.hpp"
#include "container/format.hpp"
#include "quiver/error.hpp"

namespace quiver {

namespace {

constexpr uint32_t kCollectionTag = io::fourcc("COLL");
constexpr uint32_t kCollectionVersion = 1;

void append_u16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
void append_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(uint8_t(v >> (8 * b)));
}
void append_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int b = 0; b < 8; ++b) out.push_back(uint8_t(v >> (8 * b)));
}
void append_bytes(std::vector<uint8_t>& out, const std::string& s) { out.insert(out.end(), s.begin(), s.end()); }

}  // namespace

std::vector<uint8_t> Collection::Impl::file_section() const {
  const Impl& m = *this;
  std::vector<uint8_t> out;
  append_u32(out, kCollectionVersion);
  append_u32(out, uint32_t(m.columns.fields().size()));
  for (const FieldSpec& f : m.columns.fields()) {
    out.push_back(uint8_t(f.type));
    out.push_back(uint8_t(f.name.size()));
    append_bytes(out, f.name);
  }
  append_u64(out, m.rows());
  for (uint32_t row = 0; row < m.rows(); ++row) {
    const std::string& key = m.keys[row];
    append_u16(out, uint16_t(key.size()));
    if (key.empty()) continue;
    append_bytes(out, key);
    const uint32_t ns = m.columns.ns().codes[row];
    const std::string& ns_text = ns == 0 ? std::string() : m.columns.ns().dict.text(ns);
    out.push_back(uint8_t(ns_text.size()));
    append_bytes(out, ns_text);
    append_u32(out, uint32_t(m.metadata[row].size()));
    append_bytes(out, m.metadata[row]);
  }
  return out;
}

namespace {

// Every fault of the section is Error(Corrupt) "collection section: ...".
[[noreturn]] void corrupt(const std::string& what) { throw Error(ErrorCode::Corrupt, "collection section: " + what); }

std::string text(io::SectionCursor& c, size_t n) {
  const uint8_t* p = c.bytes(n);
  return std::string(reinterpret_cast<const char*>(p), n);
}

}  // namespace

Collection::Collection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::vector<uint8_t> Collection::serialize() const {
  core::ReadLock guard(impl_->lock);
  const std::vector<uint8_t> index_bytes = impl_->index->serialize();
  const std::vector<uint8_t> section = impl_->file_section();
  // The index's sections as they are, then ours.
  const io::Reader r(index_bytes.data(), index_bytes.size());
  io::Writer w(r.header());
  for (const io::SectionEntry& s : r.sections()) {
    const uint8_t* payload = index_bytes.data() + s.offset;
    const size_t size = size_t(s.size);
    w.add_section(s.tag, s.flags).produce(size, [payload, size](const io::SectionWriter::Emit& emit) {
      emit(payload, size);
    });
  }
  w.add_section(kCollectionTag, 0).produce(section.size(), [&section](const io::SectionWriter::Emit& emit) {
    emit(section.data(), section.size());
  });
  return w.to_bytes();
}

void Collection::save(const std::string& path) const {
  const std::vector<uint8_t> bytes = serialize();
  io::write_file_atomic(path, bytes.data(), bytes.size());
}

Collection Collection::load(const uint8_t* data, size_t size) {
  const io::Reader r(data, size);  // the container: magic, version, sizes, every CRC
  const io::SectionEntry* entry = r.find(kCollectionTag);
  if (entry == nullptr)
    throw Error(ErrorCode::InvalidArgument,
                "this index file holds no collection (it was saved by an index, not by a collection)");
  std::unique_ptr<AnyIndex> index = load_any_index(data, size);

  io::SectionCursor c(kCollectionTag, data + entry->offset, size_t(entry->size));
  const uint32_t version = c.u32();
  if (version != kCollectionVersion)
    throw Error(ErrorCode::UnsupportedVersion, "collection section version " + std::to_string(version) +
                                                   " is not understood by this reader (it reads version 1)");
  CollectionOptions o;
  o.dim = index->dim();
  o.metric = index->metric();
  o.index = index_kind_name(index->kind());
  const uint32_t fields = c.u32();
  if (fields > kMaxDeclaredFields) corrupt(std::to_string(fields) + " declared fields");
  for (uint32_t i = 0; i < fields; ++i) {
    FieldSpec f;
    f.type = FieldType(c.u8());
    f.name = text(c, c.u8());
    o.fields.push_back(std::move(f));
  }
  std::unique_ptr<Impl> m;
  try {
    m = std::make_unique<Impl>(o);  // checks the declarations
  } catch (const Error& e) {
    if (e.code() != ErrorCode::InvalidArgument) throw;
    corrupt(e.what());
  }
  m->index = std::move(index);

  const uint64_t rows = c.u64();
  // Every row takes at least its 2-byte key length.
  if (rows > kMaxCollectionRows || rows > c.remaining() / 2) corrupt(std::to_string(rows) + " rows");
  m->keys.resize(size_t(rows));
  m->metadata.resize(size_t(rows));
  m->live.assign(size_t((rows + 63) / 64), 0);
  std::vector<collection::StagedValues> staged;  // the live rows', in row order
  std::vector<uint32_t> live_rows;
  for (uint32_t row = 0; row < rows; ++row) {
    // Two statements: the operands of | are evaluated in an unspecified order.
    const uint16_t key_low = c.u8();
    const uint16_t key_bytes = uint16_t(key_low | (uint16_t(c.u8()) << 8));
    if (key_bytes == 0) {
      if (m->index->contains(row)) corrupt("free row " + std::to_string(row) + " has a vector in the index");
      continue;
    }
    std::string key = text(c, key_bytes);
    const bool integer = key[0] == '\0' && key.size() == 9;
    if (!integer && key[0] != '\1') corrupt("row " + std::to_string(row) + " holds an id of unknown type");
    std::string ns, canonical;
    try {
      const RecordId id = collection::id_from_key(key);
      collection::check_record_id(id);
      const std::string name = "row " + std::to_string(row) + " (id " + record_id_text(id) + ")";
      ns = text(c, c.u8());
      collection::check_namespace(ns, name);
      const uint32_t meta_bytes = c.u32();
      const std::string meta = text(c, meta_bytes);
      const collection::Json parsed = collection::check_metadata(meta, name, canonical);
      if (canonical != meta) corrupt(name + ": the metadata is not stored as compact JSON");
      staged.push_back(m->columns.stage(parsed, ns, name));
      live_rows.push_back(row);
      if (!m->index->contains(row)) corrupt(name + " has no vector in the index");
    } catch (const Error& e) {
      if (e.code() != ErrorCode::InvalidArgument) throw;
      corrupt(e.what());
    }
    if (!m->row_of.emplace(key, row).second)
      corrupt("id " + record_id_text(collection::id_from_key(key)) + " is held by two rows");
    m->keys[row] = std::move(key);
    m->metadata[row] = std::move(canonical);
    m->live[row >> 6] |= uint64_t(1) << (row & 63);
    ++m->size;
  }
  c.expect_end();
  if (m->size != m->index->size())
    corrupt(std::to_string(m->size) + " records for the index's " + std::to_string(m->index->size()) + " vectors");
  m->columns.reserve(size_t(rows), staged);
  for (size_t i = 0; i < staged.size(); ++i) m->columns.set(live_rows[i], staged[i]);
  for (uint32_t row = 0; row < rows; ++row)
    if (m->keys[row].empty()) m->free_rows.push_back(row);
  // Free rows are reused from the back; keep the order writes leave them in (any order is valid).
  return Collection(std::move(m));
}

Collection Collection::load_file(const std::string& path) {
  io::MappedFile file(path);
  try {
    return load(file.data(), file.size());
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
}

}  // namespace quiver
