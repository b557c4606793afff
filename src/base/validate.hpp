// Argument checks shared by every index. Each throws quiver::Error with a message that says
// which row or id was wrong, before anything is changed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quiver/metric.hpp"

namespace quiver::core {

// The id no index accepts: it marks free slots, tombstones and padded result rows.
inline constexpr uint64_t kReservedId = UINT64_MAX;

// Largest squared L2 norm (summed in double) a vector or query may have under l2 and ip:
// 2^100, a norm of 2^50 (about 1.1e15). Why this bound: every distance between accepted
// vectors stays far inside float. Exact l2 is at most |a|^2 + 2|a||b| + |b|^2 <= 2^102, inner
// products at most 2^100, and the quantised estimates, which scale a code score by up to
// about 2^11 |x| (1 / the smallest <unit, reconstruction> at dim 2^20), stay below 2^115;
// float ends at 2^128, so even the worst rounding of a 2^24-term sum cannot reach infinity.
// Under cosine every vector and query is normalised in double before any float arithmetic,
// so there is no bound (only finite values and not all zero).
inline constexpr double kMaxSquaredNorm = 0x1p100;

// How far a stored cosine row's squared norm may be from 1 in an index file (rows are
// normalised in double and rounded to float per coordinate, which is off by ~1e-7).
inline constexpr double kUnitNormTolerance = 1e-4;

// Every value of rows x dim floats is finite (Error NonFinite); under l2 and ip each row's
// squared norm is at most kMaxSquaredNorm (NonFinite, the message says why); under cosine no
// row is all zeros (InvalidArgument). The one check every index kind runs on what it adds and
// on every query.
void check_vectors(const float* data, size_t rows, size_t dim, Metric metric, const char* what);

// Rows as an index stores them (index files, FlatIndex::add_stored): check_vectors, and under
// cosine each row's squared norm within kUnitNormTolerance of 1 (InvalidArgument).
void check_stored_vectors(const float* data, size_t rows, size_t dim, Metric metric, const char* what);

// An add of `adding` vectors to an index whose slot array holds `used` must stay within
// `max_slots` (the 32-bit slot numbers). Checked before any row or id is read. Throws
// InvalidArgument "a <kind> index holds at most <max_slots> vectors".
void check_slot_limit(size_t used, size_t adding, size_t max_slots, const char* kind);

void check_k(size_t k);

// A row-major batch of `floats` values holds exactly `rows` vectors of `dim`.
void check_batch_shape(size_t rows, size_t floats, size_t dim);

// A query of `values` floats for an index of dimension `dim`.
void check_query_size(size_t values, size_t dim);

// Ids about to be added: none is kReservedId (InvalidArgument), none already in `present`
// (anything with count(id)), none repeated (DuplicateId).
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
    if (ids[i] == kReservedId) {
      throw Error(ErrorCode::InvalidArgument, "id 18446744073709551615 is reserved");
    }
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
