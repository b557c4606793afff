// The inverted lists' block arena on its own (index/quantized/partition/quantized_lists.hpp):
// blocks taken as lists grow side by side land on interleaved places; pack() puts each list's
// blocks on consecutive places without changing a single position's codes, offset, scale or
// slot, through removals, growth after a pack and a second pack; pack_if_scattered() packs
// only once enough blocks are out of place; and a re-partition (adopt_arena, append_moved,
// release_block) reuses the old lists' places instead of growing the arena.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/rng.hpp"
#include "index/quantized/partition/quantized_lists.hpp"

namespace quiver::quantized {
namespace test_quantized_lists {

using quant::kBlockVectors;

constexpr size_t kSubq = 24;                              // 12 code bytes a vector
constexpr size_t kCodeBytes = kSubq / 2 * kBlockVectors;  // a block's codes (groups x 64)

struct Position {
  uint32_t slot;
  float offset, scale;
  std::vector<uint8_t> codes;  // kSubq unpacked 4-bit codes
};

// Every position of every list as (list, pos) -> what it holds, read through the public view.
std::vector<std::vector<Position>> contents(const InvertedLists& ivf) {
  std::vector<std::vector<Position>> out(ivf.lists());
  for (size_t l = 0; l < ivf.lists(); ++l) {
    for (size_t pos = 0; pos < ivf.size(l); ++pos) {
      const size_t b = pos / kBlockVectors, v = pos % kBlockVectors;
      Position p{ivf.slots(l, b)[v], ivf.offsets(l, b)[v], ivf.scales(l, b)[v], std::vector<uint8_t>(kSubq)};
      for (size_t s = 0; s < kSubq; ++s) p.codes[s] = read_lane(ivf.codes(l, b), v, s);
      out[l].push_back(p);
    }
  }
  return out;
}

void expect_same(const std::vector<std::vector<Position>>& a, const std::vector<std::vector<Position>>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t l = 0; l < a.size(); ++l) {
    ASSERT_EQ(a[l].size(), b[l].size()) << "list " << l;
    for (size_t i = 0; i < a[l].size(); ++i) {
      EXPECT_EQ(a[l][i].slot, b[l][i].slot) << "list " << l << " pos " << i;
      EXPECT_EQ(a[l][i].offset, b[l][i].offset) << "list " << l << " pos " << i;
      EXPECT_EQ(a[l][i].scale, b[l][i].scale) << "list " << l << " pos " << i;
      EXPECT_EQ(a[l][i].codes, b[l][i].codes) << "list " << l << " pos " << i;
    }
  }
}

// Whether every list's blocks follow each other in memory (a block's bytes end where the next
// one's begin, except where the arena's chunk ends) — what the scan gains from.
size_t blocks_apart(const InvertedLists& ivf) {
  size_t apart = 0;
  for (size_t l = 0; l < ivf.lists(); ++l) {
    for (size_t b = 1; b < ivf.blocks(l); ++b) {
      const size_t step = size_t(ivf.codes(l, b) - ivf.codes(l, b - 1));
      apart += step != kCodeBytes + 3 * kBlockVectors * sizeof(float);
    }
  }
  return apart;
}

// Appends n positions to `list`, slot numbers from `next_slot`, codes and scalars from `rng`.
void add(InvertedLists& ivf, size_t list, size_t n, uint32_t& next_slot, core::Rng& rng) {
  ivf.reserve(list, n);
  std::vector<uint8_t> codes(kSubq);
  for (size_t i = 0; i < n; ++i) {
    for (uint8_t& c : codes) c = uint8_t(rng.next() % 16);
    ivf.append(list, next_slot++, codes.data(), kSubq, float(rng.uniform()), float(rng.uniform()));
  }
}

TEST(InvertedListsArena, PackPutsEachListsBlocksSideBySideAndChangesNoPosition) {
  InvertedLists ivf(5, kCodeBytes);
  core::Rng rng(11);
  uint32_t slot = 0;
  // Lists growing a block at a time in turn: their blocks interleave.
  for (size_t round = 0; round < 12; ++round) {
    for (size_t l = 0; l < ivf.lists(); ++l) add(ivf, l, kBlockVectors - l, slot, rng);
  }
  const auto before = contents(ivf);
  ASSERT_GT(ivf.scattered_blocks(), size_t(40));
  ivf.pack();
  EXPECT_EQ(ivf.scattered_blocks(), size_t(0));
  expect_same(before, contents(ivf));
  // 12 x 5 blocks of 3.4 KB in 64 KiB chunks: a chunk boundary may fall inside a list, at most
  // once per chunk.
  EXPECT_LE(blocks_apart(ivf), size_t(4));

  // Removals (the last position moves into the hole; an emptied block goes back), growth after
  // the pack, and a second pack: every position as the same operations on a model say.
  std::vector<std::vector<Position>> model = contents(ivf);
  for (size_t i = 0; i < 200; ++i) {
    const size_t l = size_t(rng.next() % ivf.lists());
    if (ivf.size(l) == 0) continue;
    const uint32_t pos = uint32_t(rng.next() % ivf.size(l));
    const uint32_t moved = ivf.remove(l, pos);
    const Position last = model[l].back();
    model[l].pop_back();
    if (pos < model[l].size()) {
      model[l][pos] = last;
      EXPECT_EQ(moved, last.slot);
    } else {
      EXPECT_EQ(moved, InvertedLists::kNone);
    }
  }
  expect_same(model, contents(ivf));
  for (size_t l = 0; l < ivf.lists(); ++l) add(ivf, l, 3 * kBlockVectors + 7, slot, rng);
  const auto grown = contents(ivf);
  ivf.pack();
  expect_same(grown, contents(ivf));
  EXPECT_EQ(ivf.scattered_blocks(), size_t(0));
  EXPECT_LE(blocks_apart(ivf), size_t(4));
}

TEST(InvertedListsArena, PackIfScatteredWaitsForAnEighthOfTheBlocksOutOfPlace) {
  InvertedLists ivf(64, kCodeBytes);
  core::Rng rng(5);
  uint32_t slot = 0;
  for (size_t l = 0; l < ivf.lists(); ++l) add(ivf, l, 10 * kBlockVectors, slot, rng);  // each list alone
  EXPECT_EQ(ivf.scattered_blocks(), size_t(0));  // consecutive places as they were taken
  // One more block for each of a few lists: out of place, but too few to pack for.
  for (size_t l = 0; l < 8; ++l) add(ivf, l, kBlockVectors, slot, rng);
  const size_t few = ivf.scattered_blocks();
  EXPECT_GT(few, size_t(0));
  ivf.pack_if_scattered();
  EXPECT_EQ(ivf.scattered_blocks(), few);
  // A block for every list, twice: now more than an eighth of the blocks are out of place.
  const auto before = [&] {
    for (size_t round = 0; round < 2; ++round) {
      for (size_t l = 0; l < ivf.lists(); ++l) add(ivf, l, kBlockVectors, slot, rng);
    }
    return contents(ivf);
  }();
  ASSERT_GT(ivf.scattered_blocks() * 8, ivf.places_in_use());
  ivf.pack_if_scattered();
  EXPECT_EQ(ivf.scattered_blocks(), size_t(0));
  expect_same(before, contents(ivf));
}

// A re-partition as quantized_partition.cpp runs it: the new lists adopt the old arena and
// take the places the old blocks give back, so with every place counted beforehand the arena
// does not grow; the moved positions hold what they held.
TEST(InvertedListsArena, ARepartitionReusesTheOldListsPlaces) {
  InvertedLists old(3, kCodeBytes);
  core::Rng rng(9);
  uint32_t slot = 0;
  for (size_t l = 0; l < old.lists(); ++l) add(old, l, 5 * kBlockVectors, slot, rng);
  const auto before = contents(old);

  // Every old position to new list (slot % 2), in old list order; the old blocks give their
  // places back as they empty. 15 full blocks become 16 (8 a list), and a new list takes its
  // block before the old one is given back: two places beyond the old blocks serve.
  InvertedLists fresh(2, kCodeBytes);
  for (size_t l = 0; l < 2; ++l) fresh.reserve_block_table(l, 8);
  old.reserve_places(2);
  const size_t places = old.places_in_use() + old.free_places();
  fresh.adopt_arena(old);
  std::vector<std::vector<Position>> model(2);
  for (size_t l = 0; l < old.lists(); ++l) {
    for (uint32_t pos = 0; pos < old.size(l); ++pos) {
      const Position& p = before[l][pos];
      fresh.append_moved(p.slot % 2, p.slot, old, l, pos);
      model[p.slot % 2].push_back(p);
      if (pos % kBlockVectors == kBlockVectors - 1) fresh.release_block(old, l, pos / kBlockVectors);
    }
  }
  expect_same(model, contents(fresh));
  EXPECT_EQ(fresh.places_in_use(), size_t(16));
  EXPECT_EQ(fresh.places_in_use() + fresh.free_places(), places) << "the arena grew";
  fresh.pack();
  expect_same(model, contents(fresh));
  EXPECT_EQ(fresh.scattered_blocks(), size_t(0));
}

}  // namespace test_quantized_lists
}  // namespace quiver::quantized
