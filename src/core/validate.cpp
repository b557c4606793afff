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

}  // namespace quiver::core
