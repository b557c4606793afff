// HnswIndexAccess (src/index/hnsw/hnsw_state.hpp): the graph's internals for the index file code
// (src/index/hnsw/hnsw_format.cpp).
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "base/check.hpp"
#include "index/hnsw/hnsw_graph.hpp"
#include "index/hnsw/hnsw_state.hpp"
#include "quiver/error.hpp"

namespace quiver {

using hnsw::Sq8Codec;
using hnsw::throw_oom;

std::unique_lock<std::mutex> HnswIndexAccess::lock_updates(const HnswIndex& index) {
  return std::unique_lock<std::mutex>(index.impl_->writer_mutex);
}

HnswIndexAccess::View HnswIndexAccess::view(const HnswIndex& index) {
  const HnswIndex::Impl& m = *index.impl_;
  return {m.used(),
          m.slots.slot_ids(),
          m.levels.data(),
          m.deleted.data(),
          m.slots.free_slots().data(),
          m.slots.free_slots().size(),
          m.entry.load(std::memory_order_acquire),
          m.draws};
}

const float* HnswIndexAccess::vector(const HnswIndex& index, uint32_t slot) { return index.impl_->f32_vector(slot); }

const uint8_t* HnswIndexAccess::codes(const HnswIndex& index, uint32_t slot) { return index.impl_->pt(slot); }

float HnswIndexAccess::sq8_scale(const HnswIndex& index, uint32_t slot) {
  const HnswIndex::Impl& m = *index.impl_;
  return Sq8Codec::scale_of(m.pt(slot), m.code_bytes);
}

const uint32_t* HnswIndexAccess::links(const HnswIndex& index, uint32_t slot, int level) {
  return index.impl_->list(slot, level);
}

namespace {
// The row of `slot` in `rows`, adding a chunk when it is past the storage (loading only).
template <typename T>
T* grown_row(core::RowBlocks<T>& rows, uint32_t slot) {
  try {
    rows.reserve(size_t(slot) + 1);
  } catch (const Error&) {
    throw_oom();
  }
  return rows.row(slot);
}
}  // namespace

uint32_t* HnswIndexAccess::load_links(HnswIndex& index, uint32_t slot) {
  HnswIndex::Impl& m = *index.impl_;
  return reinterpret_cast<uint32_t*>(grown_row(m.nodes, slot) + m.links_offset);
}

uint8_t* HnswIndexAccess::load_point(HnswIndex& index, uint32_t slot) { return grown_row(index.impl_->nodes, slot); }

float* HnswIndexAccess::load_vector(HnswIndex& index, uint32_t slot) {
  HnswIndex::Impl& m = *index.impl_;
  if (m.storage == HnswStorage::f32) return reinterpret_cast<float*>(grown_row(m.nodes, slot));
  return grown_row(m.full, slot);
}

void HnswIndexAccess::begin_load(HnswIndex& index, size_t slots, size_t free_count) {
  HnswIndex::Impl& m = *index.impl_;
  m.reserve_slots(slots);
  try {
    m.slots.reserve(slots, slots - free_count);  // set_node() appends the slots in order
    m.levels.assign(slots, 0);
    m.deleted.assign(slots, 0);
    m.upper.resize(slots);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
}

void HnswIndexAccess::set_node(HnswIndex& index, uint32_t slot, uint64_t id, bool tombstone, int level) {
  HnswIndex::Impl& m = *index.impl_;
  QUIVER_DCHECK(slot == m.used(), "set_node() must be called for every slot in order");
  try {
    if (level > 0) m.upper[slot].reset(new uint32_t[size_t(level) * (1 + m.M)]());
    if (!m.slots.append(tombstone ? kNoId : id, !tombstone)) {
      throw Error(ErrorCode::Corrupt, "index file: id " + std::to_string(id) + " appears twice");
    }
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  m.levels[slot] = uint8_t(level);
  m.deleted[slot] = tombstone ? 1 : 0;
  m.sync[slot].linked.store(1, std::memory_order_relaxed);
  // The node's row keeps what load_links/load_point/load_vector wrote (zero elsewhere).
}

float* HnswIndexAccess::mutable_vector(HnswIndex& index, uint32_t slot) {
  return const_cast<float*>(index.impl_->f32_vector(slot));
}

std::string HnswIndexAccess::set_codes(HnswIndex& index, uint32_t slot, const uint8_t* codes, float scale) {
  HnswIndex::Impl& m = *index.impl_;
  if (codes != m.pt(slot)) std::memcpy(m.pt(slot), codes, m.dim);  // the padding after them stays zero
  return m.sq8.set_record(m.pt(slot), scale);
}

size_t HnswIndexAccess::encode_scratch_floats(const HnswIndex& index) { return index.impl_->sq8.scratch_floats(); }

void HnswIndexAccess::encode(HnswIndex& index, uint32_t slot, const float* v, float* scratch) {
  HnswIndex::Impl& m = *index.impl_;
  m.sq8.encode(v, m.pt(slot), scratch);
}

uint32_t* HnswIndexAccess::mutable_links(HnswIndex& index, uint32_t slot, int level) {
  return index.impl_->list(slot, level);
}

void HnswIndexAccess::finish_load(HnswIndex& index, const uint32_t* free_slots, size_t free_count, uint64_t entry,
                                  uint64_t draws) {
  HnswIndex::Impl& m = *index.impl_;
  m.slots.set_free_slots(free_slots, free_count);  // capacity reserved by begin_load()
  m.entry.store(entry, std::memory_order_release);
  m.draws = draws;
  m.refresh_codes(/*all=*/true);  // neighbour codes are never stored: derived from links and codes
}

HnswIndex::Impl& HnswIndexAccess::graph(HnswIndex& index) { return *index.impl_; }

}  // namespace quiver
