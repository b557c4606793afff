// The index file container: writer and validating reader. Layout: io/format.hpp.
//
// Reader check order (each failure has its own code, see quiver/index_file.hpp):
//   1. magic (over the bytes present)                 BAD_MAGIC
//   2. preamble present                               TRUNCATED
//   3. major version                                  UNSUPPORTED_VERSION
//   4. header size, section count within limits       CORRUPT
//   5. header and table present                       TRUNCATED
//   6. CRC of preamble + header + table               CHECKSUM_MISMATCH
//   7. declared file size vs bytes present            TRUNCATED / CORRUPT
//   8. kind, metric, dim                              UNKNOWN_INDEX_KIND / CORRUPT
//   9. section table: bounds, order, padding          CORRUPT
//  10. CRC of every section                           CHECKSUM_MISMATCH
// The declared sizes are compared with the bytes present in 64-bit arithmetic (size_t is 32
// bits in wasm) before anything is allocated.
#include "container/format.hpp"

#include <cstring>
#include <new>
#include <string>

#include "base/little_endian.hpp"
#include "container/crc32c.hpp"
#include "container/file.hpp"
#include "quiver/error.hpp"

namespace quiver::io {
namespace {

using le::put_u16;
using le::put_u32;
using le::put_u64;
constexpr auto get_u16 = le::u16;
constexpr auto get_u32 = le::u32;
constexpr auto get_u64 = le::u64;

uint64_t align_up(uint64_t x) { return (x + kSectionAlign - 1) / kSectionAlign * kSectionAlign; }

std::string hex32(uint32_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 7; i >= 0; --i) s += digits[(v >> (4 * i)) & 0xF];
  return s;
}

[[noreturn]] void fail(ErrorCode code, const std::string& message) { throw Error(code, "index file: " + message); }

constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

}  // namespace

std::string tag_name(uint32_t tag) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    const char c = char((tag >> (8 * i)) & 0xFF);
    if (c < 0x20 || c > 0x7E) return hex32(tag);
    s += c;
  }
  return s;
}

// ---- SectionWriter ----

void SectionWriter::u32(uint32_t v) { put_u32(data_, v); }
void SectionWriter::u64(uint64_t v) { put_u64(data_, v); }
void SectionWriter::f32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put_u32(data_, bits);
}
void SectionWriter::bytes(const void* v, size_t n) {
  const auto* p = static_cast<const uint8_t*>(v);
  data_.insert(data_.end(), p, p + n);
}
void SectionWriter::u32s(const uint32_t* v, size_t n) {
  if (kLittleEndianHost) return bytes(v, n * 4);
  for (size_t i = 0; i < n; ++i) u32(v[i]);
}
void SectionWriter::u64s(const uint64_t* v, size_t n) {
  if (kLittleEndianHost) return bytes(v, n * 8);
  for (size_t i = 0; i < n; ++i) u64(v[i]);
}
void SectionWriter::f32s(const float* v, size_t n) {
  if (kLittleEndianHost) return bytes(v, n * 4);
  for (size_t i = 0; i < n; ++i) f32(v[i]);
}

void SectionWriter::produce(uint64_t size, Producer producer) {
  if (!data_.empty() || producer_) throw Error(ErrorCode::Internal, "section " + tag_name(tag_) + " filled twice");
  producer_ = std::move(producer);
  produced_size_ = size;
}

void SectionWriter::emit(const Emit& emit) const {
  if (!producer_) {
    if (!data_.empty()) emit(data_.data(), data_.size());
    return;
  }
  uint64_t emitted = 0;
  producer_([&](const void* p, size_t n) {
    emitted += n;
    emit(p, n);
  });
  if (emitted != produced_size_) {
    throw Error(ErrorCode::Internal, "section " + tag_name(tag_) + " produced " + std::to_string(emitted) +
                                         " bytes, not the " + std::to_string(produced_size_) + " it declared");
  }
}

uint32_t SectionWriter::crc() const {
  uint32_t crc = 0;
  emit([&](const void* p, size_t n) { crc = crc32c_update(crc, p, n); });
  return crc;
}

// ---- Writer ----

