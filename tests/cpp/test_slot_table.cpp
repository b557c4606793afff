// index::SlotTable on its own (src/index/common/slot_table.hpp): the id <-> slot contract every
// index kind builds on — the all-or-nothing add and its undo, free-list order, compaction of
// the flat kind, the slot limit, tombstone ids, loading and renumbering.
// It lives in quiver_alloc_tests because the undo test makes one allocation fail, which needs
// that program's replacement operator new (alloc_counter.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "alloc_counter.hpp"
#include "base/rng.hpp"
#include "base/validate.hpp"
#include "index/common/slot_table.hpp"
#include "quiver/error.hpp"

namespace quiver {
namespace {

using index::Reuse;
using index::SlotTable;

constexpr uint64_t kFree = core::kReservedId;

// Runs the whole add sequence as an index does; returns the slots the ids took.
std::vector<uint32_t> add(SlotTable& t, const std::vector<uint64_t>& ids) {
  t.check_room(ids.size());
  t.check_ids(ids.data(), ids.size());
  std::vector<uint32_t> slots(ids.size());
  t.plan(ids.size(), slots.data());
  t.bind(ids.data(), slots.data(), ids.size());
  t.commit(ids.data(), slots.data(), ids.size());
  return slots;
}

std::vector<uint32_t> remove(SlotTable& t, const std::vector<uint64_t>& ids) {
  t.check_remove(ids.data(), ids.size());
  std::vector<uint32_t> slots;
  for (uint64_t id : ids) {
    uint32_t moved_from;
    slots.push_back(t.remove(id, moved_from));
  }
  return slots;
}

uint32_t slot_of(const SlotTable& t, uint64_t id) {
  uint32_t slot = UINT32_MAX;
  EXPECT_TRUE(t.find(id, slot)) << id;
  return slot;
}

ErrorCode code_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::Internal;
}

TEST(SlotTable, FreshIdsTakeTheNextSlotsInBatchOrder) {
  SlotTable t(Reuse::free_list, 100, "test");
  EXPECT_EQ(add(t, {10, 20, 30}), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(add(t, {40}), (std::vector<uint32_t>{3}));
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.used(), 4u);
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(t.id_at(s), 10u * (s + 1));
    EXPECT_EQ(t.slot_ids()[s], 10u * (s + 1));
    EXPECT_EQ(slot_of(t, 10u * (s + 1)), s);
  }
  EXPECT_FALSE(t.contains(50));
  uint32_t slot = 7;
  EXPECT_FALSE(t.find(50, slot));
  EXPECT_EQ(slot, 7u);  // untouched when the id is absent
}

TEST(SlotTable, FreeSlotsAreReusedLastInFirstOutBeforeFreshOnes) {
  SlotTable t(Reuse::free_list, 100, "test");
  add(t, {10, 20, 30, 40, 50});
  EXPECT_EQ(remove(t, {20, 40}), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(t.free_slots(), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.used(), 5u);  // a freed slot stays in use until reused
  EXPECT_EQ(t.id_at(1), kFree);
  EXPECT_EQ(t.reused_for(1), 1u);
  EXPECT_EQ(t.reused_for(5), 2u);
  // One new id takes the slot freed last; the next batch the other one, then fresh slots.
  EXPECT_EQ(add(t, {60}), (std::vector<uint32_t>{3}));
  EXPECT_EQ(t.free_slots(), (std::vector<uint32_t>{1}));
  EXPECT_EQ(add(t, {70, 80, 90}), (std::vector<uint32_t>{1, 5, 6}));
  EXPECT_TRUE(t.free_slots().empty());
  EXPECT_EQ(t.used(), 7u);
  EXPECT_EQ(t.id_at(1), 70u);
  EXPECT_EQ(t.id_at(3), 60u);
  EXPECT_EQ(slot_of(t, 90), 6u);
}

TEST(SlotTable, CompactMovesTheLastSlotIntoTheHole) {
  SlotTable t(Reuse::compact, 100, "test");
  add(t, {10, 20, 30, 40});
  uint32_t moved_from = 99;
  t.check_remove(std::vector<uint64_t>{20}.data(), 1);
  EXPECT_EQ(t.remove(20, moved_from), 1u);
  EXPECT_EQ(moved_from, 3u);  // 40 moved from the last slot into slot 1
  EXPECT_EQ(t.used(), 3u);
  EXPECT_EQ(t.id_at(1), 40u);
  EXPECT_EQ(slot_of(t, 40), 1u);
  EXPECT_TRUE(t.free_slots().empty());
  // Removing the last slot moves nothing.
  t.check_remove(std::vector<uint64_t>{30}.data(), 1);
  EXPECT_EQ(t.remove(30, moved_from), 2u);
  EXPECT_EQ(moved_from, 2u);
  EXPECT_EQ(t.used(), 2u);
  // Adds always append.
  EXPECT_EQ(add(t, {50}), (std::vector<uint32_t>{2}));
}

TEST(SlotTable, KeepRemovedIdsLeavesATombstoneItsId) {
  SlotTable t(Reuse::free_list, 100, "test");
  t.keep_removed_ids(true);
  add(t, {10, 20, 30});
  remove(t, {20});
  EXPECT_EQ(t.id_at(1), 20u);    // still recorded in the slot ...
  EXPECT_FALSE(t.contains(20));  // ... but no longer findable
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.free_slots(), (std::vector<uint32_t>{1}));
  // The id can come back (into the freed slot), and the slot takes the new id.
  EXPECT_EQ(add(t, {20}), (std::vector<uint32_t>{1}));
  EXPECT_EQ(slot_of(t, 20), 1u);
}

