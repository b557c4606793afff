// The HNSW sq8 codec (scheme in hnsw_sq8.hpp). Everything here is plain scalar arithmetic in
// a fixed order, compiled without FP contraction, so codes and distances are the same bits on
// every ISA level and target; the only kernel (dot_u8) returns an exact integer.
#include "index/hnsw/hnsw_sq8.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace quiver::hnsw {
namespace {

struct Record {
  float a;
  uint32_t sum;     // S = sum c_i
  uint32_t square;  // Q = sum (c_i - 128)^2
};

Record read_record(const uint8_t* point, size_t code_bytes) noexcept {
  Record r;
  std::memcpy(&r.a, point + code_bytes, 4);
  std::memcpy(&r.sum, point + code_bytes + 4, 4);
  std::memcpy(&r.square, point + code_bytes + 8, 4);
  return r;
}

// The cosine scale of codes with centred square sum Q: the decoded vector has unit length.
float unit_scale(uint32_t square) noexcept { return float(1.0 / std::sqrt(double(square))); }

}  // namespace

Sq8Codec::Sq8Codec(size_t dim, Metric metric, uint64_t seed)
    : dim_(dim), code_bytes_((dim + 15) / 16 * 16), metric_(metric), rotation_(dim, seed) {}

size_t Sq8Codec::memory_bytes() const noexcept { return dim_ * 3 * (sizeof(uint32_t) + sizeof(float)); }

void Sq8Codec::encode(const float* x, uint8_t* point, float* scratch) const noexcept {
  float* r = scratch;
  float* tmp = scratch + dim_;
  std::memset(point, 0, point_bytes());
  float largest = 0.0f;
  for (size_t i = 0; i < dim_; ++i) largest = std::max(largest, std::fabs(x[i]));
  int e = 0;
  if (largest > 0.0f) std::frexp(largest, &e);
  // A very large or very small vector is first brought near unit size by an exact power of
  // two, so the rotation can neither overflow nor sink into subnormals. The scaling commutes
  // with every rounding below, so the codes are the ones the vector would get without it.
  if (e > 32 || e < -32) {
    for (size_t i = 0; i < dim_; ++i) r[i] = std::ldexp(x[i], -e);
  } else {
    e = 0;
    std::memcpy(r, x, dim_ * sizeof(float));
  }
  rotation_.apply(r, r, tmp);
  float m = 0.0f;
  for (size_t i = 0; i < dim_; ++i) m = std::max(m, std::fabs(r[i]));
  const float step = m / 127.0f;
  float scale = metric_ == Metric::cosine ? 1.0f : std::ldexp(step, e);
  if (!(step > 0.0f) || !(scale > 0.0f)) {  // the zero vector (or one too small for a float scale)
    std::memset(point, 128, dim_);
    finish(point, 0.0f);
    return;
  }
  for (size_t i = 0; i < dim_; ++i) {
    const float t = std::min(127.0f, std::max(-127.0f, std::nearbyint(r[i] / step)));
    point[i] = uint8_t(int(t) + 128);
  }
  finish(point, scale);
}

void Sq8Codec::finish(uint8_t* point, float scale) const noexcept {
  uint32_t sum = 0, square = 0;
  for (size_t i = 0; i < dim_; ++i) {
    const int32_t u = int32_t(point[i]) - 128;
    sum += point[i];
    square += uint32_t(u * u);
  }
  if (metric_ == Metric::cosine) scale = square == 0 ? 0.0f : unit_scale(square);
  std::memcpy(point + code_bytes_, &scale, 4);
  std::memcpy(point + code_bytes_ + 4, &sum, 4);
  std::memcpy(point + code_bytes_ + 8, &square, 4);
  std::memset(point + code_bytes_ + 12, 0, 4);
}

std::string Sq8Codec::set_record(uint8_t* point, float scale) const noexcept {
  uint32_t square = 0;
  int widest = 0;
  for (size_t i = 0; i < dim_; ++i) {
    const int32_t u = int32_t(point[i]) - 128;
    square += uint32_t(u * u);
    widest = std::max(widest, u < 0 ? -u : u);
  }
  if (!std::isfinite(scale) || std::signbit(scale)) return "an sq8 scale is negative or not finite";
  if (metric_ == Metric::cosine) {
    if (square == 0) return "sq8 codes of a cosine index code the zero vector";
    if (scale != unit_scale(square)) return "an sq8 scale is not the one its codes imply under cosine";
  } else if ((scale == 0.0f) != (square == 0)) {
    return "an sq8 scale is zero but its codes are not (or the reverse)";
  }
  if (square != 0 && widest != 127) return "sq8 codes do not span their scale (max |code - 128| must be 127)";
  finish(point, scale);
  return {};
}

float Sq8Codec::scale_of(const uint8_t* point, size_t code_bytes) noexcept { return read_record(point, code_bytes).a; }

float Sq8Codec::distance(const uint8_t* a, const uint8_t* b, uint32_t dot) const noexcept {
  const Record x = read_record(a, code_bytes_), y = read_record(b, code_bytes_);
  // Centred code dot product, exact: |D| <= 127^2 dim < 2^31 for dim <= 65536 (int64 anyway).
  const int64_t centred = int64_t(dot) - 128 * (int64_t(x.sum) + int64_t(y.sum)) + 16384 * int64_t(dim_);
  const double ax = x.a, ay = y.a, d = double(centred);
  if (metric_ == Metric::l2) {
    // Equal points give exactly 0: (2 ax ay) D rounds to twice ax^2 Q.
    const double v = ax * ax * double(x.square) + ay * ay * double(y.square) - 2.0 * ax * ay * d;
    return v > 0.0 ? float(v) : 0.0f;
  }
  const double dot_xy = ax * ay * d;
  return metric_ == Metric::ip ? float(-dot_xy) : float(1.0 - dot_xy);
}

}  // namespace quiver::hnsw
