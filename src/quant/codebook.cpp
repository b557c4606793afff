#include "quant/codebook.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "quiver/error.hpp"

namespace quiver::quant {
namespace {

constexpr int kGrid = 1 << 16;       // cells of the numerical integration
constexpr int kIterations = 100000;  // upper bound on Lloyd steps (each is O(levels))

double pow_int(double base, unsigned e) {
  double result = 1.0;
  while (e) {
    if (e & 1u) result *= base;
    base *= base;
    e >>= 1;
  }
  return result;
}

}  // namespace

double coordinate_density(double x, size_t dim) {
  const double s = 1.0 - x * x;
  if (dim == 2) return 1.0 / std::sqrt(s);  // arcsine law
  const size_t e = dim - 3;                 // exponent (dim - 3) / 2
  double w = pow_int(s, static_cast<unsigned>(e / 2));
  if (e % 2) w *= std::sqrt(s);
  return w;
}

// Beyond 8 standard deviations (1 / sqrt(dim) each) the density is below 1e-14 of its peak.
double coordinate_support(size_t dim) { return std::min(1.0, 8.0 / std::sqrt(double(dim))); }

static Codebook compute_lloyd_max_codebook(size_t dim, unsigned bits) {
  if (bits < 1 || bits > 8) throw Error(ErrorCode::InvalidArgument, "codebook bits must be 1..8");
  const int levels = 1 << bits;
  Codebook cb;
  if (dim == 1) {
    // A unit vector in R^1 is +-1: spread the levels evenly, both ends exact.
    for (int i = 0; i < levels; ++i) cb.centroids.push_back(float(-1.0 + 2.0 * i / (levels - 1)));
  } else {
    // Integrate over [-L, L] (coordinate_support).
    const double limit = coordinate_support(dim);
    const double step = 2.0 * limit / kGrid;
    std::vector<double> xs(kGrid), ws(kGrid);
    double total = 0.0;
    for (int i = 0; i < kGrid; ++i) {
      xs[i] = -limit + (i + 0.5) * step;  // cell centres never touch the endpoints
      ws[i] = coordinate_density(xs[i], dim);
      total += ws[i];
    }
    // Start from equal-probability cells.
    std::vector<double> c(levels);
    {
      double acc = 0.0, wsum = 0.0, xsum = 0.0;
      int level = 0;
      for (int i = 0; i < kGrid && level < levels; ++i) {
        acc += ws[i];
        wsum += ws[i];
        xsum += ws[i] * xs[i];
        if (acc >= total * (level + 1) / levels || i == kGrid - 1) {
          c[level++] = wsum > 0 ? xsum / wsum : xs[i];
          wsum = xsum = 0.0;
        }
      }
      for (; level < levels; ++level) c[level] = xs[kGrid - 1];
    }
    // Prefix sums of weight and weight * x make one Lloyd step O(levels): each cell's new
    // centroid is a difference of two prefix entries. Lloyd–Max converges slowly in the
    // tails, so iterate until the levels stop moving.
    std::vector<double> cum_w(kGrid + 1, 0.0), cum_wx(kGrid + 1, 0.0);
    for (int i = 0; i < kGrid; ++i) {
      cum_w[i + 1] = cum_w[i] + ws[i];
      cum_wx[i + 1] = cum_wx[i] + ws[i] * xs[i];
    }
    auto cells_below = [&](double t) {  // number of cell centres < t
      const double pos = std::ceil((t + limit) / step - 0.5);
      return pos <= 0 ? 0 : pos >= kGrid ? kGrid : int(pos);
    };
    for (int it = 0; it < kIterations; ++it) {
      double moved = 0.0;
      int lo = 0;
      for (int l = 0; l < levels; ++l) {
        const int hi = l + 1 < levels ? cells_below(0.5 * (c[l] + c[l + 1])) : kGrid;
        const double w = cum_w[hi] - cum_w[lo];
        if (w > 0) {
          const double next = (cum_wx[hi] - cum_wx[lo]) / w;
          moved = std::max(moved, std::fabs(next - c[l]));
          c[l] = next;
        }
        lo = hi;
      }
      if (moved < 1e-13 * limit) break;
    }
    for (int l = 0; l < levels; ++l) cb.centroids.push_back(float(c[l]));
  }
  for (int l = 0; l + 1 < levels; ++l) {
    cb.boundaries.push_back(0.5f * (cb.centroids[l] + cb.centroids[l + 1]));
  }
  return cb;
}

// The codebook depends on (dim, bits) only, and computing it integrates 65,536 cells until the
// levels settle: milliseconds that every load of a quantised file paid again (for a partitioned
// index, once per load; for a test that loads thousands of damaged files, most of its time).
// A few entries cover every index a process holds in practice; past the bound the cache starts
// over rather than growing without limit.
Codebook lloyd_max_codebook(size_t dim, unsigned bits) {
  static std::mutex mutex;
  static std::map<std::pair<size_t, unsigned>, Codebook> cache;
  constexpr size_t kMaxCached = 64;
  const std::pair<size_t, unsigned> key(dim, bits);
  {
    std::lock_guard<std::mutex> hold(mutex);
    const auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  Codebook computed = compute_lloyd_max_codebook(dim, bits);  // outside the lock: it takes a while
  std::lock_guard<std::mutex> hold(mutex);
  if (cache.size() >= kMaxCached) cache.clear();
  cache.emplace(key, computed);
  return computed;
}

}  // namespace quiver::quant
