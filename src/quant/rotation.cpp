#include "quant/rotation.hpp"

#include <cmath>
#include <cstring>
#include <utility>

#include "base/rng.hpp"

namespace quiver::quant {
namespace {

// One butterfly stage on two disjoint halves; restrict lets the compiler vectorise it (the
// lanes do the same adds and subtracts, so the bits do not change).
void butterfly(float* __restrict lo, float* __restrict hi, size_t h) noexcept {
  for (size_t j = 0; j < h; ++j) {
    const float a = lo[j], b = hi[j];
    lo[j] = a + b;
    hi[j] = a - b;
  }
}

// In-place unnormalised fast Walsh–Hadamard transform of n = 2^k values.
void fwht(float* x, size_t n) noexcept {
  for (size_t h = 1; h < n; h *= 2) {
    for (size_t i = 0; i < n; i += 2 * h) butterfly(x + i, x + i + h, h);
  }
}

}  // namespace

Rotation::Rotation(size_t dim, uint64_t seed) : dim_(dim) {
  while (block_ * 2 <= dim) block_ *= 2;
  block_scale_ = static_cast<float>(1.0 / std::sqrt(double(block_)));
  core::Rng rng(seed ^ 0x51c0ffee5eedULL);
  for (int r = 0; r < kRounds; ++r) {
    perm_[r].resize(dim);
    for (size_t i = 0; i < dim; ++i) perm_[r][i] = uint32_t(i);
    for (size_t i = dim; i > 1; --i) {  // Fisher–Yates with an unbiased bounded draw
      const uint64_t bound = i;
      const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
      uint64_t v;
      do v = rng.next();
      while (v >= limit);
      std::swap(perm_[r][i - 1], perm_[r][v % bound]);
    }
    sign_[r].resize(dim);
    for (size_t i = 0; i < dim; ++i) sign_[r][i] = (rng.next() >> 63) ? -1.0f : 1.0f;
  }
}

void Rotation::apply(const float* in, float* out, float* scratch) const noexcept {
  if (in != out) std::memcpy(out, in, dim_ * sizeof(float));
  for (int r = 0; r < kRounds; ++r) {
    for (size_t i = 0; i < dim_; ++i) scratch[i] = out[perm_[r][i]] * sign_[r][i];
    fwht(scratch, block_);
    for (size_t i = 0; i < block_; ++i) scratch[i] *= block_scale_;
    if (block_ < dim_) {
      float* tail = scratch + (dim_ - block_);
      fwht(tail, block_);
      for (size_t i = 0; i < block_; ++i) tail[i] *= block_scale_;
    }
    std::memcpy(out, scratch, dim_ * sizeof(float));
  }
}

}  // namespace quiver::quant
