// Every ISA level this machine has, against a double-precision reference and against the
// scalar kernels, for every dimension 1..300 and for unaligned pointers.
//
// Error bound: |kernel - exact| <= 1e-5 * sum_i |term_i| + 1e-30, where term_i is the i-th
// product (a_i b_i, or (a_i - b_i)^2). Float accumulation over d <= 300 terms in 4+ partial
// sums has a worst case near (d/4) * 2^-24 ~ 4.5e-6 of that sum, so 1e-5 is tight but safe.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/rng.hpp"
#include "quiver/error.hpp"
#include "quiver/isa.hpp"
#include "simd/kernels.hpp"

namespace quiver {
namespace test_kernels {

constexpr double kRelTol = 1e-5;

struct Exact {
  double l2sq, l2sq_mag, dot, dot_mag, cos;
};

Exact exact(const float* a, const float* b, size_t d) {
  Exact e{};
  double na = 0, nb = 0;
  for (size_t i = 0; i < d; ++i) {
    const double x = a[i], y = b[i];
    e.l2sq += (x - y) * (x - y);
    e.dot += x * y;
    e.dot_mag += std::fabs(x * y);
    na += x * x;
    nb += y * y;
  }
  e.l2sq_mag = e.l2sq;
  e.cos = (na > 0 && nb > 0) ? 1.0 - e.dot / std::sqrt(na * nb) : 1.0;
  return e;
}

std::vector<float> random_floats(size_t n, uint64_t seed) {
  core::Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng.normal());
  return v;
}

class KernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(KernelTest, OneToOneMatchesReferenceForEveryDimensionAndAlignment) {
  const simd::KernelTable k = simd::kernel_table(GetParam());
  const simd::KernelTable ref = simd::scalar_kernels();
  // Buffers with slack so that a and b can start 0..3 floats past an aligned address.
  const auto pool_a = random_floats(300 + 8, 1);
  const auto pool_b = random_floats(300 + 8, 2);
  for (size_t d = 1; d <= 300; ++d) {
    for (size_t off_a : {0, 1, 3}) {
      for (size_t off_b : {0, 2}) {
        // Copy into exact-size heap blocks so ASan catches any read past element d-1.
        std::vector<float> a(pool_a.begin() + off_a, pool_a.begin() + off_a + d);
        std::vector<float> b(pool_b.begin() + off_b, pool_b.begin() + off_b + d);
        const Exact e = exact(a.data(), b.data(), d);
        const float l2 = k.l2sq_f32(a.data(), b.data(), d);
        const float dot = k.dot_f32(a.data(), b.data(), d);
        const float cs = k.cos_f32(a.data(), b.data(), d);
        ASSERT_NEAR(l2, e.l2sq, kRelTol * e.l2sq_mag + 1e-30) << "d=" << d;
        ASSERT_NEAR(dot, e.dot, kRelTol * e.dot_mag + 1e-30) << "d=" << d;
        // cos = 1 - dot/|a||b|: its error is the dot error scaled by 1/(|a||b|).
        ASSERT_NEAR(cs, e.cos, 4 * kRelTol + 1e-6) << "d=" << d;
        ASSERT_NEAR(l2, ref.l2sq_f32(a.data(), b.data(), d), 2 * kRelTol * e.l2sq_mag + 1e-30);
        ASSERT_NEAR(dot, ref.dot_f32(a.data(), b.data(), d), 2 * kRelTol * e.dot_mag + 1e-30);
      }
    }
  }
}

TEST_P(KernelTest, UnalignedPointersInsideOneBuffer) {
  const simd::KernelTable k = simd::kernel_table(GetParam());
  auto buf = random_floats(1024, 7);
  for (size_t d : {1, 7, 15, 16, 17, 31, 33, 63, 65, 127, 384}) {
    for (size_t off = 0; off < 8; ++off) {
      const float* a = buf.data() + off;
      const float* b = buf.data() + 500 + (off * 3) % 7;
      const Exact e = exact(a, b, d);
      ASSERT_NEAR(k.l2sq_f32(a, b, d), e.l2sq, kRelTol * e.l2sq_mag + 1e-30);
      ASSERT_NEAR(k.dot_f32(a, b, d), e.dot, kRelTol * e.dot_mag + 1e-30);
    }
  }
}

TEST_P(KernelTest, ManyMatchesOneToOneWithStrideAndOffset) {
  const simd::KernelTable k = simd::kernel_table(GetParam());
  for (size_t d : {1, 3, 8, 13, 16, 31, 64, 100, 384}) {
    for (size_t stride_extra : {0, 1, 5}) {
      const size_t stride = d + stride_extra;
      const size_t n = 37;
      auto rows = random_floats(n * stride + 1, 100 + d);
      auto q = random_floats(d + 1, 200 + d);
      const float* rp = rows.data() + 1;  // deliberately unaligned
      const float* qp = q.data() + 1;
      std::vector<float> l2(n), dot(n), cs(n);
      k.l2sq_f32_many(qp, rp, stride, n - 1, d, l2.data());  // n-1 rows: stay inside the buffer
      k.dot_f32_many(qp, rp, stride, n - 1, d, dot.data());
      k.cos_f32_many(qp, rp, stride, n - 1, d, cs.data());
      for (size_t r = 0; r + 1 < n; ++r) {
        ASSERT_EQ(l2[r], k.l2sq_f32(qp, rp + r * stride, d)) << "d=" << d << " r=" << r;
        ASSERT_EQ(dot[r], k.dot_f32(qp, rp + r * stride, d)) << "d=" << d << " r=" << r;
        ASSERT_EQ(cs[r], k.cos_f32(qp, rp + r * stride, d)) << "d=" << d << " r=" << r;
      }
    }
  }
}

TEST_P(KernelTest, CosineOfZeroVectorIsOne) {
  const simd::KernelTable k = simd::kernel_table(GetParam());
  std::vector<float> zero(19, 0.0f), x(19, 1.5f);
  EXPECT_EQ(k.cos_f32(zero.data(), x.data(), 19), 1.0f);
  EXPECT_EQ(k.cos_f32(x.data(), zero.data(), 19), 1.0f);
  EXPECT_NEAR(k.cos_f32(x.data(), x.data(), 19), 0.0f, 1e-6);
}

// u8 kernels (HNSW sq8): exact integer sums, so every ISA level must equal a plain reference
// bit for bit — at every length 0..300 and some long odd ones, at every byte offset of both
// pointers inside one buffer, and at the extremes (0 against 255 at the maximum length).
TEST_P(KernelTest, U8KernelsEqualTheReferenceAtOddSizesAndOffsets) {
  const simd::KernelTable k = simd::kernel_table(GetParam());
  core::Rng rng(5);
  std::vector<uint8_t> buf(5000 + 64);
  for (auto& x : buf) x = uint8_t(rng.next() >> 56);
  for (size_t i = 0; i < 64; ++i) buf[i * 37 % buf.size()] = (i % 2) ? 255 : 0;  // extremes mixed in
  auto reference = [](const uint8_t* a, const uint8_t* b, size_t d, bool l2) {
    uint64_t s = 0;
    for (size_t i = 0; i < d; ++i) {
      const int64_t x = a[i], y = b[i];
      s += uint64_t(l2 ? (x - y) * (x - y) : x * y);
    }
    return s;
  };
  std::vector<size_t> sizes;
  for (size_t d = 0; d <= 300; ++d) sizes.push_back(d);
  for (size_t d : {383, 384, 385, 1023, 1537, 4095}) sizes.push_back(d);
  for (size_t d : sizes) {
    for (size_t oa : {0, 1, 3, 7}) {
      for (size_t ob : {0, 2, 5, 33}) {
        const uint8_t* a = buf.data() + oa;
        const uint8_t* b = buf.data() + 700 + ob;
        ASSERT_EQ(k.l2sq_u8(a, b, d), reference(a, b, d, true)) << "d " << d << " offsets " << oa << "," << ob;
        ASSERT_EQ(k.dot_u8(a, b, d), reference(a, b, d, false)) << "d " << d << " offsets " << oa << "," << ob;
      }
    }
  }
  // The gather form: each of n rows (any pointers, any n including tails of 1-3) gives what
  // dot_u8 gives for it, with the query at any offset too (wasm relaxed-simd computes it from
  // the query's 7-bit halves and the rows' centred bytes, plus a bias from the query alone).
  for (size_t d : {0, 1, 15, 16, 17, 31, 33, 40, 255, 257, 384, 385}) {
    for (size_t n : {0, 1, 3, 4, 5, 8, 32}) {
      for (size_t oq : {0, 5, 11}) {
        std::vector<const uint8_t*> rows(n);
        for (size_t r = 0; r < n; ++r) rows[r] = buf.data() + 900 + (r * 131) % 3000 + r % 7;
        std::vector<uint32_t> got(n + 1, 12345);
        const uint8_t* q = buf.data() + oq;
        k.dot_u8_gather(q, rows.data(), n, d, got.data());
        for (size_t r = 0; r < n; ++r)
          ASSERT_EQ(got[r], reference(q, rows[r], d, false)) << "d " << d << " n " << n << " row " << r << " oq " << oq;
        EXPECT_EQ(got[n], 12345u) << "wrote past n";
      }
    }
  }
  // The largest sq8 dimension: 65536 x 255^2 = 4261478400 < 2^32.
  const std::vector<uint8_t> zeros(65536, 0), full(65536, 255);
  EXPECT_EQ(k.l2sq_u8(zeros.data(), full.data(), 65536), 4261478400u);
  EXPECT_EQ(k.dot_u8(full.data(), full.data(), 65536), 4261478400u);
  EXPECT_EQ(k.dot_u8(zeros.data(), full.data(), 65536), 0u);
  const uint8_t* fulls[5] = {full.data(), full.data(), full.data(), full.data(), full.data()};
  uint32_t sums[5];
  k.dot_u8_gather(full.data(), fulls, 5, 65536, sums);
  for (uint32_t s : sums) EXPECT_EQ(s, 4261478400u);
  // Each side at an extreme alone: the centred rows (0 is -128) and the query's bias.
  k.dot_u8_gather(zeros.data(), fulls, 5, 65536, sums);
  for (uint32_t s : sums) EXPECT_EQ(s, 0u);
  const uint8_t* zero_rows[5] = {zeros.data(), zeros.data(), zeros.data(), zeros.data(), zeros.data()};
  k.dot_u8_gather(full.data(), zero_rows, 5, 65536, sums);
  for (uint32_t s : sums) EXPECT_EQ(s, 0u);
}

// The coarse quantiser's column sums: the same bits as a plain loop (one running sum per row and
// column, a product then a sum, i ascending) at every level — training and assignment depend on
// it — for 1..9 rows (full row blocks and the rest) at a stride past the dimension, at every
// width 0..70 (full 32-column passes, single registers and scalar tails), odd and long
// dimensions, unaligned vectors and columns, and nothing written past rows x width.
TEST_P(KernelTest, DotColumnsEqualThePlainLoopBitForBit) {
  const simd::KernelTable k = simd::kernel_table(GetParam());
  const auto buf = random_floats(70 * 385 + 16, 31);
  const auto xs = random_floats(9 * 390 + 8, 32);
  for (size_t d : {1, 3, 7, 17, 63, 384, 385}) {
    for (size_t rows : {1, 2, 3, 4, 5, 9}) {
      const size_t stride = d + rows % 3;
      for (size_t width = 0; width <= 70; width += (d > 100 ? 3 : 1)) {
        for (size_t off : {0, 1}) {
          const float* cols = buf.data() + off;
          const float* x = xs.data() + (off * 5) % 7;
          std::vector<float> got(rows * width + 1, 777.0f);
          k.dot_f32_columns(x, rows, stride, cols, width, d, got.data());
          for (size_t r = 0; r < rows; ++r) {
            for (size_t j = 0; j < width; ++j) {
              float want = 0.0f;
              for (size_t i = 0; i < d; ++i) {
                volatile float term = x[r * stride + i] * cols[i * width + j];  // no fused multiply-add
                want += term;
              }
              ASSERT_EQ(std::memcmp(&got[r * width + j], &want, sizeof want), 0)
                  << "d " << d << " rows " << rows << " width " << width << " row " << r << " column " << j
                  << " offset " << off << ": " << got[r * width + j] << " against " << want;
            }
          }
          EXPECT_EQ(got[rows * width], 777.0f) << "wrote past rows x width";
        }
      }
    }
  }
}

#if defined(QUIVER_HAVE_WASM128)
// Which u8 gather the wasm128 table holds. QUIVER_EXPECT_RELAXED_DOT (tests/cpp/CMakeLists.txt
// sets it per V8 tier for the relaxed-simd build) says what the engine's check must find: 0
// under Node 20's Liftoff, which computes relaxed_dot wrongly, 1 under TurboFan. Without it
// (the simd builds) the relaxed path must be off. The gather's sums are checked against the
// reference above either way.
TEST(KernelU8Gather, RelaxedDotOnlyWhereTheEngineComputesItExactly) {
  const char* expected = std::getenv("QUIVER_EXPECT_RELAXED_DOT");
  EXPECT_EQ(simd::wasm128_relaxed_dot(), expected != nullptr && std::string(expected) == "1");
}
#endif

INSTANTIATE_TEST_SUITE_P(EveryAvailableIsa, KernelTest, ::testing::ValuesIn(available_isas()),
                         [](const auto& info) { return std::string(isa_name(info.param)); });

}  // namespace test_kernels
}  // namespace quiver
