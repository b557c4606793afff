// index::SlotTable on its own (src/index/slot_table.hpp): the id <-> slot contract every
// index kind builds on — the all-or-nothing add and its undo, free-list order, compaction of
// the flat kind, the slot limit, tombstone ids, loading and renumbering.
// It lives in quiver_alloc_tests because the undo test makes one allocation fail, which needs
// that program's replacement operator new (alloc_counter.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "core/validate.hpp"
#include "index/slot_table.hpp"
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
  EXPECT_EQ(t.id_at(1), 20u);  // still recorded in the slot ...
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

TEST(SlotTable, ABindThatRunsOutOfMemoryUndoesItself) {
  SlotTable t(Reuse::free_list, 100, "test");
  add(t, {10, 20, 30});
  remove(t, {20});
  const std::vector<uint64_t> ids{40, 50, 60, 70};
  std::vector<uint32_t> slots(ids.size());
  t.check_ids(ids.data(), ids.size());
  t.plan(ids.size(), slots.data());
  EXPECT_EQ(slots, (std::vector<uint32_t>{1, 3, 4, 5}));
  // The map's buckets are reserved by plan(): each emplace allocates one node. The third fails.
  EXPECT_EQ(code_of([&] {
              test::fail_allocation_after(2);
              t.bind(ids.data(), slots.data(), ids.size());
            }),
            ErrorCode::OutOfMemory);
  test::fail_allocation_after(SIZE_MAX);
  for (uint64_t id : ids) EXPECT_FALSE(t.contains(id)) << id;
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.used(), 3u);
  EXPECT_EQ(t.free_slots(), (std::vector<uint32_t>{1}));
  EXPECT_EQ(slot_of(t, 10), 0u);
  EXPECT_EQ(slot_of(t, 30), 2u);
  // The same add then succeeds in full.
  EXPECT_EQ(add(t, ids), (std::vector<uint32_t>{1, 3, 4, 5}));
  EXPECT_EQ(t.size(), 6u);
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
