// Filters on the partitioned quantised index: the predicate (SearchParams::predicate) on the
// partitioned scan answers as the equivalent allow-list does when every list is probed, and
// with min(k, admitted) admitted results at every probes value — from one list to all of
// them, with and without a refine plane, codes only and with exact rerank —,
// a predicate combined with an allow-list admits only ids both admit, each id is asked at most
// once per search, and batch rows equal single searches under a predicate.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_quantized_partition_filters {

constexpr size_t kN = 4000, kDim = 24, kQueries = 12, kK = 10, kLists = 20;

struct Fixture {
  std::vector<float> base = clustered_vectors(kN, kDim, 16, 42, 43);
  std::vector<float> queries = clustered_vectors(kQueries, kDim, 16, 42, 13);
  std::vector<uint64_t> ids;
  Fixture() {
    for (size_t i = 0; i < kN; ++i) ids.push_back(5 * i + 2);
  }
  const float* query(size_t q) const { return queries.data() + q * kDim; }
};

const Fixture& data() {
  static const Fixture f;
  return f;
}

QuantizedIndex make(bool keep, unsigned refine_bits) {
  QuantizedIndexOptions o;
  o.dim = kDim;
  o.metric = Metric::l2;
  o.keep_vectors = keep;
  o.refine_bits = refine_bits;
  o.lists = kLists;
  QuantizedIndex index(o);
  index.add(data().ids, data().base);
  return index;
}

// Admits ids whose value modulo `modulus` is `remainder`; counts calls per id.
struct Filter {
  uint64_t modulus, remainder;
  mutable std::mutex mutex;
  mutable std::map<uint64_t, size_t> calls;
  bool admits(uint64_t id) const { return id % modulus == remainder; }
  std::vector<uint64_t> as_allow_list() const {
    std::vector<uint64_t> out;
    for (uint64_t id : data().ids) {
      if (admits(id)) out.push_back(id);
    }
    return out;
  }
};

bool call_filter(const void* ctx, uint64_t id) {
  const auto* f = static_cast<const Filter*>(ctx);
  std::lock_guard<std::mutex> lock(f->mutex);
  ++f->calls[id];
  return f->admits(id);
}

std::vector<Neighbor> one(const QuantizedIndex& index, size_t q, const QuantizedSearchParams& p) {
  std::vector<Neighbor> out(kK);
  out.resize(index.search(data().query(q), kK, out.data(), p));
  return out;
}

void expect_same(const std::vector<Neighbor>& a, const std::vector<Neighbor>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id) << what << ", entry " << i;
    EXPECT_EQ(a[i].distance, b[i].distance) << what << ", entry " << i;
  }
}

struct Case {
  bool keep;
  unsigned refine_bits;
  size_t rerank;
};

class PartitionFilters : public testing::TestWithParam<Case> {};

TEST_P(PartitionFilters, PredicateAnswersAsTheEquivalentAllowList) {
  const QuantizedIndex index = make(GetParam().keep, GetParam().refine_bits);
  ASSERT_EQ(index.lists(), kLists);
  // Selective (1 in 3) and tight (1 in 400: 10 ids in the whole index) filters.
  for (uint64_t modulus : {uint64_t(3), uint64_t(2000)}) {
    Filter filter{modulus, 2};
    const std::vector<uint64_t> allow = filter.as_allow_list();
    for (size_t probes : {size_t(1), size_t(3), size_t(0), kLists}) {
      QuantizedSearchParams by_predicate, by_allow;
      by_predicate.probes = by_allow.probes = probes;
      by_predicate.rerank = by_allow.rerank = GetParam().rerank;
      by_predicate.predicate = call_filter;
      by_predicate.predicate_ctx = &filter;
      by_allow.allow = allow.data();
      by_allow.allow_count = allow.size();
      for (size_t q = 0; q < kQueries; ++q) {
        filter.calls.clear();
        const std::vector<Neighbor> got = one(index, q, by_predicate);
        const std::string what = "modulus " + std::to_string(modulus) + ", probes " + std::to_string(probes) +
                                 ", query " + std::to_string(q);
        // Scanning every list, both score every admitted vector: the same answer. With fewer
        // probes an allow-list goes on until it has scored as many allowed vectors as an
        // unfiltered search scores (it knows how many there are); a predicate, asked only
        // about hits, goes on only while the candidates are short — so it may answer from
        // fewer lists.
        if (probes == kLists) expect_same(got, one(index, q, by_allow), what);
        EXPECT_EQ(got.size(), std::min(kK, allow.size())) << what;
        for (const Neighbor& nb : got) EXPECT_TRUE(filter.admits(nb.id)) << what << ": id " << nb.id;
        for (const auto& [id, n] : filter.calls)
          EXPECT_EQ(n, 1u) << what << ": id " << id << " asked " << n << " times";
      }
    }
  }
}

TEST_P(PartitionFilters, PredicateAndAllowListBothMustAdmit) {
  const QuantizedIndex index = make(GetParam().keep, GetParam().refine_bits);
  Filter even{2, 0};
  // ids 2, 7, 12, 17, ...: the allow-list holds the first 40, the predicate keeps the even ones.
  const std::vector<uint64_t> allow(data().ids.begin(), data().ids.begin() + 40);
  std::set<uint64_t> want;
  for (uint64_t id : allow) {
    if (even.admits(id)) want.insert(id);
  }
  QuantizedSearchParams p;
  p.probes = 1;
  p.rerank = GetParam().rerank;
  p.allow = allow.data();
  p.allow_count = allow.size();
  p.predicate = call_filter;
  p.predicate_ctx = &even;
  for (size_t q = 0; q < kQueries; ++q) {
    std::vector<Neighbor> out(want.size() + 5);
    out.resize(index.search(data().query(q), out.size(), out.data(), p));
    std::set<uint64_t> got;
    for (const Neighbor& nb : out) got.insert(nb.id);
    EXPECT_EQ(got, want) << "query " << q;
  }
}

TEST_P(PartitionFilters, BatchRowsEqualSingleSearchesUnderAPredicate) {
  const QuantizedIndex index = make(GetParam().keep, GetParam().refine_bits);
  Filter filter{7, 3};
  for (size_t probes : {size_t(2), size_t(0)}) {
    QuantizedSearchParams p;
    p.probes = probes;
    p.rerank = GetParam().rerank;
    p.predicate = call_filter;
    p.predicate_ctx = &filter;
    std::vector<Neighbor> rows(kQueries * kK);
    ASSERT_EQ(index.search_batch(data().queries.data(), kQueries, kK, rows.data(), p), kK);
    for (size_t q = 0; q < kQueries; ++q) {
      expect_same(std::vector<Neighbor>(rows.begin() + q * kK, rows.begin() + (q + 1) * kK), one(index, q, p),
                  "probes " + std::to_string(probes) + ", query " + std::to_string(q));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Storage, PartitionFilters,
                         testing::Values(Case{false, 0, 0}, Case{false, 3, 0}, Case{true, 0, 0}, Case{true, 0, 4},
                                         Case{false, 3, 2}),
                         [](const testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.keep ? "kept" : "codes") + "_refine" +
                                  std::to_string(info.param.refine_bits) + "_rerank" +
                                  std::to_string(info.param.rerank);
                         });

}  // namespace test_quantized_partition_filters
}  // namespace quiver
