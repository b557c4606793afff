// Argument checks shared by every index. Each throws quiver::Error with a message that says
// which row or id was wrong, before anything is changed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quiver/metric.hpp"

namespace quiver::core {

// Every value of rows x dim floats is finite; under cosine no row is all zeros.
void check_vectors(const float* data, size_t rows, size_t dim, Metric metric, const char* what);

void check_k(size_t k);

}  // namespace quiver::core
