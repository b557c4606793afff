// RowBlocks: fixed-stride rows of trivially copyable T kept in fixed-size, 64-byte-aligned
// chunks. It grows by adding chunks and never moves a stored row, so growing an index costs
// the new rows only — not a whole-array copy beside the old array (what made a growing index
// need two to three times its own size in a wasm heap, which never shrinks).
//
//   RowBlocks<float> rows(stride, RowBlocks<float>::rows_per_chunk_for(stride * 4));
//   rows.reserve(n);                  // adds chunks until n rows fit (strong guarantee)
//   float* r = rows.row(i);           // O(1): a shift and a mask
//   rows.for_each_run(0, n, [&](size_t first, const float* p, size_t count) { ... });
//
// Rows per chunk is a power of two, so row(i) needs no division; rows_per_chunk_for() makes it
// a multiple of 32, so that a block of 32 rows (the fast-scan layout) never straddles two chunks. Kernels get
// plain pointers to contiguous runs of rows (at most one chunk each). New chunks are zeroed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/aligned_buffer.hpp"
#include "base/check.hpp"
#include "base/memory_ceiling.hpp"
#include "quiver/error.hpp"

namespace quiver::core {

template <typename T>
class RowBlocks {
  static_assert(std::is_trivially_copyable_v<T>, "RowBlocks holds plain data only");

 public:
  // Chunks of about this many bytes: small enough that the last, partly filled chunk is a few
  // percent of a large index, large enough that a chunk holds many rows and the chunk table
  // stays tiny.
  static constexpr size_t kTargetChunkBytes = size_t(256) << 10;
  static constexpr size_t kMinRowsPerChunk = 32;

  // The largest power of two >= 32 whose rows of `row_bytes` fit in kTargetChunkBytes (32 when
  // even 32 rows are larger).
  static size_t rows_per_chunk_for(size_t row_bytes) noexcept {
    size_t rows = kMinRowsPerChunk;
    // Divided, not multiplied: in wasm32 rows * row_bytes wraps for rows of 64 MiB (dim 2^24).
    while (row_bytes > 0 && rows * 2 <= kTargetChunkBytes / row_bytes) rows *= 2;
    return rows;
  }

  // The largest power of two (at least 1) whose rows of `row_bytes` fit in `target_bytes`:
  // for storage whose rows are whole 32-vector blocks already (the quantised index's code
  // blocks) or are read one at a time, where small chunks keep a small index small.
  static size_t rows_per_chunk_within(size_t row_bytes, size_t target_bytes) noexcept {
    size_t rows = 1;
    while (row_bytes > 0 && rows * 2 <= target_bytes / row_bytes) rows *= 2;
    return rows;
  }

  // `stride`: elements per row (> 0); `rows_per_chunk`: a power of two (rows_per_chunk_for
  // gives at least 32, which a caller that scans blocks of 32 rows needs).
  RowBlocks(size_t stride, size_t rows_per_chunk) : stride_(stride), shift_(0) {
    QUIVER_DCHECK(stride > 0, "RowBlocks needs a positive stride");
    QUIVER_DCHECK(rows_per_chunk >= 1 && (rows_per_chunk & (rows_per_chunk - 1)) == 0,
                  "rows per chunk must be a power of two");
    while ((size_t(1) << shift_) < rows_per_chunk) ++shift_;
    if (stride > (SIZE_MAX - kAlignment) / sizeof(T) / rows_per_chunk) {
      throw Error(ErrorCode::OutOfMemory, "row stride too large for a chunk");
    }
    const size_t bytes = stride * sizeof(T) * rows_per_chunk;
    chunk_bytes_ = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }
  ~RowBlocks() { release_from(0); }
  RowBlocks(RowBlocks&& other) noexcept
      : stride_(other.stride_),
        shift_(other.shift_),
        chunk_bytes_(other.chunk_bytes_),
        chunks_(std::move(other.chunks_)) {
    other.chunks_.clear();
  }
  RowBlocks& operator=(RowBlocks&& other) noexcept {
    if (this != &other) {
      release_from(0);
      stride_ = other.stride_;
      shift_ = other.shift_;
      chunk_bytes_ = other.chunk_bytes_;
      chunks_ = std::move(other.chunks_);
      other.chunks_.clear();
    }
    return *this;
  }
  RowBlocks(const RowBlocks&) = delete;
  RowBlocks& operator=(const RowBlocks&) = delete;

