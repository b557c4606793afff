// One rule for search_batch rows, the same for every index kind (issue 11, defect 2): it
// returns k' = min(k, size()) and writes k' slots per row — the row's hits, then
// Neighbor{kNoId, +inf} — so a row the allow list leaves short never shows stale data from
// an earlier call (the quantised index used to leave the tail untouched) and never a fake id.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "quiver/quiver.hpp"
#include "test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_batch_rows {

constexpr size_t kDim = 16;
constexpr size_t kCount = 500;

// The parts of an index kind the row rule is about, behind one interface.
struct Kind {
  std::string name;
  std::function<void(const std::vector<uint64_t>&, const std::vector<float>&)> add;
  std::function<size_t(const float*, size_t, size_t, Neighbor*, const uint64_t*, size_t)> batch;
  std::function<size_t(const float*, size_t, Neighbor*, const uint64_t*, size_t)> search;
};

FlatSearchParams flat_params(const uint64_t* allow, size_t n) {
  FlatSearchParams p;
  p.allow = allow;
  p.allow_count = n;
  return p;
}

std::shared_ptr<Kind> make_kind(const std::string& name) {
  auto kind = std::make_shared<Kind>();
  kind->name = name;
  if (name == "flat") {
    auto index = std::make_shared<FlatIndex>(FlatIndexOptions{kDim, Metric::l2});
    kind->add = [index](const auto& ids, const auto& v) { index->add(ids, v); };
    kind->batch = [index](const float* q, size_t nq, size_t k, Neighbor* out, const uint64_t* allow, size_t n) {
      return index->search_batch(q, nq, k, out, flat_params(allow, n));
    };
    kind->search = [index](const float* q, size_t k, Neighbor* out, const uint64_t* allow, size_t n) {
      return index->search(q, k, out, flat_params(allow, n));
    };
  } else if (name == "quantized") {
    QuantizedIndexOptions o;
    o.dim = kDim;
    auto index = std::make_shared<QuantizedIndex>(o);
    kind->add = [index](const auto& ids, const auto& v) { index->add(ids, v); };
    auto params = [](const uint64_t* allow, size_t n) {
      QuantizedSearchParams p;
      p.allow = allow;
      p.allow_count = n;
      return p;
    };
    kind->batch = [index, params](const float* q, size_t nq, size_t k, Neighbor* out, const uint64_t* allow, size_t n) {
      return index->search_batch(q, nq, k, out, params(allow, n));
    };
    kind->search = [index, params](const float* q, size_t k, Neighbor* out, const uint64_t* allow, size_t n) {
      return index->search(q, k, out, params(allow, n));
    };
  } else {
    HnswIndexOptions o;
    o.dim = kDim;
    o.M = 8;
    o.ef_construction = 64;
    auto index = std::make_shared<HnswIndex>(o);
    kind->add = [index](const auto& ids, const auto& v) { index->add(ids, v); };
    auto params = [](const uint64_t* allow, size_t n) {
      HnswSearchParams p;
      p.allow = allow;
      p.allow_count = n;
      return p;
    };
    kind->batch = [index, params](const float* q, size_t nq, size_t k, Neighbor* out, const uint64_t* allow, size_t n) {
      return index->search_batch(q, nq, k, out, params(allow, n));
    };
    kind->search = [index, params](const float* q, size_t k, Neighbor* out, const uint64_t* allow, size_t n) {
      return index->search(q, k, out, params(allow, n));
    };
  }
  return kind;
}

class BatchRows : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    kind_ = make_kind(GetParam());
    std::vector<uint64_t> ids(kCount);
    for (size_t i = 0; i < kCount; ++i) ids[i] = i;
    kind_->add(ids, unit_gaussian_vectors(kCount, kDim, 42));
    queries_ = unit_gaussian_vectors(kNq, kDim, 13);
  }
  static constexpr size_t kNq = 20;
  std::shared_ptr<Kind> kind_;
  std::vector<float> queries_;
};

