// The quantised index's public API (quiver/quantized_index.hpp): options and their checks,
// add (all-or-nothing through the slot table), remove, and the search entry points that take
// the reader lock and hand the work to the job files named in index/quantized_impl.hpp
// (encode, tables, search). Batch search spreads passes of up to 4 queries over the pool.
#include "quiver/quantized_index.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <string>

#include "base/validate.hpp"
#include "index/common/batch.hpp"
#include "index/common/index_shell.hpp"
#include "index/quantized/quantized_impl.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/any_index.hpp"
#include "quiver/error.hpp"

namespace quiver {

using quant::kBlockVectors;
using quant::kGroupCodeBytes;
using quant::kGroupSubquantizers;
using quantized::thread_scratch;

namespace quantized {
void throw_oom() { throw Error(ErrorCode::OutOfMemory, "out of memory while adding vectors; the index is unchanged"); }
}  // namespace quantized

namespace {
size_t padded_stride(size_t dim) { return (dim + 15) / 16 * 16; }
}  // namespace

QuantizedIndex::Impl::Impl(const QuantizedIndexOptions& o, Isa isa)
    : dim(o.dim), metric(o.metric), bits(o.bits), seed(o.seed), keep_vectors(o.keep_vectors), lists_option(o.lists) {
  if (dim == 0) throw Error(ErrorCode::InvalidArgument, "dimension must be at least 1");
  if (dim > (1u << 20)) {
    throw Error(ErrorCode::InvalidArgument, "dimension " + std::to_string(dim) + " exceeds the maximum of 1048576");
  }
  if (bits != 2 && bits != 4) {
    throw Error(ErrorCode::InvalidArgument, "bits must be 2 or 4, got " + std::to_string(bits));
  }
  kernels = simd::kernel_table(isa);
  fastscan = quant::fastscan_table(isa);
  subq = bits == 4 ? dim : (dim + 1) / 2;
  groups = (subq + kGroupSubquantizers - 1) / kGroupSubquantizers;
  stride = padded_stride(dim);
  if (o.refine_bits > quant::kMaxRefineBits) {
    throw Error(ErrorCode::InvalidArgument, "refine_bits must be 0 (no refine plane) or 1.." +
                                                std::to_string(quant::kMaxRefineBits) + ", got " +
                                                std::to_string(o.refine_bits));
  }
  rotation = quant::Rotation(dim, seed);
  codebook = quant::lloyd_max_codebook(dim, bits);
  if (o.refine_bits > 0) {
    refine_codec = quant::RefineCodec(dim, metric, codebook, bits, o.refine_bits);
    refine = quant::RefinePlane(refine_codec.row_bytes());
  }
  if (lists_option != 0 && lists_option != QuantizedIndexOptions::kAutoLists && lists_option > quantized::kMaxLists) {
    throw Error(ErrorCode::InvalidArgument, "lists must be at most " + std::to_string(quantized::kMaxLists) + ", got " +
                                                std::to_string(lists_option));
  }
  if (partitioned()) ivf = quantized::InvertedLists(1, block_bytes());  // one list until trained
  using Bytes = core::RowBlocks<uint8_t>;
  using Floats = core::RowBlocks<float>;
  codes = Bytes(block_bytes(), Bytes::rows_per_chunk_within(block_bytes(), kSlotChunkBytes));
  offset = Floats(1, kSlotsPerScalarChunk);
  scale = Floats(1, kSlotsPerScalarChunk);
  if (keep_vectors) vectors = Floats(stride, Floats::rows_per_chunk_within(stride * sizeof(float), kSlotChunkBytes));
  slot_list = core::RowBlocks<uint32_t>(1, kSlotsPerScalarChunk);
  slot_pos = core::RowBlocks<uint32_t>(1, kSlotsPerScalarChunk);
}

QUIVER_INDEX_SHELL(QuantizedIndex, QuantizedIndexOptions);

unsigned QuantizedIndex::bits() const noexcept { return impl_->bits; }
uint64_t QuantizedIndex::seed() const noexcept { return impl_->seed; }
bool QuantizedIndex::keeps_vectors() const noexcept { return impl_->keep_vectors; }

void QuantizedIndex::get(uint64_t id, float* out) const {
  core::ReadLock lock(impl_->rw);
  uint32_t slot;
  if (!impl_->slots.find(id, slot))
    throw Error(ErrorCode::UnknownId, "id " + std::to_string(id) + " is not in the index");
  if (!impl_->keep_vectors) throw_no_vectors(IndexKind::quantized);
  std::memcpy(out, impl_->vectors.row(slot), impl_->dim * sizeof(float));
}
unsigned QuantizedIndex::refine_bits() const noexcept { return impl_->refine_codec.bits(); }

size_t QuantizedIndex::code_bytes_per_vector() const noexcept {
  const size_t refine = impl_->refine_codec.enabled() ? impl_->refine_codec.row_bytes() + sizeof(float) : 0;
  return impl_->groups * kGroupCodeBytes / kBlockVectors + 2 * sizeof(float) + refine;
}

size_t QuantizedIndex::memory_bytes() const noexcept {
  const Impl& m = *impl_;
  core::ReadLock lock(m.rw);
  return m.codes.memory_bytes() + m.offset.memory_bytes() + m.scale.memory_bytes() + m.vectors.memory_bytes() +
         m.slot_list.memory_bytes() + m.slot_pos.memory_bytes() + m.ivf.memory_bytes() + m.coarse.memory_bytes() +
         m.refine.memory_bytes() + m.slots.memory_bytes();
}

size_t QuantizedIndex::lists_option() const noexcept { return impl_->lists_option; }
size_t QuantizedIndex::lists() const noexcept {
  core::ReadLock lock(impl_->rw);
  return impl_->ivf.lists();
}
size_t QuantizedIndex::default_probes() const noexcept {
  core::ReadLock lock(impl_->rw);
  return impl_->default_probes();
}
std::vector<float> QuantizedIndex::centroids() const {
  core::ReadLock lock(impl_->rw);
  return impl_->coarse.centroids();
}
size_t QuantizedIndex::list_of(uint64_t id) const {
  core::ReadLock lock(impl_->rw);
  uint32_t slot;
  if (!impl_->slots.find(id, slot)) {
    throw Error(ErrorCode::UnknownId, "id " + std::to_string(id) + " is not in the index");
  }
  return impl_->partitioned() ? *impl_->slot_list.row(slot) : 0;
}

void QuantizedIndex::add(const uint64_t* ids, const float* vectors, size_t n) {
  Impl& m = *impl_;
  if (n == 0) return;
  if (ids == nullptr) throw Error(ErrorCode::InvalidArgument, "ids is null");
  core::WriteLock lock(m.rw);
  m.slots.check_room(n);
  core::check_vectors(vectors, n, m.dim, m.metric, "vector");
  Impl::Encoded encoded;
  Impl::PartitionPlan partition;
  std::vector<uint32_t> slots(n);
  try {
    m.slots.check_ids(ids, n);
    encoded = m.encode(vectors, n);
    // Reserve everything, so the commit below cannot fail half way.
    if (m.partitioned()) partition = m.plan_partition(encoded, n);
    m.slots.plan(n, slots.data());
    m.reserve_slots(m.slots.used() + (n - m.slots.reused_for(n)));
  } catch (const std::bad_alloc&) {
    quantized::throw_oom();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::OutOfMemory) quantized::throw_oom();  // with "the index is unchanged"
    throw;
  }
  m.slots.bind(ids, slots.data(), n);
  m.slots.commit(ids, slots.data(), n);
  if (m.partitioned()) m.apply_partition(partition, encoded, slots.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = slots[i];
    if (!m.partitioned()) {
      m.write_codes(slot, encoded.codes.data() + i * m.subq);
      *m.offset.row(slot) = encoded.offset[i];
      *m.scale.row(slot) = encoded.scale[i];
    }
    if (m.refine_codec.enabled()) {
      m.refine.store(slot, encoded.refine_rows.data() + i * m.refine.row_bytes(), encoded.refine_scale[i]);
    }
    if (m.keep_vectors) {
      float* dst = m.vectors.row(slot);
      index::store_vector(m.metric, vectors + i * m.dim, dst, m.dim);
    }
  }
}

