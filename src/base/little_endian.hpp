// Little-endian reads and writes of the integers and floats in index files and dataset files:
// the one set every reader and writer uses, the same bytes on every host.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace quiver::le {

inline uint16_t u16(const uint8_t* p) noexcept { return uint16_t(p[0] | p[1] << 8); }
inline uint32_t u32(const uint8_t* p) noexcept {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t u64(const uint8_t* p) noexcept { return uint64_t(u32(p)) | uint64_t(u32(p + 4)) << 32; }
inline float f32(const uint8_t* p) noexcept {
  const uint32_t bits = u32(p);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline void put_u16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
inline void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
inline void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace quiver::le
