#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "quiver/quiver.hpp"
#include "quantized_test_support.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_quantized_index {

using test::batch_top_k;
using test::exact_top_k;
using test::recall_at_k;
using Data = test::Workload;

// Unit Gaussian rows, ids 5i + 3.
Data make_data(size_t n, size_t nq, size_t dim) { return test::gaussian_workload(n, nq, dim, 5, 3); }

struct RecallCase {
  Metric metric;
  unsigned bits;
};

class QuantizedRecall : public ::testing::TestWithParam<RecallCase> {};

// Recall against exact search on 4,000 x 256 unit vectors. Thresholds sit a few points
// under what the method gives here (4-bit ~0.88, 2-bit ~0.58 without rerank).
TEST_P(QuantizedRecall, AgainstExactSearch) {
  const auto [metric, bits] = GetParam();
  const size_t nq = 60, k = 10;
  const Data d = make_data(4000, nq, 256);
  const auto truth = exact_top_k(d, metric, k, nq);
  QuantizedIndex index({d.dim, metric, bits, 42, true});
  index.add(d.ids, d.base);
  const double plain = recall_at_k(batch_top_k(index, d, nq, k), truth, k);
  QuantizedSearchParams float_tables;
  float_tables.float_tables = true;
  const double reference = recall_at_k(batch_top_k(index, d, nq, k, float_tables), truth, k);
  QuantizedSearchParams rerank;
  rerank.rerank = 4;
  const double reranked = recall_at_k(batch_top_k(index, d, nq, k, rerank), truth, k);
  RecordProperty("recall", std::to_string(plain));
  EXPECT_GE(plain, bits == 4 ? 0.80 : 0.48) << "rerank 0";
  // The 8-bit tables cost at most half a point of recall against float tables on the same codes.
  EXPECT_GE(plain, reference - 0.005);
  EXPECT_GE(reranked, bits == 4 ? 0.99 : 0.80) << "rerank 4";
  EXPECT_GE(reranked, plain);
}

INSTANTIATE_TEST_SUITE_P(MetricsAndBits, QuantizedRecall,
                         ::testing::Values(RecallCase{Metric::l2, 4}, RecallCase{Metric::ip, 4},
                                           RecallCase{Metric::cosine, 4}, RecallCase{Metric::l2, 2},
                                           RecallCase{Metric::cosine, 2}),
                         [](const auto& info) {
                           return std::string(metric_name(info.param.metric)) + "_" + std::to_string(info.param.bits) +
                                  "bit";
                         });

TEST(QuantizedIndex, DistancesEstimateTheExactOnes) {
  const Data d = make_data(500, 20, 128);
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    QuantizedIndex index({d.dim, metric, 4, 1, true});
    index.add(d.ids, d.base);
    FlatIndex flat({d.dim, metric});
    flat.add(d.ids, d.base);
    double err = 0;
    size_t count = 0;
    for (size_t q = 0; q < 20; ++q) {
      std::vector<float> query(d.queries.begin() + q * d.dim, d.queries.begin() + (q + 1) * d.dim);
      auto approx = index.search(query, 50);
      auto all = flat.search(query, 500);
      for (const auto& a : approx) {
        auto it = std::find_if(all.begin(), all.end(), [&](const Neighbor& n) { return n.id == a.id; });
        ASSERT_NE(it, all.end());
        err += std::fabs(a.distance - it->distance);
        ++count;
      }
    }
    // 4-bit codes of unit vectors estimate inner products to about +-0.01.
    EXPECT_LT(err / count, metric == Metric::l2 ? 0.03 : 0.015) << metric_name(metric);
  }
}

// Codes and results are identical at every ISA level (and, through the fingerprints below, on
// every target): the integer sums are exact and the float steps run in the same order.
TEST(QuantizedIndex, EveryIsaGivesIdenticalResults) {
  const size_t nq = 20, k = 10;
  const Data d = make_data(1500, nq, 96);
  std::vector<Neighbor> reference;
  for (Isa isa : available_isas()) {
    QuantizedIndex index({d.dim, Metric::l2, 4, 42, true}, isa);
    index.add(d.ids, d.base);
    for (size_t rerank : {0, 3}) {
      QuantizedSearchParams p;
      p.rerank = rerank;
      auto got = batch_top_k(index, d, nq, k, p);
      if (rerank == 0 && reference.empty()) reference = got;
      if (rerank == 0) {
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(got[i].id, reference[i].id) << isa_name(isa);
          ASSERT_EQ(got[i].distance, reference[i].distance) << isa_name(isa);
        }
      }
    }
  }
}

