#include "quant/refine_codebook.hpp"

#include <algorithm>
#include <cmath>

#include "quiver/error.hpp"

namespace quiver::quant {
namespace {

constexpr int kCellGrid = 4096;     // integration points per coarse cell
constexpr int kIterations = 20000;  // upper bound on Lloyd steps per cell

// Lloyd–Max levels of the density sampled at `ws` on the grid lo + (j + 0.5) * step of one
// coarse cell. A cell without weight (dimension 1, where every coordinate is +-1, or a cell
// past the support) gets evenly spaced levels, which is as good as any there.
void cell_levels(double lo, double step, const std::vector<double>& ws, int levels, double* c) {
  const int n = int(ws.size());
  std::vector<double> cum_w(n + 1, 0.0), cum_wx(n + 1, 0.0);
  for (int j = 0; j < n; ++j) {
    const double x = lo + (j + 0.5) * step;
    cum_w[j + 1] = cum_w[j] + ws[j];
    cum_wx[j + 1] = cum_wx[j] + ws[j] * x;
  }
  const double total = cum_w[n];
  if (!(total > 0.0)) {
    for (int f = 0; f < levels; ++f) c[f] = lo + (f + 0.5) * (step * n / levels);
    return;
  }
  // Start from equal-weight sub-cells: sub-cell f holds the points [j0, j1) with j1 the first
  // point at which the running weight reaches (f + 1) / levels of the total.
  for (int f = 0, j0 = 0; f < levels; ++f) {
    int j1 = n;
    if (f + 1 < levels) {
      const double target = total * (f + 1) / levels;
      j1 = j0;
      while (j1 < n && cum_w[j1] < target) ++j1;
    }
    const double w = cum_w[j1] - cum_w[j0];
    c[f] = w > 0 ? (cum_wx[j1] - cum_wx[j0]) / w : lo + (std::min(j0, n - 1) + 0.5) * step;
    j0 = j1;
  }
  auto points_below = [&](double t) {  // grid points < t
    const double pos = std::ceil((t - lo) / step - 0.5);
    return pos <= 0 ? 0 : pos >= n ? n : int(pos);
  };
  const double span = step * n;
  for (int it = 0; it < kIterations; ++it) {
    double moved = 0.0;
    int j0 = 0;
    for (int f = 0; f < levels; ++f) {
      const int j1 = f + 1 < levels ? points_below(0.5 * (c[f] + c[f + 1])) : n;
      const double w = cum_w[j1] - cum_w[j0];
      if (w > 0) {
        const double next = (cum_wx[j1] - cum_wx[j0]) / w;
        moved = std::max(moved, std::fabs(next - c[f]));
        c[f] = next;
      }
      j0 = j1;
    }
    if (moved < 1e-13 * span) break;
  }
}

}  // namespace

RefineCodebook refine_codebook(size_t dim, const Codebook& coarse, unsigned refine_bits) {
  if (refine_bits < 1 || refine_bits > 8) {
    throw Error(ErrorCode::InvalidArgument, "refine codebook bits must be 1..8");
  }
  const int cells = int(coarse.centroids.size());
  const int levels = 1 << refine_bits;
  const double support = dim == 1 ? 1.0 : coordinate_support(dim);
  RefineCodebook rb;
  rb.refine_bits = refine_bits;
  rb.values.resize(size_t(cells) * levels);
  rb.bounds.resize(size_t(cells) * (levels - 1));
  std::vector<double> ws(kCellGrid);
  std::vector<double> c(levels);
  for (int l = 0; l < cells; ++l) {
    // The cell in the coordinate's own units: the float thresholds encode() compares against,
    // the outer cells closed by the support.
    double lo = l > 0 ? double(coarse.boundaries[l - 1]) : -support;
    double hi = l + 1 < cells ? double(coarse.boundaries[l]) : support;
    lo = std::max(lo, -support);
    hi = std::min(hi, support);
    if (!(hi > lo)) {  // a cell the support does not reach: every level at its centroid
      for (int f = 0; f < levels; ++f) c[f] = coarse.centroids[l];
    } else {
      const double step = (hi - lo) / kCellGrid;
      for (int j = 0; j < kCellGrid; ++j) {
        ws[j] = dim == 1 ? 0.0 : coordinate_density(lo + (j + 0.5) * step, dim);
      }
      cell_levels(lo, step, ws, levels, c.data());
    }
    float* v = rb.values.data() + size_t(l) * levels;
    for (int f = 0; f < levels; ++f) v[f] = float(c[f]);
    // Rounding to float may tie neighbours; it must never reorder them (encode() searches
    // the thresholds between them).
    for (int f = 1; f < levels; ++f) v[f] = std::max(v[f], v[f - 1]);
    float* b = rb.bounds.data() + size_t(l) * (levels - 1);
    for (int f = 0; f + 1 < levels; ++f) b[f] = 0.5f * (v[f] + v[f + 1]);
  }
  return rb;
}

}  // namespace quiver::quant
