// Exact search: rows live in 64-byte-aligned chunks of a RowBlocks (row stride rounded up to
// 16 floats, so every row starts on a cache line; the index grows by whole chunks and never
// copies its rows) and are scored run by run by the dispatched one-to-many kernel; a fixed
// top-k heap in the caller's output keeps the best.
#include "quiver/flat_index.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/check.hpp"
#include "base/row_blocks.hpp"
#include "base/rw_lock.hpp"
#include "base/topk.hpp"
#include "base/validate.hpp"
#include "index/flat/flat_state.hpp"
#include "index/common/batch.hpp"
#include "index/common/index_shell.hpp"
#include "index/common/search_params.hpp"
#include "index/common/slot_table.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/error.hpp"
#include "simd/kernels.hpp"

namespace quiver {
namespace {

constexpr size_t kScanBlock = 256;  // rows scored per kernel call; distances stay on the stack
// Below this many query x row x dimension steps a batch is not worth waking the pool for.
constexpr double kParallelBatchWork = 1 << 18;

size_t padded_stride(size_t dim) { return (dim + 15) / 16 * 16; }

[[noreturn]] void throw_oom() {
  throw Error(ErrorCode::OutOfMemory, "out of memory while adding vectors; the index is unchanged");
}

}  // namespace

struct FlatIndex::Impl {
  size_t dim;
  size_t stride;
  Metric metric;
  simd::KernelTable kernels;
  core::RowBlocks<float> rows;  // row i is slot i
  // Ids of the rows; removal moves the last row into the hole, so rows stay dense for the
  // scan and slot i is row i (index files store rows in this order).
  index::SlotTable slots{index::Reuse::compact, UINT32_MAX, "flat"};
  size_t count = 0;  // == slots.size(), kept beside the rows the scan reads
  size_t live() const noexcept { return count; }
  // Searches share it; add, remove and reserve hold it alone (the contract in flat_index.hpp).
  mutable core::SharedMutex rw;

  Impl(const FlatIndexOptions& options, Isa isa)
      : dim(options.dim),
        stride(padded_stride(checked_dim(options.dim))),
        metric(options.metric),
        kernels(simd::kernel_table(isa)),
        rows(stride, core::RowBlocks<float>::rows_per_chunk_for(stride * sizeof(float))) {}

  // Runs in the member initialisers, before `rows` is built: a zero stride is a caller error
  // here, not an internal one (RowBlocks checks its stride as an invariant in debug builds).
  static size_t checked_dim(size_t dim) {
    if (dim == 0) throw Error(ErrorCode::InvalidArgument, "dimension must be at least 1");
    if (dim > (1u << 24)) {
      throw Error(ErrorCode::InvalidArgument, "dimension " + std::to_string(dim) + " exceeds the maximum of 16777216");
    }
    return dim;
  }

  size_t capacity_rows() const { return rows.capacity_rows(); }

  void check_query(const float* query) const { core::check_vectors(query, 1, dim, metric, "query"); }

  // The query scaled to unit length, in a per-thread buffer (grown once, then reused: warm
  // searches allocate nothing). The norm is summed in double and applied in double, so a
  // subnormal query (whose float sum of squares would underflow to 0) or a huge one works.
  const float* unit_query(const float* query) const {
    static thread_local std::vector<float> unit;
    if (unit.size() < dim) unit.resize(dim);
    double norm2 = 0.0;
    for (size_t i = 0; i < dim; ++i) norm2 += double(query[i]) * query[i];
    const double inv = 1.0 / std::sqrt(norm2);
    for (size_t i = 0; i < dim; ++i) unit[i] = static_cast<float>(query[i] * inv);
    return unit.data();
  }

  // Distances of n rows starting at `block` (stride apart), with the metric's sign; under
  // cosine `query` is already unit length (unit_query).
  void score(const float* query, const float* block, size_t n, float* dist) const {
    if (metric == Metric::l2) {
      kernels.l2sq_f32_many(query, block, stride, n, dim, dist);
    } else {
      kernels.dot_f32_many(query, block, stride, n, dim, dist);
      if (metric == Metric::ip) {
        for (size_t i = 0; i < n; ++i) dist[i] = -dist[i];
      } else {
        for (size_t i = 0; i < n; ++i) dist[i] = 1.0f - dist[i];
      }
    }
  }

  // Per-thread marks of the slots an allow list has already admitted in this search
  // (epoch-tagged, so a search clears nothing; grown only when the index has grown).
  struct AllowMarks {
    std::vector<uint32_t> mark;
    uint32_t epoch = 0;
  };
  static AllowMarks& allow_marks() {
    thread_local AllowMarks marks;
    return marks;
  }

