// A growable array of trivially copyable T whose storage is 64-byte aligned (one cache line,
// one AVX-512 register), so kernels can scan rows without split loads.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "base/check.hpp"
#include "quiver/error.hpp"

namespace quiver::core {

inline constexpr size_t kAlignment = 64;

template <typename T>
class AlignedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "AlignedBuffer holds plain data only");

 public:
  AlignedBuffer() = default;
  ~AlignedBuffer() { release(data_); }
  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      release(data_);
      data_ = std::exchange(other.data_, nullptr);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  size_t capacity() const noexcept { return capacity_; }

  // Ensures room for `count` elements, keeping the first `keep` ones. New elements are zero.
  // Throws Error(OutOfMemory) and leaves the buffer untouched if the allocation fails.
  void reserve(size_t count, size_t keep) {
    QUIVER_DCHECK(keep <= capacity_, "reserve keeps more elements than the buffer holds");
    if (count <= capacity_) return;
    if (count > (SIZE_MAX - kAlignment) / sizeof(T)) {
      throw Error(ErrorCode::OutOfMemory, "requested buffer size overflows");
    }
    size_t bytes = (count * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    // The aligned operator new (not aligned_alloc), so the tests' allocation counter sees it.
    void* fresh = ::operator new(bytes, std::align_val_t(kAlignment), std::nothrow);
    if (fresh == nullptr) {
      throw Error(ErrorCode::OutOfMemory, "out of memory allocating " + std::to_string(bytes) + " bytes");
    }
    std::memset(fresh, 0, bytes);
    if (keep > 0) std::memcpy(fresh, data_, keep * sizeof(T));
    release(data_);
    data_ = static_cast<T*>(fresh);
    capacity_ = count;
  }

 private:
  static void release(T* p) noexcept {
    if (p != nullptr) ::operator delete(p, std::align_val_t(kAlignment));
  }
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace quiver::core
