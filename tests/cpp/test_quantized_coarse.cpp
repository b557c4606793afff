// The coarse quantiser of the partitioned quantised index on its own: its centroid scores are
// plain float sums over the dimension in ascending order (what makes the probe order the same
// bits on every target), whatever the tiling of its storage, at list counts that fill no tile,
// one tile exactly, and tiles plus a remainder (the inner-product order with and without
// spreads, and one centroid's l2 score alone); and centroids() gives back what it was built
// from. Balancing (balance_clusters) evens out the clusters of skewed data without changing the
// list count, deterministically, and leaves balanced clusters alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/rng.hpp"
#include "index/quantized/partition/quantized_coarse.hpp"
#include "quiver/isa.hpp"
#include "simd/kernels.hpp"

namespace quiver::quantized {
namespace test_quantized_coarse {

std::vector<float> random_floats(size_t n, uint64_t seed) {
  core::Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = float(rng.normal());
  return v;
}

// At every ISA level this machine has: the column kernel is dispatched, its sums must not be.
TEST(CoarseQuantizer, ScoresAreFixedOrderSumsAtEveryListCount) {
  for (const Isa isa : available_isas()) {
    const simd::KernelTable table = simd::kernel_table(isa), *dots = &table;
    for (size_t dim : {1, 5, 48, 385}) {
      for (size_t lists : {1, 7, 31, 32, 33, 64, 100, 257}) {
        const std::vector<float> cent = random_floats(lists * dim, 100 + lists);
        const std::vector<float> x_storage = random_floats(dim + 1, 7);
        const float* x = x_storage.data() + 1;  // not 16-byte aligned
        std::vector<float> spreads = random_floats(lists, 9 + lists);
        for (float& v : spreads) v = v * v;
        const CoarseQuantizer q(lists, dim, cent, {}, dots), with_spreads(lists, dim, cent, spreads, dots);
        ASSERT_EQ(q.centroids(), cent) << "dim " << dim << " lists " << lists;
        std::vector<float> l2(lists), ip(lists), ip_spread(lists), cosine(lists);
        q.l2_scores(x, l2.data());
        q.cosine_scores(x, cosine.data());
        q.ip_scores(x, ip.data());
        with_spreads.ip_scores(x, ip_spread.data());
        double x2 = 0.0;
        for (size_t d = 0; d < dim; ++d) x2 += double(x[d]) * x[d];
        const float inv = static_cast<float>(1.0 / std::sqrt(x2));
        for (size_t c = 0; c < lists; ++c) {
          float dot = 0.0f;
          double n2 = 0.0;
          for (size_t d = 0; d < dim; ++d) {
            dot += x[d] * cent[c * dim + d];
            n2 += double(cent[c * dim + d]) * cent[c * dim + d];
          }
          const float want_l2 = static_cast<float>(n2) - 2.0f * dot, want_ip = -dot * inv;
          const float want_spread = -dot * inv - 0.5f * spreads[c], one = q.l2_score(x, c);
          // d^2 + r^2 / 2 - |x|^2 with r^2 = 1 - |c|^2 (CoarseQuantizer::kSpreadCharge)
          const float want_cosine = (0.5f * static_cast<float>(n2) - 2.0f * dot) + 0.5f;
          ASSERT_EQ(std::memcmp(&l2[c], &want_l2, sizeof want_l2), 0)
              << "dim " << dim << " lists " << lists << " c " << c;
          ASSERT_EQ(std::memcmp(&one, &want_l2, sizeof want_l2), 0)
              << "dim " << dim << " lists " << lists << " c " << c;
          ASSERT_EQ(std::memcmp(&cosine[c], &want_cosine, sizeof want_cosine), 0)
              << "dim " << dim << " lists " << lists << " c " << c;
          ASSERT_EQ(std::memcmp(&ip[c], &want_ip, sizeof want_ip), 0)
              << "dim " << dim << " lists " << lists << " c " << c;
          ASSERT_EQ(std::memcmp(&ip_spread[c], &want_spread, sizeof want_spread), 0)
              << "dim " << dim << " lists " << lists << " c " << c;
        }
      }
    }
  }
}

// nearest_many (tile by tile over up to kNearestRows rows) gives what nearest gives row by row,
// at every ISA level, for every row count 1..16, list counts inside one tile, at a tile edge and
// past it, and ties: duplicated centroids go to the lower list.
TEST(CoarseQuantizer, NearestManyIsNearestRowByRowWithTiesToTheLowerList) {
  for (const Isa isa : available_isas()) {
    const simd::KernelTable table = simd::kernel_table(isa), *dots = &table;
    for (size_t dim : {3, 48, 385}) {
      for (size_t lists : {1, 2, 31, 32, 33, 100, 515}) {
        std::vector<float> cent = random_floats(lists * dim, 300 + lists);
        // Every fifth centroid repeats the one before it: a row nearest to it ties.
        for (size_t c = 5; c < lists; c += 5) std::copy_n(cent.data() + (c - 1) * dim, dim, cent.data() + c * dim);
        const CoarseQuantizer q(lists, dim, cent, {}, dots), scalar(lists, dim, cent);
        const size_t n = CoarseQuantizer::kNearestRows;
        std::vector<float> rows = random_floats(n * dim, 400 + dim);
        // Some rows sit on a centroid (a repeated one where there is one).
        for (size_t r = 0; r < n; r += 3) std::copy_n(cent.data() + (r * 7 % lists) * dim, dim, rows.data() + r * dim);
        std::vector<float> scores(lists);
        size_t ties = 0;  // rows whose nearest centroid has a duplicate above it
        for (size_t count = 1; count <= n; ++count) {
          std::vector<uint32_t> got(count + 1, 99999);
          q.nearest_many(rows.data(), count, got.data());
          for (size_t r = 0; r < count; ++r) {
            const uint32_t want = scalar.nearest(rows.data() + r * dim, scores.data());
            ASSERT_EQ(got[r], want) << isa_name(isa) << " dim " << dim << " lists " << lists << " row " << r;
            ties += want % 5 == 4 && want + 1 < lists;
          }
          EXPECT_EQ(got[count], 99999u) << "wrote past n";
        }
        if (lists > 5) EXPECT_GT(ties, 0u) << "dim " << dim << " lists " << lists << ": no tie was tested";
      }
    }
  }
}

// The filtered assignment (8-bit scores less a proven bound, then exact scores for the
// centroids that could still win) gives exactly the full scan's answer, at every ISA level, from
// kApproxFrom lists on: random rows, rows on a centroid, rows halfway between two centroids,
// tight clusters whose centroids are near ties, duplicated centroids (ties to the lower list),
// and a row of one repeated value (an 8-bit step of 0).
TEST(CoarseQuantizer, FilteredNearestIsTheFullScanAtEveryIsaLevel) {
  for (const Isa isa : available_isas()) {
    const simd::KernelTable table = simd::kernel_table(isa);
    for (size_t dim : {5, 64, 385}) {
      for (size_t lists : {CoarseQuantizer::kApproxFrom, size_t(700)}) {
        std::vector<float> cent = random_floats(lists * dim, 500 + lists + dim);
        // Half the centroids in tight groups of 4 around a few points: near ties everywhere.
        const std::vector<float> jitter = random_floats(lists * dim, 9);
        for (size_t c = 0; c < lists / 2; ++c)
          for (size_t d = 0; d < dim; ++d) cent[c * dim + d] = cent[(c / 4) * dim + d] + 1e-3f * jitter[c * dim + d];
        for (size_t c = lists / 2 + 5; c < lists; c += 5)
          std::copy_n(cent.data() + (c - 1) * dim, dim, cent.data() + c * dim);
        const CoarseQuantizer q(lists, dim, cent, {}, &table);
        ASSERT_TRUE(q.approximate());
        CoarseQuantizer::NearestScratch scratch;
        q.reserve(scratch);
        const size_t n = CoarseQuantizer::kNearestRows;
        for (size_t round = 0; round < 8; ++round) {
          std::vector<float> rows = random_floats(n * dim, 600 + round);
          for (size_t r = 0; r < n; ++r) {
            const size_t a = (r * 37 + round * 11) % lists, b = (a + 1) % lists;
            float* x = rows.data() + r * dim;
            if (r % 4 == 1) std::copy_n(cent.data() + a * dim, dim, x);  // on a centroid
            if (r % 4 == 2)
              for (size_t d = 0; d < dim; ++d) x[d] = 0.5f * (cent[a * dim + d] + cent[b * dim + d]);
            if (r % 4 == 3)
              for (size_t d = 0; d < dim; ++d) x[d] = cent[(r % 8) * dim + d] + 1e-3f * x[d];  // in a tight group
          }
          std::fill_n(rows.data(), dim, 0.25f);  // every coordinate the same: step 0
          std::vector<uint32_t> full(n), filtered(n);
          q.nearest_many(rows.data(), n, full.data());
          q.nearest_many(rows.data(), n, filtered.data(), &scratch);
          for (size_t r = 0; r < n; ++r)
            ASSERT_EQ(filtered[r], full[r]) << isa_name(isa) << " dim " << dim << " lists " << lists << " row " << r;
        }
      }
    }
  }
}

// k-means and balancing give the same centroids, bit for bit, with every level's column kernel.
TEST(CoarseQuantizer, TrainingGivesTheSameCentroidsAtEveryIsaLevel) {
  const size_t dim = 37, n = 3000, lists = 45;
  const std::vector<float> rows = random_floats(n * dim, 77);
  const auto get = [&](size_t i, float* out) { std::copy_n(rows.data() + i * dim, dim, out); };
  std::vector<float> want = train_kmeans(dim, lists, n, get, 5, 4);
  balance_clusters(dim, lists, n, get, want, 1.5);
  for (const Isa isa : available_isas()) {
    const simd::KernelTable table = simd::kernel_table(isa), *dots = &table;
    std::vector<float> got = train_kmeans(dim, lists, n, get, 5, 4, dots);
    balance_clusters(dim, lists, n, get, got, 1.5, dots);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0) << isa_name(isa);
  }
}

// The 8-bit order of an index of kApproxFrom lists or more: the same bits at the active ISA
// level as at the scalar one (ctest runs this suite under each), close to the float scores, and
// present only from kApproxFrom lists on.
TEST(CoarseQuantizer, ApproximateScoresAreTheSameBitsAtEveryIsaAndCloseToTheFloatOnes) {
  const simd::KernelTable scalar = simd::kernel_table(Isa::scalar), active = simd::kernel_table(active_isa());
  EXPECT_FALSE(
      CoarseQuantizer(CoarseQuantizer::kApproxFrom - 1, 4, random_floats((CoarseQuantizer::kApproxFrom - 1) * 4, 1))
          .approximate());
  for (size_t dim : {3, 48, 385}) {
    const size_t lists = CoarseQuantizer::kApproxFrom + 37;
    std::vector<float> cent = random_floats(lists * dim, 200 + dim);
    for (float& v : cent) v *= 0.05f;  // the scale of centroids of rotated unit vectors
    std::vector<float> spreads = random_floats(lists, 3);
    for (float& v : spreads) v = 0.01f * v * v;
    const CoarseQuantizer q(lists, dim, cent, spreads);
    ASSERT_TRUE(q.approximate());
    const std::vector<float> x_storage = random_floats(dim + 1, 11);
    std::vector<float> xs(x_storage.begin() + 1, x_storage.end());
    for (float& v : xs) v *= 0.05f;
    std::vector<uint8_t> codes_storage(dim + 1);
    uint8_t* codes = codes_storage.data() + 1;  // unaligned
    for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
      const char* name = metric_name(metric);
      std::vector<float> exact(lists), a(lists), b(lists);
      if (metric == Metric::ip)
        q.ip_scores(xs.data(), exact.data());
      else if (metric == Metric::cosine)
        q.cosine_scores(xs.data(), exact.data());
      else
        q.l2_scores(xs.data(), exact.data());
      q.approx_scores(xs.data(), metric, scalar.dot_u8_gather, codes, a.data());
      q.approx_scores(xs.data(), metric, active.dot_u8_gather, codes, b.data());
      ASSERT_EQ(std::memcmp(a.data(), b.data(), lists * sizeof(float)), 0) << "dim " << dim << " metric " << name;
      double worst = 0.0, spread_of_scores = 0.0;
      const auto [mn, mx] = std::minmax_element(exact.begin(), exact.end());
      spread_of_scores = double(*mx) - double(*mn);
      for (size_t c = 0; c < lists; ++c) worst = std::max(worst, std::fabs(double(a[c]) - double(exact[c])));
      // Within 2 % of the range of the scores (8 bits per coordinate on both sides).
      EXPECT_LE(worst, 0.02 * spread_of_scores) << "dim " << dim << " metric " << name;
    }
  }
}

