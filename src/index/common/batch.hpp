// search_batch's rows, one way for every kind. A kind's search_batch validates in the spine's
// order — k, the shared parameters, then under its read lock an empty index, its own rules
// (rerank depth, ...), the queries — and hands run_batch() a function that searches a few
// consecutive queries; run_batch spreads those tasks over the process pool (or runs them inline
// for a small batch), and pads every row the search left short (a filter) with explicit
// "no result" entries (quiver/neighbor.hpp), never stale data. Output rows are disjoint and each
// task runs what search() runs, so the rows equal single searches.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "parallel/thread_pool.hpp"
#include "quiver/neighbor.hpp"

namespace quiver::index {

inline constexpr size_t kMaxQueriesPerTask = 8;

// run(first, n, counts): searches queries [first, first + n) (n <= per_task <= 8), writing each
// one's row at out + q * k and its result count to counts[q - first]. kk = min(k, size): every
// row is kk entries long once padded.
template <class Run>
void run_batch(size_t nq, size_t k, size_t kk, size_t per_task, bool small, Neighbor* out, Run&& run) {
  const size_t tasks = (nq + per_task - 1) / per_task;
  const auto task = [&](size_t t) {
    const size_t first = t * per_task, n = std::min(per_task, nq - first);
    size_t counts[kMaxQueriesPerTask];
    run(first, n, counts);
    for (size_t i = 0; i < n; ++i) {
      Neighbor* row = out + (first + i) * k;
      for (size_t j = counts[i]; j < kk; ++j) row[j] = Neighbor{kNoId, INFINITY};
    }
  };
  if (small || tasks < 2) {
    for (size_t t = 0; t < tasks; ++t) task(t);
  } else {
    // The pool's workers run under the caller's shared lock (the call returns when they are done).
    parallel::process_pool().parallel_for(tasks, [&](size_t t, size_t) { task(t); });
  }
}

}  // namespace quiver::index