TEST(SlotTable, TheSlotLimitCountsOnlyTheSlotsAnAddCannotReuse) {
  SlotTable t(Reuse::free_list, 5, "test");
  add(t, {1, 2, 3});
  t.check_room(2);  // 3 + 2 = 5: at the limit
  try {
    t.check_room(3);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(std::string(e.what()), "a test index holds at most 5 vectors");
  }
  remove(t, {2});
  t.check_room(3);  // one of the three takes the free slot
  EXPECT_EQ(code_of([&] { t.check_room(4); }), ErrorCode::InvalidArgument);
  // A count too large to exist does not wrap around.
  EXPECT_EQ(code_of([&] { t.check_room(SIZE_MAX); }), ErrorCode::InvalidArgument);
  add(t, {4, 5, 6});
  EXPECT_EQ(t.used(), 5u);
  EXPECT_EQ(code_of([&] { t.check_room(1); }), ErrorCode::InvalidArgument);
  t.check_room(0);
}

TEST(SlotTable, RejectedIdsChangeNothing) {
  SlotTable t(Reuse::free_list, 100, "test");
  add(t, {10, 20});
  remove(t, {10});
  const std::vector<uint64_t> reserved{30, kFree}, present{30, 20}, repeated{30, 40, 30};
  EXPECT_EQ(code_of([&] { t.check_ids(reserved.data(), 2); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { t.check_ids(present.data(), 2); }), ErrorCode::DuplicateId);
  EXPECT_EQ(code_of([&] { t.check_ids(repeated.data(), 3); }), ErrorCode::DuplicateId);
  const std::vector<uint64_t> unknown{20, 10}, twice{20, 20};
  EXPECT_EQ(code_of([&] { t.check_remove(unknown.data(), 2); }), ErrorCode::UnknownId);
  EXPECT_EQ(code_of([&] { t.check_remove(twice.data(), 2); }), ErrorCode::DuplicateId);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.used(), 2u);
  EXPECT_EQ(t.free_slots(), (std::vector<uint32_t>{0}));
  EXPECT_EQ(slot_of(t, 20), 1u);
}

TEST(SlotTable, APlanThatRunsOutOfMemoryChangesNothingAndBindAndCommitAllocateNothing) {
  SlotTable t(Reuse::free_list, 1000, "test");
  add(t, {10, 20, 30});
  remove(t, {20});
  std::vector<uint64_t> ids;
  for (uint64_t id = 100; id < 200; ++id) ids.push_back(id);  // the map must grow for these
  std::vector<uint32_t> slots(ids.size());
  t.check_ids(ids.data(), ids.size());
  EXPECT_THROW(
      {
        test::fail_allocation_after(0);
        t.plan(ids.size(), slots.data());
      },
      std::bad_alloc);
  test::fail_allocation_after(SIZE_MAX);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.used(), 3u);
  EXPECT_EQ(t.free_slots(), (std::vector<uint32_t>{1}));
  EXPECT_EQ(slot_of(t, 10), 0u);
  EXPECT_EQ(slot_of(t, 30), 2u);
  for (uint64_t id : ids) EXPECT_FALSE(t.contains(id)) << id;
  // After a plan, nothing in the add allocates (so nothing can fail half way).
  t.plan(ids.size(), slots.data());
  const size_t before = test::allocation_count();
  t.bind(ids.data(), slots.data(), ids.size());
  t.commit(ids.data(), slots.data(), ids.size());
  EXPECT_EQ(test::allocation_count(), before);
  EXPECT_EQ(t.size(), 102u);
  EXPECT_EQ(slot_of(t, 100), 1u);
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_EQ(slot_of(t, ids[i]), uint32_t(2 + i));
}

// One id at a time: the id array and the map grow geometrically, so the number of
// reallocations grows with log(n), not with n (an exact reserve per add copied the whole id
// array every time: n allocations and O(n^2) bytes moved).
TEST(SlotTable, ManySmallAddsReallocateLogarithmicallyOften) {
  SlotTable t(Reuse::free_list, 1u << 20, "test");
  constexpr size_t n = 20000;
  size_t allocations = 0;
  for (uint64_t id = 0; id < n; ++id) {
    uint32_t slot;
    const size_t before = test::allocation_count();
    t.plan(1, &slot);
    allocations += test::allocation_count() - before;
    t.bind(&id, &slot, 1);
    t.commit(&id, &slot, 1);
  }
  // 1.5x growth of the id array from 1 slot: about log(n) / log(1.5) + 1 reallocations; the
  // map doubles from 16 buckets: log2(n / 14) + 1 (two arrays each).
  const double bound = std::log(double(n)) / std::log(1.5) + 2 + 2 * (std::log2(double(n) / 14) + 2);
  EXPECT_LE(double(allocations), bound);
  for (uint64_t id = 0; id < n; id += 97) EXPECT_EQ(slot_of(t, id), uint32_t(id));
}

