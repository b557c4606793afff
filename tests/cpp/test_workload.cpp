#include <gtest/gtest.h>

#include <cmath>

#include "base/rng.hpp"
#include "tools/workload.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_workload {

TEST(Workload, RowsAreUnitLength) {
  const auto v = unit_gaussian_vectors(50, 384, 42);
  for (size_t r = 0; r < 50; ++r) {
    double n2 = 0;
    for (size_t i = 0; i < 384; ++i) n2 += double(v[r * 384 + i]) * v[r * 384 + i];
    EXPECT_NEAR(n2, 1.0, 1e-5);
  }
}

TEST(Workload, CoordinatesLookGaussian) {
  core::Rng rng(3);
  double sum = 0, sum2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    sum2 += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum2 / n, 1.0, 0.01);
}

TEST(Workload, PortableLogMatchesLibm) {
  for (double x : {1e-300, 1e-10, 0.001, 0.3, 0.5, 0.7071, 0.99999, 1.0, 2.0, 1e10}) {
    EXPECT_NEAR(core::portable_log(x), std::log(x), 1e-14 * std::fabs(std::log(x)) + 1e-15) << x;
  }
}

// The same seed gives the same bits on every target: this fingerprint is checked in the
// native build at every ISA level and in every wasm variant.
TEST(Workload, SeedWorkloadBitsAreFixed) {
  const auto v = unit_gaussian_vectors(100, 384, 42);
  EXPECT_EQ(test::fnv1a(v.data(), v.size() * sizeof(float)), 0x751cabceb8e796c4ULL);
}

}  // namespace test_workload
}  // namespace quiver
