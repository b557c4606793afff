// Internal: the sq8 codec of HnswIndex — how a vector becomes 8-bit codes and how two coded
// vectors give a distance. Not a public header (the scheme is described in
// quiver/hnsw_index.hpp, "Storage").
//
// A vector x is rotated by the index's seeded random orthogonal rotation R (quant/rotation.hpp,
// bit-identical on every target), then coded on its own: r = R x, and with its own scale a
//   c_i = 128 + round(r_i / a),  a = max_i |r_i| / 127,   so r_i ~ a (c_i - 128), c_i in 1..255.
// No statistic is shared between vectors, so a code depends only on its vector (never on
// which add() batch it came in, or in what order), and nothing can saturate. The rotation
// spreads every vector's energy evenly over the coordinates, so one scale per vector wastes
// few bits whatever the per-dimension spread of the data. Under cosine the scale is instead
// 1 / sqrt(sum (c_i - 128)^2): the decoded vector is unit length, like the vector it codes.
//
// A node's point is its codes (padded to 16 bytes) followed by a 16-byte record:
//   f32 a | u32 S = sum c_i | u32 Q = sum (c_i - 128)^2 | 4 zero bytes
// The distance between two points needs one exact integer kernel call, dot_u8(c, d), which
// gives the centred dot product D = sum (c_i - 128)(d_i - 128) = dot_u8 - 128 (S_c + S_d) +
// 16384 dim exactly; the rest is scalar double arithmetic in a fixed order (no contraction),
// the same on every ISA level and target:
//   l2      ||a_x u - a_y v||^2 = a_x^2 Q_x + a_y^2 Q_y - 2 a_x a_y D   (>= 0; 0 for equal points)
//   ip      -a_x a_y D
//   cosine  1 - a_x a_y D
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quant/rotation.hpp"
#include "quiver/metric.hpp"

namespace quiver::hnsw {

class Sq8Codec {
 public:
  static constexpr size_t kRecordBytes = 16;  // a, S, Q, zero

  Sq8Codec() = default;
  Sq8Codec(size_t dim, Metric metric, uint64_t seed);

  size_t dim() const noexcept { return dim_; }
  size_t code_bytes() const noexcept { return code_bytes_; }  // dim padded to 16
  size_t point_bytes() const noexcept { return code_bytes_ + kRecordBytes; }
  size_t scratch_floats() const noexcept { return 2 * dim_; }
  size_t memory_bytes() const noexcept;  // the rotation's tables

  // Codes x (dim finite floats within the shared norm bound, core/validate.hpp; unit length
  // under cosine) into `point` (point_bytes()). `scratch` holds scratch_floats(). Any finite
  // vector with a norm below 2^127 gets a finite scale; the bound keeps far below that.
  void encode(const float* x, uint8_t* point, float* scratch) const noexcept;

  // Loading a file: sets the record of a point whose codes are already written, from the
  // stored scale. Returns an empty string, or what makes the pair impossible (a scale that is
  // negative or not finite, zero with codes that are not all 128 or the reverse, codes that
  // do not span their scale — max |c - 128| must be 127 —, or under cosine a scale other
  // than the one the codes imply).
  std::string set_record(uint8_t* point, float scale) const noexcept;
  static float scale_of(const uint8_t* point, size_t code_bytes) noexcept;

  // Distance between two points; dot = dot_u8 of their codes over dim.
  float distance(const uint8_t* a, const uint8_t* b, uint32_t dot) const noexcept;

 private:
  void finish(uint8_t* point, float scale) const noexcept;  // S, Q from the codes; a
  size_t dim_ = 0;
  size_t code_bytes_ = 0;
  Metric metric_ = Metric::l2;
  quant::Rotation rotation_;
};

}  // namespace quiver::hnsw
