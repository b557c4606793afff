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

// A row-major batch of `floats` values holds exactly `rows` vectors of `dim`.
void check_batch_shape(size_t rows, size_t floats, size_t dim);

// A query of `values` floats for an index of dimension `dim`.
void check_query_size(size_t values, size_t dim);

// Ids about to be added: none already in `present` (anything with count(id)), none repeated.
template <typename Present>
void check_new_ids(const Present& present, const uint64_t* ids, size_t n);

// Ids about to be removed: all in `present`, none repeated.
template <typename Present>
void check_known_ids(const Present& present, const uint64_t* ids, size_t n);

}  // namespace quiver::core

#include <string>
#include <unordered_set>

#include "quiver/error.hpp"

namespace quiver::core {

template <typename Present>
void check_new_ids(const Present& present, const uint64_t* ids, size_t n) {
  if (n > 0 && ids == nullptr) throw Error(ErrorCode::InvalidArgument, "ids is null");
  std::unordered_set<uint64_t> batch;
  batch.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (present.count(ids[i]) != 0) {
      throw Error(ErrorCode::DuplicateId, "id " + std::to_string(ids[i]) + " is already in the index");
    }
    if (!batch.insert(ids[i]).second) {
      throw Error(ErrorCode::DuplicateId, "id " + std::to_string(ids[i]) + " appears twice in one add");
    }
  }
}

template <typename Present>
void check_known_ids(const Present& present, const uint64_t* ids, size_t n) {
  if (n > 0 && ids == nullptr) throw Error(ErrorCode::InvalidArgument, "ids is null");
  std::unordered_set<uint64_t> batch;
  batch.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (present.count(ids[i]) == 0) {
      throw Error(ErrorCode::UnknownId, "id " + std::to_string(ids[i]) + " is not in the index");
    }
    if (!batch.insert(ids[i]).second) {
      throw Error(ErrorCode::DuplicateId, "id " + std::to_string(ids[i]) + " appears twice in one remove");
    }
  }
}

}  // namespace quiver::core
