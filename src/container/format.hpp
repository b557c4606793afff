// The index file container: a small writer/reader that every index kind uses to store its
// own sections. Public description of the format and its error codes: quiver/index_file.hpp.
//
// Byte layout, format 1.0 (all integers little-endian, floats IEEE-754 binary32 LE):
//   0    8  magic 89 51 56 52 0D 0A 1A 0A  ("\x89QVR\r\n\x1a\n")
//   8    2  major version (1)        a reader rejects any other major version
//   10   2  minor version (0)        a reader accepts any minor version of its major
//   12   4  header size H (>= 112)   newer minors may append header fields
//   16   H  header:
//             +0  u32 kind            1 flat, 2 quantized, 3 hnsw
//             +4  u32 metric          0 l2, 1 ip, 2 cosine
//             +8  u64 dim
//             +16 u64 count           vectors stored
//             +24 u64 seed            (quantiser rotation, HNSW levels; 0 for flat)
//             +32 u64 file size       total bytes, so truncation is caught up front
//             +40 u32 section count S (<= 256)
//             +44 u32 flags           0
//             +48 8 x u64 params      meaning per kind (flat: all 0; quantized:
//                                     src/index/quantized/quantized_format.cpp)
//   16+H 32*S  section table, in offset order; each entry:
//             +0 u32 tag (four ASCII chars), +4 u32 flags (bit 0: required),
//             +8 u64 offset, +16 u64 size, +24 u32 CRC-32C of the payload, +28 u32 0
//   then 4   CRC-32C of bytes [0, end of table)
//   then     payloads at 64-byte aligned offsets, zero bytes in every gap, file ends at the
//            end of the last payload.
//
// The per-kind decoders live with their kind: io/flat_format.hpp, io/quantized_format.hpp,
// io/hnsw_format.hpp.
// Writing a new index kind:
//   io::Header h; h.kind = IndexKind::hnsw; h.metric = ...; h.dim = ...; h.count = ...;
//   h.params[0] = M; ...
//   io::Writer w(h);
//   auto& links = w.add_section(io::fourcc("LNK0"));   // required by default
//   links.u32s(data, n);                                // or u8/u32/u64/f32, bytes
//   std::vector<uint8_t> bytes = w.to_bytes();          // or w.write_file(path)
// Reading it back:
//   io::Reader r(data, size);          // validates container, sizes and every CRC
//   r.expect_kind(IndexKind::hnsw);
//   r.require_known_sections({io::fourcc("LNK0"), ...});
//   io::SectionCursor c = r.section(io::fourcc("LNK0"));
//   c.expect_size(n * 4); c.u32s(out, n); c.expect_end();
// Every cursor read is bounds-checked and throws Error(Corrupt) naming the section. Check a
// declared count against cursor.remaining() (or expect_size) before allocating for it.
// Adding a field later: new optional sections or appended header fields are a minor
// version bump; anything an old reader would misread is a major bump.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "quiver/index_file.hpp"
#include "quiver/isa.hpp"
#include "quiver/metric.hpp"

namespace quiver::io {

inline constexpr uint8_t kMagic[8] = {0x89, 'Q', 'V', 'R', '\r', '\n', 0x1A, '\n'};
inline constexpr size_t kPreambleBytes = 16;
inline constexpr uint32_t kHeaderBytesV1 = 112;
inline constexpr uint32_t kMaxHeaderBytes = 1u << 16;
inline constexpr uint32_t kMaxSections = 256;
inline constexpr size_t kTableEntryBytes = 32;
inline constexpr size_t kSectionAlign = 64;
inline constexpr uint32_t kSectionRequired = 1;

constexpr uint32_t fourcc(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
         uint32_t(uint8_t(s[3])) << 24;
}
// "VECS", or "0x........" when the tag is not printable.
std::string tag_name(uint32_t tag);

struct Header {
  IndexKind kind = IndexKind::flat;
  Metric metric = Metric::l2;
  uint64_t dim = 0;
  uint64_t count = 0;
  uint64_t seed = 0;
  uint32_t flags = 0;
  std::array<uint64_t, 8> params{};
};

// Little-endian payload of one section: bytes appended to it, or (produce()) a producer that
// emits the payload on demand straight from the index, so a large section is never copied
// into the writer (the file then needs the index and at most the output, not a third copy).
class SectionWriter {
 public:
  using Emit = std::function<void(const void* data, size_t n)>;
  // Calls emit() for consecutive pieces of the payload, the same bytes every time it runs (it
  // runs once for the CRC and once for the output).
  using Producer = std::function<void(const Emit& emit)>;

