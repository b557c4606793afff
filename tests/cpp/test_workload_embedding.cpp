// The embedding-like workload (quiver/workload.hpp): same bits on every target, and the shape
// it promises — unit rows, random pairs at cosine ~0.1, Zipf topic sizes, a mean direction that
// no axis carries, queries noisier than the base whose neighbours are not just "the points
// nearest the topic centre".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "base/rng.hpp"
#include "quiver/error.hpp"
#include "quiver/flat_index.hpp"
#include "tools/workload.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_workload_embedding {

constexpr size_t kDim = 384;
constexpr size_t kTopics = 1000;  // the project's shape

double dot(const float* a, const float* b, size_t dim) {
  double s = 0;
  for (size_t i = 0; i < dim; ++i) s += double(a[i]) * b[i];
  return s;
}

std::vector<uint64_t> iota_ids(size_t n) {
  std::vector<uint64_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

// Generated once per process and shared by the tests below: building a mixture (its random
// rotation) and rotating every row dominate the cost, which matters under qemu and sanitizers.
// The project's shape: 1,000 topics, mixture seed 42, base seed 43, query seed 13.
struct ProjectSample {
  std::vector<float> base = embedding_like_vectors(600, kDim, kTopics, 42, 43, EmbeddingRole::base);
  std::vector<float> queries = embedding_like_vectors(20, kDim, kTopics, 42, 13, EmbeddingRole::query);
};
const ProjectSample& project() {
  static const ProjectSample s;
  return s;
}

// Fewer topics, so that each has enough rows for neighbourhoods: 2,400 indexed base rows,
// `kHeldOut` more base rows kept out of the index, 60 queries, and the topic of every row.
constexpr size_t kFewTopics = 50, kIndexed = 2400, kHeldOut = 60, kQueries = 60;
struct TopicalSample {
  std::vector<uint32_t> base_topic, query_topic;
  std::vector<float> base =
      embedding_like_vectors(kIndexed + kHeldOut, kDim, kFewTopics, 42, 43, EmbeddingRole::base, &base_topic);
  std::vector<float> queries =
      embedding_like_vectors(kQueries, kDim, kFewTopics, 42, 13, EmbeddingRole::query, &query_topic);
  std::vector<float> centres = embedding_like_centres(kDim, kFewTopics, 42);
  FlatIndex index{{kDim, Metric::l2}};
  TopicalSample() { index.add(iota_ids(kIndexed).data(), base.data(), kIndexed); }
};
const TopicalSample& topical() {
  static const TopicalSample s;
  return s;
}

// Checked natively at every ISA level and in every wasm variant: the generator uses exact IEEE
// operations only, so these must never move. (The first 100 rows of a sample are the 100-row
// sample, see below.)
TEST(EmbeddingWorkload, BitsAreFixed) {
  const auto& p = project();
  EXPECT_EQ(test::fnv1a(p.base.data(), 100 * kDim * sizeof(float)), 0xf469b0136aa12673ULL);
  EXPECT_EQ(test::fnv1a(p.queries.data(), p.queries.size() * sizeof(float)), 0xb7577e00da501f45ULL);
}

TEST(EmbeddingWorkload, SameSeedsSameRowsAndPrefixesAgree) {
  std::vector<uint32_t> t1, t2;
  const auto a = embedding_like_vectors(300, 48, 20, 7, 8, EmbeddingRole::base, &t1);
  const auto b = embedding_like_vectors(120, 48, 20, 7, 8, EmbeddingRole::base, &t2);
  ASSERT_EQ(t1.size(), 300u);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin()));  // the first n rows of a larger sample
  EXPECT_TRUE(std::equal(t2.begin(), t2.end(), t1.begin()));
  EXPECT_NE(embedding_like_vectors(10, 48, 20, 7, 9), embedding_like_vectors(10, 48, 20, 7, 8));
  EXPECT_NE(embedding_like_vectors(10, 48, 20, 6, 8), embedding_like_vectors(10, 48, 20, 7, 8));
}

TEST(EmbeddingWorkload, RowsAndCentresAreUnitLength) {
  for (const auto* v : {&project().base, &project().queries, &topical().queries, &topical().centres}) {
    for (size_t r = 0; r < v->size() / kDim; ++r) {
      EXPECT_NEAR(dot(&(*v)[r * kDim], &(*v)[r * kDim], kDim), 1.0, 1e-5) << r;
    }
  }
}

