// The coarse quantiser of the partitioned quantised index on its own: its centroid scores are
// plain float sums over the dimension in ascending order (what makes the probe order the same
// bits on every target), whatever the tiling of its storage, at list counts that fill no tile,
// one tile exactly, and tiles plus a remainder (the inner-product order with and without
// spreads, and one centroid's l2 score alone); and centroids() gives back what it was built
// from.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/rng.hpp"
#include "index/quantized/partition/quantized_coarse.hpp"

namespace quiver::quantized {
namespace {

std::vector<float> random_floats(size_t n, uint64_t seed) {
  core::Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = float(rng.normal());
  return v;
}

TEST(CoarseQuantizer, ScoresAreFixedOrderSumsAtEveryListCount) {
  for (size_t dim : {1, 5, 48, 385}) {
    for (size_t lists : {1, 7, 31, 32, 33, 64, 100, 257}) {
      const std::vector<float> cent = random_floats(lists * dim, 100 + lists);
      const std::vector<float> x_storage = random_floats(dim + 1, 7);
      const float* x = x_storage.data() + 1;  // not 16-byte aligned
      std::vector<float> spreads = random_floats(lists, 9 + lists);
      for (float& v : spreads) v = v * v;
      const CoarseQuantizer q(lists, dim, cent), with_spreads(lists, dim, cent, spreads);
      ASSERT_EQ(q.centroids(), cent) << "dim " << dim << " lists " << lists;
      std::vector<float> l2(lists), ip(lists), ip_spread(lists);
      q.l2_scores(x, l2.data());
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
        const float want_spread = -dot * inv - spreads[c], one = q.l2_score(x, c);
        ASSERT_EQ(std::memcmp(&l2[c], &want_l2, sizeof want_l2), 0)
            << "dim " << dim << " lists " << lists << " c " << c;
        ASSERT_EQ(std::memcmp(&one, &want_l2, sizeof want_l2), 0) << "dim " << dim << " lists " << lists << " c " << c;
        ASSERT_EQ(std::memcmp(&ip[c], &want_ip, sizeof want_ip), 0)
            << "dim " << dim << " lists " << lists << " c " << c;
        ASSERT_EQ(std::memcmp(&ip_spread[c], &want_spread, sizeof want_spread), 0)
            << "dim " << dim << " lists " << lists << " c " << c;
      }
    }
  }
}

}  // namespace
}  // namespace quiver::quantized
