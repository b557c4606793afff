// Sub-codebooks of the refine plane: `refine_bits` more bits per rotated coordinate that say
// where the coordinate lies inside its Lloyd–Max cell (codebook.hpp).
//
// For each coarse cell [b(l-1), b(l)] (the outer cells end at the support of the coordinate
// density), the 2^refine_bits levels are the Lloyd–Max quantiser of the coordinate density
// restricted to that cell: the codebook that minimises the mean squared error of a coordinate
// once its coarse level is known. Coarse code + refine code together are a
// (bits + refine_bits)-bit non-uniform scalar quantiser whose cells nest in the coarse ones, so
// the fast-scan plane is unchanged and the refine plane only adds bits. Like the coarse
// codebook it is computed from the dimension alone (no training), with exact IEEE operations
// in a fixed order: the same bits on every target.
#pragma once

#include <cstddef>
#include <vector>

#include "quant/codebook.hpp"

namespace quiver::quant {

struct RefineCodebook {
  unsigned refine_bits = 0;
  // Reconstruction value of (coarse level l, refine code f) at values[(l << refine_bits) | f];
  // ascending within each cell, and overall.
  std::vector<float> values;
  // Decision thresholds inside cell l: bounds[l * (2^refine_bits - 1) + j] (midpoints).
  std::vector<float> bounds;

  float value(unsigned coarse, unsigned fine) const noexcept { return values[(coarse << refine_bits) | fine]; }

  // The refine code of x inside coarse cell `coarse` (nearest level; ties go to the lower).
  unsigned encode(unsigned coarse, float x) const noexcept {
    const size_t per_cell = (size_t(1) << refine_bits) - 1;
    return count_below(bounds.data() + coarse * per_cell, per_cell, x);  // the first threshold >= x
  }
};

// The sub-codebooks for `coarse` (lloyd_max_codebook(dim, bits)); refine_bits in 1..8.
RefineCodebook refine_codebook(size_t dim, const Codebook& coarse, unsigned refine_bits);

}  // namespace quiver::quant
