// Lloyd–Max scalar codebooks for the coordinates of a randomly rotated unit vector.
//
// After a random rotation, each coordinate of a unit vector in R^d follows the density
// proportional to (1 - x^2)^((d-3)/2) on [-1, 1] (a scaled Beta((d-1)/2, (d-1)/2), close to
// N(0, 1/d)). The codebook minimising the mean squared error for that density is computed
// once per index from d and the bit width alone — no training data.
//
// Only exact IEEE operations (+, -, *, /, sqrt) are used, in a fixed order, so the same d
// gives the same codebook bits on every target.
#pragma once

#include <cstddef>
#include <vector>

namespace quiver::quant {

struct Codebook {
  std::vector<float> centroids;   // 2^bits levels, ascending
  std::vector<float> boundaries;  // 2^bits - 1 decision thresholds (midpoints), ascending

  // Index of the nearest centroid (ties go to the lower level).
  unsigned encode(float x) const noexcept {
    unsigned lo = 0, hi = static_cast<unsigned>(boundaries.size());
    while (lo < hi) {  // first boundary > x
      const unsigned mid = (lo + hi) / 2;
      if (boundaries[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
};

Codebook lloyd_max_codebook(size_t dim, unsigned bits);

// The pieces the codebooks are computed from, shared with the refine plane's sub-codebooks
// (refine_codebook.hpp), so both integrate the same density over the same support:
// the unnormalised density of one coordinate of a random unit vector in R^dim at x in (-1, 1)
// (dim >= 2), and the half-width L of the interval [-L, L] integrated over.
double coordinate_density(double x, size_t dim);
double coordinate_support(size_t dim);

}  // namespace quiver::quant
