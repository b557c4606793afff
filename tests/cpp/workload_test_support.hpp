// Helpers shared by the suites that measure an index against exact search: a small workload
// (base rows with ids, queries), the exact top-k by the flat index, and recall@k.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver::test {

// Targets where a test runs several times slower than natively: sanitizer builds (about 7x),
// aarch64 under qemu-user, wasm without SIMD. Suites that measure recall over many searches
// run fewer of them there (the floors stay the same).
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || defined(__aarch64__) || \
    (defined(__EMSCRIPTEN__) && !defined(__wasm_simd128__))
inline constexpr bool kSlowTarget = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
inline constexpr bool kSlowTarget = true;
#else
inline constexpr bool kSlowTarget = false;
#endif
#else
inline constexpr bool kSlowTarget = false;
#endif

// n base rows and their ids, and queries, all of dimension dim.
struct Workload {
  size_t n, dim;
  std::vector<float> base, queries;
  std::vector<uint64_t> ids;
  size_t nq() const { return queries.size() / dim; }
};

// ids[i] = i * id_step + id_offset: spaced, so that a test confusing a row's id with its
// position fails.
inline Workload with_ids(size_t n, size_t dim, std::vector<float> base, std::vector<float> queries, uint64_t id_step,
                         uint64_t id_offset) {
  Workload d{n, dim, std::move(base), std::move(queries), {}};
  d.ids.reserve(n);
  for (size_t i = 0; i < n; ++i) d.ids.push_back(i * id_step + id_offset);
  return d;
}

// Unit Gaussian rows (seed 42) and queries (seed 13): the seed workload's generator.
inline Workload gaussian_workload(size_t n, size_t nq, size_t dim, uint64_t id_step, uint64_t id_offset) {
  return with_ids(n, dim, unit_gaussian_vectors(n, dim, 42), unit_gaussian_vectors(nq, dim, 13), id_step, id_offset);
}

// The clustered workload at test size: `clusters` mixture components (seed 42), rows drawn with
// seed 43 and queries with seed 13 from the same mixture.
inline Workload clustered_workload(size_t n, size_t nq, size_t dim, size_t clusters, uint64_t id_step,
                                   uint64_t id_offset) {
  return with_ids(n, dim, clustered_vectors(n, dim, clusters, 42, 43), clustered_vectors(nq, dim, clusters, 42, 13),
                  id_step, id_offset);
}

// Exact top-k of the first nq queries (every query by default), k-wide rows, by the flat index.
inline std::vector<Neighbor> exact_top_k(const Workload& d, Metric metric, size_t k,
                                         size_t nq = std::numeric_limits<size_t>::max()) {
  nq = std::min(nq, d.nq());
  FlatIndex flat({d.dim, metric});
  flat.add(d.ids, d.base);
  std::vector<Neighbor> out(nq * k);
  flat.search_batch(d.queries.data(), nq, k, out.data());
  return out;
}

// recall@k of k-wide result rows against the exact rows: the share of each query's true k
// nearest ids that came back, over the truth.size() / k queries.
inline double recall_at_k(const std::vector<Neighbor>& got, const std::vector<Neighbor>& truth, size_t k) {
  const size_t nq = truth.size() / k;
  size_t hit = 0;
  for (size_t q = 0; q < nq; ++q) {
    std::set<uint64_t> want;
    for (size_t j = 0; j < k; ++j) want.insert(truth[q * k + j].id);
    for (size_t j = 0; j < k; ++j) hit += want.count(got[q * k + j].id);
  }
  return double(hit) / double(nq * k);
}

}  // namespace quiver::test
