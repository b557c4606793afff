// Recall under allow-lists, for every approximate kind at its default search settings: the
// truth is the flat index's answer under the same allow-list, and recall@10 must reach 0.95 at
// 1 %, 10 % and 50 % of the ids allowed, both when the allowed ids are a random sample and
// when they are a region (the share of the rows nearest one random direction, so a query's own
// neighbourhood may hold none of them). Issue 23: the partitioned index stopped as soon as its
// candidate heap was full and fell to recall 0.63-0.87 under 1 % and 10 % filters.
// Every search must also return min(k, allowed) results.
//
// The workload is embedding-like (Zipf topics, anisotropic, unit rows), small enough for every
// target and sanitizer; the partitioned index has 64 lists (auto, at 20,000 rows) and its
// default search scans 12 of them, at least 8,192 codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "base/rng.hpp"
#include "quiver/quiver.hpp"
#include "workload_test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_filtered_recall {

// Fewer queries where tests run slowly (recall is then measured over 240 results a filter).
constexpr size_t kQueries = test::kSlowTarget ? 24 : 60, kK = 10, kTopics = 200;
// The partitioned index at 384 dimensions, where its default probes reach recall 0.99 without
// a filter; at 48 dimensions the graph and the full scan (the default probes of this data at
// 48 dimensions are far from 0.95 even unfiltered: issue 28).
constexpr size_t kPartitionedRows = 20000, kPartitionedDim = 384, kRows = 10000, kDim = 48;
constexpr double kFloor = 0.95;

const test::Workload& workload(size_t n, size_t dim) {
  static std::vector<std::pair<size_t, test::Workload>> cache;
  for (const auto& [size, w] : cache) {
    if (size == n && w.dim == dim) return w;
  }
  cache.emplace_back(
      n, test::with_ids(n, dim, embedding_like_vectors(n, dim, kTopics, 42, 43),
                        embedding_like_vectors(kQueries, dim, kTopics, 42, 13, EmbeddingRole::query), 3, 7));
  return cache.back().second;
}

enum class Shape { random, region };

// The allowed ids: `share` of the rows, a seeded random sample or the rows nearest a random
// unit direction.
std::vector<uint64_t> allow_list(const test::Workload& w, double share, Shape shape, uint64_t seed) {
  const size_t want = std::max<size_t>(1, size_t(double(w.n) * share));
  std::vector<uint32_t> order(w.n);
  std::iota(order.begin(), order.end(), 0u);
  core::Rng rng(seed);
  if (shape == Shape::random) {
    for (size_t i = 0; i < want; ++i) std::swap(order[i], order[i + size_t(rng.next() % uint64_t(w.n - i))]);
  } else {
    std::vector<float> dir(w.dim);
    for (float& v : dir) v = float(rng.normal());
    std::vector<float> score(w.n);
    for (size_t i = 0; i < w.n; ++i) {
      float dot = 0.0f;
      for (size_t d = 0; d < w.dim; ++d) dot += dir[d] * w.base[i * w.dim + d];
      score[i] = -dot;
    }
    std::partial_sort(order.begin(), order.begin() + ptrdiff_t(want), order.end(),
                      [&](uint32_t a, uint32_t b) { return score[a] < score[b] || (score[a] == score[b] && a < b); });
  }
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < want; ++i) ids.push_back(w.ids[order[i]]);
  return ids;
}

std::vector<Neighbor> flat_truth(const test::Workload& w, const std::vector<uint64_t>& allow) {
  static FlatIndex* flat = nullptr;
  static const test::Workload* flat_of = nullptr;
  if (flat_of != &w) {
    delete flat;
    flat = new FlatIndex({w.dim, Metric::cosine});
    flat->add(w.ids, w.base);
    flat_of = &w;
  }
  SearchParams p;
  p.allow = allow.data();
  p.allow_count = allow.size();
  std::vector<Neighbor> out(w.nq() * kK);
  flat->search_batch(w.queries.data(), w.nq(), kK, out.data(), FlatSearchParams{p});
  return out;
}

// Runs `search(query, allow, out)` (one query, returns the count) for every query, selectivity
// and shape; checks recall and the count of results.
template <class Search>
void expect_filtered_recall(const test::Workload& w, const std::string& kind, Search search) {
  for (Shape shape : {Shape::random, Shape::region}) {
    for (double share : {0.01, 0.10, 0.50}) {
      const std::vector<uint64_t> allow = allow_list(w, share, shape, 1000 + uint64_t(share * 1000));
      const std::vector<Neighbor> truth = flat_truth(w, allow);
      std::vector<Neighbor> got(w.nq() * kK, Neighbor{kNoId, 0.0f});
      const std::string what = kind + ", " + (shape == Shape::random ? "random " : "region ") +
                               std::to_string(int(share * 100)) + " % allowed";
      for (size_t q = 0; q < w.nq(); ++q) {
        const size_t n = search(w.queries.data() + q * w.dim, allow, got.data() + q * kK);
        ASSERT_EQ(n, std::min(kK, allow.size())) << what << ", query " << q;
      }
      const double recall = test::recall_at_k(got, truth, kK);
      EXPECT_GE(recall, kFloor) << what;
      std::printf("[ recall   ] %-60s %.3f\n", what.c_str(), recall);
    }
  }
}

