// The fast-scan kernels of every ISA level against the scalar reference: exact integer sums
// and bit-identical distances, including dimensions that need a 16-bit accumulator flush.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/aligned_buffer.hpp"
#include "base/rng.hpp"
#include "quant/codebook.hpp"
#include "quant/fastscan.hpp"
#include "quant/rotation.hpp"
#include "quiver/isa.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_fastscan {

using namespace quant;

class FastScanTest : public ::testing::TestWithParam<Isa> {};

TEST_P(FastScanTest, MatchesScalarReferenceExactly) {
  const FastScanTable k = fastscan_table(GetParam());
  core::Rng rng(11);
  for (size_t groups : {1, 2, 3, 7, 96, 127, 128, 129, 200, 257}) {
    core::AlignedBuffer<uint8_t> codes, tables;
    codes.reserve(groups * kGroupCodeBytes, 0);
    tables.reserve(groups * kGroupTableBytes, 0);
    for (size_t i = 0; i < groups * kGroupCodeBytes; ++i) codes.data()[i] = uint8_t(rng.next());
    for (size_t g = 0; g < groups; ++g) {
      for (size_t t = 0; t < 4; ++t) {  // four 16-entry tables, each stored twice
        uint8_t* dst = tables.data() + g * kGroupTableBytes + t * 32;
        for (size_t c = 0; c < 16; ++c) dst[c] = dst[c + 16] = uint8_t(rng.next() % (kMaxTableEntry + 1));
      }
    }
    // Worst case too: every entry at the maximum, for the overflow paths.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) std::memset(tables.data(), kMaxTableEntry, groups * kGroupTableBytes);
      std::vector<float> offset(32), scale(32);
      for (size_t v = 0; v < 32; ++v) {
        offset[v] = float(rng.normal());
        scale[v] = float(rng.normal());
      }
      offset[5] = INFINITY;  // a dead slot
      const BlockScoring bs{0.75f, -3.5f, 0.0123f, 0.25f};
      float want[32], got[32];
      const uint32_t want_hits =
          fastscan_block_scalar(codes.data(), tables.data(), groups, offset.data(), scale.data(), bs, want);
      const uint32_t got_hits = k.scan_block(codes.data(), tables.data(), groups, offset.data(), scale.data(), bs, got);
      ASSERT_EQ(std::memcmp(want, got, sizeof want), 0) << "groups=" << groups << " pass=" << pass;
      ASSERT_EQ(got_hits, want_hits) << "groups=" << groups;
      EXPECT_FALSE(got_hits >> 5 & 1u);
      // Unit scoring exposes the raw integer sums: check one against a direct count.
      const BlockScoring unit{0.0f, 0.0f, 1.0f, 0.0f};
      std::vector<float> zero(32, 0.0f), one(32, 1.0f);
      k.scan_block(codes.data(), tables.data(), groups, zero.data(), one.data(), unit, got);
      uint32_t direct = 0;
      for (size_t p = 0; p < 2 * groups; ++p) {
        const uint8_t byte = codes.data()[p * 32 + 17];
        const uint8_t* t = tables.data() + (p / 2) * kGroupTableBytes;
        direct += t[(p % 2) * 32 + (byte & 15)] + t[64 + (p % 2) * 32 + (byte >> 4)];
      }
      ASSERT_EQ(got[17], float(direct)) << "groups=" << groups;
    }
  }
}

