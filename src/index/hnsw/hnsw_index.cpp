// HnswIndex's public API: options, counters, add (validate, allocate, commit, then link in
// parallel), remove (tombstones), search and batch search on per-thread contexts. The graph:
// state and storage in hnsw_graph.hpp, search in hnsw_search.{hpp,cpp}, insertion in
// hnsw_build.cpp; compact() in hnsw_compact.cpp; files in hnsw_access.cpp.
#include "quiver/hnsw_index.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/validate.hpp"
#include "index/common/batch.hpp"
#include "index/common/index_shell.hpp"
#include "index/hnsw/hnsw_graph.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/any_index.hpp"
#include "quiver/error.hpp"

namespace quiver {

using hnsw::Context;
using hnsw::kMaxEf;
using hnsw::kNoEntry;
using hnsw::kParallelBatch;

namespace {

Context& thread_context() {
  static thread_local Context context;
  return context;
}

}  // namespace

QUIVER_INDEX_SHELL(HnswIndex, HnswIndexOptions);

size_t HnswIndex::M() const noexcept { return impl_->M; }
size_t HnswIndex::ef_construction() const noexcept { return impl_->ef_construction; }
uint64_t HnswIndex::seed() const noexcept { return impl_->seed; }
size_t HnswIndex::ef_search() const noexcept { return impl_->ef_search; }
HnswStorage HnswIndex::storage() const noexcept { return impl_->storage; }
bool HnswIndex::keeps_vectors() const noexcept { return impl_->keep_vectors; }
bool HnswIndex::neighbor_codes() const noexcept { return impl_->nbr_codes; }

const char* hnsw_storage_name(HnswStorage storage) noexcept {
  switch (storage) {
    case HnswStorage::f32: return "f32";
    case HnswStorage::sq8: return "sq8";
  }
  return "unknown";
}

HnswStorage parse_hnsw_storage(const std::string& name) {
  if (name == "f32") return HnswStorage::f32;
  if (name == "sq8") return HnswStorage::sq8;
  throw Error(ErrorCode::InvalidArgument, "unknown HNSW storage '" + name + "' (expected f32 or sq8)");
}
size_t HnswIndex::node_bytes() const noexcept { return impl_->node_bytes; }

size_t HnswIndex::bytes_per_vector() const noexcept {
  size_t used;
  {
    core::ReadLock lock(impl_->rw);
    used = impl_->used();
  }
  return used == 0 ? 0 : memory_bytes() / used;
}

void HnswIndex::get(uint64_t id, float* out) const {
  core::ReadLock lock(impl_->rw);
  uint32_t slot;
  if (!impl_->slots.find(id, slot))
    throw Error(ErrorCode::UnknownId, "id " + std::to_string(id) + " is not in the index");
  const float* v = impl_->f32_vector(slot);
  if (v == nullptr) throw_no_vectors(IndexKind::hnsw);
  std::memcpy(out, v, impl_->dim * sizeof(float));
}

int HnswIndex::max_level() const noexcept {
  const uint64_t e = impl_->entry.load(std::memory_order_acquire);
  return e == kNoEntry ? -1 : int(e >> 32);
}

size_t HnswIndex::memory_bytes() const noexcept {
  const Impl& m = *impl_;
  core::ReadLock lock(m.rw);
  size_t upper = 0;
  for (size_t s = 0; s < m.used(); ++s) upper += size_t(m.levels[s]) * (1 + m.M) * sizeof(uint32_t);
  const size_t codec = m.storage == HnswStorage::sq8 ? m.sq8.memory_bytes() : 0;
  return codec + m.nodes.memory_bytes() + m.full.memory_bytes() + m.capacity_slots * sizeof(Impl::NodeSync) + upper +
         m.upper.capacity() * sizeof(void*) + m.levels.capacity() + m.deleted.capacity() + m.slots.memory_bytes();
}

void HnswIndex::reserve(size_t n) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> writer(m.writer_mutex);
  core::WriteLock exclusive(m.rw);
  m.reserve_slots(n);
}

void HnswIndex::add(const uint64_t* ids, const float* vectors, size_t n) {
  Impl& m = *impl_;
  if (n == 0) return;
  if (ids == nullptr) throw Error(ErrorCode::InvalidArgument, "ids is null");
  std::lock_guard<std::mutex> writer(m.writer_mutex);
  m.slots.check_room(n);  // before a row is read: n may be more rows than can exist
  core::check_vectors(vectors, n, m.dim, m.metric, "vector");
  parallel::ThreadPool& pool = parallel::process_pool();
  const size_t workers = std::max<size_t>(1, pool.size());
  Impl::PendingAdd plan = m.plan_add(ids, n, workers);
  size_t first_parallel;
  {
    core::WriteLock exclusive(m.rw);
    first_parallel = m.commit_add(plan, ids, vectors);
  }
  {
    // Link the rest in parallel; searches may run meanwhile. With one worker the tasks run in
    // order on the calling thread, which makes the build deterministic.
    core::ReadLock shared(m.rw);
    pool.parallel_for(n - first_parallel, [&](size_t task, size_t worker) {
      Context& c = m.build_contexts[worker < workers ? worker : 0];
      m.insert(plan.slots[first_parallel + task], c);
    });
  }
  if (m.nbr_codes) {
    // Neighbour codes of every list the add changed, once it is linked (searches wait).
    core::WriteLock exclusive(m.rw);
    m.refresh_codes();
  }
}

void HnswIndex::remove(const uint64_t* ids, size_t n) {
  Impl& m = *impl_;
  if (n == 0) return;
  std::lock_guard<std::mutex> writer(m.writer_mutex);
  m.slots.check_remove(ids, n);
  core::WriteLock exclusive(m.rw);
  for (size_t i = 0; i < n; ++i) {
    uint32_t moved_from;  // (a free-list table moves nothing)
    m.deleted[m.slots.remove(ids[i], moved_from)] = 1;
  }
}

namespace {
void check_params(const HnswSearchParams& p) {
  index::check_search_params(p);
  if (p.ef > kMaxEf) throw Error(ErrorCode::InvalidArgument, "ef must be at most 1048576");
}
}  // namespace

size_t HnswIndex::search(const float* query, size_t k, Neighbor* out, const HnswSearchParams& params) const {
  core::check_k(k);
  check_params(params);
  core::ReadLock lock(impl_->rw);
  if (impl_->live() == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  impl_->rerank_depth(params);  // throws for a depth without kept vectors
  core::check_vectors(query, 1, impl_->dim, impl_->metric, "query");
  return impl_->search_one(query, k, out, params, thread_context());
}

std::vector<Neighbor> HnswIndex::search(const std::vector<float>& query, size_t k,
                                        const HnswSearchParams& params) const {
  core::check_query_size(query.size(), impl_->dim);
  core::check_k(k);
  std::vector<Neighbor> out(std::min(k, size()));
  if (out.empty()) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  out.resize(search(query.data(), out.size(), out.data(), params));
  return out;
}

size_t HnswIndex::search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                               const HnswSearchParams& params) const {
  core::check_k(k);
  check_params(params);
  const Impl& m = *impl_;
  core::ReadLock lock(m.rw);
  if (m.live() == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  m.rerank_depth(params);  // throws for a depth without kept vectors
  core::check_vectors(queries, nq, m.dim, m.metric, "query");
  const size_t kk = std::min(k, m.live());
  index::run_batch(nq, k, kk, 1, nq < kParallelBatch, out, [&](size_t q, size_t, size_t* counts) {
    counts[0] = m.search_one(queries + q * m.dim, k, out + q * k, params, thread_context());
  });
  return kk;
}

}  // namespace quiver
