#include "tools/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/rng.hpp"
#include "quiver/error.hpp"

namespace quiver {

std::vector<float> unit_gaussian_vectors(size_t n, size_t dim, uint64_t seed) {
  std::vector<float> out(n * dim);
  core::Rng rng(seed);
  std::vector<double> row(dim);
  for (size_t r = 0; r < n; ++r) {
    double norm2 = 0.0;
    for (size_t i = 0; i < dim; ++i) {
      row[i] = rng.normal();
      norm2 += row[i] * row[i];
    }
    const double inv = norm2 > 0.0 ? 1.0 / std::sqrt(norm2) : 0.0;
    for (size_t i = 0; i < dim; ++i) out[r * dim + i] = static_cast<float>(row[i] * inv);
  }
  return out;
}

std::vector<float> clustered_vectors(size_t n, size_t dim, size_t clusters, uint64_t mixture_seed,
                                     uint64_t sample_seed) {
  if (clusters == 0) throw Error(ErrorCode::InvalidArgument, "clusters must be at least 1");
  std::vector<double> sigma(dim);
  for (size_t j = 0; j < dim; ++j) sigma[j] = 1.0 / (1.0 + 16.0 * double(j) / double(dim));
  std::vector<double> centres(clusters * dim);
  core::Rng mix(mixture_seed);
  for (size_t c = 0; c < clusters; ++c) {
    for (size_t j = 0; j < dim; ++j) centres[c * dim + j] = mix.normal() * sigma[j];
  }
  std::vector<float> out(n * dim);
  core::Rng rng(sample_seed);
  for (size_t r = 0; r < n; ++r) {
    const size_t c = size_t(rng.next() % clusters);
    for (size_t j = 0; j < dim; ++j) {
      out[r * dim + j] = float(centres[c * dim + j] + 0.35 * sigma[j] * rng.normal());
    }
  }
  return out;
}

namespace {

// Shape of the embedding-like workload (see tools/workload.hpp). Tuned so that random pairs
// have a cosine of about 0.1 and an HNSW graph (M 16, efConstruction 200) needs ef of 50-100
// for recall@10 0.95 at 100,000 x 384.
constexpr double kPairCosine = 0.1;   // target mean cosine of two random rows
constexpr double kCentreScale = 0.2;  // topic centre spread (times the decaying profile)
constexpr double kTopicScale = 0.35;  // in-topic spread (times the topic's decaying spectrum)
constexpr double kTopicAxes = 12.0;   // spectrum 1 / (1 + j / kTopicAxes)
constexpr double kFloor = 0.03;       // isotropic noise per coordinate, base rows
constexpr double kQuerySpread = 1.5;  // queries: in-topic spread multiplier
constexpr double kQueryFloor = 2.0;   // queries: isotropic floor multiplier

struct EmbeddingMixture {
  size_t dim = 0, topics = 0;
  double mean = 0;                 // length of the shared mean vector (latent axis 0)
  std::vector<double> centres;     // topics x dim, latent
  std::vector<uint32_t> axis;      // topics x dim: topic t's j-th spectrum axis
  std::vector<double> spectrum;    // dim: in-topic spread along a topic's j-th axis
  std::vector<double> cumulative;  // topics: Zipf weights 1 / (t + 1), summed
  std::vector<double> rotation;    // dim x dim, orthogonal: latent row x -> x * rotation
};

// A random orthogonal matrix: Gram-Schmidt (modified, twice for accuracy) on Gaussian rows.
std::vector<double> random_rotation(size_t dim, core::Rng& rng) {
  std::vector<double> r(dim * dim);
  for (auto& x : r) x = rng.normal();
  for (size_t i = 0; i < dim; ++i) {
    double* row = &r[i * dim];
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t p = 0; p < i; ++p) {
        const double* prev = &r[p * dim];
        double dot = 0;
        for (size_t j = 0; j < dim; ++j) dot += row[j] * prev[j];
        for (size_t j = 0; j < dim; ++j) row[j] -= dot * prev[j];
      }
    }
    double n2 = 0;
    for (size_t j = 0; j < dim; ++j) n2 += row[j] * row[j];
    const double inv = 1.0 / std::sqrt(n2);
    for (size_t j = 0; j < dim; ++j) row[j] *= inv;
  }
  return r;
}

