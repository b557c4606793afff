// Helpers for the index file suites: little-endian field access, an independent
// re-implementation of the container layout (io/format.hpp) to craft files with valid
// checksums, and a way to capture the quiver::Error a call throws.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "container/crc32c.hpp"
#include "quiver/error.hpp"

namespace quiver::test {

using Bytes = std::vector<uint8_t>;

// A file name in the test temp directory that no other process uses: ctest runs the suite at
// several ISA levels at once (and in wasm every process has the same pid), so a fixed name races.
inline std::string unique_temp_path(const std::string& stem) {
  static int counter = 0;
  const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
  return testing::TempDir() + stem + "_" + std::to_string(ticks) + "_" + std::to_string(++counter) + ".qvr";
}

inline uint32_t rd32(const Bytes& b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
inline uint64_t rd64(const Bytes& b, size_t at) { return uint64_t(rd32(b, at)) | uint64_t(rd32(b, at + 4)) << 32; }
inline void wr16(Bytes& b, size_t at, uint16_t v) {
  b[at] = uint8_t(v);
  b[at + 1] = uint8_t(v >> 8);
}
inline void wr32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
inline void wr64(Bytes& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
inline void push32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
inline void push64(Bytes& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

// An independent re-implementation of the layout (io/format.hpp), so that tests can craft
// files a buggy or future writer might produce, with valid checksums.
struct RawSection {
  uint32_t tag;
  uint32_t flags;
  Bytes payload;
};
struct RawFile {
  uint16_t major = 1, minor = 0;
  Bytes header;  // the header block (>= 112 bytes); file size and section count are filled in
  std::vector<RawSection> sections;
};

inline RawFile split(const Bytes& file) {
  RawFile raw;
  raw.major = uint16_t(file[8] | file[9] << 8);
  raw.minor = uint16_t(file[10] | file[11] << 8);
  const uint32_t hb = rd32(file, 12);
  raw.header.assign(file.begin() + 16, file.begin() + 16 + hb);
  const uint32_t n = rd32(file, 16 + 40);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = 16 + hb + 32 * i;
    const uint64_t off = rd64(file, e + 8), size = rd64(file, e + 16);
    raw.sections.push_back({rd32(file, e), rd32(file, e + 4), Bytes(file.begin() + off, file.begin() + off + size)});
  }
  return raw;
}

inline Bytes assemble(const RawFile& raw) {
  const size_t table_end = 16 + raw.header.size() + 32 * raw.sections.size();
  std::vector<uint64_t> offsets;
  uint64_t end = table_end + 4;
  for (const auto& s : raw.sections) {
    end = (end + 63) / 64 * 64;
    offsets.push_back(end);
    end += s.payload.size();
  }
  Bytes out = {0x89, 'Q', 'V', 'R', '\r', '\n', 0x1A, '\n', 0, 0, 0, 0, 0, 0, 0, 0};
  wr16(out, 8, raw.major);
  wr16(out, 10, raw.minor);
  wr32(out, 12, uint32_t(raw.header.size()));
  out.insert(out.end(), raw.header.begin(), raw.header.end());
  wr64(out, 16 + 32, end);
  wr32(out, 16 + 40, uint32_t(raw.sections.size()));
  for (size_t i = 0; i < raw.sections.size(); ++i) {
    const auto& s = raw.sections[i];
    push32(out, s.tag);
    push32(out, s.flags);
    push64(out, offsets[i]);
    push64(out, s.payload.size());
    push32(out, io::crc32c(s.payload.data(), s.payload.size()));
    push32(out, 0);
  }
  push32(out, io::crc32c(out.data(), out.size()));
  for (size_t i = 0; i < raw.sections.size(); ++i) {
    out.resize(offsets[i], 0);
    out.insert(out.end(), raw.sections[i].payload.begin(), raw.sections[i].payload.end());
  }
  return out;
}

// Recomputes every checksum of a (possibly edited) file in place.
inline void fix_crcs(Bytes& b) {
  const uint32_t hb = rd32(b, 12);
  const uint32_t n = rd32(b, 16 + 40);
  const size_t table_end = 16 + hb + 32 * size_t(n);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = 16 + hb + 32 * i;
    const uint64_t off = rd64(b, e + 8), size = rd64(b, e + 16);
    if (off + size <= b.size()) wr32(b, e + 24, io::crc32c(b.data() + off, size));
  }
  wr32(b, table_end, io::crc32c(b.data(), table_end));
}

struct Failure {
  ErrorCode code;
  std::string message;
};

template <typename Fn>
Failure failure_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  ADD_FAILURE() << "expected a quiver::Error";
  return {ErrorCode::InvalidArgument, ""};
}

}  // namespace quiver::test
