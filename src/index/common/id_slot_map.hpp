// IdSlotMap: the slot table's id -> slot lookup, in about 5 bytes a bucket.
//
// A std::unordered_map<uint64_t, uint32_t> costs ~36 bytes per id (a heap node with the key,
// the value and a next pointer, plus a bucket pointer) — a tenth of what a partitioned,
// codes-only quantised vector costs in all. This map stores only the slot: the id is already in
// the slot table's slot -> id array, so a bucket is a 32-bit slot plus one tag byte (7 bits of
// the id's hash, high bit set; 0 = empty). A lookup compares tags, which sit contiguously, and
// reads slot_ids[slot] only when a tag matches (a false match is 1 in 128 per probe).
//
// Open addressing, linear probing, power-of-two capacity, at most 7/8 full; removal shifts the
// following entries back (no tombstones, so lookups never slow down after many removals).
// Every function that reads an entry's id takes `ids`, the slot table's slot -> id array, which
// must hold the ids of every entry in the map at that moment.
//
// Growth is all-or-nothing: reserve() builds the new buckets before freeing the old ones and
// throws std::bad_alloc with nothing changed; insert() never allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace quiver::index {

class IdSlotMap {
 public:
  IdSlotMap() = default;
  IdSlotMap(IdSlotMap&& other) noexcept { swap(other); }
  IdSlotMap& operator=(IdSlotMap&& other) noexcept {
    IdSlotMap(std::move(other)).swap(*this);
    return *this;
  }
  IdSlotMap(const IdSlotMap&) = delete;
  IdSlotMap& operator=(const IdSlotMap&) = delete;

  size_t size() const noexcept { return size_; }
  size_t buckets() const noexcept { return capacity_; }
  size_t memory_bytes() const noexcept { return capacity_ * (sizeof(uint32_t) + sizeof(uint8_t)); }

  // The slot of `id`, or false.
  bool find(uint64_t id, const uint64_t* ids, uint32_t& slot) const noexcept {
    if (size_ == 0) return false;
    const uint64_t h = hash(id);
    const uint8_t want = tag_of(h);
    for (size_t b = h & (capacity_ - 1);; b = (b + 1) & (capacity_ - 1)) {
      const uint8_t t = tags_[b];
      if (t == 0) return false;
      if (t == want && ids[slots_[b]] == id) {
        slot = slots_[b];
        return true;
      }
    }
  }

  // Room for `entries` entries without growing (rehashes into a larger table if needed).
  // Throws std::bad_alloc and changes nothing if the memory is not there.
  void reserve(size_t entries, const uint64_t* ids);
  // Adds an id known to be absent; room reserved by reserve(). Never allocates.
  void insert(uint64_t id, uint32_t slot) noexcept;
  // Removes `id` (present). ids[slot of id] must still be `id`.
  void erase(uint64_t id, const uint64_t* ids) noexcept;
  // `id` (present, ids[its slot] == id) now lives in `slot`. The caller then makes
  // ids[slot] == id.
  void move(uint64_t id, const uint64_t* ids, uint32_t slot) noexcept;
  void swap(IdSlotMap& other) noexcept;

 private:
  static uint64_t hash(uint64_t id) noexcept {  // the splitmix64 finaliser: every bit mixes
    id ^= id >> 30;
    id *= 0xbf58476d1ce4e5b9ULL;
    id ^= id >> 27;
    id *= 0x94d049bb133111ebULL;
    return id ^ (id >> 31);
  }
  static uint8_t tag_of(uint64_t h) noexcept { return uint8_t((h >> 57) | 0x80); }
  // Bucket holding `id` (present).
  size_t bucket_of(uint64_t id, const uint64_t* ids) const noexcept;

  std::unique_ptr<uint32_t[]> slots_;
  std::unique_ptr<uint8_t[]> tags_;
  size_t capacity_ = 0;  // 0 or a power of two >= kMinBuckets
  size_t size_ = 0;
};

}  // namespace quiver::index
