// The id <-> slot bookkeeping every index kind owns: which caller id lives in which 32-bit
// slot, which slots are free, and the all-or-nothing add every kind runs:
//
//   check_room() validate: the slot limit, before anything is read         (throws, no change)
//   check_ids()  validate: reserved / present / repeated ids               (throws, no change)
//   plan()       reserve: pick each id's slot, reserve the table's memory  (bad_alloc, no change)
//   bind()       the point after which nothing may fail; allocates nothing (noexcept)
//   commit()     the ids own their slots and become findable               (noexcept)
//
// The index reserves its own storage between plan() and bind() and writes its rows after
// commit(), so a failure anywhere before commit() leaves the index exactly as it was.
//
// What a removed slot becomes depends on the kind (Reuse): the flat index keeps its rows dense
// for the scan by moving the last slot into the hole; the quantised index and HNSW put the
// slot on a free list that later adds take from its back (last in, first out). Both are
// written into index files, so they are part of the format and must not change.
//
// Memory: the slot -> id array (8 bytes a slot, grown geometrically so that many small adds
// do not copy it each time), the free list, and the id -> slot map (id_slot_map.hpp, ~5 bytes
// a bucket at most 7/8 full: it stores slots only and reads ids back from the array).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/common/id_slot_map.hpp"
#include "quiver/metric.hpp"

namespace quiver::index {

enum class Reuse {
  compact,    // remove() moves the last slot into the hole; used() == size()
  free_list,  // remove() frees the slot; add() reuses free slots last-in first-out
};

class SlotTable {
 public:
  // `max_slots`: the largest used() an add may reach; `kind` names the index in the limit
  // error ("a <kind> index holds at most <max_slots> vectors").
  SlotTable(Reuse reuse, size_t max_slots, const char* kind) noexcept
      : reuse_(reuse), max_slots_(max_slots), kind_(kind) {}

  size_t size() const noexcept { return slot_of_.size(); }   // live ids
  size_t used() const noexcept { return slot_ids_.size(); }  // slots in use, live and free
  bool contains(uint64_t id) const noexcept {
    uint32_t slot;
    return find(id, slot);
  }
  // The slot of `id`, or false if it is not in the table.
  bool find(uint64_t id, uint32_t& slot) const noexcept { return slot_of_.find(id, slot_ids_.data(), slot); }
  // The id in `slot` (< used()); a free slot holds core::kReservedId unless the kind keeps
  // the removed id there (keep_removed_ids).
  uint64_t id_at(uint32_t slot) const noexcept { return slot_ids_[slot]; }
  const uint64_t* slot_ids() const noexcept { return slot_ids_.data(); }
  const std::vector<uint32_t>& free_slots() const noexcept { return free_; }
  size_t memory_bytes() const noexcept;

  // ---- the all-or-nothing add ----
  // How many of n new ids take a free slot (the rest extend used()).
  size_t reused_for(size_t n) const noexcept { return n < free_.size() ? n : free_.size(); }
  // Throws Error(InvalidArgument) if n more ids would pass the slot limit. Reads no id or
  // row, so it runs first (a batch too large to exist is refused before anything is read).
  void check_room(size_t n) const;
  // Throws Error(InvalidArgument) for the reserved id, Error(DuplicateId) for an id already
  // present or repeated in `ids` (std::bad_alloc possible). Changes nothing.
  void check_ids(const uint64_t* ids, size_t n) const;
  // Throws like check_room() if a table of `total` slots would pass the limit (a kind's
  // reserve(n), where n counts every slot).
  void check_capacity(size_t total) const;
  size_t max_slots() const noexcept { return max_slots_; }
  // Makes room for `total` slots in the id array (geometrically: at least 1.5x the old room),
  // so adds up to that many do not reallocate it.
  void reserve_ids(size_t total);
  // Writes the slot each of the n ids will take into `slots` and reserves all the table's
  // memory for them (std::bad_alloc possible, nothing visible changes). The map's buckets may
  // be rehashed: run it where no reader of the table runs (HNSW: under its exclusive lock).
  void plan(size_t n, uint32_t* slots);
  // Marks the point after which the add cannot fail: plan() reserved everything, so this
  // allocates and changes nothing (kept as the step each kind's add sequence names).
  void bind(const uint64_t* ids, const uint32_t* slots, size_t n) noexcept;
  // Takes the reused slots off the free list, records each id in its slot and makes it
  // findable. Allocates nothing.
  void commit(const uint64_t* ids, const uint32_t* slots, size_t n) noexcept;

  // ---- removal ----
  // Throws Error(UnknownId / DuplicateId) unless every id is present once, and reserves the
  // free list (Error(OutOfMemory) on failure). Changes nothing.
  void check_remove(const uint64_t* ids, size_t n);
  // Removes one id checked by check_remove(). Returns its slot. Under Reuse::compact, when the
  // slot was not the last one, `moved_from` is the last slot, whose id now lives in the
  // returned slot (the caller moves its row); otherwise moved_from == the returned slot.
  uint32_t remove(uint64_t id, uint32_t& moved_from) noexcept;

  // HNSW keeps the id of a removed node in its slot until the slot is reused (a tombstone is
  // still traversed, and its file records it); the other kinds clear it.
  void keep_removed_ids(bool keep) noexcept { keep_removed_ids_ = keep; }

  // ---- loading a file: the table is rebuilt slot by slot ----
  void reserve(size_t slots, size_t live);
  // Appends a slot holding `id` (core::kReservedId for a free one; the caller validated the
  // ids). Returns false if a live id is already present.
  bool append(uint64_t id, bool live);
  void set_free_slots(const uint32_t* slots, size_t n) { free_.assign(slots, slots + n); }
  // HNSW's compaction renumbers every live node: rebuilds the table from the live ids in
  // their new slot order.
  void assign_dense(const uint64_t* ids, size_t n);

 private:
  Reuse reuse_;
  size_t max_slots_;
  const char* kind_;
  bool keep_removed_ids_ = false;
  std::vector<uint64_t> slot_ids_;  // id of each slot; size() == used()
  std::vector<uint32_t> free_;      // free slots; adds take from the back
  IdSlotMap slot_of_;               // id -> slot of every live id
};

// A vector as every kind stores it: copied, and under cosine scaled to unit length (the norm
// summed and applied in double, so a subnormal or huge vector works). `src` passed the
// metric's check (core::check_vectors), so a cosine vector is not all zeros.
void store_vector(Metric metric, const float* src, float* dst, size_t dim) noexcept;

}  // namespace quiver::index
