// HNSW with exact duplicates: every inserted copy of a vector stays reachable. All copies tie
// at the same distance from every node, so a tie rule that always favours the same slots (the
// oldest) used to drop each new copy from every full neighbour list: nothing linked to it and
// search could not return it even with ef >= n.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_hnsw_duplicates {

struct DupCase {
  size_t M;
  HnswStorage storage;
};

class HnswDuplicates : public ::testing::TestWithParam<DupCase> {};

HnswIndexOptions dup_opts(size_t dim, const DupCase& c) {
  HnswIndexOptions o;
  o.dim = dim;
  o.M = c.M;
  o.storage = c.storage;
  return o;
}

// The ids of the copies among the results (copies have ids >= kCopyBase).
constexpr uint64_t kCopyBase = 1000000;
size_t copies_found(const std::vector<Neighbor>& got) {
  std::set<uint64_t> seen;
  for (const Neighbor& n : got) {
    if (n.id >= kCopyBase) seen.insert(n.id);
  }
  return seen.size();
}

HnswSearchParams wide(size_t ef) {
  HnswSearchParams p;
  p.ef = ef;
  return p;
}

// 100 identical vectors after some random ones: a search for that vector with k = 100 and a
// beam wider than the index returns all 100 copies, at distance 0.
TEST_P(HnswDuplicates, AHundredCopiesAddedTogetherAreAllFound) {
  const size_t dim = 8, others = 50, copies = 100;
  const std::vector<float> rnd = unit_gaussian_vectors(others + 1, dim, 7);
  const std::vector<float> v(rnd.end() - dim, rnd.end());
  HnswIndex index(dup_opts(dim, GetParam()));
  for (size_t i = 0; i < others; ++i) {
    const uint64_t id = i;
    index.add(&id, &rnd[i * dim], 1);
  }
  for (size_t i = 0; i < copies; ++i) {
    const uint64_t id = kCopyBase + i;
    index.add(&id, v.data(), 1);
  }
  const std::vector<Neighbor> got = index.search(v, copies, wide(500));
  ASSERT_EQ(got.size(), copies);
  EXPECT_EQ(copies_found(got), copies);
  for (const Neighbor& n : got) EXPECT_EQ(n.distance, 0.0f);
}

// Copies interleaved with distinct vectors, added in one batch: still every copy is found.
TEST_P(HnswDuplicates, CopiesInterleavedWithDistinctVectorsAreAllFound) {
  const size_t dim = 8, total = 400;
  const std::vector<float> rnd = unit_gaussian_vectors(total + 1, dim, 11);
  const std::vector<float> v(rnd.end() - dim, rnd.end());
  std::vector<float> rows;
  std::vector<uint64_t> ids;
  size_t copies = 0;
  for (size_t i = 0; i < total; ++i) {
    const bool copy = i % 3 != 1;  // two copies for every distinct vector
    rows.insert(rows.end(), copy ? v.begin() : rnd.begin() + i * dim, copy ? v.end() : rnd.begin() + (i + 1) * dim);
    ids.push_back(copy ? kCopyBase + copies++ : i);
  }
  HnswIndex index(dup_opts(dim, GetParam()));
  index.add(ids, rows);
  const std::vector<Neighbor> got = index.search(v, copies, wide(2 * total));
  ASSERT_EQ(got.size(), copies);
  EXPECT_EQ(copies_found(got), copies);
}

INSTANTIATE_TEST_SUITE_P(MAndStorage, HnswDuplicates,
                         ::testing::Values(DupCase{2, HnswStorage::f32}, DupCase{4, HnswStorage::f32},
                                           DupCase{16, HnswStorage::f32}, DupCase{2, HnswStorage::sq8},
                                           DupCase{4, HnswStorage::sq8}, DupCase{16, HnswStorage::sq8}),
                         [](const ::testing::TestParamInfo<DupCase>& info) {
                           return std::string("M") + std::to_string(info.param.M) +
                                  (info.param.storage == HnswStorage::f32 ? "_f32" : "_sq8");
                         });

}  // namespace test_hnsw_duplicates
}  // namespace quiver