TEST(EmbeddingWorkload, RandomPairsHaveCosineAboutOneTenth) {
  const auto& v = project().base;
  const size_t n = v.size() / kDim;
  core::Rng rng(5);
  double sum = 0;
  const int pairs = 4000;
  for (int p = 0; p < pairs; ++p) {
    const size_t a = rng.next() % n, b = (a + 1 + rng.next() % (n - 1)) % n;
    sum += dot(&v[a * kDim], &v[b * kDim], kDim);
  }
  EXPECT_GT(sum / pairs, 0.07);
  EXPECT_LT(sum / pairs, 0.13);
}

// Without the rotation the mean direction would be one coordinate axis.
TEST(EmbeddingWorkload, MeanDirectionIsNotAnAxis) {
  const auto& v = project().base;
  const size_t n = v.size() / kDim;
  std::vector<double> mean(kDim, 0.0);
  for (size_t r = 0; r < n; ++r) {
    for (size_t j = 0; j < kDim; ++j) mean[j] += v[r * kDim + j];
  }
  double n2 = 0, biggest = 0;
  for (double m : mean) {
    n2 += m * m;
    biggest = std::max(biggest, std::fabs(m));
  }
  // A random unit vector in 384 dimensions has its largest coordinate near 0.15.
  EXPECT_LT(biggest / std::sqrt(n2), 0.3);
}

// Topic t is drawn with probability proportional to 1 / (t + 1).
TEST(EmbeddingWorkload, TopicSizesAreZipf) {
  const size_t topics = 40, n = 40000;
  std::vector<uint32_t> topic;
  embedding_like_vectors(n, 8, topics, 42, 43, EmbeddingRole::base, &topic);
  std::vector<double> count(topics, 0);
  for (uint32_t t : topic) {
    ASSERT_LT(t, topics);
    count[t] += 1;
  }
  double harmonic = 0;
  for (size_t t = 0; t < topics; ++t) harmonic += 1.0 / double(t + 1);
  for (size_t t : {0, 1, 3, 9}) {
    const double expected = double(n) / harmonic / double(t + 1);
    EXPECT_NEAR(count[t], expected, 5 * std::sqrt(expected)) << "topic " << t;
  }
  // Least-squares slope of log(count) against log(rank) over the 20 biggest topics.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const int m = 20;
  for (int t = 0; t < m; ++t) {
    const double x = std::log(double(t + 1)), y = std::log(count[t]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  EXPECT_NEAR(slope, -1.0, 0.15);
}

// Exact neighbours of a query are mostly from its topic (there is structure) but are not the
// points nearest the topic centre (queries sit between points), and no few points are everyone's
// neighbours (no hubs).
TEST(EmbeddingWorkload, QueryNeighboursAreNotTheTopicCentre) {
  const auto& d = topical();
  const size_t k = 10;
  std::vector<Neighbor> hits(k), centre_hits(k);
  double same_topic = 0, centre_overlap = 0;
  std::set<uint64_t> distinct;
  for (size_t q = 0; q < kQueries; ++q) {
    d.index.search(&d.queries[q * kDim], k, hits.data());
    d.index.search(&d.centres[d.query_topic[q] * kDim], k, centre_hits.data());
    std::set<uint64_t> near_centre;
    for (const auto& h : centre_hits) near_centre.insert(h.id);
    for (const auto& h : hits) {
      same_topic += d.base_topic[h.id] == d.query_topic[q];
      centre_overlap += near_centre.count(h.id);
      distinct.insert(h.id);
    }
  }
  const double total = double(kQueries * k);
  EXPECT_GT(same_topic / total, 0.5);
  EXPECT_LT(centre_overlap / total, 0.3);
  EXPECT_GT(double(distinct.size()) / total, 0.6);
}

// Queries are noisier than the base: a query's nearest base row is farther away than a
// held-out base row's nearest base row.
TEST(EmbeddingWorkload, QueriesAreNoisierThanTheBase) {
  const auto& d = topical();
  Neighbor nn;
  double base_nn = 0, query_nn = 0;
  for (size_t i = 0; i < kHeldOut; ++i) {
    d.index.search(&d.base[(kIndexed + i) * kDim], 1, &nn);
    base_nn += nn.distance;
    d.index.search(&d.queries[i * kDim], 1, &nn);
    query_nn += nn.distance;
  }
  EXPECT_GT(query_nn, 1.1 * base_nn);
}

TEST(EmbeddingWorkload, BadShapesAreRejected) {
  for (auto call : {+[] { embedding_like_vectors(10, 0, 5, 1, 2); }, +[] { embedding_like_vectors(10, 8, 0, 1, 2); },
                    +[] { embedding_like_centres(8, 0, 1); }}) {
    try {
      call();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    }
  }
}

}  // namespace test_workload_embedding
}  // namespace quiver