// What the table holds per id is its slot's id (8 bytes) and a bucket of the map (4 + 1 bytes,
// at least 7/16 of the buckets full right after the map doubles); a node-based map cost ~36.
TEST(SlotTable, MemoryPerIdIsTheIdArrayAndAFewBytesOfMap) {
  for (size_t n : {1000u, 50000u, 100000u}) {
    SlotTable t(Reuse::free_list, SIZE_MAX, "test");
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = uint64_t(i) * 0x9e3779b97f4a7c15ULL >> 3;
    add(t, ids);
    EXPECT_LE(double(t.memory_bytes()) / double(n), 8.0 + 5.0 * 16.0 / 7.0) << n;
    for (size_t i = 0; i < n; i += 101) EXPECT_EQ(slot_of(t, ids[i]), uint32_t(i));
  }
}

// The open-addressing map against std::unordered_map through long random runs of adds and
// removes of both kinds (removal shifts entries back; compaction moves the last slot).
TEST(SlotTable, RandomAddsAndRemovesAgreeWithAReferenceMap) {
  for (Reuse reuse : {Reuse::free_list, Reuse::compact}) {
    SlotTable t(reuse, 1u << 20, "test");
    std::unordered_map<uint64_t, uint32_t> reference;
    std::vector<uint64_t> live;
    uint64_t state = 7;
    auto next = [&] { return core::splitmix64(state); };
    for (int round = 0; round < 400; ++round) {
      std::vector<uint64_t> fresh;
      const size_t adds = next() % 64;
      // Small ids collide in the low hash bits often enough to exercise long probe runs.
      for (size_t i = 0; i < adds; ++i) {
        const uint64_t id = next() % 5000;
        if (reference.count(id) == 0 && std::find(fresh.begin(), fresh.end(), id) == fresh.end()) fresh.push_back(id);
      }
      const std::vector<uint32_t> slots = add(t, fresh);
      for (size_t i = 0; i < fresh.size(); ++i) {
        reference[fresh[i]] = slots[i];
        live.push_back(fresh[i]);
      }
      const size_t removes = live.empty() ? 0 : next() % (live.size() / 2 + 1);
      for (size_t i = 0; i < removes; ++i) {
        const size_t at = next() % live.size();
        const uint64_t id = live[at];
        live[at] = live.back();
        live.pop_back();
        t.check_remove(&id, 1);
        uint32_t moved_from;
        const uint32_t slot = t.remove(id, moved_from);
        EXPECT_EQ(slot, reference[id]);
        reference.erase(id);
        if (moved_from != slot) reference[t.id_at(slot)] = slot;
      }
      ASSERT_EQ(t.size(), reference.size());
      for (const auto& [id, slot] : reference) ASSERT_EQ(slot_of(t, id), slot) << id;
      for (int probe = 0; probe < 50; ++probe) {
        const uint64_t id = next() % 6000;
        ASSERT_EQ(t.contains(id), reference.count(id) != 0) << id;
      }
    }
  }
}

TEST(SlotTable, LoadingAppendsSlotsInOrderAndRefusesARepeatedLiveId) {
  SlotTable t(Reuse::free_list, 100, "test");
  t.reserve(4, 3);
  EXPECT_TRUE(t.append(10, true));
  EXPECT_TRUE(t.append(kFree, false));
  EXPECT_TRUE(t.append(30, true));
  EXPECT_FALSE(t.append(10, true));  // a second live 10: refused, nothing appended
  EXPECT_EQ(t.used(), 3u);
  EXPECT_TRUE(t.append(40, true));
  const uint32_t free_slot = 1;
  t.set_free_slots(&free_slot, 1);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.used(), 4u);
  EXPECT_EQ(slot_of(t, 40), 3u);
  EXPECT_EQ(add(t, {50, 60}), (std::vector<uint32_t>{1, 4}));
}

TEST(SlotTable, AssignDenseRenumbersTheLiveIdsAndDropsTheFreeList) {
  SlotTable t(Reuse::free_list, 100, "test");
  t.keep_removed_ids(true);
  add(t, {10, 20, 30, 40, 50});
  remove(t, {20, 40});
  const std::vector<uint64_t> live{10, 30, 50};  // in slot order, as compaction keeps them
  t.assign_dense(live.data(), live.size());
  EXPECT_EQ(t.used(), 3u);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_TRUE(t.free_slots().empty());
  for (uint32_t s = 0; s < 3; ++s) {
    EXPECT_EQ(t.id_at(s), live[s]);
    EXPECT_EQ(slot_of(t, live[s]), s);
  }
  EXPECT_FALSE(t.contains(20));
  EXPECT_EQ(add(t, {20}), (std::vector<uint32_t>{3}));
}

}  // namespace
}  // namespace quiver
