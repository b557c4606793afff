#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "base/rng.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_flat_index {

using test::ids_of;

FlatIndex small_l2_index() {
  FlatIndex index({2, Metric::l2});
  index.add({10, 20, 30, 40}, {0, 0, 1, 0, 0, 2, 3, 3});
  return index;
}

TEST(FlatIndex, HandCheckedL2WithTieBrokenById) {
  FlatIndex index = small_l2_index();
  // (0,1) is at distance 1 from both id 10 (0,0) and id 30 (0,2); 20 (1,0) is at 2.
  auto r = index.search(std::vector<float>{0, 1}, 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(ids_of(r), (std::vector<uint64_t>{10, 30, 20}));
  EXPECT_FLOAT_EQ(r[0].distance, 1.0f);
  EXPECT_FLOAT_EQ(r[1].distance, 1.0f);
  EXPECT_FLOAT_EQ(r[2].distance, 2.0f);
}

TEST(FlatIndex, HandCheckedInnerProduct) {
  FlatIndex index({3, Metric::ip});
  index.add({1, 2, 3}, {1, 0, 0, 0, 2, 0, 1, 1, 1});
  auto r = index.search(std::vector<float>{1, 1, 0}, 3);
  // dots: id1 = 1, id2 = 2, id3 = 2 -> distances -2 (ids 2, 3 tie) then -1.
  EXPECT_EQ(ids_of(r), (std::vector<uint64_t>{2, 3, 1}));
  EXPECT_FLOAT_EQ(r[0].distance, -2.0f);
  EXPECT_FLOAT_EQ(r[2].distance, -1.0f);
}

TEST(FlatIndex, HandCheckedCosineIgnoresLength) {
  FlatIndex index({2, Metric::cosine});
  index.add({1, 2, 3}, {10, 0, 0, 0.5f, 1, 1});
  auto r = index.search(std::vector<float>{3, 0}, 3);
  EXPECT_EQ(ids_of(r), (std::vector<uint64_t>{1, 3, 2}));
  EXPECT_NEAR(r[0].distance, 0.0f, 1e-6);
  EXPECT_NEAR(r[1].distance, 1.0f - std::sqrt(0.5f), 1e-6);
  EXPECT_NEAR(r[2].distance, 1.0f, 1e-6);
}

TEST(FlatIndex, KLargerThanSizeReturnsEverything) {
  FlatIndex index = small_l2_index();
  auto r = index.search(std::vector<float>{0, 0}, 100);
  EXPECT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].id, 10u);
}

// Every id but kNoId (2^64 - 1, the "no result" of batch rows, neighbor.hpp).
TEST(FlatIndex, IdsUseAllSixtyFourBits) {
  FlatIndex index({2, Metric::l2});
  const uint64_t big = std::numeric_limits<uint64_t>::max() - 1;  // the max itself is reserved
  EXPECT_THROW(index.add({kNoId}, {1, 1}), Error);
  EXPECT_EQ(index.size(), 0u);
  const uint64_t js_max = (uint64_t(1) << 53) - 1;
  index.add({big, js_max}, {1, 1, 5, 5});
  EXPECT_TRUE(index.contains(big));
  EXPECT_TRUE(index.contains(js_max));
  EXPECT_EQ(index.search(std::vector<float>{1, 1}, 1)[0].id, big);
  EXPECT_EQ(index.search(std::vector<float>{5, 5}, 1)[0].id, js_max);
}

TEST(FlatIndex, RemoveContainsSizeAndReAdd) {
  FlatIndex index = small_l2_index();
  EXPECT_EQ(index.size(), 4u);
  index.remove({10});
  EXPECT_EQ(index.size(), 3u);
  EXPECT_FALSE(index.contains(10));
  EXPECT_TRUE(index.contains(40));  // moved into the hole
  for (const auto& n : index.search(std::vector<float>{0, 0}, 10)) EXPECT_NE(n.id, 10u);
  float v[2];
  index.get(40, v);
  EXPECT_EQ(v[0], 3.0f);
  EXPECT_EQ(v[1], 3.0f);
  index.add({10}, {0, 0});
  EXPECT_EQ(index.search(std::vector<float>{0, 0}, 1)[0].id, 10u);
  index.remove({10, 20, 30, 40});
  EXPECT_EQ(index.size(), 0u);
}

