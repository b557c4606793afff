// RowBlocks (src/base/row_blocks.hpp): chunked fixed-stride rows that grow without moving, and
// the flat index built on them.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "base/memory_ceiling.hpp"
#include "base/row_blocks.hpp"
#include "quiver/hnsw_index.hpp"
#include "quiver/flat_index.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_row_blocks {

using core::RowBlocks;

TEST(RowBlocks, RowsPerChunkIsAPowerOfTwoOfAtLeast32NearTheTargetSize) {
  // 1 << 26: a row of dimension 2^24, whose products wrap a 32-bit size_t (wasm32).
  for (size_t row_bytes : {1u, 4u, 64u, 1536u, 4096u, 100000u, 1u << 20, 1u << 26}) {
    const size_t rows = RowBlocks<float>::rows_per_chunk_for(row_bytes);
    EXPECT_GE(rows, 32u) << row_bytes;
    EXPECT_EQ(rows & (rows - 1), 0u) << row_bytes;
    if (rows > 32) {
      EXPECT_LE(double(rows) * double(row_bytes), double(RowBlocks<float>::kTargetChunkBytes)) << row_bytes;
    }
    EXPECT_GT(double(rows) * 2 * double(row_bytes), double(RowBlocks<float>::kTargetChunkBytes)) << row_bytes;
  }
}

// Small chunks for storage whose rows are whole blocks or read one at a time: the largest
// power of two of rows within the target, at least one row.
TEST(RowBlocks, RowsWithinATargetAreAPowerOfTwoOfAtLeastOne) {
  EXPECT_EQ(RowBlocks<uint8_t>::rows_per_chunk_within(6144, 32 << 10), 4u);
  EXPECT_EQ(RowBlocks<uint8_t>::rows_per_chunk_within(144, 32 << 10), 128u);
  EXPECT_EQ(RowBlocks<uint8_t>::rows_per_chunk_within(64 << 10, 32 << 10), 1u);
  EXPECT_EQ(RowBlocks<uint8_t>::rows_per_chunk_within(size_t(1) << 26, 32 << 10), 1u);
  RowBlocks<uint8_t> one(100, 1);  // one row a chunk: rows never move, each its own chunk
  std::vector<const uint8_t*> where;
  for (size_t r = 0; r < 50; ++r) {
    one.reserve(r + 1);
    one.row(r)[0] = uint8_t(r);
    where.push_back(one.row(r));
  }
  EXPECT_EQ(one.chunk_count(), 50u);
  for (size_t r = 0; r < 50; ++r) {
    ASSERT_EQ(one.row(r), where[r]);
    ASSERT_EQ(one.row(r)[0], uint8_t(r));
  }
}

TEST(RowBlocks, GrowingNeverMovesAStoredRow) {
  RowBlocks<uint32_t> rows(5, 32);
  std::vector<const uint32_t*> where;
  for (size_t r = 0; r < 1000; ++r) {
    rows.reserve(r + 1);
    uint32_t* p = rows.row(r);
    for (size_t j = 0; j < 5; ++j) p[j] = uint32_t(r * 10 + j);
    where.push_back(p);
  }
  EXPECT_EQ(rows.chunk_count(), (1000 + 31) / 32);
  EXPECT_EQ(rows.capacity_rows(), rows.chunk_count() * 32);
  for (size_t r = 0; r < 1000; ++r) {
    ASSERT_EQ(rows.row(r), where[r]) << r;
    for (size_t j = 0; j < 5; ++j) ASSERT_EQ(rows.row(r)[j], r * 10 + j);
  }
}

TEST(RowBlocks, RowsAreAlignedZeroedAndStrideApartInsideAChunk) {
  RowBlocks<float> rows(16, 64);
  rows.reserve(200);
  for (size_t r = 0; r < 200; ++r) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(rows.row(r)) % 64, 0u) << r;
    for (size_t j = 0; j < 16; ++j) ASSERT_EQ(rows.row(r)[j], 0.0f);
    if (r % 64 != 63) {
      EXPECT_EQ(rows.row(r + 1), rows.row(r) + 16) << r;
    }
  }
}

