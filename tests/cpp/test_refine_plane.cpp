// The refine plane's codec (src/quant/refine_plane.hpp) on its own: sub-codebooks, encode /
// decode round trips, scores, the file check, and the same bits on every target.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "quant/codebook.hpp"
#include "quant/fastscan.hpp"
#include "quant/refine_codebook.hpp"
#include "quant/refine_plane.hpp"
#include "quiver/error.hpp"
#include "tools/workload.hpp"
#include "test_support.hpp"

namespace quiver::quant {
namespace test_refine_plane {

// Codebook::encode and RefineCodebook::encode (count_below's fixed-step search) give the index of
// the first threshold >= x — what a plain count of the thresholds below x gives — at every width,
// for x on each threshold, one float either side of it, past the ends and across the support;
// and count_below's fallback for sizes that are not 2^k - 1 agrees too.
TEST(CodebookEncode, IsTheCountOfThresholdsBelowAtEveryWidth) {
  const auto count = [](const float* b, size_t n, float x) {
    unsigned c = 0;
    for (size_t i = 0; i < n; ++i) c += b[i] < x;
    return c;
  };
  const auto probes = [](const float* b, size_t n) {
    std::vector<float> xs = {-2.0f, -1.0f, 0.0f, -0.0f, 1.0f, 2.0f};
    for (size_t i = 0; i < n; ++i) {
      xs.push_back(b[i]);
      xs.push_back(std::nextafter(b[i], -INFINITY));
      xs.push_back(std::nextafter(b[i], INFINITY));
    }
    for (int i = -400; i <= 400; ++i) xs.push_back(float(i) / 2000.0f);
    return xs;
  };
  for (size_t dim : {8, 384}) {
    for (unsigned bits : {1u, 2u, 3u, 4u}) {
      const Codebook cb = lloyd_max_codebook(dim, bits);
      const size_t nb = cb.boundaries.size();
      for (const float x : probes(cb.boundaries.data(), nb))
        ASSERT_EQ(cb.encode(x), count(cb.boundaries.data(), nb, x)) << "dim " << dim << " bits " << bits << " x " << x;
      for (unsigned rb = 1; rb <= 5; ++rb) {
        const RefineCodebook book = refine_codebook(dim, cb, rb);
        const size_t per = (size_t(1) << rb) - 1;
        for (unsigned l = 0; l < (1u << bits); ++l) {
          const float* b = book.bounds.data() + l * per;
          for (const float x : probes(b, per))
            ASSERT_EQ(book.encode(l, x), count(b, per, x)) << "dim " << dim << " bits " << bits << "+" << rb;
        }
      }
    }
  }
  const std::vector<float> b = {-0.5f, -0.25f, 0.0f, 0.25f, 0.5f};  // 5 thresholds: the fallback
  for (size_t n = 0; n <= b.size(); ++n)
    for (const float x : probes(b.data(), n)) ASSERT_EQ(count_below(b.data(), n, x), count(b.data(), n, x));
}

// Coarse codes of unit vectors `r` (rows of dim) packed as the index file holds them.
std::vector<uint8_t> pack_coarse(const Codebook& cb, unsigned bits, const float* r, size_t n, size_t dim) {
  const size_t row = (dim * bits + 7) / 8;
  std::vector<uint8_t> out(n * row, 0);
  for (size_t v = 0; v < n; ++v) {
    for (size_t i = 0; i < dim; ++i) {
      const size_t bit = i * bits;
      out[v * row + bit / 8] |= uint8_t(cb.encode(r[v * dim + i]) << (bit % 8));
    }
  }
  return out;
}

size_t coarse_row_bytes(size_t dim, unsigned bits) {
  const size_t subq = bits == 4 ? dim : (dim + 1) / 2;
  return (subq + 1) / 2;
}

TEST(RefineCodebook, LevelsNestInsideTheCoarseCells) {
  for (size_t dim : {2, 3, 17, 128, 384, 1000}) {
    for (unsigned bits : {2u, 4u}) {
      const Codebook cb = lloyd_max_codebook(dim, bits);
      for (unsigned refine : {1u, 2u, 3u, 4u}) {
        const RefineCodebook rb = refine_codebook(dim, cb, refine);
        const size_t levels = size_t(1) << refine;
        ASSERT_EQ(rb.values.size(), cb.centroids.size() * levels);
        for (size_t l = 0; l < cb.centroids.size(); ++l) {
          const float lo = l > 0 ? cb.boundaries[l - 1] : -1.0f;
          const float hi = l + 1 < cb.centroids.size() ? cb.boundaries[l] : 1.0f;
          for (size_t f = 0; f < levels; ++f) {
            const float v = rb.value(unsigned(l), unsigned(f));
            EXPECT_GE(v, lo) << "dim " << dim << " cell " << l;
            EXPECT_LE(v, hi) << "dim " << dim << " cell " << l;
            if (f > 0) EXPECT_LT(rb.value(unsigned(l), unsigned(f - 1)), v) << "dim " << dim << " cell " << l;
          }
        }
      }
    }
  }
}

// Each coordinate decodes to the nearest level of its coarse cell, and the squared error falls
// with every refine bit (about 4x per bit for a smooth density; checked at 2x).
TEST(RefineCodec, RoundTripErrorShrinksWithEveryBit) {
  const size_t n = 300;
  for (size_t dim : {7, 64, 384}) {
    const std::vector<float> r = unit_gaussian_vectors(n, dim, 5);
    const Codebook cb = lloyd_max_codebook(dim, 4);
    const std::vector<uint8_t> coarse = pack_coarse(cb, 4, r.data(), n, dim);
    const size_t crow = coarse_row_bytes(dim, 4);
    double coarse_err = 0.0;
    for (size_t i = 0; i < n * dim; ++i) {
      const double e = r[i] - cb.centroids[cb.encode(r[i])];
      coarse_err += e * e;
    }
    double previous = coarse_err;
    for (unsigned bits = 1; bits <= kMaxRefineBits; ++bits) {
      const RefineCodec codec(dim, Metric::cosine, cb, 4, bits);
      std::vector<uint8_t> row(codec.row_bytes());
      std::vector<float> decoded(dim);
      double err = 0.0;
      for (size_t v = 0; v < n; ++v) {
        float scale;
        codec.encode(r.data() + v * dim, 1.0, row.data(), scale);
        codec.decode({coarse.data() + v * crow, 1}, row.data(), decoded.data());
        for (size_t i = 0; i < dim; ++i) {
          const float x = r[v * dim + i];
          const unsigned level = cb.encode(x);
          float best = INFINITY;
          for (unsigned f = 0; f < (1u << bits); ++f)
            best = std::min(best, std::fabs(x - codec.codebook().value(level, f)));
          ASSERT_EQ(std::fabs(x - decoded[i]), best) << "dim " << dim << " bits " << bits << " coordinate " << i;
          err += double(x - decoded[i]) * (x - decoded[i]);
        }
      }
      EXPECT_LT(err, previous / 2) << "dim " << dim << " bits " << bits;
      previous = err;
    }
  }
}

// score() is the inner product with decode()'s reconstruction, whether the coarse codes come
// packed or from inside a fast-scan block; at 2 coarse bits too.
TEST(RefineCodec, ScoreIsTheInnerProductWithTheReconstruction) {
  const size_t n = 32;
  for (size_t dim : {1, 3, 9, 33, 384}) {
    for (unsigned coarse_bits : {2u, 4u}) {
      const std::vector<float> r = unit_gaussian_vectors(n, dim, 8);
      const std::vector<float> q = unit_gaussian_vectors(1, dim, 9);
      const Codebook cb = lloyd_max_codebook(dim, coarse_bits);
      const std::vector<uint8_t> coarse = pack_coarse(cb, coarse_bits, r.data(), n, dim);
      const size_t crow = coarse_row_bytes(dim, coarse_bits);
      // The same codes in the block layout: byte j of vector v at block[j * 32 + v].
      std::vector<uint8_t> block(crow * kBlockVectors);
      for (size_t v = 0; v < n; ++v) {
        for (size_t j = 0; j < crow; ++j) block[j * kBlockVectors + v] = coarse[v * crow + j];
      }
      for (unsigned bits = 1; bits <= kMaxRefineBits; ++bits) {
        const RefineCodec codec(dim, Metric::l2, cb, coarse_bits, bits);
        std::vector<uint8_t> row(codec.row_bytes());
        std::vector<float> decoded(dim);
        for (size_t v = 0; v < n; ++v) {
          float scale;
          codec.encode(r.data() + v * dim, 1.0, row.data(), scale);
          codec.decode({coarse.data() + v * crow, 1}, row.data(), decoded.data());
          double want = 0.0;
          for (size_t i = 0; i < dim; ++i) want += double(q[i]) * decoded[i];
          const float packed = codec.score(q.data(), {coarse.data() + v * crow, 1}, row.data());
          const float blocked = codec.score(q.data(), {block.data() + v, kBlockVectors}, row.data());
          EXPECT_EQ(packed, blocked) << "dim " << dim << " bits " << bits;
          EXPECT_NEAR(packed, want, 1e-5) << "dim " << dim << " bits " << bits;
        }
      }
    }
  }
}

// score() reads fixed-width groups of 8 coordinates; score_reference() is the plain loop over
// run-time widths. They must agree bit for bit at every width, at dimensions that end in a
// partial group, in both coarse layouts, and with a query that is not 16-byte aligned.
TEST(RefineCodec, ScoreEqualsThePlainReferenceBitForBit) {
  const size_t n = 40;
  for (size_t dim : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 383, 384, 385}) {
    for (unsigned coarse_bits : {2u, 4u}) {
      const std::vector<float> r = unit_gaussian_vectors(n, dim, 21);
      std::vector<float> q_storage = unit_gaussian_vectors(1, dim + 1, 22);
      const float* q = q_storage.data() + 1;  // 4 bytes past the allocation's alignment
      const Codebook cb = lloyd_max_codebook(dim, coarse_bits);
      const std::vector<uint8_t> coarse = pack_coarse(cb, coarse_bits, r.data(), n, dim);
      const size_t crow = coarse_row_bytes(dim, coarse_bits);
      std::vector<uint8_t> block(crow * kBlockVectors);
      for (size_t v = 0; v < kBlockVectors; ++v) {
        for (size_t j = 0; j < crow; ++j) block[j * kBlockVectors + v] = coarse[v * crow + j];
      }
      for (unsigned bits = 1; bits <= kMaxRefineBits; ++bits) {
        const RefineCodec codec(dim, Metric::cosine, cb, coarse_bits, bits);
        std::vector<uint8_t> row(codec.row_bytes());
        for (size_t v = 0; v < n; ++v) {
          float scale;
          codec.encode(r.data() + v * dim, 1.0, row.data(), scale);
          const CoarseCodes packed{coarse.data() + v * crow, 1};
          const float want = codec.score_reference(q, packed, row.data());
          const float got = codec.score(q, packed, row.data());
          ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0)
              << "dim " << dim << " coarse bits " << coarse_bits << " bits " << bits << ": " << got << " vs " << want;
          if (v < kBlockVectors) {
            const CoarseCodes blocked{block.data() + v, kBlockVectors};
            const float in_block = codec.score(q, blocked, row.data());
            ASSERT_EQ(std::memcmp(&want, &in_block, sizeof want), 0) << "dim " << dim << " bits " << bits;
          }
        }
      }
    }
  }
}