// Double-precision brute force, sorted by (distance, id).
std::vector<Neighbor> naive_search(const std::vector<float>& base, const std::vector<uint64_t>& ids, const float* q,
                                   size_t dim, Metric metric, size_t k) {
  std::vector<std::pair<double, uint64_t>> all;
  double qn = 0;
  for (size_t j = 0; j < dim; ++j) qn += double(q[j]) * q[j];
  for (size_t r = 0; r < ids.size(); ++r) {
    const float* x = base.data() + r * dim;
    double l2 = 0, dot = 0, xn = 0;
    for (size_t j = 0; j < dim; ++j) {
      l2 += (double(x[j]) - q[j]) * (double(x[j]) - q[j]);
      dot += double(x[j]) * q[j];
      xn += double(x[j]) * x[j];
    }
    const double d = metric == Metric::l2 ? l2 : metric == Metric::ip ? -dot : 1 - dot / std::sqrt(qn * xn);
    all.push_back({d, ids[r]});
  }
  std::sort(all.begin(), all.end());
  std::vector<Neighbor> out;
  for (size_t i = 0; i < std::min(k, all.size()); ++i) out.push_back({all[i].second, float(all[i].first)});
  return out;
}

class FlatIndexMetric : public ::testing::TestWithParam<Metric> {};

TEST_P(FlatIndexMetric, RandomCasesMatchNaiveReference) {
  const Metric metric = GetParam();
  core::Rng rng(5);
  for (size_t dim : {1, 3, 17, 64, 130}) {
    const size_t n = 700;  // more than two scan blocks
    std::vector<float> base(n * dim);
    for (auto& x : base) x = float(rng.normal());
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = 1000 + 7 * i;
    FlatIndex index({dim, metric});
    index.add(ids, base);
    for (int qi = 0; qi < 10; ++qi) {
      std::vector<float> q(dim);
      for (auto& x : q) x = float(rng.normal());
      const size_t k = 15;
      auto got = index.search(q, k);
      auto want = naive_search(base, ids, q.data(), dim, metric, k + 1);
      ASSERT_EQ(got.size(), k);
      const double scale = metric == Metric::cosine ? 1.0 : std::max(1.0, double(std::fabs(want[0].distance)));
      for (size_t i = 0; i < k; ++i) {
        ASSERT_NEAR(got[i].distance, want[i].distance, 1e-4 * scale) << "dim=" << dim << " i=" << i;
        // Ids must match unless the reference itself has a near-tie at this rank.
        const bool near_tie = (i > 0 && want[i].distance - want[i - 1].distance < 1e-4 * scale) ||
                              (want[i + 1].distance - want[i].distance < 1e-4 * scale);
        if (!near_tie) {
          ASSERT_EQ(got[i].id, want[i].id) << "dim=" << dim << " i=" << i;
        }
      }
    }
  }
}

TEST_P(FlatIndexMetric, EveryIsaGivesIdenticalIds) {
  const size_t dim = 96, n = 3000, nq = 40, k = 10;
  const auto base = unit_gaussian_vectors(n, dim, 42);
  const auto queries = unit_gaussian_vectors(nq, dim, 13);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 3 + 1;
  std::vector<uint64_t> reference;
  for (Isa isa : available_isas()) {
    FlatIndex index({dim, GetParam()}, isa);
    index.add(ids, base);
    std::vector<Neighbor> out(nq * k);
    index.search_batch(queries.data(), nq, k, out.data());
    std::vector<uint64_t> got;
    for (auto& nb : out) got.push_back(nb.id);
    if (reference.empty()) {
      reference = got;
    } else {
      EXPECT_EQ(got, reference) << "isa " << isa_name(isa) << " differs from scalar";
    }
  }
}

