#include "quiver/workload.hpp"

#include <cmath>

#include "core/rng.hpp"
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

}  // namespace quiver