  size_t stride() const noexcept { return stride_; }
  size_t rows_per_chunk() const noexcept { return size_t(1) << shift_; }
  size_t chunk_count() const noexcept { return chunks_.size(); }
  size_t capacity_rows() const noexcept { return chunks_.size() << shift_; }

  T* row(size_t r) noexcept { return chunks_[r >> shift_] + (r & (rows_per_chunk() - 1)) * stride_; }
  const T* row(size_t r) const noexcept { return chunks_[r >> shift_] + (r & (rows_per_chunk() - 1)) * stride_; }

  // Rows [first, first + n) that lie in first's chunk: how many of the n (at least 1 when n > 0).
  size_t run_length(size_t first, size_t n) const noexcept {
    const size_t left = rows_per_chunk() - (first & (rows_per_chunk() - 1));
    return n < left ? n : left;
  }

  // Calls fn(first_row, const T* rows, count) for consecutive runs covering [begin, end); each
  // run is contiguous (stride apart) inside one chunk. end <= capacity_rows().
  template <typename Fn>
  void for_each_run(size_t begin, size_t end, Fn&& fn) const {
    while (begin < end) {
      const size_t n = run_length(begin, end - begin);
      fn(begin, row(begin), n);
      begin += n;
    }
  }

  // Ensures capacity_rows() >= rows by adding chunks; stored rows do not move. Strong
  // guarantee: on failure the chunks it added are freed and Error(OutOfMemory) is thrown.
  void reserve(size_t rows) {
    if (rows <= capacity_rows()) return;
    const size_t want = (rows >> shift_) + ((rows & (rows_per_chunk() - 1)) != 0);
    const size_t had = chunks_.size();
    // More bytes than a process can address (2^47 on 64-bit hosts, the whole 4 GiB in wasm32)
    // or than this machine / module could ever hold (core/memory_ceiling.hpp) can never be
    // allocated: refuse before asking the allocator — whose failure for absurd sizes is an
    // abort under the sanitizers — and before adding chunk after chunk until it fails.
    constexpr size_t kAddressableBytes = sizeof(void*) >= 8 ? (size_t(1) << 47) : SIZE_MAX;
    const size_t ceiling = memory_ceiling_bytes() < kAddressableBytes ? memory_ceiling_bytes() : kAddressableBytes;
    if (want > ceiling / chunk_bytes_) throw_oom();
    try {
      // Geometric, so that many small adds do not copy the (small) chunk table each time.
      if (want > chunks_.capacity()) chunks_.reserve(want > 2 * chunks_.capacity() ? want : 2 * chunks_.capacity());
    } catch (const std::bad_alloc&) {
      throw_oom();
    }
    while (chunks_.size() < want) {
      // Through the aligned operator new (not aligned_alloc), so the tests' allocation counter
      // (tests/cpp/alloc_counter.cpp) sees the chunks.
      void* p = ::operator new(chunk_bytes_, std::align_val_t(kAlignment), std::nothrow);
      if (p == nullptr) {
        release_from(had);
        throw_oom();
      }
      std::memset(p, 0, chunk_bytes_);
      chunks_.push_back(static_cast<T*>(p));  // capacity reserved above: cannot throw
    }
  }

  // Frees the chunks that hold no row below `rows` (capacity_rows() becomes rows rounded up
  // to a whole chunk). Rows below `rows` stay where they are.
  void shrink_to(size_t rows) noexcept {
    const size_t keep = (rows >> shift_) + ((rows & (rows_per_chunk() - 1)) != 0);
    if (keep < chunks_.size()) release_from(keep);
  }

  // Copies row `from` over row `to` (the flat index fills a removed row's hole with its last row).
  void copy_row(size_t from, size_t to) noexcept {
    if (from != to) std::memcpy(row(to), row(from), stride_ * sizeof(T));
  }

  // What the chunks take: every allocated chunk (used or not) and the chunk table.
  size_t memory_bytes() const noexcept { return chunks_.size() * chunk_bytes_ + chunks_.capacity() * sizeof(T*); }

 private:
  [[noreturn]] void throw_oom() const {
    throw Error(ErrorCode::OutOfMemory,
                "out of memory allocating a " + std::to_string(chunk_bytes_) + "-byte block of rows");
  }
  void release_from(size_t keep) noexcept {
    for (size_t i = keep; i < chunks_.size(); ++i) ::operator delete(chunks_[i], std::align_val_t(kAlignment));
    chunks_.resize(keep);  // shrinking a vector of pointers cannot throw
  }

  size_t stride_;
  unsigned shift_;
  size_t chunk_bytes_ = 0;
  std::vector<T*> chunks_;
};

}  // namespace quiver::core