TEST_P(FlatIndexMetric, BatchEqualsSingleSearches) {
  const size_t dim = 33, n = 500, nq = 9, k = 7;
  const auto base = unit_gaussian_vectors(n, dim, 1);
  const auto queries = unit_gaussian_vectors(nq, dim, 2);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  FlatIndex index({dim, GetParam()});
  index.add(ids, base);
  std::vector<Neighbor> batch(nq * k);
  EXPECT_EQ(index.search_batch(queries.data(), nq, k, batch.data()), k);
  for (size_t q = 0; q < nq; ++q) {
    std::vector<Neighbor> one(k);
    index.search(queries.data() + q * dim, k, one.data());
    for (size_t i = 0; i < k; ++i) {
      EXPECT_EQ(batch[q * k + i].id, one[i].id);
      EXPECT_EQ(batch[q * k + i].distance, one[i].distance);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllMetrics, FlatIndexMetric, ::testing::Values(Metric::l2, Metric::ip, Metric::cosine),
                         [](const auto& info) { return std::string(metric_name(info.param)); });

// The seed workload's exact results are a fixed fingerprint: the same on every ISA level and
// in every wasm variant (this suite runs in all of them).
TEST(FlatIndex, SeedWorkloadResultsAreTheSameOnEveryTarget) {
  const size_t dim = 384, n = 2000, nq = 32, k = 10;
  const auto base = unit_gaussian_vectors(n, dim, 42);
  const auto queries = unit_gaussian_vectors(nq, dim, 13);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  FlatIndex index({dim, Metric::l2});
  index.add(ids, base);
  std::vector<Neighbor> out(nq * k);
  index.search_batch(queries.data(), nq, k, out.data());
  std::vector<uint64_t> got;
  for (auto& nb : out) got.push_back(nb.id);
  EXPECT_EQ(test::fnv1a(got.data(), got.size() * sizeof(uint64_t)), 0x731a804c9984228fULL)
      << "first ids " << got[0] << " " << got[1] << " " << got[2];
}

// ---- bad input: a clear error, and the index exactly as it was ----

struct Snapshot {
  size_t size;
  std::vector<Neighbor> results;
};

Snapshot snapshot(const FlatIndex& index) {
  return {index.size(), index.search(std::vector<float>(index.dim(), 0.5f), 10)};
}

void expect_unchanged(const FlatIndex& index, const Snapshot& before) {
  const Snapshot after = snapshot(index);
  EXPECT_EQ(after.size, before.size);
  ASSERT_EQ(after.results.size(), before.results.size());
  for (size_t i = 0; i < after.results.size(); ++i) {
    EXPECT_EQ(after.results[i].id, before.results[i].id);
    EXPECT_EQ(after.results[i].distance, before.results[i].distance);
  }
}

template <typename Fn>
void expect_error(ErrorCode code, Fn&& fn) {
  try {
    fn();
    ADD_FAILURE() << "expected error " << error_code_name(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_GT(std::string(e.what()).size(), 10u);
  }
}

TEST(FlatIndexBadInput, EachErrorLeavesTheIndexUnchanged) {
  FlatIndex index({4, Metric::cosine});
  index.add({1, 2, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0});
  const Snapshot before = snapshot(index);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();

  expect_error(ErrorCode::DimensionMismatch, [&] { index.add({9}, {1, 2, 3}); });
  expect_error(ErrorCode::NonFinite, [&] { index.add({8, 9}, {1, 1, 1, 1, 1, nan, 1, 1}); });
  expect_error(ErrorCode::NonFinite, [&] { index.add({9}, {1, inf, 1, 1}); });
  expect_error(ErrorCode::DuplicateId, [&] { index.add({4, 2}, {1, 1, 1, 1, 2, 2, 2, 2}); });
  expect_error(ErrorCode::DuplicateId, [&] { index.add({5, 5}, {1, 1, 1, 1, 2, 2, 2, 2}); });
  expect_error(ErrorCode::InvalidArgument, [&] { index.add({6}, {0, 0, 0, 0}); });
  expect_error(ErrorCode::UnknownId, [&] { index.remove({1, 77}); });
  expect_error(ErrorCode::DuplicateId, [&] { index.remove({1, 1}); });
  expect_error(ErrorCode::UnknownId, [&] {
    float v[4];
    index.get(77, v);
  });
  expect_error(ErrorCode::InvalidK, [&] { index.search(std::vector<float>{1, 0, 0, 0}, 0); });
  expect_error(ErrorCode::DimensionMismatch, [&] { index.search(std::vector<float>{1, 0}, 1); });
  expect_error(ErrorCode::NonFinite, [&] { index.search(std::vector<float>{1, nan, 0, 0}, 1); });
  expect_error(ErrorCode::InvalidArgument, [&] { index.search(std::vector<float>{0, 0, 0, 0}, 1); });
  expect_error(ErrorCode::NonFinite, [&] {
    std::vector<float> qs{1, 0, 0, 0, inf, 0, 0, 0};
    std::vector<Neighbor> out(2);
    index.search_batch(qs.data(), 2, 1, out.data());
  });
  expect_unchanged(index, before);
  EXPECT_FALSE(index.contains(4));
  EXPECT_FALSE(index.contains(5));
  EXPECT_FALSE(index.contains(8));
  EXPECT_TRUE(index.contains(1));
}

TEST(FlatIndexBadInput, EmptyIndexAndBadOptions) {
  FlatIndex index({3, Metric::l2});
  expect_error(ErrorCode::EmptyIndex, [&] { index.search(std::vector<float>{1, 2, 3}, 1); });
  expect_error(ErrorCode::InvalidArgument, [&] { FlatIndex bad({0, Metric::l2}); });
  expect_error(ErrorCode::InvalidArgument, [&] { parse_metric("hamming"); });
}

}  // namespace test_flat_index
}  // namespace quiver