TEST(QuantizedIndex, CodesAndResultsAreTheSameOnEveryTarget) {
  const size_t nq = 16, k = 10;
  const Data d = make_data(2000, nq, 384);
  for (unsigned bits : {4u, 2u}) {
    QuantizedIndex index({d.dim, Metric::l2, bits, 42, false});
    index.add(d.ids, d.base);
    uint64_t h = 1469598103934665603ULL;
    for (uint64_t id : {d.ids[0], d.ids[1], d.ids[999], d.ids[1999]}) {
      const auto c = index.codes(id);
      h = test::fnv1a(c.data(), c.size(), h);
    }
    auto got = batch_top_k(index, d, nq, k);
    for (const auto& nb : got) {
      h = test::fnv1a(&nb.id, sizeof nb.id, h);
      h = test::fnv1a(&nb.distance, sizeof nb.distance, h);
    }
    EXPECT_EQ(h, bits == 4 ? 0xf275135d1cd19460ULL : 0x242d7f5a8daab0f7ULL) << bits << " bits";
  }
}

TEST(QuantizedIndex, AnyDimensionWorks) {
  for (size_t dim : {1, 2, 3, 5, 31, 33, 130, 600}) {
    const Data d = make_data(100, 3, dim);
    for (unsigned bits : {2u, 4u}) {
      QuantizedIndex index({dim, Metric::l2, bits, 3, true});
      index.add(d.ids, d.base);
      // A stored vector, reranked exactly, is its own nearest neighbour (at distance 0; in
      // one dimension other unit vectors can equal it).
      std::vector<float> q(d.base.begin() + 7 * dim, d.base.begin() + 8 * dim);
      QuantizedSearchParams p;
      p.rerank = 100;
      auto r = index.search(q, 1, p);
      ASSERT_EQ(r.size(), 1u);
      EXPECT_EQ(r[0].distance, 0.0f) << "dim " << dim << " bits " << bits;
      if (dim > 1) {
        EXPECT_EQ(r[0].id, d.ids[7]) << "dim " << dim << " bits " << bits;
      }
      EXPECT_EQ(index.codes(d.ids[7]).size(), bits == 4 ? dim : (dim + 1) / 2);
    }
  }
}

TEST(QuantizedIndex, RemoveReuseAndReAdd) {
  const Data d = make_data(300, 5, 48);
  QuantizedIndex index({d.dim, Metric::ip, 4, 9, true});
  index.add(d.ids, d.base);
  const size_t memory = index.memory_bytes();
  std::vector<uint64_t> gone(d.ids.begin(), d.ids.begin() + 150);
  index.remove(gone);
  EXPECT_EQ(index.size(), 150u);
  for (uint64_t id : gone) EXPECT_FALSE(index.contains(id));
  for (size_t q = 0; q < 5; ++q) {
    std::vector<float> query(d.queries.begin() + q * d.dim, d.queries.begin() + (q + 1) * d.dim);
    for (const auto& n : index.search(query, 200)) {
      EXPECT_TRUE(std::find(gone.begin(), gone.end(), n.id) == gone.end()) << n.id;
    }
    EXPECT_EQ(index.search(query, 200).size(), 150u);
  }
  // Re-adding reuses the freed slots: the same codes come back and slot storage does not
  // grow (without reuse, codes and vectors would take half as much again; the id map may rehash).
  index.add(gone, std::vector<float>(d.base.begin(), d.base.begin() + 150 * d.dim));
  EXPECT_EQ(index.size(), 300u);
  EXPECT_LE(index.memory_bytes(), memory + memory / 20);
  QuantizedIndex fresh({d.dim, Metric::ip, 4, 9, true});
  fresh.add(d.ids, d.base);
  for (uint64_t id : {d.ids[0], d.ids[149], d.ids[299]}) EXPECT_EQ(index.codes(id), fresh.codes(id));
  std::vector<float> q0(d.queries.begin(), d.queries.begin() + d.dim);
  EXPECT_EQ(test::ids_of(index.search(q0, 10)), test::ids_of(fresh.search(q0, 10)));
}

TEST(QuantizedIndex, AllowListReturnsOnlyAllowedIdsAndMatchesASubsetIndex) {
  const size_t k = 10;
  const Data d = make_data(2000, 8, 64);
  QuantizedIndex index({d.dim, Metric::l2, 4, 5, true});
  index.add(d.ids, d.base);
  // Allowed: every 7th vector, plus an id that is not in the index (ignored).
  std::vector<uint64_t> allow{999999};
  std::vector<uint64_t> sub_ids;
  std::vector<float> sub_base;
  for (size_t i = 0; i < d.n; i += 7) {
    allow.push_back(d.ids[i]);
    sub_ids.push_back(d.ids[i]);
    sub_base.insert(sub_base.end(), d.base.begin() + i * d.dim, d.base.begin() + (i + 1) * d.dim);
  }
  QuantizedIndex subset({d.dim, Metric::l2, 4, 5, true});
  subset.add(sub_ids, sub_base);
  for (size_t rerank : {0, 2}) {
    QuantizedSearchParams p;
    p.allow = allow.data();
    p.allow_count = allow.size();
    p.rerank = rerank;
    QuantizedSearchParams plain;
    plain.rerank = rerank;
    for (size_t q = 0; q < 8; ++q) {
      std::vector<float> query(d.queries.begin() + q * d.dim, d.queries.begin() + (q + 1) * d.dim);
      auto got = index.search(query, k, p);
      ASSERT_EQ(got.size(), k);
      for (const auto& n : got) ASSERT_EQ((n.id - 3) / 5 % 7, 0u) << n.id;
      EXPECT_EQ(test::ids_of(got), test::ids_of(subset.search(query, k, plain)));
    }
  }
  // An allow-list with no id of the index returns nothing.
  uint64_t none = 424242;
  QuantizedSearchParams p;
  p.allow = &none;
  p.allow_count = 1;
  EXPECT_TRUE(index.search(std::vector<float>(d.base.begin(), d.base.begin() + d.dim), k, p).empty());
}