SectionWriter& Writer::add_section(uint32_t tag, uint32_t flags) {
  for (const auto& s : sections_) {
    if (s.tag() == tag) throw Error(ErrorCode::InvalidArgument, "duplicate section " + tag_name(tag));
  }
  if (sections_.size() >= kMaxSections) {
    throw Error(ErrorCode::InvalidArgument, "too many sections in one index file");
  }
  return sections_.emplace_back(tag, flags);
}

std::vector<uint8_t> Writer::preamble(uint64_t* file_bytes) const {
  const uint64_t table_end = kPreambleBytes + kHeaderBytesV1 + kTableEntryBytes * sections_.size();
  std::vector<uint64_t> offsets;
  uint64_t end = table_end + 4;
  for (const auto& s : sections_) {
    const uint64_t offset = align_up(end);
    offsets.push_back(offset);
    end = offset + s.size();
  }
  *file_bytes = end;

  std::vector<uint8_t> out;
  out.reserve(table_end + 4);
  out.insert(out.end(), kMagic, kMagic + 8);
  put_u16(out, kIndexFormatMajor);
  put_u16(out, kIndexFormatMinor);
  put_u32(out, kHeaderBytesV1);
  put_u32(out, uint32_t(header_.kind));
  put_u32(out, uint32_t(header_.metric));
  put_u64(out, header_.dim);
  put_u64(out, header_.count);
  put_u64(out, header_.seed);
  put_u64(out, end);
  put_u32(out, uint32_t(sections_.size()));
  put_u32(out, header_.flags);
  for (uint64_t p : header_.params) put_u64(out, p);
  for (size_t i = 0; i < sections_.size(); ++i) {
    const auto& s = sections_[i];
    put_u32(out, s.tag());
    put_u32(out, s.flags());
    put_u64(out, offsets[i]);
    put_u64(out, s.size());
    put_u32(out, s.crc());
    put_u32(out, 0);
  }
  put_u32(out, crc32c(out.data(), out.size()));
  return out;
}

std::vector<uint8_t> Writer::to_bytes() const {
  try {
    uint64_t total = 0;
    std::vector<uint8_t> out = preamble(&total);
    if (total > SIZE_MAX) throw std::bad_alloc();
    out.reserve(size_t(total));
    for (const auto& s : sections_) {
      out.resize(size_t(align_up(out.size())), 0);
      s.emit([&](const void* p, size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        out.insert(out.end(), b, b + n);
      });
    }
    return out;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory serialising the index");
  }
}

void Writer::write_file(const std::string& path) const {
  uint64_t total = 0;
  const std::vector<uint8_t> head = preamble(&total);
  AtomicFileWriter file(path);
  file.write(head.data(), head.size());
  uint64_t at = head.size();
  static const uint8_t zeros[kSectionAlign] = {};
  for (const auto& s : sections_) {
    const uint64_t pad = align_up(at) - at;
    file.write(zeros, size_t(pad));
    s.emit([&](const void* p, size_t n) { file.write(p, n); });
    at += pad + s.size();
  }
  file.commit();
}

// ---- SectionCursor ----

