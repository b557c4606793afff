#include "quiver/workload.hpp"

#include <cmath>

#include "core/rng.hpp"

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

}  // namespace quiver