// One index for both partitioned tests (built once: the largest build of the suite).
const QuantizedIndex& partitioned(const test::Workload& w) {
  static const QuantizedIndex* built = nullptr;
  if (built != nullptr) return *built;
  QuantizedIndexOptions o;
  o.dim = w.dim;
  o.metric = Metric::cosine;
  o.keep_vectors = false;
  o.refine_bits = 3;
  o.lists = QuantizedIndexOptions::kAutoLists;
  auto* index = new QuantizedIndex(o);
  index->add(w.ids, w.base);
  built = index;
  return *built;
}

TEST(FilteredRecall, PartitionedCodesOnlyAtDefaults) {
  const test::Workload& w = workload(kPartitionedRows, kPartitionedDim);
  const QuantizedIndex& index = partitioned(w);
  ASSERT_EQ(index.lists(), 64u);
  expect_filtered_recall(w, "partitioned 4+3 bits, codes only",
                         [&](const float* q, const std::vector<uint64_t>& allow, Neighbor* out) {
                           QuantizedSearchParams p;
                           p.allow = allow.data();
                           p.allow_count = allow.size();
                           return index.search(q, kK, out, p);
                         });
}

TEST(FilteredRecall, PartitionedBatchRowsAtDefaults) {
  const test::Workload& w = workload(kPartitionedRows, kPartitionedDim);
  const QuantizedIndex& index = partitioned(w);
  // search_batch, one row at a time here: the batch path's rows must meet the same floor.
  expect_filtered_recall(w, "partitioned batch",
                         [&](const float* q, const std::vector<uint64_t>& allow, Neighbor* out) {
                           QuantizedSearchParams p;
                           p.allow = allow.data();
                           p.allow_count = allow.size();
                           std::vector<Neighbor> rows(2 * kK);
                           std::vector<float> two(q, q + w.dim);
                           two.insert(two.end(), q, q + w.dim);
                           index.search_batch(two.data(), 2, kK, rows.data(), p);
                           size_t n = 0;
                           while (n < kK && rows[n].id != kNoId) ++n;
                           std::copy(rows.begin(), rows.begin() + ptrdiff_t(n), out);
                           return n;
                         });
}

TEST(FilteredRecall, QuantizedFullScanAtDefaults) {
  const test::Workload& w = workload(kRows, kDim);
  QuantizedIndexOptions o;
  o.dim = kDim;
  o.metric = Metric::cosine;
  o.keep_vectors = false;
  o.refine_bits = 3;
  QuantizedIndex index(o);
  index.add(w.ids, w.base);
  expect_filtered_recall(w, "quantised 4+3 bits, codes only",
                         [&](const float* q, const std::vector<uint64_t>& allow, Neighbor* out) {
                           QuantizedSearchParams p;
                           p.allow = allow.data();
                           p.allow_count = allow.size();
                           return index.search(q, kK, out, p);
                         });
}

void hnsw_case(HnswStorage storage, bool keep, const std::string& kind) {
  const test::Workload& w = workload(kRows, kDim);
  HnswIndexOptions o;
  o.dim = kDim;
  o.metric = Metric::cosine;
  o.storage = storage;
  o.keep_vectors = keep;
  HnswIndex index(o);
  index.add(w.ids, w.base);
  expect_filtered_recall(w, kind, [&](const float* q, const std::vector<uint64_t>& allow, Neighbor* out) {
    HnswSearchParams p;
    p.allow = allow.data();
    p.allow_count = allow.size();
    return index.search(q, kK, out, p);
  });
}

TEST(FilteredRecall, HnswAtDefaults) { hnsw_case(HnswStorage::f32, true, "HNSW f32"); }

// The allow bitmap (SearchParams::allow_bits) gives the allow list's answers — ids and
// distances — in every kind, at every share: below 1/32 of the vectors the partitioned index
// sets its mask up front from the bitmap, above it tests each reached block's ids; HNSW scores
// a few exactly and walks for many. Bits of ids the index does not hold change no answer's
// correctness (only the allowed count the stop rules read).
std::vector<uint64_t> to_bits(const std::vector<uint64_t>& ids, size_t size) {
  std::vector<uint64_t> bits((size + 63) / 64, 0);
  for (uint64_t id : ids) bits[id / 64] |= uint64_t(1) << (id % 64);
  return bits;
}