  SectionWriter(uint32_t tag, uint32_t flags) : tag_(tag), flags_(flags) {}
  // The payload is `size` bytes from `producer` (on a section nothing was appended to).
  void produce(uint64_t size, Producer producer);
  // Sends the payload to emit(): the appended bytes, or the producer's.
  void emit(const Emit& emit) const;
  uint32_t crc() const;
  void u8(uint8_t v) { data_.push_back(v); }
  void u32(uint32_t v);
  void u64(uint64_t v);
  void f32(float v);
  void u32s(const uint32_t* v, size_t n);
  void u64s(const uint64_t* v, size_t n);
  void f32s(const float* v, size_t n);
  void bytes(const void* v, size_t n);
  void reserve(size_t bytes) { data_.reserve(bytes); }
  uint64_t size() const noexcept { return producer_ ? produced_size_ : data_.size(); }
  uint32_t tag() const noexcept { return tag_; }
  uint32_t flags() const noexcept { return flags_; }
  const std::vector<uint8_t>& data() const noexcept { return data_; }

 private:
  uint32_t tag_;
  uint32_t flags_;
  std::vector<uint8_t> data_;
  Producer producer_;
  uint64_t produced_size_ = 0;
};

class Writer {
 public:
  explicit Writer(const Header& header) : header_(header) {}
  // Adds a section; the reference stays valid for the Writer's lifetime. Tags are unique.
  SectionWriter& add_section(uint32_t tag, uint32_t flags = kSectionRequired);
  // The whole file. Throws Error(OutOfMemory) if it cannot be allocated.
  std::vector<uint8_t> to_bytes() const;
  // Writes the file atomically (temp file in the same directory, then rename): on any
  // error the destination is untouched. Throws Error(IoError).
  void write_file(const std::string& path) const;

 private:
  std::vector<uint8_t> preamble(uint64_t* file_bytes) const;  // preamble, header, table, CRC
  Header header_;
  std::deque<SectionWriter> sections_;
};

struct SectionEntry {
  uint32_t tag;
  uint32_t flags;
  uint64_t offset;
  uint64_t size;
  uint32_t crc;
};

// Bounds-checked little-endian reads from one section's payload.
class SectionCursor {
 public:
  SectionCursor(uint32_t tag, const uint8_t* data, size_t size) : tag_(tag), p_(data), end_(data + size) {}
  size_t remaining() const noexcept { return size_t(end_ - p_); }
  uint8_t u8();
  uint32_t u32();
  uint64_t u64();
  float f32();
  void u32s(uint32_t* out, size_t n);
  void u64s(uint64_t* out, size_t n);
  void f32s(float* out, size_t n);
  const uint8_t* bytes(size_t n);  // a view of the next n bytes
  // Throws Error(Corrupt) unless exactly `bytes` remain (declared counts vs the payload).
  void expect_size(uint64_t bytes, const char* what) const;
  void expect_end() const;