// The estimate -scale / m * score of <q, x> is unbiased and tighter than the fast-scan one.
TEST(RefineCodec, EstimatesInnerProductsBetterThanTheCoarseCodes) {
  const size_t dim = 256, n = 400;
  const std::vector<float> r = unit_gaussian_vectors(n, dim, 21);
  const std::vector<float> q = unit_gaussian_vectors(20, dim, 22);
  const Codebook cb = lloyd_max_codebook(dim, 4);
  const std::vector<uint8_t> coarse = pack_coarse(cb, 4, r.data(), n, dim);
  const RefineCodec codec(dim, Metric::ip, cb, 4, 3);
  double bias = 0.0, err2 = 0.0, coarse_err2 = 0.0;
  std::vector<uint8_t> row(codec.row_bytes());
  for (size_t v = 0; v < n; ++v) {
    float scale;
    const float* x = r.data() + v * dim;
    codec.encode(x, 2.5, row.data(), scale);  // a vector of length 2.5
    double dot_c = 0.0;
    for (size_t i = 0; i < dim; ++i) dot_c += double(x[i]) * cb.centroids[cb.encode(x[i])];
    for (size_t j = 0; j < 20; ++j) {
      const float* qj = q.data() + j * dim;
      double exact = 0.0, coarse_score = 0.0;
      for (size_t i = 0; i < dim; ++i) {
        exact += 2.5 * double(qj[i]) * x[i];
        coarse_score += double(qj[i]) * cb.centroids[cb.encode(x[i])];
      }
      const double estimate = -double(scale) * codec.score(qj, {coarse.data() + v * (dim / 2), 1}, row.data());
      bias += estimate - exact;
      err2 += (estimate - exact) * (estimate - exact);
      const double coarse_estimate = 2.5 / dot_c * coarse_score;
      coarse_err2 += (coarse_estimate - exact) * (coarse_estimate - exact);
    }
  }
  const double count = double(n * 20);
  EXPECT_LT(std::fabs(bias / count), 3 * std::sqrt(err2 / count) / std::sqrt(count)) << "biased";
  EXPECT_LT(err2, coarse_err2 / 16) << "3 more bits should cut the squared error ~64x";
}