EmbeddingMixture make_embedding_mixture(size_t dim, size_t topics, uint64_t mixture_seed) {
  if (dim == 0) throw Error(ErrorCode::InvalidArgument, "dim must be at least 1");
  if (topics == 0) throw Error(ErrorCode::InvalidArgument, "clusters must be at least 1");
  if (dim > UINT32_MAX || topics > UINT32_MAX) throw Error(ErrorCode::InvalidArgument, "dim or clusters too large");
  EmbeddingMixture m;
  m.dim = dim;
  m.topics = topics;
  core::Rng rng(mixture_seed);
  std::vector<double> profile(dim);
  double centre_var = 0, topic_var = 0;
  m.spectrum.resize(dim);
  for (size_t j = 0; j < dim; ++j) {
    profile[j] = kCentreScale / (1.0 + 16.0 * double(j) / double(dim));
    m.spectrum[j] = kTopicScale / (1.0 + double(j) / kTopicAxes);
    centre_var += profile[j] * profile[j];
    topic_var += m.spectrum[j] * m.spectrum[j];
  }
  // Two rows from different topics: cosine ~ mean^2 / (mean^2 + everything else).
  const double rest = centre_var + topic_var + kFloor * kFloor * double(dim);
  m.mean = std::sqrt(kPairCosine / (1.0 - kPairCosine) * rest);
  m.centres.resize(topics * dim);
  m.axis.resize(topics * dim);
  m.cumulative.resize(topics);
  double total = 0;
  for (size_t t = 0; t < topics; ++t) {
    for (size_t j = 0; j < dim; ++j) m.centres[t * dim + j] = rng.normal() * profile[j];
    uint32_t* axis = &m.axis[t * dim];
    for (size_t j = 0; j < dim; ++j) axis[j] = uint32_t(j);
    for (size_t j = dim - 1; j > 0; --j) std::swap(axis[j], axis[rng.next() % (j + 1)]);  // Fisher-Yates
    total += 1.0 / double(t + 1);
    m.cumulative[t] = total;
  }
  m.rotation = random_rotation(dim, rng);
  return m;
}

// latent (dim doubles) -> rotated, unit-length floats. The product runs as a sum of scaled
// rotation rows, one output accumulator per coordinate in a fixed order (vectorisable without
// reassociation, so the bits do not depend on the compiler's choice).
void rotate_and_normalise(const EmbeddingMixture& m, const double* latent, double* work, float* out) {
  const size_t dim = m.dim;
  std::fill(work, work + dim, 0.0);
  for (size_t i = 0; i < dim; ++i) {
    const double x = latent[i];
    const double* row = &m.rotation[i * dim];
    for (size_t j = 0; j < dim; ++j) work[j] += x * row[j];
  }
  double n2 = 0;
  for (size_t j = 0; j < dim; ++j) n2 += work[j] * work[j];
  const double inv = n2 > 0 ? 1.0 / std::sqrt(n2) : 0.0;
  for (size_t j = 0; j < dim; ++j) out[j] = float(work[j] * inv);
}

}  // namespace

std::vector<float> embedding_like_vectors(size_t n, size_t dim, size_t clusters, uint64_t mixture_seed,
                                          uint64_t sample_seed, EmbeddingRole role, std::vector<uint32_t>* topic_of) {
  const EmbeddingMixture m = make_embedding_mixture(dim, clusters, mixture_seed);
  const bool query = role == EmbeddingRole::query;
  const double spread = query ? kQuerySpread : 1.0;
  const double iso = kFloor * (query ? kQueryFloor : 1.0);
  std::vector<float> out(n * dim);
  if (topic_of) topic_of->assign(n, 0);
  std::vector<double> latent(dim), work(dim);
  core::Rng rng(sample_seed);
  const double total = m.cumulative.back();
  for (size_t r = 0; r < n; ++r) {
    const double u = rng.uniform() * total;
    const size_t t = std::min<size_t>(
        size_t(std::upper_bound(m.cumulative.begin(), m.cumulative.end(), u) - m.cumulative.begin()), clusters - 1);
    if (topic_of) (*topic_of)[r] = uint32_t(t);
    const double* centre = &m.centres[t * dim];
    const uint32_t* axis = &m.axis[t * dim];
    for (size_t j = 0; j < dim; ++j) latent[j] = centre[j] + iso * rng.normal();
    for (size_t j = 0; j < dim; ++j) latent[axis[j]] += spread * m.spectrum[j] * rng.normal();
    latent[0] += m.mean;
    rotate_and_normalise(m, latent.data(), work.data(), &out[r * dim]);
  }
  return out;
}

std::vector<float> embedding_like_centres(size_t dim, size_t clusters, uint64_t mixture_seed) {
  const EmbeddingMixture m = make_embedding_mixture(dim, clusters, mixture_seed);
  std::vector<float> out(clusters * dim);
  std::vector<double> latent(dim), work(dim);
  for (size_t t = 0; t < clusters; ++t) {
    std::copy(&m.centres[t * dim], &m.centres[t * dim] + dim, latent.begin());
    latent[0] += m.mean;
    rotate_and_normalise(m, latent.data(), work.data(), &out[t * dim]);
  }
  return out;
}

}  // namespace quiver
