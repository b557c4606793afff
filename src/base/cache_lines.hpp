// Asking for memory ahead of its use, one cache line (kAlignment bytes) at a time.
//
// prefetch_lines: a prefetch of every line of a range natively; nothing in wasm, which has no
// prefetch instruction. warm_lines: the same natively; in wasm it loads one byte of each line and
// returns their sum, which the caller must keep (store it somewhere) so that the loads stay.
// Those loads depend on nothing, so the core issues them together and their misses overlap as a
// prefetch's would; but unlike a prefetch they hold up retirement until they land, so in wasm
// they pay only for lines that are surely cold and used soon (the quantised index's re-scoring
// rows: bench/ivf/results/warm-rows-ab-20261207.txt), not for a scan's next block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/aligned_buffer.hpp"

namespace quiver::core {

// Calls fn(first byte of the range in each line it touches), line by line.
template <class Fn>
inline void for_each_line(const void* p, size_t bytes, Fn fn) noexcept {
  const uintptr_t start = reinterpret_cast<uintptr_t>(p), end = start + bytes;
  for (uintptr_t line = start & ~uintptr_t(kAlignment - 1); line < end; line += kAlignment) {
    fn(reinterpret_cast<const uint8_t*>(line < start ? start : line));
  }
}

inline void prefetch_lines(const void* p, size_t bytes) noexcept {
#if !defined(__EMSCRIPTEN__)
  for_each_line(p, bytes, [](const uint8_t* byte) { __builtin_prefetch(byte); });
#else
  (void)p;
  (void)bytes;
#endif
}

inline uint32_t warm_lines(const void* p, size_t bytes) noexcept {
#if defined(__EMSCRIPTEN__)
  uint32_t sum = 0;
  for_each_line(p, bytes, [&sum](const uint8_t* byte) { sum += *byte; });
  return sum;
#else
  prefetch_lines(p, bytes);
  return 0;
#endif
}

}  // namespace quiver::core
