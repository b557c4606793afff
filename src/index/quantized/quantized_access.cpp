// The index file code's view of a QuantizedIndex (index/quantized_state.hpp): a canonical
// per-slot layout (ids, packed codes, scalars, kept vectors, free list) read from and written
// into the 32-vector block storage, so the kernels' layout can change without changing files.
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "index/quantized/quantized_impl.hpp"
#include "index/quantized/quantized_state.hpp"

namespace quiver {

using quantized::throw_oom;

QuantizedIndexAccess::View QuantizedIndexAccess::view(const QuantizedIndex& index) {
  const QuantizedIndex::Impl& m = *index.impl_;
  return {m.subq,
          &m.codebook,
          &m.rotation,
          m.slots.used(),
          m.slots.slot_ids(),
          m.keep_vectors,
          m.slots.free_slots().data(),
          m.slots.free_slots().size(),
          m.refine_codec.enabled() ? &m.refine_codec : nullptr};
}

const float* QuantizedIndexAccess::vector(const QuantizedIndex& index, uint32_t slot) {
  return index.impl_->vectors.row(slot);
}

uint32_t QuantizedIndexAccess::list_of_slot(const QuantizedIndex& index, uint32_t slot) {
  return *index.impl_->slot_list.row(slot);
}

const uint8_t* QuantizedIndexAccess::refine_row(const QuantizedIndex& index, uint32_t slot) {
  return index.impl_->refine.row(slot);
}

float QuantizedIndexAccess::refine_scale(const QuantizedIndex& index, uint32_t slot) {
  return index.impl_->refine.scale(slot);
}

core::ReadLock QuantizedIndexAccess::read_lock(const QuantizedIndex& index) { return core::ReadLock(index.impl_->rw); }

void QuantizedIndexAccess::packed_codes(const QuantizedIndex& index, uint32_t slot, uint8_t* out) {
  const QuantizedIndex::Impl& m = *index.impl_;
  size_t lane;
  const uint8_t* block = m.code_block(slot, lane);
  quantized::read_lane_packed(block, lane, out, m.subq);
}

void QuantizedIndexAccess::scalars(const QuantizedIndex& index, uint32_t slot, float& offset, float& scale) {
  offset = index.impl_->offset_of(slot);
  scale = index.impl_->scale_of(slot);
}

QuantizedIndexAccess::Partition QuantizedIndexAccess::partition(const QuantizedIndex& index) {
  const QuantizedIndex::Impl& m = *index.impl_;
  if (!m.partitioned()) return {0, 0, 0, {}, {}};
  return {m.lists_option, m.ivf.lists(), m.trained_on, m.coarse.centroids(), m.coarse.spreads()};
}

void QuantizedIndexAccess::set_partition(QuantizedIndex& index, size_t lists, size_t trained_on,
                                         std::vector<float> centroids, std::vector<float> spreads) {
  QuantizedIndex::Impl& m = *index.impl_;
  try {
    m.ivf = quantized::InvertedLists(lists, m.block_bytes());
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  set_centroids(index, lists, trained_on, std::move(centroids), std::move(spreads));
}

void QuantizedIndexAccess::set_centroids(QuantizedIndex& index, size_t lists, size_t trained_on,
                                         std::vector<float> centroids, std::vector<float> spreads) {
  QuantizedIndex::Impl& m = *index.impl_;
  if (m.ivf.lists() != lists) {
    throw Error(ErrorCode::Internal, "quantised load: " + std::to_string(m.ivf.lists()) + " lists filled for " +
                                         std::to_string(lists) + " centroids");
  }
  try {
    if (trained_on > 0) {
      m.coarse = quantized::CoarseQuantizer(lists, m.dim, std::move(centroids), std::move(spreads), &m.kernels);
    }
    m.trained_on = trained_on;
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
}

void QuantizedIndexAccess::reserve(QuantizedIndex& index, size_t slots, size_t free_count) {
  QuantizedIndex::Impl& m = *index.impl_;
  try {
    m.reserve_slots(slots);
    m.slots.reserve(slots, slots - free_count);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
}

void QuantizedIndexAccess::append_slots(QuantizedIndex& index, size_t n, const uint64_t* ids, const uint8_t* packed,
                                        const float* offset, const float* scale, const float* vectors,
                                        const uint32_t* lists, const uint8_t* refine_rows, const float* refine_scales) {
  QuantizedIndex::Impl& m = *index.impl_;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = uint32_t(m.slots.used());
    try {
      m.slots.append(ids[i], ids[i] != kNoId);  // the loader rejected duplicate ids already
    } catch (const std::bad_alloc&) {
      throw_oom();
    }
    if (ids[i] == kNoId) continue;
    const uint8_t* p = packed + i * ((m.subq + 1) / 2);
    if (m.partitioned()) {
      const uint32_t l = lists[i];
      try {
        m.ivf.reserve(l, 1);
      } catch (const std::bad_alloc&) {
        throw_oom();
      }
      *m.slot_list.row(slot) = l;
      *m.slot_pos.row(slot) = m.ivf.append_packed(l, slot, p, m.subq, offset[i], scale[i]);
    } else {
      m.write_packed_codes(slot, p);
      *m.offset.row(slot) = offset[i];
      *m.scale.row(slot) = scale[i];
    }
    if (m.keep_vectors) std::memcpy(m.vectors.row(slot), vectors + i * m.dim, m.dim * 4);
    if (m.refine_codec.enabled()) m.refine.store(slot, refine_rows + i * m.refine.row_bytes(), refine_scales[i]);
  }
}

void QuantizedIndexAccess::set_free_slots(QuantizedIndex& index, const uint32_t* free_slots, size_t n) {
  index.impl_->slots.set_free_slots(free_slots, n);  // capacity reserved
}

std::string QuantizedIndexAccess::partition_fault(const QuantizedIndex& index) {
  return index.impl_->partitioned() ? index.impl_->partition_fault() : std::string();
}

void QuantizedIndexAccess::pack_lists(QuantizedIndex& index) noexcept {
  if (index.impl_->partitioned()) index.impl_->ivf.pack();
}

void QuantizedIndexAccess::reserve_rows(QuantizedIndex& index, size_t slots) {
  try {
    index.impl_->reserve_slots(slots);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
}

void QuantizedIndexAccess::put_codes(QuantizedIndex& index, uint32_t slot, const uint8_t* packed) noexcept {
  index.impl_->write_packed_codes(slot, packed);
}

void QuantizedIndexAccess::begin_lists(QuantizedIndex& index, size_t lists_option, size_t lists) {
  QuantizedIndex::Impl& m = *index.impl_;
  try {
    m.ivf = quantized::InvertedLists(lists, m.block_bytes());
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  m.lists_option = lists_option;
}

void QuantizedIndexAccess::place_codes(QuantizedIndex& index, uint32_t slot, uint32_t list, const uint8_t* packed) {
  QuantizedIndex::Impl& m = *index.impl_;
  try {
    m.ivf.reserve(list, 1);  // as append_slots grows a list: the same blocks, the same memory
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  *m.slot_list.row(slot) = list;
  *m.slot_pos.row(slot) =
      m.ivf.append_packed(list, slot, packed, m.subq, 0.0f, 0.0f);  // scalars: put_offset / put_scale
}

void QuantizedIndexAccess::put_offset(QuantizedIndex& index, uint32_t slot, float offset) noexcept {
  QuantizedIndex::Impl& m = *index.impl_;
  if (m.partitioned()) {
    m.ivf.set_offset(*m.slot_list.row(slot), *m.slot_pos.row(slot), offset);
  } else {
    *m.offset.row(slot) = offset;
  }
}

void QuantizedIndexAccess::put_scale(QuantizedIndex& index, uint32_t slot, float scale) noexcept {
  QuantizedIndex::Impl& m = *index.impl_;
  if (m.partitioned()) {
    m.ivf.set_scale(*m.slot_list.row(slot), *m.slot_pos.row(slot), scale);
  } else {
    *m.scale.row(slot) = scale;
  }
}

float* QuantizedIndexAccess::vector_row(QuantizedIndex& index, uint32_t slot) noexcept {
  return index.impl_->vectors.row(slot);
}

void QuantizedIndexAccess::put_refine(QuantizedIndex& index, uint32_t slot, const uint8_t* row, float scale) noexcept {
  index.impl_->refine.store(slot, row, scale);
}

void QuantizedIndexAccess::commit_slots(QuantizedIndex& index, size_t n, const uint64_t* ids) {
  QuantizedIndex::Impl& m = *index.impl_;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = uint32_t(m.slots.used());
    try {
      m.slots.append(ids[i], ids[i] != kNoId);
    } catch (const std::bad_alloc&) {
      throw_oom();
    }
    // Dead, as reserve_slots leaves a slot (partitioned, a free slot is in no list).
    if (ids[i] == kNoId && !m.partitioned()) *m.offset.row(slot) = INFINITY;
  }
}

}  // namespace quiver
