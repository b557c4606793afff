// Producing a section's payload straight from an index's per-slot storage (io::SectionWriter::
// produce), in bounded pieces: a file is then written with the index and the output only, no
// copy of each section in between. Little-endian on any host, like SectionWriter's appends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "container/format.hpp"

namespace quiver::io {

inline void put_u32(uint8_t* out, uint32_t v) noexcept {
  for (int b = 0; b < 4; ++b) out[b] = uint8_t(v >> (8 * b));
}
inline void put_u64(uint8_t* out, uint64_t v) noexcept {
  for (int b = 0; b < 8; ++b) out[b] = uint8_t(v >> (8 * b));
}
inline void put_f32(uint8_t* out, float v) noexcept {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put_u32(out, bits);
}

// A producer of `slots` records of `record` bytes, record s written by fill(s, out), emitted
// in pieces of about 64 KiB (at least one record). It runs twice (the CRC, then the output)
// and must give the same bytes both times: the caller holds the index's read lock throughout.
template <typename Fill>
SectionWriter::Producer per_slot_producer(size_t slots, size_t record, Fill fill) {
  return [slots, record, fill](const SectionWriter::Emit& emit) {
    constexpr size_t kPieceBytes = size_t(64) << 10;
    const size_t per = record >= kPieceBytes ? 1 : kPieceBytes / record;
    std::vector<uint8_t> piece((per < slots ? per : slots) * record);
    for (size_t s = 0; s < slots;) {
      size_t k = 0;
      for (; k < per && s < slots; ++k, ++s) fill(s, piece.data() + k * record);
      emit(piece.data(), k * record);
    }
  };
}

}  // namespace quiver::io