  // Scores only the allowed ids (each once) and keeps the best k in `out`.
  size_t scan_allowed(const float* query, size_t k, Neighbor* out, const FlatSearchParams& p) const {
    core::TopK top(out, k);
    AllowMarks& marks = allow_marks();
    if (marks.mark.size() < count) marks.mark.resize(count, 0);
    if (++marks.epoch == 0) {
      std::fill(marks.mark.begin(), marks.mark.end(), 0u);
      marks.epoch = 1;
    }
    if (metric == Metric::cosine) query = unit_query(query);
    for (size_t i = 0; i < p.allow_count; ++i) {
      uint32_t slot;
      if (!slots.find(p.allow[i], slot) || marks.mark[slot] == marks.epoch) continue;
      marks.mark[slot] = marks.epoch;
      if (p.predicate != nullptr && !p.predicate(p.predicate_ctx, p.allow[i])) continue;
      float d;
      score(query, rows.row(slot), 1, &d);
      top.push(p.allow[i], d);
    }
    return top.finish();
  }

  // Scores only the rows whose id the allow bitmap admits, in row order.
  size_t scan_bits(const float* query, size_t k, Neighbor* out, const FlatSearchParams& p) const {
    core::TopK top(out, k);
    if (metric == Metric::cosine) query = unit_query(query);
    for (uint32_t slot = 0; slot < count; ++slot) {
      const uint64_t id = slots.id_at(slot);
      if (!index::bits_admit(p, id)) continue;
      if (p.predicate != nullptr && !p.predicate(p.predicate_ctx, id)) continue;
      float d;
      score(query, rows.row(slot), 1, &d);
      top.push(id, d);
    }
    return top.finish();
  }

  size_t search_one(const float* query, size_t k, Neighbor* out, const FlatSearchParams& p) const {
    if (p.allow != nullptr) return scan_allowed(query, k, out, p);
    return p.allow_bits != nullptr ? scan_bits(query, k, out, p) : scan(query, k, out, p);
  }