TEST(RefineCodec, ZeroVectorsGetZeroRowsAndScale) {
  const Codebook cb = lloyd_max_codebook(10, 4);
  const RefineCodec codec(10, Metric::l2, cb, 4, 3);
  std::vector<float> r(10, 0.0f);
  std::vector<uint8_t> row(codec.row_bytes(), 0xff);
  float scale = 1.0f;
  codec.encode(r.data(), 0.0, row.data(), scale);
  EXPECT_EQ(scale, 0.0f);
  for (uint8_t b : row) EXPECT_EQ(b, 0);
  const std::vector<uint8_t> coarse(5, 0);
  EXPECT_EQ(codec.check(coarse.data(), 0.0f, row.data(), 0.0f), "");
}

TEST(RefineCodec, RejectsBitWidthsItDoesNotHave) {
  const Codebook cb = lloyd_max_codebook(16, 4);
  for (unsigned bits : {0u, 6u, 8u, 100u}) {
    try {
      RefineCodec codec(16, Metric::l2, cb, 4, bits);
      FAIL() << bits;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("refine_bits"), std::string::npos) << e.what();
    }
  }
}

// What the loader relies on: every row and scale the encoder writes passes check(), and rows
// or scales it could not have written fail it.
TEST(RefineCodec, CheckAcceptsEncoderOutputAndRejectsTheRest) {
  for (size_t dim : {1, 5, 12, 384}) {
    for (unsigned coarse_bits : {2u, 4u}) {
      for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
        const size_t n = 200;
        const std::vector<float> r = unit_gaussian_vectors(n, dim, 30 + dim);
        const Codebook cb = lloyd_max_codebook(dim, coarse_bits);
        const std::vector<uint8_t> coarse = pack_coarse(cb, coarse_bits, r.data(), n, dim);
        const size_t crow = coarse_row_bytes(dim, coarse_bits);
        const double m = metric == Metric::l2 ? 2.0 : 1.0;
        for (unsigned bits = 1; bits <= kMaxRefineBits; ++bits) {
          const RefineCodec codec(dim, metric, cb, coarse_bits, bits);
          std::vector<uint8_t> row(codec.row_bytes());
          for (size_t v = 0; v < n; ++v) {
            const float* x = r.data() + v * dim;
            const double length = metric == Metric::cosine ? 1.0 : 0.5 + double(v);
            double dot = 0.0;  // the fast-scan scale, as the index computes it
            for (size_t i = 0; i < dim; ++i) dot += double(x[i]) * cb.centroids[cb.encode(x[i])];
            const float coarse_scale = float(-m * (dot > 1e-12 ? length / dot : length));
            float scale;
            codec.encode(x, length, row.data(), scale);
            const uint8_t* c = coarse.data() + v * crow;
            ASSERT_EQ(codec.check(c, coarse_scale, row.data(), scale), "") << dim << " " << bits << " " << v;
            if (v > 3) continue;
            EXPECT_NE(codec.check(c, coarse_scale, row.data(), -scale), "");
            EXPECT_NE(codec.check(c, coarse_scale, row.data(), NAN), "");
            EXPECT_NE(codec.check(c, coarse_scale, row.data(), 0.0f), "");
            EXPECT_NE(codec.check(c, coarse_scale, row.data(), scale * 8), "");
            EXPECT_NE(codec.check(c, coarse_scale, row.data(), scale / 8), "");
            if (dim % 8 != 0) {  // a bit past the last coordinate
              std::vector<uint8_t> bad = row;
              const size_t bit = (dim % 8) * bits;
              bad[(dim / 8) * bits + bit / 8] |= uint8_t(1u << (bit % 8));
              EXPECT_NE(codec.check(c, coarse_scale, bad.data(), scale), "") << dim << " " << bits;
            }
          }
        }
      }
    }
  }
}

