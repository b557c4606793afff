// Helpers shared by the HNSW suites: small clustered / Gaussian workloads, exact search over
// a subset, batch search and recall@k.
#pragma once

#include <string>
#include <vector>

#include "quiver/quiver.hpp"
#include "workload_test_support.hpp"

namespace quiver::hnsw_test {

// Sanitizer builds run about ten times slower: they use a third of the vectors (recall only
// gets easier), so the whole suite stays quick there too.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr size_t kScale = 3;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
inline constexpr size_t kScale = 3;
#else
inline constexpr size_t kScale = 1;
#endif
#else
inline constexpr size_t kScale = 1;
#endif

using Data = test::Workload;

inline Data clustered(size_t n, size_t nq, size_t dim) { return test::clustered_workload(n, nq, dim, 16, 7, 3); }

inline Data gaussian(size_t n, size_t nq, size_t dim) { return test::gaussian_workload(n, nq, dim, 7, 3); }

// The recall suites' named workloads: "clustered" (easy for graphs), "seed" (the seed
// workload's distribution: unit Gaussian, dim 384, at a test-sized count), else Gaussian dim 32.
inline Data recall_workload(const std::string& name) {
  return name == "clustered" ? clustered(3000 / kScale, 100, 48)
         : name == "seed"    ? gaussian(2000 / kScale, 50, 384)
                             : gaussian(3000 / kScale, 100, 32);
}

// One case of a recall suite: a recall_workload() name, the metric, and the ef it is searched at.
struct RecallCase {
  const char* workload;
  Metric metric;
  size_t ef;
};

inline size_t nq_of(const Data& d) { return d.queries.size() / d.dim; }

// Exact top-k of every query over the rows of d whose index is in `keep` (all if empty).
inline std::vector<Neighbor> exact(const Data& d, Metric metric, size_t k, const std::vector<size_t>& keep = {}) {
  FlatIndex flat({d.dim, metric});
  if (keep.empty()) {
    flat.add(d.ids, d.base);
  } else {
    for (size_t i : keep) flat.add(&d.ids[i], &d.base[i * d.dim], 1);
  }
  std::vector<Neighbor> out(nq_of(d) * k);
  flat.search_batch(d.queries.data(), nq_of(d), k, out.data());
  return out;
}

inline std::vector<Neighbor> run(const HnswIndex& index, const Data& d, size_t k, const HnswSearchParams& p = {}) {
  std::vector<Neighbor> out(nq_of(d) * k);
  index.search_batch(d.queries.data(), nq_of(d), k, out.data(), p);
  return out;
}

inline double recall(const std::vector<Neighbor>& got, const std::vector<Neighbor>& truth, size_t k) {
  return test::recall_at_k(got, truth, k);
}

inline HnswSearchParams ef(size_t value) {
  HnswSearchParams p;
  p.ef = value;
  return p;
}

}  // namespace quiver::hnsw_test