  // Scores every row against `query` and keeps the best k in `out` (those the predicate admits).
  size_t scan(const float* query, size_t k, Neighbor* out, const SearchParams& p) const {
    core::TopK top(out, k);
    if (metric == Metric::cosine) query = unit_query(query);
    float dist[kScanBlock];
    // A run never crosses a chunk: the kernel gets plain pointers to contiguous rows.
    for (size_t base = 0; base < count;) {
      const size_t n = rows.run_length(base, std::min(kScanBlock, count - base));
      score(query, rows.row(base), n, dist);
      for (size_t i = 0; i < n; ++i) {
        // Not `<=`: a NaN must reach push() (which ranks it last), never silently vanish.
        if (dist[i] > top.threshold()) continue;
        const uint64_t id = slots.id_at(uint32_t(base + i));
        if (p.predicate == nullptr || p.predicate(p.predicate_ctx, id)) top.push(id, dist[i]);
      }
      base += n;
    }
    return top.finish();
  }
};

QUIVER_INDEX_SHELL(FlatIndex, FlatIndexOptions);

size_t FlatIndex::memory_bytes() const noexcept {
  const Impl& m = *impl_;
  core::ReadLock lock(m.rw);
  return m.rows.memory_bytes() + m.slots.memory_bytes();
}

void FlatIndex::add(const uint64_t* ids, const float* vectors, size_t n) { add_rows(ids, vectors, n, true); }

void FlatIndex::add_stored(const uint64_t* ids, const float* rows, size_t n) { add_rows(ids, rows, n, false); }

void FlatIndex::reserve(size_t n) {
  Impl& m = *impl_;
  core::WriteLock lock(m.rw);
  core::check_slot_limit(0, n, UINT32_MAX, "flat");
  if (n <= m.capacity_rows()) return;
  if (n > SIZE_MAX / m.stride) throw_oom();
  try {
    m.rows.reserve(n);
    m.slots.reserve(n, n);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
}

const float* FlatIndex::stored_row(size_t slot) const noexcept { return impl_->rows.row(slot); }
uint64_t FlatIndex::stored_id(size_t slot) const noexcept { return impl_->slots.id_at(uint32_t(slot)); }

void FlatIndex::add_rows(const uint64_t* ids, const float* vectors, size_t n, bool normalise) {
  Impl& m = *impl_;
  if (n == 0) return;
  if (ids == nullptr) throw Error(ErrorCode::InvalidArgument, "ids is null");
  core::WriteLock lock(m.rw);
  m.slots.check_room(n);
  if (normalise) {
    core::check_vectors(vectors, n, m.dim, m.metric, "vector");
  } else {
    core::check_stored_vectors(vectors, n, m.dim, m.metric, "vector");
  }
  std::vector<uint32_t> slots;
  try {
    m.slots.check_ids(ids, n);
    // Reserve everything first, so the commit below cannot fail half way.
    slots.resize(n);
    m.slots.plan(n, slots.data());  // compact: always the next rows, count .. count + n - 1
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  // New chunks only: the stored rows stay where they are (no copy of the index).
  const size_t chunks_before = m.rows.capacity_rows();
  try {
    m.rows.reserve(m.count + n);
  } catch (const Error&) {
    throw_oom();
  }
  try {
    m.slots.bind(ids, slots.data(), n);
  } catch (...) {
    m.rows.shrink_to(chunks_before);  // the failed add leaves the memory as it was, too
    throw;
  }
  m.slots.commit(ids, slots.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const float* src = vectors + i * m.dim;
    float* dst = m.rows.row(slots[i]);
    index::store_vector(normalise ? m.metric : Metric::l2, src, dst, m.dim);
  }
  m.count += n;
}

void FlatIndex::remove(const uint64_t* ids, size_t n) {
  Impl& m = *impl_;
  if (n == 0) return;
  core::WriteLock lock(m.rw);
  m.slots.check_remove(ids, n);
  for (size_t i = 0; i < n; ++i) {
    // The table moves the last id into the hole; its row follows, so removal is O(dim).
    uint32_t moved_from;
    const uint32_t slot = m.slots.remove(ids[i], moved_from);
    m.rows.copy_row(moved_from, slot);
    --m.count;
  }
  // Hand back whole chunks the rows no longer reach, keeping one spare so that a remove/add
  // cycle at a chunk boundary does not free and allocate a chunk each time.
  m.rows.shrink_to(m.count + m.rows.rows_per_chunk());
}

void FlatIndex::get(uint64_t id, float* out) const {
  core::ReadLock lock(impl_->rw);
  uint32_t slot;
  if (!impl_->slots.find(id, slot)) {
    throw Error(ErrorCode::UnknownId, "id " + std::to_string(id) + " is not in the index");
  }
  std::memcpy(out, impl_->rows.row(slot), impl_->dim * sizeof(float));
}

size_t FlatIndex::search(const float* query, size_t k, Neighbor* out, const FlatSearchParams& params) const {
  core::check_k(k);  // the spine's order (index/common/batch.hpp): k, parameters, empty, query
  index::check_search_params(params);
  core::ReadLock lock(impl_->rw);
  if (impl_->count == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  impl_->check_query(query);
  return impl_->search_one(query, std::min(k, impl_->count), out, params);
}

std::vector<Neighbor> FlatIndex::search(const std::vector<float>& query, size_t k) const {
  core::check_query_size(query.size(), impl_->dim);
  core::check_k(k);
  impl_->check_query(query.data());
  core::ReadLock lock(impl_->rw);  // one lock for the size and the scan
  if (impl_->count == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  std::vector<Neighbor> out(std::min(k, impl_->count));
  out.resize(impl_->scan(query.data(), out.size(), out.data(), FlatSearchParams{}));
  return out;
}

size_t FlatIndex::search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                               const FlatSearchParams& params) const {
  core::check_k(k);
  index::check_search_params(params);
  core::ReadLock lock(impl_->rw);
  if (impl_->count == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  core::check_vectors(queries, nq, impl_->dim, impl_->metric, "query");
  const Impl& m = *impl_;
  const size_t kk = std::min(k, m.count);
  // One query per task; a batch whose whole scan is small stays inline.
  const size_t scored = params.allow != nullptr ? std::min(params.allow_count, m.count) : m.count;
  const bool small = double(nq) * double(scored) * double(m.dim) < kParallelBatchWork;
  index::run_batch(nq, k, kk, 1, small, out, [&](size_t q, size_t, size_t* counts) {
    counts[0] = m.search_one(queries + q * m.dim, kk, out + q * k, params);
  });
  return kk;
}

}  // namespace quiver

namespace quiver {

core::ReadLock FlatIndexAccess::read_lock(const FlatIndex& index) { return core::ReadLock(index.impl_->rw); }
size_t FlatIndexAccess::size(const FlatIndex& index) { return index.impl_->count; }

void FlatIndexAccess::reserve_load(FlatIndex& index, size_t rows) {
  FlatIndex::Impl& m = *index.impl_;
  m.rows.reserve(rows);
  try {
    m.slots.reserve(rows, rows);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
}

float* FlatIndexAccess::load_row(FlatIndex& index, size_t slot) {
  FlatIndex::Impl& m = *index.impl_;
  if (slot >= m.rows.capacity_rows()) m.rows.reserve(slot + 1);
  return m.rows.row(slot);
}

void FlatIndexAccess::check_loaded_row(const FlatIndex& index, const float* row) {
  const FlatIndex::Impl& m = *index.impl_;
  core::check_stored_vectors(row, 1, m.dim, m.metric, "stored");
}

void FlatIndexAccess::load_id(FlatIndex& index, uint64_t id) {
  FlatIndex::Impl& m = *index.impl_;
  if (id == core::kReservedId) {
    throw Error(ErrorCode::InvalidArgument, "id " + std::to_string(id) + " is reserved");
  }
  bool fresh;
  try {
    fresh = m.slots.append(id, /*live=*/true);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  if (!fresh) throw Error(ErrorCode::InvalidArgument, "id " + std::to_string(id) + " appears twice");
}

void FlatIndexAccess::finish_load(FlatIndex& index, size_t count) {
  FlatIndex::Impl& m = *index.impl_;
  QUIVER_DCHECK(m.slots.size() == count && m.rows.capacity_rows() >= count, "a flat load finished early");
  m.count = count;
}

}  // namespace quiver
