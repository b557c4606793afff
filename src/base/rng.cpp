#include "base/rng.hpp"

#include <cmath>

namespace quiver::core {

double portable_log(double x) noexcept {
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // x = m * 2^exponent, m in [0.5, 1): exact
  if (m < 0.70710678118654752440) {     // centre m on 1 so the series converges fast
    m *= 2.0;
    exponent -= 1;
  }
  // ln(m) = 2 atanh(r) with r = (m - 1) / (m + 1), |r| < 0.172; 11 odd terms reach < 1e-17.
  const double r = (m - 1.0) / (m + 1.0);
  const double r2 = r * r;
  double term = r;
  double sum = 0.0;
  for (int n = 1; n <= 21; n += 2) {
    sum += term / n;
    term *= r2;
  }
  return 2.0 * sum + exponent * 0.69314718055994530942;
}

double Rng::normal() noexcept {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double scale = std::sqrt(-2.0 * portable_log(s) / s);  // sqrt is correctly rounded
  spare_ = v * scale;
  has_spare_ = true;
  return u * scale;
}

}  // namespace quiver::core