// Topics of Zipf sizes (topic t holds ~ 1 / (t + 1) of the rows), each a Gaussian blob around
// its own centre: the kind of collection whose k-means lists come out uneven.
struct Skewed {
  size_t n = 0, dim = 0;
  std::vector<float> rows;
};

Skewed zipf_topics(size_t n, size_t dim, size_t topics, uint64_t seed) {
  core::Rng rng(seed);
  Skewed s;
  s.n = n;
  s.dim = dim;
  const std::vector<float> centres = random_floats(topics * dim, seed + 1);
  std::vector<double> cdf(topics);
  double total = 0.0;
  for (size_t t = 0; t < topics; ++t) cdf[t] = total += 1.0 / double(t + 1);
  s.rows.resize(n * dim);
  for (size_t i = 0; i < n; ++i) {
    const double u = rng.uniform() * total;
    const size_t t = size_t(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    for (size_t d = 0; d < dim; ++d)
      s.rows[i * dim + d] = centres[std::min(t, topics - 1) * dim + d] + 0.3f * float(rng.normal());
  }
  return s;
}

// Rows per cluster, by nearest centroid (what the index's lists are).
std::vector<size_t> cluster_sizes(const Skewed& s, size_t lists, const std::vector<float>& centroids) {
  const CoarseQuantizer q(lists, s.dim, centroids);
  std::vector<size_t> sizes(lists, 0);
  std::vector<float> scores(lists);
  for (size_t i = 0; i < s.n; ++i) ++sizes[q.nearest(s.rows.data() + i * s.dim, scores.data())];
  return sizes;
}

TEST(BalanceClusters, SplitsTheLargestListsOfSkewedDataAndKeepsTheListCount) {
  const Skewed s = zipf_topics(12000, 24, 400, 5);
  const size_t lists = 96;
  const auto get = [&](size_t i, float* out) { std::copy_n(s.rows.data() + i * s.dim, s.dim, out); };
  std::vector<float> cent = train_kmeans(s.dim, lists, s.n, get, 17, 8);
  const std::vector<size_t> before = cluster_sizes(s, lists, cent);
  const double mean = double(s.n) / double(lists);
  const size_t max_before = *std::max_element(before.begin(), before.end());
  ASSERT_GT(double(max_before), 3.0 * mean) << "the data is not skewed enough to test balancing";

  std::vector<float> again = cent;
  const size_t moves = balance_clusters(s.dim, lists, s.n, get, cent, 2.0);
  EXPECT_GT(moves, 0u);
  EXPECT_LE(moves, lists / 4);
  ASSERT_EQ(cent.size(), lists * s.dim);
  const std::vector<size_t> after = cluster_sizes(s, lists, cent);
  const size_t max_after = *std::max_element(after.begin(), after.end());
  EXPECT_LE(double(max_after), 2.5 * mean) << "largest list " << max_after << " (was " << max_before << ")";
  // The same input gives the same centroids, bit for bit.
  EXPECT_EQ(balance_clusters(s.dim, lists, s.n, get, again, 2.0), moves);
  EXPECT_EQ(std::memcmp(again.data(), cent.data(), cent.size() * sizeof(float)), 0);
}

TEST(BalanceClusters, LeavesEvenClustersAlone) {
  // Equal topics, one centroid on each: nothing is more than twice the mean.
  const size_t topics = 32, dim = 8, per = 50;
  const std::vector<float> centres = random_floats(topics * dim, 3);
  std::vector<float> rows(topics * per * dim);
  core::Rng rng(4);
  for (size_t i = 0; i < topics * per; ++i) {
    for (size_t d = 0; d < dim; ++d) rows[i * dim + d] = 10.0f * centres[(i % topics) * dim + d] + float(rng.normal());
  }
  std::vector<float> cent(topics * dim);
  for (size_t c = 0; c < topics * dim; ++c) cent[c] = 10.0f * centres[c];
  const std::vector<float> given = cent;
  const auto get = [&](size_t i, float* out) { std::copy_n(rows.data() + i * dim, dim, out); };
  EXPECT_EQ(balance_clusters(dim, topics, topics * per, get, cent, 2.0), 0u);
  EXPECT_EQ(cent, given);
  // One list, or fewer rows than lists: nothing to balance.
  EXPECT_EQ(balance_clusters(dim, 1, topics * per, get, cent, 2.0), 0u);
  EXPECT_EQ(balance_clusters(dim, topics, topics - 1, get, cent, 2.0), 0u);
  EXPECT_EQ(cent, given);
}

}  // namespace test_quantized_coarse
}  // namespace quiver::quantized