TEST_P(BatchRows, ShortRowsArePaddedNeverStale) {
  const size_t k = 10;
  std::vector<Neighbor> out(kNq * k);
  // An unfiltered batch first fills every slot with real ids from the whole index.
  ASSERT_EQ(kind_->batch(queries_.data(), kNq, k, out.data(), nullptr, 0), k);
  const std::vector<uint64_t> allow = {7, 8, 9};
  ASSERT_EQ(kind_->batch(queries_.data(), kNq, k, out.data(), allow.data(), allow.size()), k);
  for (size_t q = 0; q < kNq; ++q) {
    std::vector<Neighbor> expected(k);
    const size_t hits = kind_->search(queries_.data() + q * kDim, k, expected.data(), allow.data(), allow.size());
    ASSERT_EQ(hits, 3u) << "query " << q;
    for (size_t j = 0; j < k; ++j) {
      const Neighbor& n = out[q * k + j];
      if (j < hits) {
        EXPECT_EQ(n.id, expected[j].id) << "query " << q << " slot " << j;
        EXPECT_EQ(n.distance, expected[j].distance) << "query " << q << " slot " << j;
      } else {
        EXPECT_EQ(n.id, kNoId) << "query " << q << " slot " << j;
        EXPECT_TRUE(std::isinf(n.distance) && n.distance > 0) << "query " << q << " slot " << j;
      }
    }
  }
}

TEST_P(BatchRows, EmptyAllowListGivesNoHits) {
  const size_t k = 5;
  std::vector<Neighbor> out(kNq * k, Neighbor{1, 0.0f});
  const uint64_t none = 0;
  Neighbor one[k];
  EXPECT_EQ(kind_->search(queries_.data(), k, one, &none, 0), 0u);
  ASSERT_EQ(kind_->batch(queries_.data(), kNq, k, out.data(), &none, 0), k);
  for (const Neighbor& n : out) {
    EXPECT_EQ(n.id, kNoId);
    EXPECT_TRUE(std::isinf(n.distance));
  }
}

TEST_P(BatchRows, KBeyondSizeGivesSizeSlotsAndLeavesTheRestAlone) {
  const size_t k = kCount + 7;
  const Neighbor untouched{12345, -1.0f};
  std::vector<Neighbor> out(2 * k, untouched);
  const uint64_t allow[] = {3, 4};
  ASSERT_EQ(kind_->batch(queries_.data(), 2, k, out.data(), allow, 2), kCount);
  for (size_t q = 0; q < 2; ++q) {
    std::set<uint64_t> seen;
    for (size_t j = 0; j < k; ++j) {
      const Neighbor& n = out[q * k + j];
      if (j < 2) {
        seen.insert(n.id);
      } else if (j < kCount) {
        EXPECT_EQ(n.id, kNoId) << "slot " << j;
      } else {
        EXPECT_EQ(n.id, untouched.id) << "slot " << j << " is past k' and must not be written";
      }
    }
    EXPECT_EQ(seen, (std::set<uint64_t>{3, 4}));
  }
}

TEST_P(BatchRows, NoKindAcceptsTheNoResultId) {
  const std::vector<float> v(kDim, 0.5f);
  try {
    kind_->add({kNoId}, v);
    FAIL() << "kNoId was accepted as an id";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKind, BatchRows, ::testing::Values("flat", "quantized", "hnsw"),
                         [](const auto& info) { return info.param; });

// FlatIndex's allow list: exactly the brute-force answer over the allowed ids, repeats and
// unknown ids ignored; a null list with a count is refused.
TEST(FlatAllow, EqualsBruteForceOverTheAllowedIds) {
  FlatIndex index(FlatIndexOptions{kDim, Metric::cosine});
  std::vector<uint64_t> ids(kCount);
  for (size_t i = 0; i < kCount; ++i) ids[i] = 1000 + i;
  const auto vectors = unit_gaussian_vectors(kCount, kDim, 42);
  index.add(ids, vectors);
  const auto query = unit_gaussian_vectors(1, kDim, 7);
  std::vector<uint64_t> allow;
  for (size_t i = 0; i < kCount; i += 3) allow.push_back(1000 + i);
  allow.push_back(1000);  // repeated
  allow.push_back(5);     // not in the index
  std::vector<Neighbor> all(kCount);
  ASSERT_EQ(index.search(query.data(), kCount, all.data()), kCount);
  std::vector<Neighbor> expected;
  for (const Neighbor& n : all) {
    if ((n.id - 1000) % 3 == 0 && expected.size() < 10) expected.push_back(n);
  }
  std::vector<Neighbor> got(10);
  ASSERT_EQ(index.search(query.data(), 10, got.data(), flat_params(allow.data(), allow.size())), 10u);
  for (size_t j = 0; j < 10; ++j) {
    EXPECT_EQ(got[j].id, expected[j].id);
    EXPECT_EQ(got[j].distance, expected[j].distance);
  }
  try {
    index.search(query.data(), 10, got.data(), flat_params(nullptr, 3));
    FAIL() << "a null allow list with a count was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  }
}

}  // namespace test_batch_rows
}  // namespace quiver
