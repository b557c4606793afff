#include "base/memory_ceiling.hpp"

#include <cstdint>

#if defined(__EMSCRIPTEN__)
#include <emscripten/heap.h>
#elif defined(__linux__)
#include <sys/sysinfo.h>
#elif defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace quiver::core {

namespace {

size_t query_ceiling() noexcept {
#if defined(__EMSCRIPTEN__)
  return emscripten_get_heap_max();
#elif defined(__linux__)
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return SIZE_MAX;
  const unsigned long long unit = info.mem_unit ? info.mem_unit : 1;
  const unsigned long long total = (static_cast<unsigned long long>(info.totalram) + info.totalswap) * unit;
  return total > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(total);
#elif defined(__unix__) || defined(__APPLE__)
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return SIZE_MAX;
  const unsigned long long total = static_cast<unsigned long long>(pages) * static_cast<unsigned long long>(page);
  return total > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(total);
#else
  return SIZE_MAX;
#endif
}

}  // namespace

size_t memory_ceiling_bytes() noexcept {
  static const size_t ceiling = query_ceiling();
  return ceiling;
}

}  // namespace quiver::core
