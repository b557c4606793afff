// Index files: one versioned, checksummed, little-endian format for every index kind, the
// same bytes on every target (a file written natively loads in every wasm variant and back).
//
// Layout (format 1.0; every integer little-endian, see src/container/format.hpp for the details):
//   preamble   magic "\x89QVR\r\n\x1a\n", u16 major, u16 minor, u32 header size
//   header     kind, metric, dim, count, seed, total file size, section count, flags,
//              8 kind-specific u64 parameters (newer minor versions may append fields)
//   table      one 32-byte entry per section: tag, flags, offset, size, CRC-32C
//   u32        CRC-32C of everything above
//   sections   64-byte aligned payloads, zero padding between them
//
// Loading validates everything before allocating: a reader accepts any 1.x file (it skips
// optional sections it does not know) and rejects a 2.x file. Errors (quiver::Error codes):
//   BAD_MAGIC            not an index file
//   TRUNCATED            the bytes end before the sizes the file declares
//   UNSUPPORTED_VERSION  a format major version this reader does not know, or a required
//                        section it does not understand
//   CHECKSUM_MISMATCH    a CRC-32C does not match (a flipped byte)
//   CORRUPT              impossible sizes, overlapping sections, invalid contents
//   UNKNOWN_INDEX_KIND   an index kind this build cannot load
//   IO_ERROR             a file could not be opened, read, written or renamed
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "quiver/metric.hpp"

namespace quiver {

// The built-in kinds' numbers in the file header. A program may register more kinds
// (src/index/common/kind_registry.hpp); the functions below answer for every kind it has.
enum class IndexKind : uint32_t { flat = 1, quantized = 2, hnsw = 3 };

// "flat", "quantized", "hnsw" (a registered kind's name; "unknown" for a number no kind has).
const char* index_kind_name(IndexKind kind) noexcept;
// Parses a kind's name; throws Error(InvalidArgument) naming the kinds there are otherwise.
IndexKind parse_index_kind(const std::string& name);
// Whether this program has the kind with this header number.
bool is_known_index_kind(uint32_t id) noexcept;
// The kinds this program has, for messages: "1 flat, 2 quantized, 3 hnsw".
std::string known_index_kinds();

struct IndexFileSection {
  std::string tag;      // four characters, e.g. "VECS"
  uint64_t offset = 0;  // from the start of the file
  uint64_t size = 0;
  uint32_t crc32c = 0;
  bool required = true;  // a reader that does not know a required section rejects the file
};

struct IndexFileInfo {
  uint16_t version_major = 0;
  uint16_t version_minor = 0;
  IndexKind kind = IndexKind::flat;
  Metric metric = Metric::l2;
  uint64_t dim = 0;
  uint64_t count = 0;
  uint64_t seed = 0;
  std::array<uint64_t, 8> params{};  // meaning depends on the kind (all zero for flat)
  uint64_t file_bytes = 0;
  std::vector<IndexFileSection> sections;
};

// The format version this build writes (and the major version it reads).
inline constexpr uint16_t kIndexFormatMajor = 1;
inline constexpr uint16_t kIndexFormatMinor = 0;

// Validates the container (magic, version, sizes, every CRC) and describes it. Does not
// decode kind-specific contents; load the index for that.
IndexFileInfo inspect_index(const uint8_t* data, size_t size);
IndexFileInfo inspect_index_file(const std::string& path);

}  // namespace quiver
