// Helpers shared by the quantised index suites (plain, partitioned, refine plane, allocation
// counts): their options and batch search over a test workload (workload_test_support.hpp).
#pragma once

#include <vector>

#include <gtest/gtest.h>

#include "quiver/quiver.hpp"
#include "workload_test_support.hpp"

namespace quiver::test {

// Options with the suites' fixed rotation seed (42); lists 0 is unpartitioned, refine_bits 0
// no refine plane.
inline QuantizedIndexOptions quantized_options(size_t dim, Metric metric, unsigned bits, bool keep_vectors,
                                               size_t lists = 0, unsigned refine_bits = 0) {
  QuantizedIndexOptions o;
  o.dim = dim;
  o.metric = metric;
  o.bits = bits;
  o.seed = 42;
  o.keep_vectors = keep_vectors;
  o.lists = lists;
  o.refine_bits = refine_bits;
  return o;
}

// The first nq queries of d through search_batch: nq rows of k.
inline std::vector<Neighbor> batch_top_k(const QuantizedIndex& index, const Workload& d, size_t nq, size_t k,
                                         const QuantizedSearchParams& p = {}) {
  std::vector<Neighbor> out(nq * k);
  index.search_batch(d.queries.data(), nq, k, out.data(), p);
  return out;
}

inline QuantizedSearchParams rerank_depth(size_t r) {
  QuantizedSearchParams p;
  p.rerank = r;
  return p;
}

// The same rows, to the bit: ids and distances.
inline void expect_same_rows(const std::vector<Neighbor>& a, const std::vector<Neighbor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id) << "row entry " << i;
    EXPECT_EQ(a[i].distance, b[i].distance) << "row entry " << i;
  }
}

}  // namespace quiver::test