TEST(RowBlocks, RunsCoverTheRangeAndNeverCrossAChunk) {
  RowBlocks<uint16_t> rows(3, 32);
  rows.reserve(300);
  for (size_t r = 0; r < 300; ++r) rows.row(r)[0] = uint16_t(r);
  for (auto [begin, end] : {std::pair<size_t, size_t>{0, 300}, {5, 6}, {31, 33}, {40, 290}, {64, 64}}) {
    size_t next = begin;
    rows.for_each_run(begin, end, [&](size_t first, const uint16_t* p, size_t n) {
      EXPECT_EQ(first, next);
      EXPECT_GT(n, 0u);
      EXPECT_EQ(first / 32, (first + n - 1) / 32) << "run crosses a chunk";
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(p[i * 3], first + i);
      next = first + n;
    });
    EXPECT_EQ(next, end);
  }
  // 32-row fast-scan blocks: always inside one chunk.
  for (size_t b = 0; b < 288; b += 32) EXPECT_EQ(rows.run_length(b, 32), 32u);
}

TEST(RowBlocks, ShrinkFreesWholeChunksOnlyAndKeepsTheRowsBelow) {
  RowBlocks<uint64_t> rows(2, 32);
  rows.reserve(320);
  for (size_t r = 0; r < 320; ++r) rows.row(r)[1] = r;
  const size_t full = rows.memory_bytes();
  rows.shrink_to(65);  // rows 0..64 live in chunks 0..2
  EXPECT_EQ(rows.chunk_count(), 3u);
  EXPECT_LT(rows.memory_bytes(), full);
  for (size_t r = 0; r < 65; ++r) ASSERT_EQ(rows.row(r)[1], r);
  rows.shrink_to(0);
  EXPECT_EQ(rows.chunk_count(), 0u);
  rows.reserve(1);
  EXPECT_EQ(rows.row(0)[1], 0u);  // a fresh chunk is zeroed
}

TEST(RowBlocks, MemoryBytesCountsEveryChunkAndTheTable) {
  RowBlocks<float> rows(384, 128);
  EXPECT_EQ(rows.memory_bytes(), 0u);
  rows.reserve(129);
  EXPECT_EQ(rows.chunk_count(), 2u);
  EXPECT_GE(rows.memory_bytes(), 2 * 128 * 384 * sizeof(float));
  EXPECT_LE(rows.memory_bytes(), 2 * 128 * 384 * sizeof(float) + 64 * sizeof(void*));
}

TEST(RowBlocks, CopyRowAndMoveKeepContents) {
  RowBlocks<int> rows(4, 32);
  rows.reserve(40);
  for (size_t r = 0; r < 40; ++r) std::iota(rows.row(r), rows.row(r) + 4, int(r * 4));
  rows.copy_row(39, 2);
  EXPECT_EQ(rows.row(2)[0], 156);
  EXPECT_EQ(rows.row(2)[3], 159);
  RowBlocks<int> moved(std::move(rows));
  EXPECT_EQ(moved.row(39)[3], 159);
  EXPECT_EQ(moved.capacity_rows(), 64u);
  RowBlocks<int> assigned(8, 32);
  assigned = std::move(moved);
  EXPECT_EQ(assigned.row(2)[0], 156);
  EXPECT_EQ(assigned.stride(), 4u);
}

TEST(RowBlocks, AnImpossibleReserveThrowsOutOfMemoryAndChangesNothing) {
  RowBlocks<float> rows(1024, 32);
  rows.reserve(64);
  float* first = rows.row(0);
  first[0] = 7.0f;
  try {
    rows.reserve(size_t(1) << 40);  // 4 PiB of rows
    FAIL() << "reserve of 2^40 rows succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
  }
  EXPECT_EQ(rows.capacity_rows(), 64u);
  EXPECT_EQ(rows.row(0), first);
  EXPECT_EQ(first[0], 7.0f);
}

