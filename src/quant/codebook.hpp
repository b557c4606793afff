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

// How many of the `size` ascending thresholds b are below x — the index of the first one >= x —
// for size = 2^k - 1 (a codebook's boundaries). A binary search whose steps are fixed (16, 8, 4,
// 2, 1 for 31 thresholds) and whose choices are selects, not branches: a coordinate's cell is a
// coin toss for the branch predictor, and the branchy search cost about 50 cycles a coordinate
// (a fifth of a 1M build in the refine plane's encoder alone). The same answer as the branchy one.
// Other sizes (no codebook has them) take the plain binary search.
inline unsigned count_below(const float* b, size_t size, float x) noexcept {
  unsigned pos = 0;
  if ((size & (size + 1)) != 0) {
    for (size_t hi = size; pos < hi;) {
      const size_t mid = (pos + hi) / 2;
      if (b[mid] < x)
        pos = unsigned(mid + 1);
      else
        hi = mid;
    }
    return pos;
  }
  for (size_t step = (size + 1) / 2; step > 0; step /= 2) {
    // 0 or all ones, and-ed with the step: GCC turned `? step : 0` into a branch again.
    const unsigned take = 0u - unsigned(b[pos + step - 1] < x);
    pos += take & unsigned(step);
  }
  return pos;
}

struct Codebook {
  std::vector<float> centroids;   // 2^bits levels, ascending
  std::vector<float> boundaries;  // 2^bits - 1 decision thresholds (midpoints), ascending

  // Index of the nearest centroid (ties go to the lower level): the first boundary >= x.
  unsigned encode(float x) const noexcept { return count_below(boundaries.data(), boundaries.size(), x); }
};

Codebook lloyd_max_codebook(size_t dim, unsigned bits);

// The pieces the codebooks are computed from, shared with the refine plane's sub-codebooks
// (refine_codebook.hpp), so both integrate the same density over the same support:
// the unnormalised density of one coordinate of a random unit vector in R^dim at x in (-1, 1)
// (dim >= 2), and the half-width L of the interval [-L, L] integrated over.
double coordinate_density(double x, size_t dim);
double coordinate_support(size_t dim);

}  // namespace quiver::quant