 private:
  void need(uint64_t n) const;
  uint32_t tag_;
  const uint8_t* p_;
  const uint8_t* end_;
};

struct ReadOptions {
  // Off only in fuzzing builds that want to reach the decoders behind the checksums.
  bool verify_checksums = true;
};

// The container's head — preamble, header, section table and the table's CRC — and the
// checks on it, one function per step of the check order (format.cpp). The Reader runs them
// over a whole file; the stream loader (io/stream_loader.hpp) runs the same functions as the
// bytes arrive, so both find the same faults in the same order and say the same thing.
struct Head {
  uint16_t major = 0;
  uint16_t minor = 0;
  uint32_t raw_kind = 0;    // as stored; check_header_fields() sets header.kind
  uint32_t raw_metric = 0;  // as stored; check_header_fields() sets header.metric
  Header header;
  uint64_t header_end = 0;  // where the section table starts
  uint64_t table_end = 0;   // where the head's CRC is; the head is table_end + 4 bytes
  uint32_t section_count = 0;
  uint64_t file_bytes = 0;             // as declared in the header
  std::vector<SectionEntry> sections;  // filled by check_table()
  uint64_t head_bytes() const noexcept { return table_end + 4; }
};

// Steps 1-6 on the first `have` bytes of a file. `ended`: no byte follows them (a whole file,
// or a stream that has ended). Returns false when more bytes are needed to decide (only if
// !ended), true when the head is complete and its CRC matches; throws the step's error.
bool read_head(const uint8_t* data, size_t have, bool ended, const ReadOptions& options, Head& out);
// Step 7: the size the header declares against the `have` bytes the file has.
void check_file_size(const Head& head, uint64_t have);
// Step 8: kind, metric, dimension, count.
void check_header_fields(Head& head);
// Step 9: the section table (`head_data`: the head's bytes), in file order. For each entry
// that passes its own checks, padding(from, to) checks the gap before it, which must be zero
// (throw_padding_error), then the next entry is checked; last, no byte may follow the last
// section. Fills head.sections.
void check_table(const uint8_t* head_data, Head& head, void (*padding)(void* context, uint64_t from, uint64_t to),
                 void* context);
[[noreturn]] void throw_padding_error(uint64_t offset);
// Step 10, one section: `computed` is the CRC-32C of its payload.
void check_section_crc(const SectionEntry& section, uint32_t computed);
// The checks every kind's loader starts with.
void expect_kind(const Header& header, IndexKind kind);
void require_known_sections(const Head& head, std::initializer_list<uint32_t> known);
// The entry of section `tag`; throws Error(Corrupt) if the file has none.
const SectionEntry& required_section(const Head& head, uint32_t tag);
// The section with this tag, or nullptr.
const SectionEntry* find_section(const Head& head, uint32_t tag) noexcept;
// Throws Error(Corrupt) unless the section holds exactly `bytes` (declared counts vs payload).
void check_section_size(uint32_t tag, uint64_t size, uint64_t bytes, const char* what);

// Validates the whole container on construction (see the check order in format.cpp) and
// throws quiver::Error with its own code for each kind of damage. Keeps a view: `data`
// must outlive the Reader.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size, ReadOptions options = {});
  const Header& header() const noexcept { return head_.header; }
  const Head& head() const noexcept { return head_; }
  uint16_t version_major() const noexcept { return head_.major; }
  uint16_t version_minor() const noexcept { return head_.minor; }
  uint64_t file_bytes() const noexcept { return size_; }
  const std::vector<SectionEntry>& sections() const noexcept { return head_.sections; }
  const SectionEntry* find(uint32_t tag) const noexcept;
  // Throws Error(Corrupt) if the section is missing.
  SectionCursor section(uint32_t tag) const;
  // Throws Error(UnsupportedVersion) for a required section not in `known`.
  void require_known_sections(std::initializer_list<uint32_t> known) const;
  // Throws Error(InvalidArgument) if the file holds another kind of index.
  void expect_kind(IndexKind kind) const;
  IndexFileInfo info() const;

 private:
  const uint8_t* data_;
  size_t size_;
  Head head_;
};

// Hands each section's payload of a file in memory to decoder.feed(tag, data, n) in file order,
// whole: what a kind's whole-file loader does before its decoder's finish().
template <class Decoder>
void feed_sections(const Reader& reader, Decoder& decoder) {
  for (const SectionEntry& s : reader.head().sections) {
    SectionCursor c = reader.section(s.tag);
    const size_t n = c.remaining();
    decoder.feed(s.tag, c.bytes(n), n);
  }
}

// The kind stored in a file, after validating the whole container.
IndexKind index_kind_of(const uint8_t* data, size_t size);

}  // namespace quiver::io
