// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every index file
// section. Portable C++ (slicing-by-8 over tables built at compile time): the same value on
// every compiler, ISA level and target. crc32c("123456789") == 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quiver::io {

// Continues a CRC: crc32c_update(crc32c_update(0, a), b) == crc32c(a ++ b).
uint32_t crc32c_update(uint32_t crc, const void* data, size_t size) noexcept;

inline uint32_t crc32c(const void* data, size_t size) noexcept { return crc32c_update(0, data, size); }

}  // namespace quiver::io
