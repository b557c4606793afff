// IdSlotMap (id_slot_map.hpp): growth, insertion and removal by backward shift.
#include "index/common/id_slot_map.hpp"

#include <new>

namespace quiver::index {
namespace {

constexpr size_t kMinBuckets = 16;

// Entries a table of `capacity` buckets holds at most: 7/8 of it, so that a probe always
// meets an empty bucket and a failed lookup stays short (~32 tag bytes at the limit).
size_t max_entries(size_t capacity) noexcept { return capacity - capacity / 8; }

}  // namespace

void IdSlotMap::reserve(size_t entries, const uint64_t* ids) {
  if (entries <= max_entries(capacity_)) return;
  size_t capacity = capacity_ == 0 ? kMinBuckets : capacity_;
  while (max_entries(capacity) < entries) {
    if (capacity > SIZE_MAX / 2 / (sizeof(uint32_t) + 1)) throw std::bad_alloc();
    capacity *= 2;
  }
  IdSlotMap grown;
  grown.slots_.reset(new uint32_t[capacity]);
  grown.tags_.reset(new uint8_t[capacity]());
  grown.capacity_ = capacity;
  for (size_t b = 0; b < capacity_; ++b) {
    if (tags_[b] != 0) grown.insert(ids[slots_[b]], slots_[b]);
  }
  swap(grown);
}

void IdSlotMap::insert(uint64_t id, uint32_t slot) noexcept {
  const uint64_t h = hash(id);
  size_t b = h & (capacity_ - 1);
  while (tags_[b] != 0) b = (b + 1) & (capacity_ - 1);
  tags_[b] = tag_of(h);
  slots_[b] = slot;
  ++size_;
}

size_t IdSlotMap::bucket_of(uint64_t id, const uint64_t* ids) const noexcept {
  const uint64_t h = hash(id);
  const uint8_t want = tag_of(h);
  size_t b = h & (capacity_ - 1);
  while (!(tags_[b] == want && ids[slots_[b]] == id)) b = (b + 1) & (capacity_ - 1);
  return b;
}

void IdSlotMap::erase(uint64_t id, const uint64_t* ids) noexcept {
  const size_t mask = capacity_ - 1;
  size_t hole = bucket_of(id, ids);
  // Backward shift: an entry after the hole moves into it unless its home lies cyclically in
  // (hole, entry] — then the hole does not cut its probe path.
  for (size_t b = (hole + 1) & mask; tags_[b] != 0; b = (b + 1) & mask) {
    const size_t home = hash(ids[slots_[b]]) & mask;
    const bool stays = hole <= b ? (hole < home && home <= b) : (hole < home || home <= b);
    if (stays) continue;
    tags_[hole] = tags_[b];
    slots_[hole] = slots_[b];
    hole = b;
  }
  tags_[hole] = 0;
  --size_;
}

void IdSlotMap::move(uint64_t id, const uint64_t* ids, uint32_t slot) noexcept { slots_[bucket_of(id, ids)] = slot; }

void IdSlotMap::swap(IdSlotMap& other) noexcept {
  slots_.swap(other.slots_);
  tags_.swap(other.tags_);
  std::swap(capacity_, other.capacity_);
  std::swap(size_, other.size_);
}

}  // namespace quiver::index
