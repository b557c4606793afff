// Scalar kernels: the reference every SIMD kernel is tested against, and the path for CPUs
// and wasm engines without SIMD. Four independent accumulators give the CPU some
// instruction-level parallelism without reassociating anything the compiler must keep.
#include "simd/kernels.hpp"

namespace quiver::simd {
namespace {

float l2sq_f32_scalar(const float* a, const float* b, size_t d) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    const float d0 = a[i] - b[i], d1 = a[i + 1] - b[i + 1];
    const float d2 = a[i + 2] - b[i + 2], d3 = a[i + 3] - b[i + 3];
    s0 += d0 * d0;
    s1 += d1 * d1;
    s2 += d2 * d2;
    s3 += d3 * d3;
  }
  for (; i < d; ++i) {
    const float diff = a[i] - b[i];
    s0 += diff * diff;
  }
  return (s0 + s1) + (s2 + s3);
}

float dot_f32_scalar(const float* a, const float* b, size_t d) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < d; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

float cos_f32_scalar(const float* a, const float* b, size_t d) {
  float dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < d; ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return cosine_from_parts(dot, na, nb);
}

// u8 codes: exact integer sums (the reference for every ISA level).
uint32_t l2sq_u8_scalar(const uint8_t* a, const uint8_t* b, size_t d) {
  uint32_t s = 0;
  for (size_t i = 0; i < d; ++i) {
    const int32_t diff = int32_t(a[i]) - int32_t(b[i]);
    s += uint32_t(diff * diff);
  }
  return s;
}

uint32_t dot_u8_scalar(const uint8_t* a, const uint8_t* b, size_t d) {
  uint32_t s = 0;
  for (size_t i = 0; i < d; ++i) s += uint32_t(a[i]) * uint32_t(b[i]);
  return s;
}

// The reference of dot_f32_columns: one running sum per row and column, i ascending.
void dot_f32_columns_scalar(const float* x, size_t rows, size_t x_stride, const float* cols, size_t width, size_t d,
                            float* out) {
  for (size_t r = 0; r < rows; ++r) {
    float* o = out + r * width;
    for (size_t j = 0; j < width; ++j) o[j] = 0.0f;
    for (size_t i = 0; i < d; ++i) {
      const float xi = x[r * x_stride + i];
      const float* c = cols + i * width;
      for (size_t j = 0; j < width; ++j) o[j] += xi * c[j];
    }
  }
}

}  // namespace

KernelTable scalar_kernels() noexcept {
  return {Isa::scalar,
          l2sq_f32_scalar,
          dot_f32_scalar,
          cos_f32_scalar,
          score_rows<l2sq_f32_scalar>,
          score_rows<dot_f32_scalar>,
          score_rows<cos_f32_scalar>,
          l2sq_u8_scalar,
          dot_u8_scalar,
          gather_rows_u8<dot_u8_scalar>,
          dot_f32_columns_scalar};
}

}  // namespace quiver::simd
