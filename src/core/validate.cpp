#include "core/validate.hpp"

#include <cmath>
#include <string>

#include "quiver/error.hpp"

namespace quiver::core {

void check_vectors(const float* data, size_t rows, size_t dim, Metric metric, const char* what) {
  if (rows > 0 && data == nullptr) {
    throw Error(ErrorCode::InvalidArgument, std::string(what) + " is null");
  }
  for (size_t r = 0; r < rows; ++r) {
    const float* row = data + r * dim;
    bool all_zero = true;
    for (size_t i = 0; i < dim; ++i) {
      if (!std::isfinite(row[i])) {
        throw Error(ErrorCode::NonFinite, std::string(what) + " row " + std::to_string(r) +
                                              " has a non-finite value at position " +
                                              std::to_string(i));
      }
      all_zero = all_zero && row[i] == 0.0f;
    }
    if (metric == Metric::cosine && all_zero) {
      throw Error(ErrorCode::InvalidArgument,
                  std::string(what) + " row " + std::to_string(r) +
                      " is all zeros, which has no direction under the cosine metric");
    }
  }
}

void check_k(size_t k) {
  if (k == 0) throw Error(ErrorCode::InvalidK, "k must be at least 1");
}

void check_batch_shape(size_t rows, size_t floats, size_t dim) {
  if (floats != rows * dim) {
    throw Error(ErrorCode::DimensionMismatch,
                "expected " + std::to_string(rows) + " x " + std::to_string(dim) + " = " +
                    std::to_string(rows * dim) + " floats, got " + std::to_string(floats));
  }
}

void check_query_size(size_t values, size_t dim) {
  if (values != dim) {
    throw Error(ErrorCode::DimensionMismatch, "query has " + std::to_string(values) +
                                                  " values, the index dimension is " +
                                                  std::to_string(dim));
  }
}

}  // namespace quiver::core
