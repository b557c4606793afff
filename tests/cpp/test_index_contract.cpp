// The contract every index kind keeps, run for flat, quantised and HNSW under every metric:
// what add() rejects (reserved id, zero vectors under cosine, norms that could overflow a
// distance, more vectors than 32-bit slots), that accepted extreme values never shorten a
// result, and that exact ties at the k cut-off go to the smaller id after slots are reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "index_kinds_support.hpp"
#include "io_test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_index_contract {

using namespace test;

struct Case {
  Kind kind;
  Metric metric;
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return std::string(kind_name(info.param.kind)) + "_" + metric_name(info.param.metric);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Kind k : kAllKinds) {
    for (Metric m : kAllMetrics) cases.push_back({k, m});
  }
  return cases;
}

class IndexContract : public testing::TestWithParam<Case> {
 protected:
  static constexpr size_t kDim = 8;
  std::unique_ptr<AnyIndex> make() const { return make_index(GetParam().kind, kDim, GetParam().metric); }
  Metric metric() const { return GetParam().metric; }

  // n ordinary vectors with ids first, first + 1, ...
  static std::vector<float> ordinary(size_t n, float shift = 0.0f) {
    std::vector<float> v(n * kDim);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float((i * 37) % 11) - 5.0f + shift + 0.5f;
    return v;
  }
  static std::vector<uint64_t> ids_from(uint64_t first, size_t n) {
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = first + i;
    return ids;
  }
};

// ---- defect 7: the same add() rules for every kind ----

TEST_P(IndexContract, ReservedIdIsRejectedAndNothingIsAdded) {
  auto index = make();
  index->add(ids_from(1, 3), ordinary(3));
  const uint64_t reserved = std::numeric_limits<uint64_t>::max();
  const Failure f = failure_of([&] { index->add({7, reserved}, ordinary(2)); });
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
  EXPECT_NE(f.message.find("18446744073709551615 is reserved"), std::string::npos) << f.message;
  EXPECT_EQ(index->size(), 3u);
}

TEST_P(IndexContract, ZeroVectorIsAPointUnderL2AndIpAndRejectedUnderCosine) {
  auto index = make();
  index->add(ids_from(1, 3), ordinary(3));
  const std::vector<float> zero(kDim, 0.0f);
  if (metric() == Metric::cosine) {
    const Failure f = failure_of([&] { index->add({9}, zero); });
    EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
    EXPECT_NE(f.message.find("all zeros"), std::string::npos) << f.message;
    EXPECT_EQ(index->size(), 3u);
    return;
  }
  index->add({9}, zero);
  ASSERT_EQ(index->size(), 4u);
  // Its distance to any query is exact in every kind: |q|^2 under l2, 0 under ip.
  std::vector<float> q(kDim);
  for (size_t i = 0; i < kDim; ++i) q[i] = 0.25f * float(i) - 1.0f;
  double q2 = 0.0;
  for (float x : q) q2 += double(x) * x;
  bool found = false;
  for (const Neighbor& n : index->search(q, 4)) {
    if (n.id != 9) continue;
    found = true;
    EXPECT_FLOAT_EQ(n.distance, metric() == Metric::l2 ? float(q2) : 0.0f);
  }
  EXPECT_TRUE(found);
  // The zero vector itself as the query: it is its own nearest neighbour under l2.
  if (metric() == Metric::l2) {
    const auto r = index->search(zero, 1);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].id, 9u);
    EXPECT_EQ(r[0].distance, 0.0f);
  }
}

// ---- defect 5: norms that could overflow a distance are rejected; the rest never shortens ----