void SectionCursor::need(uint64_t n) const {
  if (n > remaining()) {
    fail(ErrorCode::Corrupt, "section " + tag_name(tag_) + " ends early: needs " + std::to_string(n) +
                                 " more bytes, has " + std::to_string(remaining()));
  }
}
uint8_t SectionCursor::u8() {
  need(1);
  return *p_++;
}
uint32_t SectionCursor::u32() {
  need(4);
  const uint32_t v = get_u32(p_);
  p_ += 4;
  return v;
}
uint64_t SectionCursor::u64() {
  need(8);
  const uint64_t v = get_u64(p_);
  p_ += 8;
  return v;
}
float SectionCursor::f32() {
  const uint32_t bits = u32();
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
const uint8_t* SectionCursor::bytes(size_t n) {
  need(n);
  const uint8_t* p = p_;
  p_ += n;
  return p;
}
void SectionCursor::u32s(uint32_t* out, size_t n) {
  need(uint64_t(n) * 4);
  if (n == 0) return;  // `out` may be null (an empty vector's data())
  if (kLittleEndianHost) {
    std::memcpy(out, bytes(n * 4), n * 4);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = u32();
  }
}
void SectionCursor::u64s(uint64_t* out, size_t n) {
  need(uint64_t(n) * 8);
  if (n == 0) return;  // `out` may be null (an empty vector's data())
  if (kLittleEndianHost) {
    std::memcpy(out, bytes(n * 8), n * 8);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = u64();
  }
}
void SectionCursor::f32s(float* out, size_t n) {
  need(uint64_t(n) * 4);
  if (n == 0) return;  // `out` may be null (an empty vector's data())
  if (kLittleEndianHost) {
    std::memcpy(out, bytes(n * 4), n * 4);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = f32();
  }
}
void check_section_size(uint32_t tag, uint64_t size, uint64_t bytes, const char* what) {
  if (bytes != size) {
    fail(ErrorCode::Corrupt, "section " + tag_name(tag) + " holds " + std::to_string(size) +
                                 " bytes but the header implies " + std::to_string(bytes) + " (" + what + ")");
  }
}
void SectionCursor::expect_size(uint64_t bytes, const char* what) const {
  check_section_size(tag_, remaining(), bytes, what);
}
void SectionCursor::expect_end() const {
  if (remaining() != 0) {
    fail(ErrorCode::Corrupt,
         "section " + tag_name(tag_) + " has " + std::to_string(remaining()) + " unexpected trailing bytes");
  }
}

// ---- Reader ----

bool read_head(const uint8_t* data, size_t have, bool ended, const ReadOptions& options, Head& out) {
  // 1-2. magic, preamble
  if (have > 0 && std::memcmp(data, kMagic, have < 8 ? have : 8) != 0) {
    fail(ErrorCode::BadMagic, "not a quiver index (the first bytes are not the magic \\x89QVR\\r\\n\\x1a\\n)");
  }
  if (have < kPreambleBytes) {
    if (!ended) return false;
    fail(ErrorCode::Truncated, "truncated: " + std::to_string(have) + " bytes, shorter than the 16-byte preamble");
  }
  // 3. version
  out.major = get_u16(data + 8);
  out.minor = get_u16(data + 10);
  if (out.major != kIndexFormatMajor) {
    fail(ErrorCode::UnsupportedVersion,
         "format version " + std::to_string(out.major) + "." + std::to_string(out.minor) +
             " is not supported; this reader reads version " + std::to_string(kIndexFormatMajor) + ".x" +
             (out.major > kIndexFormatMajor ? " (the file was written by a newer quiver)" : ""));
  }
  // 4-5. header and table sizes
  const uint32_t header_bytes = get_u32(data + 12);
  if (header_bytes < kHeaderBytesV1 || header_bytes > kMaxHeaderBytes) {
    fail(ErrorCode::Corrupt, "impossible header size " + std::to_string(header_bytes) + " (expected " +
                                 std::to_string(kHeaderBytesV1) + " to " + std::to_string(kMaxHeaderBytes) + ")");
  }
  out.header_end = kPreambleBytes + uint64_t(header_bytes);
  if (have < out.header_end) {
    if (!ended) return false;
    fail(ErrorCode::Truncated, "truncated: the header needs " + std::to_string(out.header_end) + " bytes, only " +
                                   std::to_string(have) + " present");
  }
  const uint8_t* h = data + kPreambleBytes;
  out.section_count = get_u32(h + 40);
  if (out.section_count > kMaxSections) {
    fail(ErrorCode::Corrupt, "impossible section count " + std::to_string(out.section_count) + " (at most " +
                                 std::to_string(kMaxSections) + ")");
  }
  out.table_end = out.header_end + kTableEntryBytes * uint64_t(out.section_count);
  if (have < out.table_end + 4) {
    if (!ended) return false;
    fail(ErrorCode::Truncated, "truncated: the section table needs " + std::to_string(out.table_end + 4) +
                                   " bytes, only " + std::to_string(have) + " present");
  }
  // 6. checksum of everything so far
  const uint32_t stored_crc = get_u32(data + out.table_end);
  const uint32_t actual_crc = crc32c(data, size_t(out.table_end));
  if (options.verify_checksums && stored_crc != actual_crc) {
    fail(ErrorCode::ChecksumMismatch, "header checksum mismatch (stored " + hex32(stored_crc) + ", computed " +
                                          hex32(actual_crc) + "): the file is damaged");
  }
  out.file_bytes = get_u64(h + 32);
  out.raw_kind = get_u32(h);
  out.raw_metric = get_u32(h + 4);
  out.header.dim = get_u64(h + 8);
  out.header.count = get_u64(h + 16);
  out.header.seed = get_u64(h + 24);
  out.header.flags = get_u32(h + 44);
  for (size_t i = 0; i < out.header.params.size(); ++i) out.header.params[i] = get_u64(h + 48 + 8 * i);
  return true;
}

void check_file_size(const Head& head, uint64_t have) {
  // 7. declared total size
  if (head.file_bytes > have) {
    fail(ErrorCode::Truncated, "truncated: the header declares " + std::to_string(head.file_bytes) + " bytes, only " +
                                   std::to_string(have) + " present");
  }
  if (head.file_bytes < have) {
    fail(ErrorCode::Corrupt, std::to_string(have - head.file_bytes) +
                                 " unexpected bytes after the declared end of the file (" +
                                 std::to_string(head.file_bytes) + " bytes)");
  }
}

void check_header_fields(Head& head) {
  // 8. header fields
  // The kinds this program has: the index kind registry answers (quiver/index_file.hpp).
  if (!is_known_index_kind(head.raw_kind)) {
    fail(ErrorCode::UnknownIndexKind,
         "unknown index kind " + std::to_string(head.raw_kind) + " (this reader knows " + known_index_kinds() + ")");
  }
  head.header.kind = IndexKind(head.raw_kind);
  if (head.raw_metric > 2) fail(ErrorCode::Corrupt, "unknown metric " + std::to_string(head.raw_metric));
  head.header.metric = Metric(head.raw_metric);
  if (head.header.dim == 0 || head.header.dim > (1u << 24)) {
    fail(ErrorCode::Corrupt, "impossible dimension " + std::to_string(head.header.dim) + " (expected 1 to 16777216)");
  }
  if (head.header.count > head.file_bytes) {  // every stored vector takes at least one byte
    fail(ErrorCode::Corrupt, "impossible vector count " + std::to_string(head.header.count) + " for a " +
                                 std::to_string(head.file_bytes) + "-byte file");
  }
}

void throw_padding_error(uint64_t offset) {
  fail(ErrorCode::Corrupt, "non-zero padding byte at offset " + std::to_string(offset));
}

void check_table(const uint8_t* head_data, Head& head, void (*padding)(void* context, uint64_t from, uint64_t to),
                 void* context) {
  // 9. section table
  const uint64_t file_bytes = head.file_bytes;
  head.sections.clear();
  head.sections.reserve(head.section_count);
  uint64_t prev_end = head.table_end + 4;
  for (uint32_t i = 0; i < head.section_count; ++i) {
    const uint8_t* e = head_data + head.header_end + kTableEntryBytes * i;
    SectionEntry s{get_u32(e), get_u32(e + 4), get_u64(e + 8), get_u64(e + 16), get_u32(e + 24)};
    const std::string name = "section " + tag_name(s.tag);
    for (const auto& seen : head.sections) {
      if (seen.tag == s.tag) fail(ErrorCode::Corrupt, name + " appears twice");
    }
    if (s.offset % kSectionAlign != 0 || s.offset < prev_end) {
      fail(ErrorCode::Corrupt, name + " has an impossible offset " + std::to_string(s.offset) +
                                   " (must be 64-byte aligned, after the previous section)");
    }
    if (s.offset > file_bytes || s.size > file_bytes - s.offset) {
      fail(ErrorCode::Corrupt, name + " has an impossible size: " + std::to_string(s.size) + " bytes at offset " +
                                   std::to_string(s.offset) + " in a " + std::to_string(file_bytes) + "-byte file");
    }
    padding(context, prev_end, s.offset);
    prev_end = s.offset + s.size;
    head.sections.push_back(s);
  }
  if (prev_end != file_bytes) {
    fail(ErrorCode::Corrupt,
         std::to_string(file_bytes - prev_end) + " bytes after the last section that no section claims");
  }
}

void check_section_crc(const SectionEntry& s, uint32_t computed) {
  if (computed != s.crc) {
    fail(ErrorCode::ChecksumMismatch, "section " + tag_name(s.tag) + " checksum mismatch (stored " + hex32(s.crc) +
                                          ", computed " + hex32(computed) + "): the file is damaged");
  }
}

Reader::Reader(const uint8_t* data, size_t size, ReadOptions options) : data_(data), size_(size) {
  if (size > 0 && data == nullptr) throw Error(ErrorCode::InvalidArgument, "index bytes are null");
  read_head(data, size, /*ended=*/true, options, head_);
  check_file_size(head_, size);
  check_header_fields(head_);
  check_table(
      data, head_,
      [](void* bytes, uint64_t from, uint64_t to) {
        const uint8_t* p = static_cast<const uint8_t*>(bytes);
        for (uint64_t at = from; at < to; ++at) {
          if (p[at] != 0) throw_padding_error(at);
        }
      },
      const_cast<uint8_t*>(data));
  // 10. payload checksums
  if (options.verify_checksums) {
    for (const auto& s : head_.sections) check_section_crc(s, crc32c(data + s.offset, size_t(s.size)));
  }
}

const SectionEntry* find_section(const Head& head, uint32_t tag) noexcept {
  for (const auto& s : head.sections) {
    if (s.tag == tag) return &s;
  }
  return nullptr;
}

const SectionEntry* Reader::find(uint32_t tag) const noexcept { return find_section(head_, tag); }

const SectionEntry& required_section(const Head& head, uint32_t tag) {
  if (const SectionEntry* s = find_section(head, tag)) return *s;
  fail(ErrorCode::Corrupt, "required section " + tag_name(tag) + " is missing");
}

SectionCursor Reader::section(uint32_t tag) const {
  const SectionEntry& s = required_section(head_, tag);
  return SectionCursor(tag, data_ + s.offset, size_t(s.size));
}

void require_known_sections(const Head& head, std::initializer_list<uint32_t> known) {
  for (const auto& s : head.sections) {
    if (!(s.flags & kSectionRequired)) continue;
    bool ok = false;
    for (uint32_t k : known) ok = ok || k == s.tag;
    if (!ok) {
      fail(ErrorCode::UnsupportedVersion,
           "required section " + tag_name(s.tag) + " is not understood by this reader (file format " +
               std::to_string(head.major) + "." + std::to_string(head.minor) + ", reader " +
               std::to_string(kIndexFormatMajor) + "." + std::to_string(kIndexFormatMinor) + ")");
    }
  }
}

void expect_kind(const Header& header, IndexKind kind) {
  if (header.kind != kind) {
    throw Error(ErrorCode::InvalidArgument, std::string("index file holds a ") + index_kind_name(header.kind) +
                                                " index, not a " + index_kind_name(kind) + " index");
  }
}

void Reader::require_known_sections(std::initializer_list<uint32_t> known) const {
  io::require_known_sections(head_, known);
}

void Reader::expect_kind(IndexKind kind) const { io::expect_kind(head_.header, kind); }

IndexFileInfo Reader::info() const {
  IndexFileInfo info;
  const Header& h = head_.header;
  info.version_major = head_.major;
  info.version_minor = head_.minor;
  info.kind = h.kind;
  info.metric = h.metric;
  info.dim = h.dim;
  info.count = h.count;
  info.seed = h.seed;
  info.params = h.params;
  info.file_bytes = size_;
  for (const auto& s : head_.sections) {
    info.sections.push_back({tag_name(s.tag), s.offset, s.size, s.crc, (s.flags & kSectionRequired) != 0});
  }
  return info;
}

IndexKind index_kind_of(const uint8_t* data, size_t size) { return Reader(data, size).header().kind; }

}  // namespace quiver::io

namespace quiver {

IndexFileInfo inspect_index(const uint8_t* data, size_t size) { return io::Reader(data, size).info(); }

IndexFileInfo inspect_index_file(const std::string& path) {
  io::MappedFile file(path);
  return inspect_index(file.data(), file.size());
}

}  // namespace quiver
