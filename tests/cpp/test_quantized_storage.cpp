// The quantised index's per-slot storage grows by chunks (core::RowBlocks): an add never
// moves what is stored — the kept vectors, refine rows, codes and scalars of earlier slots stay
// at their addresses — so growing needs the index plus the new rows, never a second copy of
// the index beside the first (the wasm heap keeps its high-water mark for good).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tools/workload.hpp"
#include "index/quantized/quantized_state.hpp"
#include "quiver/quantized_index.hpp"

namespace quiver {
namespace test_quantized_storage {

std::vector<uint64_t> id_range(uint64_t first, size_t n) {
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = first + i;
  return ids;
}

class QuantizedStorage : public ::testing::TestWithParam<size_t> {};  // lists option

TEST_P(QuantizedStorage, GrowingNeverMovesStoredRows) {
  constexpr size_t dim = 48, first = 100, more = 6000, batch = 500;
  QuantizedIndexOptions o;
  o.dim = dim;
  o.metric = Metric::l2;
  o.keep_vectors = true;
  o.refine_bits = 3;
  o.lists = GetParam();
  QuantizedIndex index(o);
  const std::vector<float> base = unit_gaussian_vectors(first + more, dim, 5);
  index.add(id_range(0, first), std::vector<float>(base.begin(), base.begin() + first * dim));
  const float* vector0;
  const uint8_t* refine0;
  {
    const auto lock = QuantizedIndexAccess::read_lock(index);
    vector0 = QuantizedIndexAccess::vector(index, 0);
    refine0 = QuantizedIndexAccess::refine_row(index, 0);
  }
  const std::vector<uint8_t> codes0 = index.codes(0);
  for (size_t done = 0; done < more; done += batch) {
    const size_t at = first + done;
    index.add(id_range(at, batch), std::vector<float>(base.begin() + at * dim, base.begin() + (at + batch) * dim));
  }
  // codes() takes the index's read lock itself, so it runs before this test takes it: the lock
  // must never be taken twice on one thread (a waiting writer would deadlock the second reader;
  // TSan reported the lock-order inversion).
  EXPECT_EQ(index.codes(0), codes0);
  const auto lock = QuantizedIndexAccess::read_lock(index);
  EXPECT_EQ(QuantizedIndexAccess::vector(index, 0), vector0);
  EXPECT_EQ(QuantizedIndexAccess::refine_row(index, 0), refine0);
  for (size_t j = 0; j < dim; ++j) ASSERT_EQ(vector0[j], base[j]) << j;
}

// memoryBytes counts what the arrays hold, chunk by chunk: after growing by many small adds
// it is within one chunk per array of what one add of everything reports (no 1.5x slack).
TEST_P(QuantizedStorage, MemoryAfterManySmallAddsIsWhatOneAddReports) {
  constexpr size_t dim = 64, n = 8000, batch = 250;
  QuantizedIndexOptions o;
  o.dim = dim;
  o.metric = Metric::cosine;
  o.refine_bits = 3;
  o.lists = GetParam();
  const std::vector<float> base = unit_gaussian_vectors(n, dim, 9);
  QuantizedIndex once(o), grown(o);
  once.add(id_range(0, n), base);
  for (size_t done = 0; done < n; done += batch) {
    grown.add(id_range(done, batch),
              std::vector<float>(base.begin() + done * dim, base.begin() + (done + batch) * dim));
  }
  // The id array and map may hold up to 1.5x / 2x slack after many adds (geometric growth),
  // and lists are filled in a different order; 10% covers both at this size.
  EXPECT_LE(double(grown.memory_bytes()), 1.1 * double(once.memory_bytes()));
}

// A small index costs about its rows, not whole large chunks: 100 codes-only vectors at
// dim 384 (4 + 3 bits, 348 bytes of codes and scalars each) fit in twice their codes plus
// 32 KiB (chunks of 256 KiB made such an index report ~400 KB).
TEST_P(QuantizedStorage, ASmallIndexReportsAboutItsRows) {
  constexpr size_t dim = 384, n = 100;
  QuantizedIndexOptions o;
  o.dim = dim;
  o.metric = Metric::cosine;
  o.keep_vectors = false;
  o.refine_bits = 3;
  o.lists = GetParam();
  QuantizedIndex index(o);
  index.add(id_range(0, n), unit_gaussian_vectors(n, dim, 3));
  EXPECT_LE(index.memory_bytes(), 2 * n * index.code_bytes_per_vector() + (size_t(32) << 10));
}

INSTANTIATE_TEST_SUITE_P(Lists, QuantizedStorage, ::testing::Values(size_t(0), QuantizedIndexOptions::kAutoLists),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                           return i.param == 0 ? "flat" : "partitioned";
                         });

}  // namespace test_quantized_storage
}  // namespace quiver
