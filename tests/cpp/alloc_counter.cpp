// Replacement global operator new/delete that count allocations (thread-safe). Every test in
// the program goes through it; only tests that ask for the count look at it.
#include "alloc_counter.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <new>

namespace {
std::atomic<size_t> g_allocations{0};
std::atomic<size_t> g_bytes{0};
std::atomic<size_t> g_fail_countdown{SIZE_MAX};  // SIZE_MAX: never fail
std::atomic<size_t> g_live{0};
std::atomic<size_t> g_peak{0};

// Sizes by malloc_usable_size, the same on allocation and release, so live bytes balance.
void* track(void* p) {
  if (p == nullptr) return p;
  const size_t now = g_live.fetch_add(malloc_usable_size(p), std::memory_order_relaxed) + malloc_usable_size(p);
  size_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}
void release(void* p) noexcept {
  if (p == nullptr) return;
  g_live.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}

// True when this allocation is the one fail_allocation_after() asked to fail.
bool should_fail() {
  size_t left = g_fail_countdown.load(std::memory_order_relaxed);
  while (left != SIZE_MAX) {
    const size_t next = left == 0 ? SIZE_MAX : left - 1;
    if (g_fail_countdown.compare_exchange_weak(left, next, std::memory_order_relaxed)) return left == 0;
  }
  return false;
}

void* counted_alloc(std::size_t size) {
  if (should_fail()) throw std::bad_alloc();
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(size, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return track(p);
  throw std::bad_alloc();
}
}  // namespace

namespace quiver::test {
size_t allocation_count() { return g_allocations.load(std::memory_order_relaxed); }
size_t allocated_bytes() { return g_bytes.load(std::memory_order_relaxed); }
void fail_allocation_after(size_t n) { g_fail_countdown.store(n, std::memory_order_relaxed); }
size_t live_bytes() { return g_live.load(std::memory_order_relaxed); }
size_t peak_live_bytes() { return g_peak.load(std::memory_order_relaxed); }
void reset_peak_live_bytes() { g_peak.store(g_live.load(std::memory_order_relaxed), std::memory_order_relaxed); }
}  // namespace quiver::test

void* operator new(std::size_t size) { return counted_alloc(size); }
void* operator new[](std::size_t size) { return counted_alloc(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(size, std::memory_order_relaxed);
  return track(std::malloc(size == 0 ? 1 : size));
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(size, std::memory_order_relaxed);
  return track(std::malloc(size == 0 ? 1 : size));
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }

// The aligned forms (the index's row chunks and aligned buffers use them): counted alike.
namespace {
void* counted_aligned(std::size_t size, std::align_val_t align) {
  const size_t a = static_cast<size_t>(align);
  const size_t rounded = (size == 0 ? a : (size + a - 1) / a * a);  // aligned_alloc wants a multiple
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(size, std::memory_order_relaxed);
  return track(std::aligned_alloc(a, rounded));
}
}  // namespace
void* operator new(std::size_t size, std::align_val_t align) {
  if (should_fail()) throw std::bad_alloc();
  if (void* p = counted_aligned(size, align)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) { return operator new(size, align); }
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return counted_aligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return counted_aligned(size, align);
}
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