// Sub-codebooks, rows, scales and scores are the same bits on every ISA level and target
// (this suite runs natively at each level and in the wasm GoogleTest run).
TEST(RefineCodec, SameBitsOnEveryTarget) {
  const size_t dim = 384, n = 64;
  const std::vector<float> r = unit_gaussian_vectors(n, dim, 77);
  const std::vector<float> q = unit_gaussian_vectors(1, dim, 78);
  uint64_t h = test::fnv1a(nullptr, 0);
  for (unsigned coarse_bits : {2u, 4u}) {
    const Codebook cb = lloyd_max_codebook(dim, coarse_bits);
    const std::vector<uint8_t> coarse = pack_coarse(cb, coarse_bits, r.data(), n, dim);
    const size_t crow = coarse_row_bytes(dim, coarse_bits);
    for (unsigned bits = 1; bits <= kMaxRefineBits; ++bits) {
      const RefineCodec codec(dim, Metric::l2, cb, coarse_bits, bits);
      h = test::fnv1a(codec.codebook().values.data(), codec.codebook().values.size() * 4, h);
      std::vector<uint8_t> row(codec.row_bytes());
      for (size_t v = 0; v < n; ++v) {
        float scale;
        codec.encode(r.data() + v * dim, 1.0 + v, row.data(), scale);
        const float s = codec.score(q.data(), {coarse.data() + v * crow, 1}, row.data());
        h = test::fnv1a(row.data(), row.size(), h);
        h = test::fnv1a(&scale, 4, h);
        h = test::fnv1a(&s, 4, h);
      }
    }
  }
  EXPECT_EQ(h, 0x47b17b0c5d30737cULL) << std::hex << h;
}

}  // namespace test_refine_plane
}  // namespace quiver::quant