// Batch search scores up to four queries per pass over the codes, on the thread pool; it
// must give exactly the single-query answers, with and without rerank and filters.
TEST(QuantizedIndex, BatchEqualsSingleSearches) {
  const size_t nq = 11, k = 5;
  const Data d = make_data(700, nq, 40);
  QuantizedIndex index({d.dim, Metric::cosine, 4, 2, true});
  index.add(d.ids, d.base);
  std::vector<uint64_t> allow(d.ids.begin() + 100, d.ids.begin() + 400);
  for (int variant = 0; variant < 3; ++variant) {
    QuantizedSearchParams p;
    if (variant == 1) p.rerank = 3;
    if (variant == 2) {
      p.allow = allow.data();
      p.allow_count = allow.size();
    }
    auto batch = batch_top_k(index, d, nq, k, p);
    for (size_t q = 0; q < nq; ++q) {
      std::vector<Neighbor> one(k);
      index.search(d.queries.data() + q * d.dim, k, one.data(), p);
      for (size_t i = 0; i < k; ++i) {
        EXPECT_EQ(batch[q * k + i].id, one[i].id) << "variant " << variant;
        EXPECT_EQ(batch[q * k + i].distance, one[i].distance) << "variant " << variant;
      }
    }
  }
}

// ---- bad input ----

template <typename Fn>
void expect_error(ErrorCode code, Fn&& fn) {
  try {
    fn();
    ADD_FAILURE() << "expected " << error_code_name(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
  }
}

TEST(QuantizedIndexBadInput, EachErrorLeavesTheIndexUnchanged) {
  const Data d = make_data(50, 1, 8);
  QuantizedIndex index({8, Metric::l2, 4, 1, false});
  index.add(d.ids, d.base);
  const std::vector<float> q(d.queries.begin(), d.queries.begin() + 8);
  const auto before = index.search(q, 10);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> row(8, 0.5f), two_rows(16, 0.5f);
  expect_error(ErrorCode::DimensionMismatch, [&] { index.add({1000}, {1, 2, 3}); });
  two_rows[11] = nan;
  expect_error(ErrorCode::NonFinite, [&] { index.add({1000, 1001}, two_rows); });
  expect_error(ErrorCode::DuplicateId, [&] { index.add({1000, d.ids[3]}, std::vector<float>(16, 0.5f)); });
  expect_error(ErrorCode::DuplicateId, [&] { index.add({1000, 1000}, std::vector<float>(16, 0.5f)); });
  expect_error(ErrorCode::InvalidArgument, [&] { index.add({UINT64_MAX}, row); });  // the reserved id
  expect_error(ErrorCode::UnknownId, [&] { index.remove({d.ids[0], 77}); });
  expect_error(ErrorCode::InvalidK, [&] { index.search(q, 0); });
  expect_error(ErrorCode::DimensionMismatch, [&] { index.search(std::vector<float>(3, 1.0f), 1); });
  QuantizedSearchParams rerank;
  rerank.rerank = 2;
  expect_error(ErrorCode::InvalidArgument, [&] { index.search(q, 5, rerank); });
  expect_error(ErrorCode::InvalidArgument, [&] { QuantizedIndex bad({8, Metric::l2, 3, 1, true}); });
  expect_error(ErrorCode::InvalidArgument, [&] { QuantizedIndex bad({0, Metric::l2, 4, 1, true}); });
  QuantizedIndex empty({8, Metric::l2, 4, 1, true});
  expect_error(ErrorCode::EmptyIndex, [&] { empty.search(q, 1); });
  EXPECT_EQ(index.size(), 50u);
  EXPECT_FALSE(index.contains(1000));
  EXPECT_TRUE(index.contains(d.ids[0]));
  const auto after = index.search(q, 10);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].distance, before[i].distance);
  }
}

}  // namespace test_quantized_index
}  // namespace quiver