TEST_P(FastScanTest, MultiQueryPassEqualsSingleQueries) {
  const FastScanTable k = fastscan_table(GetParam());
  core::Rng rng(12);
  for (size_t groups : {1, 5, 96, 130}) {
    core::AlignedBuffer<uint8_t> codes, tables[kMaxQueriesPerPass];
    codes.reserve(groups * kGroupCodeBytes, 0);
    for (size_t i = 0; i < groups * kGroupCodeBytes; ++i) codes.data()[i] = uint8_t(rng.next());
    const uint8_t* table_ptrs[kMaxQueriesPerPass];
    BlockScoring scoring[kMaxQueriesPerPass];
    for (size_t q = 0; q < kMaxQueriesPerPass; ++q) {
      tables[q].reserve(groups * kGroupTableBytes, 0);
      for (size_t g = 0; g < groups * 4; ++g) {
        uint8_t* dst = tables[q].data() + g * 32;
        for (size_t c = 0; c < 16; ++c) dst[c] = dst[c + 16] = uint8_t(rng.next() % (kMaxTableEntry + 1));
      }
      table_ptrs[q] = tables[q].data();
      scoring[q] = {float(q), -1.0f - float(q), 0.01f * float(q + 1), float(rng.normal()) * 40.0f};
    }
    std::vector<float> offset(32), scale(32);
    for (size_t v = 0; v < 32; ++v) {
      offset[v] = float(rng.normal());
      scale[v] = -float(rng.uniform());
    }
    for (size_t nq = 1; nq <= kMaxQueriesPerPass; ++nq) {
      float dist[kMaxQueriesPerPass * 32];
      uint32_t hits[kMaxQueriesPerPass];
      k.scan_block_multi(codes.data(), table_ptrs, nq, groups, offset.data(), scale.data(), scoring, dist, hits);
      for (size_t q = 0; q < nq; ++q) {
        float one[32];
        const uint32_t h =
            fastscan_block_scalar(codes.data(), table_ptrs[q], groups, offset.data(), scale.data(), scoring[q], one);
        ASSERT_EQ(std::memcmp(one, dist + q * 32, sizeof one), 0) << "groups " << groups << " nq " << nq << " q " << q;
        ASSERT_EQ(hits[q], h);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAvailableIsa, FastScanTest, ::testing::ValuesIn(available_isas()),
                         [](const auto& info) { return std::string(isa_name(info.param)); });

TEST(Codebook, FourBitMatchesLloydMaxForTheGaussianLimit) {
  // For large d the coordinate law tends to N(0, 1/d); the 16-level Lloyd–Max quantiser of
  // N(0, 1) has positive levels 0.1284, 0.3881, 0.6568, 0.9424, 1.2562, 1.6180, 2.0690, 2.7326.
  const size_t d = 4096;
  const Codebook cb = lloyd_max_codebook(d, 4);
  const double known[8] = {0.1284, 0.3881, 0.6568, 0.9424, 1.2562, 1.6180, 2.0690, 2.7326};
  ASSERT_EQ(cb.centroids.size(), 16u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(cb.centroids[8 + i] * std::sqrt(double(d)), known[i], 0.01) << i;
    EXPECT_FLOAT_EQ(cb.centroids[7 - i], -cb.centroids[8 + i]);
  }
}

TEST(Codebook, EncodePicksTheNearestLevel) {
  for (size_t d : {1, 2, 3, 17, 384}) {
    for (unsigned bits : {2u, 4u}) {
      const Codebook cb = lloyd_max_codebook(d, bits);
      ASSERT_EQ(cb.centroids.size(), size_t(1) << bits);
      for (size_t i = 1; i < cb.centroids.size(); ++i) ASSERT_LT(cb.centroids[i - 1], cb.centroids[i]);
      for (float x : {-1.0f, -0.3f, -0.01f, 0.0f, 0.02f, 0.2f, 0.9f}) {
        const unsigned c = cb.encode(x);
        for (size_t j = 0; j < cb.centroids.size(); ++j) {
          ASSERT_LE(std::fabs(x - cb.centroids[c]), std::fabs(x - cb.centroids[j]) + 1e-7f);
        }
      }
    }
  }
}

TEST(Rotation, IsOrthogonalForAnyDimension) {
  for (size_t d : {1, 2, 3, 5, 64, 100, 384, 1000}) {
    const Rotation r(d, 7);
    core::Rng rng(d);
    std::vector<float> a(d), b(d), ra(d), rb(d), tmp(d);
    for (size_t i = 0; i < d; ++i) {
      a[i] = float(rng.normal());
      b[i] = float(rng.normal());
    }
    r.apply(a.data(), ra.data(), tmp.data());
    r.apply(b.data(), rb.data(), tmp.data());
    double na = 0, nra = 0, ab = 0, rab = 0;
    for (size_t i = 0; i < d; ++i) {
      na += double(a[i]) * a[i];
      nra += double(ra[i]) * ra[i];
      ab += double(a[i]) * b[i];
      rab += double(ra[i]) * rb[i];
    }
    EXPECT_NEAR(nra, na, 1e-5 * na) << "d=" << d;
    EXPECT_NEAR(rab, ab, 1e-5 * na) << "d=" << d;
  }
}

TEST(Rotation, SpreadsABasisVectorOverEveryCoordinate) {
  const size_t d = 384;
  const Rotation r(d, 1);
  std::vector<float> e(d, 0.0f), out(d), tmp(d);
  e[0] = 1.0f;
  r.apply(e.data(), out.data(), tmp.data());
  float largest = 0;
  size_t zeros = 0;
  for (float x : out) {
    largest = std::max(largest, std::fabs(x));
    zeros += x == 0.0f;
  }
  EXPECT_LT(largest, 0.3f);  // a unit mass spread over 384 coordinates (1/sqrt(384) = 0.051)
  EXPECT_LT(zeros, d / 4);
}

// Same seed, same bits, on every target: pinned by a fingerprint checked in every build.
TEST(Rotation, BitsAreTheSameOnEveryTarget) {
  const Rotation r(384, 42);
  std::vector<float> x(384), out(384), tmp(384);
  for (size_t i = 0; i < 384; ++i) x[i] = float(i % 7) - 3.0f;
  r.apply(x.data(), out.data(), tmp.data());
  const Codebook cb = lloyd_max_codebook(384, 4);
  uint64_t h = test::fnv1a(out.data(), out.size() * sizeof(float));
  h = test::fnv1a(cb.centroids.data(), cb.centroids.size() * sizeof(float), h);
  EXPECT_EQ(h, 0x621403c8a25e5a63ULL);
}

}  // namespace test_fastscan
}  // namespace quiver
