// Portable deterministic randomness: the same seed gives the same bits on every compiler,
// standard library and target (std::normal_distribution does not).
#pragma once

#include <cstdint>

namespace quiver::core {

// splitmix64: expands a seed into generator state.
inline uint64_t splitmix64(uint64_t& state) noexcept {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman & Vigna).
class Rng {
 public:
  explicit Rng(uint64_t seed) noexcept {
    for (auto& word : s_) word = splitmix64(seed);
  }

  uint64_t next() noexcept {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Standard normal by Marsaglia's polar method, using portable_log (no libm).
  double normal() noexcept;

 private:
  static uint64_t rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// Natural logarithm of x > 0 from exact IEEE operations only (frexp, +, *, /), so it is the
// same on every target. Accurate to a few ulp, which is all a sampler needs.
double portable_log(double x) noexcept;

}  // namespace quiver::core