// A reservation just past what this machine (natively: RAM + swap) or module (wasm: the
// maximum heap) could ever hold is refused at once, before any chunk is allocated. Before,
// only sizes past the address space were refused, so RowBlocks added and zeroed 256 KiB chunk
// after chunk until the allocator failed: natively the OOM killer came first, in wasm the
// heap was left grown to its maximum.
TEST(RowBlocks, AReserveBeyondTheMachinesMemoryIsRefusedBeforeAllocating) {
  const size_t ceiling = core::memory_ceiling_bytes();
  ASSERT_NE(ceiling, SIZE_MAX) << "this platform must report its memory";
  RowBlocks<float> rows(1024, 32);  // 4 KiB rows
  rows.reserve(64);
  const size_t had = rows.memory_bytes();
  const size_t past = ceiling / 4096 + 4096;
  try {
    rows.reserve(past);
    FAIL() << "reserve of " << past << " 4 KiB rows succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
  }
  EXPECT_EQ(rows.capacity_rows(), 64u);
  EXPECT_EQ(rows.memory_bytes(), had);
}

// The same through the indexes: reserve(3e9) of 384-dim vectors (~5 TB) fails at once with
// OUT_OF_MEMORY and the index keeps working.
TEST(RowBlocks, IndexesRefuseAReservationNoMachineCouldHold) {
  const size_t dim = 384;
  const auto data = unit_gaussian_vectors(10, dim, 3);
  std::vector<uint64_t> ids(10);
  std::iota(ids.begin(), ids.end(), 1);
  FlatIndex flat({dim, Metric::l2});
  HnswIndex hnsw({dim, Metric::l2});
  flat.add(ids.data(), data.data(), 10);
  hnsw.add(ids.data(), data.data(), 10);
  const size_t huge = 3'000'000'000u;
  try {
    flat.reserve(huge);
    FAIL() << "flat reserve(3e9) succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
  }
  try {
    hnsw.reserve(huge);
    FAIL() << "hnsw reserve(3e9) succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
  }
  EXPECT_EQ(flat.size(), 10u);
  EXPECT_EQ(hnsw.size(), 10u);
  const std::vector<float> first(data.begin(), data.begin() + dim);
  EXPECT_EQ(flat.search(first, 1)[0].id, 1u);
  EXPECT_EQ(hnsw.search(first, 1)[0].id, 1u);
}

// The flat index stores its rows in RowBlocks: adding never moves the rows already there
// (before, one aligned array was copied into a 1.5x larger one), and memory_bytes stays close
// to the rows it holds.
TEST(FlatIndexStorage, AddsDoNotMoveStoredRowsAndMemoryTracksTheRows) {
  const size_t dim = 384;
  FlatIndex index({dim, Metric::l2});
  const auto data = unit_gaussian_vectors(3000, dim, 5);
  std::vector<uint64_t> ids(3000);
  std::iota(ids.begin(), ids.end(), 1);
  index.add(ids.data(), data.data(), 100);
  const float* first = index.stored_row(0);
  for (size_t done = 100; done < 3000; done += 100) {
    index.add(ids.data() + done, data.data() + done * dim, 100);
    ASSERT_EQ(index.stored_row(0), first) << "row 0 moved at " << done;
  }
  const double rows_bytes = 3000.0 * dim * sizeof(float);
  EXPECT_GE(double(index.memory_bytes()), rows_bytes);
  // At most one partly filled chunk (256 KiB) of slack, plus the id table.
  EXPECT_LE(double(index.memory_bytes()), rows_bytes * 1.12 + (256 << 10));
  auto hits = index.search(std::vector<float>(data.begin() + 2999 * dim, data.begin() + 3000 * dim), 1);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 3000u);
}

TEST(FlatIndexStorage, RemovingMostRowsHandsChunksBack) {
  const size_t dim = 384;
  FlatIndex index({dim, Metric::ip});
  const auto data = unit_gaussian_vectors(5000, dim, 9);
  std::vector<uint64_t> ids(5000);
  std::iota(ids.begin(), ids.end(), 0);
  index.add(ids, data);
  const size_t full = index.memory_bytes();
  index.remove(ids.data() + 100, 4900);
  EXPECT_LT(index.memory_bytes(), full / 4);
  for (uint64_t id = 0; id < 100; ++id) {
    auto hits = index.search(std::vector<float>(data.begin() + id * dim, data.begin() + (id + 1) * dim), 1);
    ASSERT_EQ(hits[0].id, id);
  }
  index.add(ids.data() + 100, data.data() + 100 * dim, 4900);  // and grows again
  EXPECT_EQ(index.size(), 5000u);
}

}  // namespace test_row_blocks
}  // namespace quiver
