// One implementation of the id <-> slot contract (slot_table.hpp) for every index kind.
#include "index/common/slot_table.hpp"

#include <cmath>
#include <cstring>
#include <new>

#include "base/validate.hpp"
#include "quiver/error.hpp"

namespace quiver::index {
namespace {

// What core::check_new_ids / check_known_ids ask of the ids already present.
struct Present {
  const SlotTable& table;
  size_t count(uint64_t id) const noexcept { return table.contains(id) ? 1 : 0; }
};

// Room for `total` elements, at least 1.5x the old room when it must grow: a run of small
// adds (or removes) then copies the array O(log n) times, not once per call.
template <typename T>
void grow_geometric(std::vector<T>& v, size_t total) {
  if (total <= v.capacity()) return;
  // More than the vector can ever hold (wasm32: 2^29 ids) is out of memory, not the
  // std::length_error reserve() would throw.
  if (total > v.max_size()) throw std::bad_alloc();
  const size_t geometric = v.capacity() + v.capacity() / 2;
  v.reserve(total > geometric ? total : geometric);
}

}  // namespace

size_t SlotTable::memory_bytes() const noexcept {
  return slot_ids_.capacity() * sizeof(uint64_t) + free_.capacity() * sizeof(uint32_t) + slot_of_.memory_bytes();
}

void SlotTable::reserve_ids(size_t total) { grow_geometric(slot_ids_, total); }

void SlotTable::check_room(size_t n) const {
  // Slots are 32-bit; free slots are reused first, only the rest need new ones.
  core::check_slot_limit(used(), n - reused_for(n), max_slots_, kind_);
}

void SlotTable::check_capacity(size_t total) const { core::check_slot_limit(0, total, max_slots_, kind_); }

void SlotTable::check_ids(const uint64_t* ids, size_t n) const { core::check_new_ids(Present{*this}, ids, n); }

void SlotTable::plan(size_t n, uint32_t* slots) {
  const size_t reused = reused_for(n);
  for (size_t i = 0; i < n; ++i) {
    slots[i] = i < reused ? free_[free_.size() - 1 - i] : uint32_t(used() + (i - reused));
  }
  grow_geometric(slot_ids_, used() + (n - reused));
  slot_of_.reserve(slot_of_.size() + n, slot_ids_.data());
}

void SlotTable::bind(const uint64_t*, const uint32_t*, size_t) noexcept {}

void SlotTable::commit(const uint64_t* ids, const uint32_t* slots, size_t n) noexcept {
  free_.resize(free_.size() - reused_for(n));
  for (size_t i = 0; i < n; ++i) {
    if (slots[i] == used()) slot_ids_.push_back(core::kReservedId);  // capacity reserved by plan()
    slot_ids_[slots[i]] = ids[i];
    slot_of_.insert(ids[i], slots[i]);  // room reserved by plan()
  }
}

void SlotTable::check_remove(const uint64_t* ids, size_t n) {
  try {
    core::check_known_ids(Present{*this}, ids, n);
    if (reuse_ == Reuse::free_list) grow_geometric(free_, free_.size() + n);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "out of memory while removing; the index is unchanged");
  }
}

uint32_t SlotTable::remove(uint64_t id, uint32_t& moved_from) noexcept {
  uint32_t slot = 0;
  slot_of_.find(id, slot_ids_.data(), slot);  // present: check_remove() said so
  slot_of_.erase(id, slot_ids_.data());
  moved_from = slot;
  if (reuse_ == Reuse::free_list) {
    if (!keep_removed_ids_) slot_ids_[slot] = core::kReservedId;
    free_.push_back(slot);  // capacity reserved by check_remove()
    return slot;
  }
  // Compact: the last slot's id moves into the hole, so slots stay 0..size()-1.
  const uint32_t last = uint32_t(slot_ids_.size() - 1);
  if (slot != last) {
    slot_of_.move(slot_ids_[last], slot_ids_.data(), slot);
    slot_ids_[slot] = slot_ids_[last];
    moved_from = last;
  }
  slot_ids_.pop_back();
  return slot;
}

void SlotTable::reserve(size_t slots, size_t live) {
  if (slots > slot_ids_.max_size()) throw std::bad_alloc();  // see grow_geometric
  slot_ids_.reserve(slots);
  slot_of_.reserve(live, slot_ids_.data());
  if (reuse_ == Reuse::free_list) free_.reserve(slots - live);
}

bool SlotTable::append(uint64_t id, bool live) {
  const uint32_t slot = uint32_t(slot_ids_.size());
  if (live && contains(id)) return false;
  slot_ids_.push_back(id);
  if (!live) return true;
  try {
    slot_of_.reserve(slot_of_.size() + 1, slot_ids_.data());  // reserve() made room already
  } catch (...) {
    slot_ids_.pop_back();
    throw;
  }
  slot_of_.insert(id, slot);
  return true;
}

void SlotTable::assign_dense(const uint64_t* ids, size_t n) {
  std::vector<uint64_t> slot_ids(ids, ids + n);
  IdSlotMap slot_of;
  slot_of.reserve(n, slot_ids.data());
  for (size_t i = 0; i < n; ++i) slot_of.insert(ids[i], uint32_t(i));
  slot_ids_.swap(slot_ids);
  slot_of_.swap(slot_of);
  free_.clear();
}

void store_vector(Metric metric, const float* src, float* dst, size_t dim) noexcept {
  if (metric != Metric::cosine) {
    std::memcpy(dst, src, dim * sizeof(float));
    return;
  }
  double norm2 = 0.0;
  for (size_t j = 0; j < dim; ++j) norm2 += double(src[j]) * src[j];
  const double inv = 1.0 / std::sqrt(norm2);
  for (size_t j = 0; j < dim; ++j) dst[j] = static_cast<float>(src[j] * inv);
}

}  // namespace quiver::index