void QuantizedIndex::remove(const uint64_t* ids, size_t n) {
  Impl& m = *impl_;
  if (n == 0) return;
  core::WriteLock lock(m.rw);
  m.slots.check_remove(ids, n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t unused;
    const uint32_t slot = m.slots.remove(ids[i], unused);  // onto the free list, id cleared
    if (m.partitioned()) {
      m.remove_from_partition(slot);  // its list's last vector moves into its place
    } else {
      *m.offset.row(slot) = INFINITY;  // the scan can never return it
    }
  }
}

std::vector<uint8_t> QuantizedIndex::codes(uint64_t id) const {
  core::ReadLock lock(impl_->rw);
  uint32_t slot;
  if (!impl_->slots.find(id, slot)) {
    throw Error(ErrorCode::UnknownId, "id " + std::to_string(id) + " is not in the index");
  }
  std::vector<uint8_t> out(impl_->subq);
  for (size_t s = 0; s < impl_->subq; ++s) out[s] = impl_->read_code(slot, s);
  return out;
}

size_t QuantizedIndex::search(const float* query, size_t k, Neighbor* out, const QuantizedSearchParams& params) const {
  core::ReadLock lock(impl_->rw);
  impl_->check_search(k, params);  // k, parameters, empty, rerank (the spine's order)
  core::check_vectors(query, 1, impl_->dim, impl_->metric, "query");
  return impl_->search_one(query, k, out, params, thread_scratch());
}

std::vector<Neighbor> QuantizedIndex::search(const std::vector<float>& query, size_t k,
                                             const QuantizedSearchParams& params) const {
  core::check_query_size(query.size(), impl_->dim);
  core::check_vectors(query.data(), 1, impl_->dim, impl_->metric, "query");
  core::ReadLock lock(impl_->rw);  // one lock for the size and the search
  impl_->check_search(k, params);
  std::vector<Neighbor> out(std::min(k, impl_->live()));
  out.resize(impl_->search_one(query.data(), out.size(), out.data(), params, thread_scratch()));
  return out;
}

size_t QuantizedIndex::search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                                    const QuantizedSearchParams& params) const {
  const Impl& m = *impl_;
  core::ReadLock lock(m.rw);
  m.check_search(k, params);
  core::check_vectors(queries, nq, m.dim, m.metric, "query");
  const size_t kk = std::min(k, m.live());
  // Unpartitioned, queries go through the codes kMaxQueriesPerPass at a time (each worker
  // thread has its own scratch); partitioned, each query probes its own lists: one per task.
  const size_t per_task = m.partitioned() ? 1 : quant::kMaxQueriesPerPass;
  index::run_batch(nq, k, kk, per_task, false, out, [&](size_t first, size_t n, size_t* counts) {
    const float* qs[quant::kMaxQueriesPerPass];
    Neighbor* outs[quant::kMaxQueriesPerPass];
    for (size_t i = 0; i < n; ++i) {
      qs[i] = queries + (first + i) * m.dim;
      outs[i] = out + (first + i) * k;
    }
    m.search_many(qs, n, kk, outs, counts, params, thread_scratch());
  });
  return kk;
}

}  // namespace quiver
