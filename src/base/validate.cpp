#include "base/validate.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "quiver/error.hpp"

namespace quiver::core {

namespace {

std::string short_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Checks one row and returns its squared norm (in double).
double check_row(const float* row, size_t r, size_t dim, Metric metric, const char* what) {
  double norm2 = 0.0;
  for (size_t i = 0; i < dim; ++i) {
    if (!std::isfinite(row[i])) {
      throw Error(ErrorCode::NonFinite, std::string(what) + " row " + std::to_string(r) +
                                            " has a non-finite value at position " + std::to_string(i));
    }
    norm2 += double(row[i]) * double(row[i]);
  }
  if (metric == Metric::cosine) {
    if (norm2 == 0.0) {  // a float square never underflows in double: 0 means all zeros
      throw Error(ErrorCode::InvalidArgument, std::string(what) + " row " + std::to_string(r) +
                                                  " is all zeros, which has no direction under the cosine metric");
    }
  } else if (!(norm2 <= kMaxSquaredNorm)) {
    throw Error(ErrorCode::NonFinite,
                std::string(what) + " row " + std::to_string(r) + " has squared norm " + short_double(norm2) +
                    ", above the limit 2^100 (about 1.27e30): distances to it could overflow float "
                    "and become infinite");
  }
  return norm2;
}

}  // namespace

void check_vectors(const float* data, size_t rows, size_t dim, Metric metric, const char* what) {
  if (rows > 0 && data == nullptr) {
    throw Error(ErrorCode::InvalidArgument, std::string(what) + " is null");
  }
  for (size_t r = 0; r < rows; ++r) check_row(data + r * dim, r, dim, metric, what);
}

void check_stored_vectors(const float* data, size_t rows, size_t dim, Metric metric, const char* what) {
  if (rows > 0 && data == nullptr) {
    throw Error(ErrorCode::InvalidArgument, std::string(what) + " is null");
  }
  for (size_t r = 0; r < rows; ++r) {
    const double norm2 = check_row(data + r * dim, r, dim, metric, what);
    if (metric == Metric::cosine && !(std::fabs(norm2 - 1.0) <= kUnitNormTolerance)) {
      throw Error(ErrorCode::InvalidArgument, std::string(what) + " row " + std::to_string(r) + " has squared norm " +
                                                  short_double(norm2) +
                                                  ", but rows of a cosine index are stored with unit length");
    }
  }
}

void check_slot_limit(size_t used, size_t adding, size_t max_slots, const char* kind) {
  if (adding > max_slots || used > max_slots - adding) {
    throw Error(ErrorCode::InvalidArgument,
                std::string("a ") + kind + " index holds at most " + std::to_string(max_slots) + " vectors");
  }
}

void check_k(size_t k) {
  if (k == 0) throw Error(ErrorCode::InvalidK, "k must be at least 1");
}

void check_batch_shape(size_t rows, size_t floats, size_t dim) {
  if (floats != rows * dim) {
    throw Error(ErrorCode::DimensionMismatch, "expected " + std::to_string(rows) + " x " + std::to_string(dim) + " = " +
                                                  std::to_string(rows * dim) + " floats, got " +
                                                  std::to_string(floats));
  }
}

void check_query_size(size_t values, size_t dim) {
  if (values != dim) {
    throw Error(ErrorCode::DimensionMismatch,
                "query has " + std::to_string(values) + " values, the index dimension is " + std::to_string(dim));
  }
}

}  // namespace quiver::core