TEST_P(IndexContract, VectorsAndQueriesAboveTheNormBoundAreRejected) {
  auto index = make();
  index->add(ids_from(1, 3), ordinary(3));
  // Components 2^49 give |v|^2 = 8 * 2^98 = 2^101 > 2^100: every value finite, the norm not.
  std::vector<float> big(kDim, 0x1p49f);
  std::vector<float> at_bound(kDim, 0x1p48f);  // 2^98 + 7 * 2^96 = 11 * 2^96 <= 2^100
  at_bound[0] = 0x1p49f;
  if (metric() == Metric::cosine) {
    // Cosine normalises first, so any finite non-zero vector is fine.
    index->add({10}, big);
    EXPECT_EQ(index->search(big, 4).size(), 4u);
    return;
  }
  const Failure f = failure_of([&] {
    index->add({10, 11}, [&] {
      std::vector<float> two = at_bound;
      two.insert(two.end(), big.begin(), big.end());
      return two;
    }());
  });
  EXPECT_EQ(f.code, ErrorCode::NonFinite);
  EXPECT_NE(f.message.find("row 1"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("2^100"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("overflow"), std::string::npos) << f.message;
  EXPECT_EQ(index->size(), 3u);
  const Failure q = failure_of([&] { index->search(big, 2); });
  EXPECT_EQ(q.code, ErrorCode::NonFinite);
  std::vector<Neighbor> out(2 * 2);
  std::vector<float> batch = at_bound;
  batch.insert(batch.end(), big.begin(), big.end());
  const Failure b = failure_of([&] { index->search_batch(batch.data(), 2, 2, out.data()); });
  EXPECT_EQ(b.code, ErrorCode::NonFinite);
  EXPECT_NE(b.message.find("query row 1"), std::string::npos) << b.message;
  index->add({10}, at_bound);  // at the bound: accepted
  EXPECT_EQ(index->size(), 4u);
}

TEST_P(IndexContract, ExtremeButAcceptedValuesNeverShortenAResult) {
  auto index = make();
  // The largest norms allowed (|v|^2 = 2^100 exactly: 4 components of +-2^49), subnormal
  // vectors, mixed signs and magnitudes, ordinary vectors.
  const float big = 0x1p49f, tiny = std::numeric_limits<float>::denorm_min();
  std::vector<std::vector<float>> rows = {
      {big, -big, big, -big, 0, 0, 0, 0},
      {-big, big, -big, big, 0, 0, 0, 0},
      {0, 0, 0, 0, big, big, big, big},
      {big, big, big, big, 0, 0, 0, 0},
      {tiny, 0, 0, 0, 0, 0, 0, 0},
      {-tiny, tiny, -tiny, tiny, -tiny, tiny, -tiny, tiny},
      {1e-38f, -2e-39f, 3e-40f, -4e-41f, 5e-42f, -6e-43f, 7e-44f, -tiny},
      {0x1p48f, tiny, -1.0f, 1e-30f, -0x1p48f, 3.0f, 0, 1e10f},
  };
  const std::vector<float> ord = ordinary(24);
  for (size_t i = 0; i < 24; ++i) rows.emplace_back(ord.begin() + i * kDim, ord.begin() + (i + 1) * kDim);
  std::vector<float> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  index->add(ids_from(100, rows.size()), flat);
  index->remove({100 + 9, 100 + 10});  // some removed slots too
  const size_t live = index->size();
  ASSERT_EQ(live, rows.size() - 2);

  for (size_t qi = 0; qi < rows.size(); ++qi) {
    std::vector<float> query = rows[qi];
    for (float& x : query) x = -x;  // the opposite: the largest distances there are
    for (const std::vector<float>* q : {&rows[qi], &query}) {
      for (size_t k : {size_t(1), size_t(5), live, live + 3}) {
        for (bool exact : {false, true}) {
          const auto r = search(*index, *q, k, exact);
          ASSERT_EQ(r.size(), std::min(k, live)) << "query " << qi << " k " << k;
          for (const Neighbor& n : r) {
            EXPECT_TRUE(std::isfinite(n.distance)) << "query " << qi << " id " << n.id;
            EXPECT_NE(n.id, 100u + 9);
            EXPECT_NE(n.id, 100u + 10);
          }
        }
      }
    }
  }
  // The whole set as one batch, every row full.
  const size_t k = live;
  std::vector<Neighbor> out(rows.size() * k);
  EXPECT_EQ(index->search_batch(flat.data(), rows.size(), k, out.data()), live);
  for (size_t qi = 0; qi < rows.size(); ++qi) {
    for (size_t j = 0; j < k; ++j) {
      EXPECT_NE(out[qi * k + j].id, std::numeric_limits<uint64_t>::max()) << "row " << qi << " slot " << j;
      EXPECT_TRUE(std::isfinite(out[qi * k + j].distance)) << "row " << qi << " slot " << j;
    }
  }
}

// ---- defect 6: exact ties at the k cut-off go to the smaller id, whatever the slots ----

TEST_P(IndexContract, TiesAtTheCutOffGoToTheSmallerIdAfterSlotReuse) {
  auto index = make();
  // 16 copies of one vector (ids 1..16) among 40 others far away.
  const size_t copies = 16;
  std::vector<float> same(kDim);
  for (size_t i = 0; i < kDim; ++i) same[i] = float(i % 3) + 1.0f;
  std::vector<float> dup;
  for (size_t c = 0; c < copies; ++c) dup.insert(dup.end(), same.begin(), same.end());
  index->add(ids_from(1, copies), dup);
  index->add(ids_from(1000, 40), ordinary(40, -50.0f));  // far, and opposite under ip and cosine
  // Remove the copies and add them back in the same id order: slots are reused last-freed
  // first, so id 1 now has the highest slot of the copies and id 16 the lowest.
  index->remove(ids_from(1, copies));
  index->add(ids_from(1, copies), dup);
  for (size_t k : {size_t(1), size_t(3), size_t(5), size_t(10)}) {
    for (bool exact : {false, true}) {
      const auto r = search(*index, same, k, exact);
      ASSERT_EQ(r.size(), k);
      for (size_t j = 0; j < k; ++j) {
        EXPECT_EQ(r[j].id, j + 1) << "k " << k << " exact " << exact << " position " << j;
      }
    }
  }
  std::vector<Neighbor> out(2 * 5);
  std::vector<float> two = same;
  two.insert(two.end(), same.begin(), same.end());
  index->search_batch(two.data(), 2, 5, out.data());
  for (size_t j = 0; j < 10; ++j) EXPECT_EQ(out[j].id, j % 5 + 1) << "batch slot " << j;
}

// ---- the one interface: any file loads as the kind it holds and answers as it did ----

TEST_P(IndexContract, AnyIndexLoadsTheKindAFileHoldsAndAnswersTheSame) {
  auto index = make();
  index->add(ids_from(1, 40), ordinary(40));
  index->remove({3, 17});
  const std::vector<uint8_t> bytes = index->serialize();
  const std::unique_ptr<AnyIndex> loaded = load_any_index(bytes.data(), bytes.size());
  EXPECT_EQ(loaded->kind(), index->kind());
  EXPECT_EQ(loaded->size(), 38u);
  EXPECT_EQ(loaded->metric(), metric());
  EXPECT_EQ(loaded->describe(), index->describe());
  EXPECT_FALSE(loaded->contains(3));
  EXPECT_TRUE(loaded->contains(4));
  EXPECT_EQ(loaded->serialize(), bytes);
  const std::vector<float> q = ordinary(1, 0.25f);
  for (size_t k : {size_t(1), size_t(7), size_t(100)}) {
    const auto a = index->search(q, k), b = loaded->search(q, k);
    ASSERT_EQ(a.size(), b.size());
    for (size_t j = 0; j < a.size(); ++j) {
      EXPECT_EQ(a[j].id, b[j].id);
      EXPECT_EQ(a[j].distance, b[j].distance);
    }
  }
  // A knob the kind does not have is ignored, so one parameter set runs against any kind.
  AnySearchParams knobs;
  knobs.ef = 50;
  knobs.probes = 3;
  EXPECT_EQ(loaded->search(q, 5, knobs).size(), 5u);
  // Damaged bytes fail as the kind's own load() does: the same code and message.
  std::vector<uint8_t> broken = bytes;
  broken[broken.size() / 2] ^= 0x40;
  const Failure any = failure_of([&] { load_any_index(broken.data(), broken.size()); });
  const Failure typed = failure_of([&] {
    switch (index->kind()) {
      case IndexKind::flat: FlatIndex::load(broken); break;
      case IndexKind::quantized: QuantizedIndex::load(broken); break;
      case IndexKind::hnsw: HnswIndex::load(broken); break;
    }
  });
  EXPECT_NE(typed.message, "");
  EXPECT_EQ(any.code, typed.code);
  EXPECT_EQ(any.message, typed.message);
}

// One call with several faults reports the same one in every kind, for search and search_batch
// alike: the spine's order is k, then the shared parameters, then an empty index, then the
// queries (issue 24: flat checked k, parameters, queries; quantised queries, then the rest).
TEST_P(IndexContract, SeveralFaultsReportTheSameFirstOneInEveryKind) {
  auto index = make();
  std::vector<float> nan_queries = ordinary(3);
  nan_queries[kDim + 1] = NAN;  // the second query
  std::vector<Neighbor> out(3 * 10);
  AnySearchParams bad_allow;
  bad_allow.allow = nullptr;
  bad_allow.allow_count = 2;  // a count without a list: INVALID_ARGUMENT
  const auto code_of = [&](size_t k, const std::vector<float>& q, size_t nq, const AnySearchParams& p, bool batch) {
    return failure_of([&] {
             if (batch) {
               index->search_batch(q.data(), nq, k, out.data(), p);
             } else {
               index->search(q.data(), k, out.data(), p);
             }
           })
        .code;
  };
  const std::vector<float> nan_one(nan_queries.begin() + kDim, nan_queries.begin() + 2 * kDim);
  // With k = 0, a count without an allow-list and a NaN query all at once, then without the
  // first fault, then without the second: the third is an empty index (empty) or the NaN.
  const auto expect_order = [&](ErrorCode third) {
    for (bool batch : {false, true}) {
      SCOPED_TRACE(batch ? "search_batch" : "search");
      const std::vector<float>& q = batch ? nan_queries : nan_one;
      const size_t nq = batch ? 3 : 1;
      EXPECT_EQ(code_of(0, q, nq, bad_allow, batch), ErrorCode::InvalidK);
      EXPECT_EQ(code_of(5, q, nq, bad_allow, batch), ErrorCode::InvalidArgument);
      EXPECT_EQ(code_of(5, q, nq, {}, batch), third);
    }
  };
  expect_order(ErrorCode::EmptyIndex);
  index->add(ids_from(1, 20), ordinary(20));
  expect_order(ErrorCode::NonFinite);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, IndexContract, testing::ValuesIn(all_cases()), case_name);

// ---- the shared search parameters (quiver/search_params.hpp): predicate and rerank ----

struct StorageCase {
  Storage storage;
  Metric metric;
};

std::vector<StorageCase> all_storage_cases() {
  std::vector<StorageCase> cases;
  for (Storage s : kAllStorages) {
    for (Metric m : kAllMetrics) cases.push_back({s, m});
  }
  return cases;
}

class SearchParamsContract : public testing::TestWithParam<StorageCase> {
 protected:
  static constexpr size_t kDim = 16, kRows = 120, kK = 8;
  void SetUp() override {
    index_ = make_index(GetParam().storage, kDim, GetParam().metric);
    exact_ = make_index(Storage::flat, kDim, GetParam().metric);
    data_ = unit_gaussian_vectors(kRows, kDim, 7);
    for (size_t i = 0; i < data_.size(); ++i) data_[i] *= 1.0f + float(i % 5);  // unequal norms
    ids_.resize(kRows);
    for (size_t i = 0; i < kRows; ++i) ids_[i] = 3 * i + 1;
    index_->add(ids_, data_);
    exact_->add(ids_, data_);
    queries_ = unit_gaussian_vectors(6, kDim, 8);
  }
  const float* query(size_t q) const { return queries_.data() + q * kDim; }
  std::vector<Neighbor> run(const AnyIndex& index, size_t q, const SearchParams& p, size_t ef = 0,
                            size_t k = kK) const {
    AnySearchParams any;
    static_cast<SearchParams&>(any) = p;
    any.ef = ef;
    std::vector<Neighbor> out(k);
    out.resize(index.search(query(q), k, out.data(), any));
    return out;
  }
  static SearchParams depth(size_t r) {
    SearchParams p;
    p.rerank = r;
    return p;
  }
  static std::vector<uint64_t> ids_of(const std::vector<Neighbor>& r) {
    std::vector<uint64_t> ids;
    for (const Neighbor& n : r) ids.push_back(n.id);
    return ids;
  }

  std::unique_ptr<AnyIndex> index_, exact_;
  std::vector<float> data_, queries_;
  std::vector<uint64_t> ids_;
};

bool id_is_even(const void* ctx, uint64_t id) {
  ++*static_cast<size_t*>(const_cast<void*>(ctx));
  return id % 2 == 0;
}

// Every kind takes the predicate, and it answers as the equivalent allow list does.
TEST_P(SearchParamsContract, PredicateAdmitsWhatTheEquivalentAllowListAdmits) {
  std::vector<uint64_t> even;
  for (uint64_t id : ids_) {
    if (id % 2 == 0) even.push_back(id);
  }
  for (size_t q = 0; q < 6; ++q) {
    size_t calls = 0;
    SearchParams filtered;
    filtered.predicate = id_is_even;
    filtered.predicate_ctx = &calls;
    SearchParams allowed;
    allowed.allow = even.data();
    allowed.allow_count = even.size();
    const auto a = run(*index_, q, filtered, kRows), b = run(*index_, q, allowed, kRows);
    EXPECT_GT(calls, 0u);
    ASSERT_EQ(a.size(), kK) << "query " << q;
    EXPECT_EQ(ids_of(a), ids_of(b)) << "query " << q;
    // Combined with an allow list, both must admit an id: odd ids allowed, even required.
    std::vector<uint64_t> odd_and_two = {ids_[0], ids_[1], ids_[2], ids_[3]};  // 1, 4, 7, 10
    SearchParams both = filtered;
    both.allow = odd_and_two.data();
    both.allow_count = odd_and_two.size();
    const auto c = run(*index_, q, both, kRows);
    std::vector<uint64_t> got = ids_of(c);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, (std::vector<uint64_t>{4, 10})) << "query " << q;
  }
}

// Every kind takes the allow bitmap and answers as the equivalent allow list, in the exact
// path (a beam as wide as the index) and the walk (HNSW at ef = k); a bitmap and a list together,
// or a null bitmap with a size, is one error in every kind.
TEST_P(SearchParamsContract, AllowBitsAdmitWhatTheEquivalentAllowListAdmits) {
  const uint64_t size = ids_.back() + 1;
  for (size_t every : {size_t(2), size_t(17)}) {
    std::vector<uint64_t> listed;
    std::vector<uint64_t> bits((size + 63) / 64, 0);
    for (size_t i = 0; i < kRows; i += every) {
      listed.push_back(ids_[i]);
      bits[ids_[i] / 64] |= uint64_t(1) << (ids_[i] % 64);
    }
    for (size_t q = 0; q < 6; ++q) {
      for (size_t ef : {kK, kRows}) {
        SearchParams a, b;
        a.allow = listed.data();
        a.allow_count = listed.size();
        b.allow_bits = bits.data();
        b.allow_bits_size = size;
        const auto x = run(*index_, q, a, ef), y = run(*index_, q, b, ef);
        ASSERT_EQ(x.size(), std::min(kK, listed.size())) << "every " << every << ", query " << q;
        ASSERT_EQ(y.size(), x.size()) << "every " << every << ", query " << q;
        for (size_t i = 0; i < x.size(); ++i) {
          EXPECT_EQ(x[i].id, y[i].id) << "every " << every << ", query " << q << ", ef " << ef;
          EXPECT_EQ(x[i].distance, y[i].distance) << "every " << every << ", query " << q << ", ef " << ef;
        }
      }
    }
    // A bitmap that ends before an id admits nothing past its end.
    SearchParams short_bits;
    short_bits.allow_bits = bits.data();
    short_bits.allow_bits_size = ids_[kRows / 2];
    for (const Neighbor& n : run(*index_, 0, short_bits, kRows)) EXPECT_LT(n.id, ids_[kRows / 2]);
  }
  std::vector<uint64_t> bits((size + 63) / 64, ~uint64_t(0));
  const uint64_t one = ids_[0];
  SearchParams both;
  both.allow = &one;
  both.allow_count = 1;
  both.allow_bits = bits.data();
  both.allow_bits_size = size;
  Failure f = failure_of([&] { run(*index_, 0, both); });
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
  EXPECT_NE(f.message.find("allow and allow_bits are both set"), std::string::npos) << f.message;
  SearchParams null_bits;
  null_bits.allow_bits_size = 64;
  f = failure_of([&] { run(*index_, 0, null_bits); });
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
  EXPECT_NE(f.message.find("allow_bits is null"), std::string::npos) << f.message;
}

// One error, one message, in every kind that cannot re-score; the rest accept any depth.
TEST_P(SearchParamsContract, RerankWithoutKeptVectorsIsOneErrorInEveryKind) {
  for (size_t r : {size_t(1), size_t(4), kRerankAll}) {
    if (cannot_rescore(GetParam().storage)) {
      const Failure f = failure_of([&] { run(*index_, 0, depth(r)); });
      EXPECT_EQ(f.code, ErrorCode::InvalidArgument) << "rerank " << r;
      EXPECT_EQ(f.message.rfind("rerank needs the f32 vectors", 0), 0u) << f.message;
      EXPECT_NE(f.message.find("keep_vectors = false"), std::string::npos) << f.message;
    } else {
      EXPECT_EQ(run(*index_, 0, depth(r)).size(), kK) << "rerank " << r;
    }
  }
  // Unset (the kind's default) and 0 (off) never fail.
  EXPECT_EQ(run(*index_, 0, SearchParams{}).size(), kK);
  EXPECT_EQ(run(*index_, 0, depth(0)).size(), kK);
}

// A depth that covers the whole index makes every kind exact: the flat index's answer, ids
// and distances. (HNSW widens its beam to k * r, which here holds every node.)
// Run only on the storages that can re-score (kept vectors); the others' error is tested above.
class RescoringStorages : public SearchParamsContract {};

TEST_P(RescoringStorages, RerankDeepEnoughIsExactInEveryKind) {
  const size_t covering = (kRows + kK - 1) / kK;
  // 2^61 + 1 times k = 8 wraps to 8 in 64-bit arithmetic: the depth must saturate instead.
  const size_t wrapping = (size_t(1) << (sizeof(size_t) * 8 - 3)) + 1;
  for (size_t r : {covering, kRerankAll, wrapping}) {
    for (size_t q = 0; q < 6; ++q) {
      const auto got = run(*index_, q, depth(r));
      const auto want = run(*exact_, q, SearchParams{});
      ASSERT_EQ(ids_of(got), ids_of(want)) << "rerank " << r << " query " << q;
      for (size_t j = 0; j < got.size(); ++j) {
        EXPECT_NEAR(got[j].distance, want[j].distance, 1e-5f * (1.0f + std::fabs(want[j].distance)));
      }
    }
  }
}

// Depth r re-scores only the best k * r by the approximate distance: at r = 1 HNSW sq8 returns
// the ids its codes rank first (those of rerank 0), with exact distances.
class HnswSq8KeptContract : public SearchParamsContract {};

TEST_P(HnswSq8KeptContract, DepthOneReScoresOnlyTheCodeTopK) {
  for (size_t q = 0; q < 6; ++q) {
    const auto codes = run(*index_, q, depth(0), 64);
    const auto one = run(*index_, q, depth(1), 64);
    const auto full = run(*index_, q, SearchParams{}, 64);
    std::vector<uint64_t> a = ids_of(codes), b = ids_of(one);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << "query " << q;
    const auto exact = run(*exact_, q, SearchParams{}, 0, kRows);
    for (const Neighbor& n : one) {
      const auto it = std::find_if(exact.begin(), exact.end(), [&](const Neighbor& e) { return e.id == n.id; });
      ASSERT_NE(it, exact.end());
      EXPECT_NEAR(n.distance, it->distance, 1e-5f * (1.0f + std::fabs(it->distance))) << "query " << q;
    }
    // The default re-scores the whole beam of 64: the same as a depth that covers it.
    EXPECT_EQ(ids_of(full), ids_of(run(*index_, q, depth(kRerankAll), 64))) << "query " << q;
  }
}

std::string storage_case_name(const testing::TestParamInfo<StorageCase>& info) {
  return std::string(storage_name(info.param.storage)) + "_" + metric_name(info.param.metric);
}

std::vector<StorageCase> storage_cases_where(bool (*keep)(Storage)) {
  std::vector<StorageCase> cases;
  for (const StorageCase& c : all_storage_cases()) {
    if (keep(c.storage)) cases.push_back(c);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllStorages, SearchParamsContract, testing::ValuesIn(all_storage_cases()), storage_case_name);
INSTANTIATE_TEST_SUITE_P(KeptVectors, RescoringStorages,
                         testing::ValuesIn(storage_cases_where([](Storage st) { return !cannot_rescore(st); })),
                         storage_case_name);
INSTANTIATE_TEST_SUITE_P(Sq8Kept, HnswSq8KeptContract, testing::ValuesIn(storage_cases_where([](Storage st) {
                           return st == Storage::hnsw_sq8_kept;
                         })),
                         storage_case_name);

// ---- defect 7: more vectors than 32-bit slots, rejected before a row is read ----
// Only where size_t is 64-bit: in wasm32 a batch cannot name more than 2^32 - 1 vectors.
#if SIZE_MAX > UINT32_MAX

// The batch claims 2^32 rows but only two exist: the limit must be checked before any row or
// id is read (the second row is NaN, so a check that came later would report NON_FINITE).
template <typename Index>
void expect_slot_limit(Index&& index, const char* kind, const char* limit = "holds at most 4294967295 vectors") {
  const size_t dim = 4;
  std::vector<float> rows(2 * dim, 1.0f);
  rows[dim] = NAN;
  const uint64_t ids[2] = {1, 2};
  const Failure f = failure_of([&] { index.add(ids, rows.data(), size_t(1) << 32); });
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument) << f.message;
  EXPECT_NE(f.message.find(limit), std::string::npos) << f.message;
  EXPECT_NE(f.message.find(kind), std::string::npos) << f.message;
  EXPECT_EQ(index.size(), 0u);
}

TEST(IndexSlotLimit, FlatRejectsABatchPastTheSlotLimitBeforeReadingIt) {
  expect_slot_limit(FlatIndex({4, Metric::l2}), "flat");
}

TEST(IndexSlotLimit, QuantizedRejectsABatchPastTheSlotLimitBeforeReadingIt) {
  QuantizedIndexOptions o;
  o.dim = 4;
  expect_slot_limit(QuantizedIndex(o), "quantized");
}

// HNSW's limit is one lower: slot 2^32 - 1 marks "no slot" in its graph code.
TEST(IndexSlotLimit, HnswRejectsABatchPastTheSlotLimitBeforeReadingIt) {
  expect_slot_limit(HnswIndex({4, Metric::l2}), "HNSW", "holds at most 4294967294 vectors");
}
#endif  // SIZE_MAX > UINT32_MAX

}  // namespace test_index_contract
}  // namespace quiver
