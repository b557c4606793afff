// A seeded random orthogonal transform in O(d log d): several rounds of
// (random permutation, random sign flips, Walsh–Hadamard transform). For a dimension d that is
// not a power of two, each round applies the size-b transform (b = largest power of two <= d)
// to the first b and then to the last b coordinates; the two overlap, so every coordinate is
// mixed, and each step is orthogonal, so the whole is. No padding: the codes cost exactly d
// coordinates for any d.
//
// Plain float arithmetic in a fixed order with FP contraction off: the same seed gives the
// same bits on every ISA and target (codes are byte-identical native and wasm).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace quiver::quant {

class Rotation {
 public:
  Rotation() = default;
  Rotation(size_t dim, uint64_t seed);

  size_t dim() const noexcept { return dim_; }

  // out = R * in. `scratch` must hold dim floats; in and out may alias.
  void apply(const float* in, float* out, float* scratch) const noexcept;

 private:
  static constexpr int kRounds = 3;
  size_t dim_ = 0;
  size_t block_ = 1;          // largest power of two <= dim
  float block_scale_ = 1.0f;  // 1 / sqrt(block_)
  std::vector<uint32_t> perm_[kRounds];
  std::vector<float> sign_[kRounds];
};

}  // namespace quiver::quant