template <class Params, class Index>
void expect_bits_answer_as_the_list(const test::Workload& w, const Index& index, const std::string& kind) {
  const uint64_t size = *std::max_element(w.ids.begin(), w.ids.end()) + 1;
  for (Shape shape : {Shape::random, Shape::region}) {
    for (double share : {0.002, 0.01, 0.10, 0.50}) {
      const std::vector<uint64_t> allow = allow_list(w, share, shape, 2000 + uint64_t(share * 1000));
      const std::vector<uint64_t> bits = to_bits(allow, size);
      const std::string what = kind + (shape == Shape::random ? ", random " : ", region ") + std::to_string(share);
      for (size_t q = 0; q < std::min<size_t>(w.nq(), 12); ++q) {
        const float* query = w.queries.data() + q * w.dim;
        Params listed, bitmap;
        listed.allow = allow.data();
        listed.allow_count = allow.size();
        bitmap.allow_bits = bits.data();
        bitmap.allow_bits_size = size;
        std::vector<Neighbor> a(kK), b(kK);
        a.resize(index.search(query, kK, a.data(), listed));
        b.resize(index.search(query, kK, b.data(), bitmap));
        ASSERT_EQ(a.size(), b.size()) << what << ", query " << q;
        for (size_t i = 0; i < a.size(); ++i) {
          EXPECT_EQ(a[i].id, b[i].id) << what << ", query " << q << ", rank " << i;
          EXPECT_EQ(a[i].distance, b[i].distance) << what << ", query " << q << ", rank " << i;
        }
      }
    }
  }
}

// An index of `w` under cosine, built from a kind's default options.
template <class Index, class Options>
Index cosine_index(const test::Workload& w) {
  Options o;
  o.dim = w.dim;
  o.metric = Metric::cosine;
  Index index(o);
  index.add(w.ids, w.base);
  return index;
}

TEST(FilteredRecall, AllowBitsAnswerAsTheAllowListInEveryKind) {
  const test::Workload& wp = workload(kPartitionedRows, kPartitionedDim);
  expect_bits_answer_as_the_list<QuantizedSearchParams>(wp, partitioned(wp), "partitioned");
  const test::Workload& w = workload(kRows, kDim);
  expect_bits_answer_as_the_list<FlatSearchParams>(w, cosine_index<FlatIndex, FlatIndexOptions>(w), "flat");
  expect_bits_answer_as_the_list<QuantizedSearchParams>(w, cosine_index<QuantizedIndex, QuantizedIndexOptions>(w),
                                                        "quantised full scan");
  expect_bits_answer_as_the_list<HnswSearchParams>(w, cosine_index<HnswIndex, HnswIndexOptions>(w), "HNSW");
}

// A bitmap with bits past the index's ids (ids it does not hold) still returns only admitted
// ids, min(k, admitted ids held) of them.
TEST(FilteredRecall, AllowBitsNamingAbsentIdsReturnOnlyAdmittedIds) {
  const test::Workload& wp = workload(kPartitionedRows, kPartitionedDim);
  const QuantizedIndex& index = partitioned(wp);
  const uint64_t size = *std::max_element(wp.ids.begin(), wp.ids.end()) + 1;
  const std::vector<uint64_t> allow = allow_list(wp, 0.10, Shape::random, 77);
  std::vector<uint64_t> named = allow;
  for (uint64_t id = 0; id < size; ++id)
    if (id % 97 == 0 && !index.contains(id)) named.push_back(id);  // absent ids, admitted
  const std::vector<uint64_t> bits = to_bits(named, size + 64);
  const std::vector<uint64_t> sorted = [&] {
    std::vector<uint64_t> v = allow;
    std::sort(v.begin(), v.end());
    return v;
  }();
  for (size_t q = 0; q < 6; ++q) {
    QuantizedSearchParams p;
    p.allow_bits = bits.data();
    p.allow_bits_size = size + 64;
    std::vector<Neighbor> out(kK);
    ASSERT_EQ(index.search(wp.queries.data() + q * wp.dim, kK, out.data(), p), kK);
    for (const Neighbor& n : out) EXPECT_TRUE(std::binary_search(sorted.begin(), sorted.end(), n.id)) << n.id;
  }
}
TEST(FilteredRecall, HnswSq8CodesOnlyAtDefaults) { hnsw_case(HnswStorage::sq8, false, "HNSW sq8, codes only"); }

}  // namespace test_filtered_recall
}  // namespace quiver
