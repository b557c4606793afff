// Shared by the recall/QPS benchmarks (quantized_bench.cpp, hnsw_bench.cpp, ivf_bench.cpp,
// refine_recall.cpp, each in its suite's folder): knobs from the environment, the seed and
// clustered workloads with exact ground truth, recall@k, and a timed single-thread query loop
// with latency percentiles. Header-only; native and wasm.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver::bench {

using clock_type = std::chrono::steady_clock;

inline std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

inline std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

inline double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

inline constexpr size_t kK = 10;

struct Workload {
  std::string name;
  size_t n, nq, dim;
  Metric metric;
  std::vector<float> base, queries;
  std::vector<uint64_t> ids;
  std::vector<Neighbor> truth;  // nq x kK, exact
};

// "seed": unit Gaussian, 10,000 rows (seed 42) and queries (seed 13). "clustered": the Gaussian
// mixture, 100,000 rows. "embedding": the embedding-like workload (quiver/workload.hpp: 1,000
// topics, mixture seed 42, base seed 43, query seed 13), 100,000 rows. QUIVER_BENCH_ROWS / _QUERIES / _DIM override the
// sizes. The ground truth is the exact flat index at the best ISA level.
inline Workload make_workload(const std::string& name, Metric metric) {
  Workload w;
  w.name = name;
  w.metric = metric;
  w.dim = std::strtoul(env("QUIVER_BENCH_DIM", "384").c_str(), nullptr, 10);
  const bool seed = name == "seed";
  w.n = std::strtoul(env("QUIVER_BENCH_ROWS", seed ? "10000" : "100000").c_str(), nullptr, 10);
  w.nq = std::strtoul(env("QUIVER_BENCH_QUERIES", "256").c_str(), nullptr, 10);
  if (seed) {
    w.base = unit_gaussian_vectors(w.n, w.dim, 42);
    w.queries = unit_gaussian_vectors(w.nq, w.dim, 13);
  } else if (name == "embedding") {
    w.base = embedding_like_vectors(w.n, w.dim, 1000, 42, 43);
    w.queries = embedding_like_vectors(w.nq, w.dim, 1000, 42, 13, EmbeddingRole::query);
  } else {
    w.base = clustered_vectors(w.n, w.dim, 64, 42, 43);
    w.queries = clustered_vectors(w.nq, w.dim, 64, 42, 13);
  }
  w.ids.resize(w.n);
  for (size_t i = 0; i < w.n; ++i) w.ids[i] = i;
  FlatIndex flat({w.dim, metric}, best_isa());
  flat.add(w.ids, w.base);
  w.truth.resize(w.nq * kK);
  flat.search_batch(w.queries.data(), w.nq, kK, w.truth.data());
  return w;
}

inline double recall(const Workload& w, const std::vector<Neighbor>& got) {
  size_t hit = 0;
  for (size_t q = 0; q < w.nq; ++q) {
    std::set<uint64_t> want;
    for (size_t j = 0; j < kK; ++j) want.insert(w.truth[q * kK + j].id);
    for (size_t j = 0; j < kK; ++j) hit += want.count(got[q * kK + j].id);
  }
  return double(hit) / double(w.nq * kK);
}

struct Timing {
  double qps, mean_us, p99_us;
  std::vector<double> passes_qps;  // one figure per pass over the query set, in order
};

// Passes over the query set a QPS figure takes at least: the runners compare them
// (bench/common/steady-state.mjs) to tell a steady figure from one that includes a warm-up —
// in wasm, V8 runs code first as Liftoff and switches to TurboFan only once it is hot.
inline constexpr size_t kMinPasses = 3;

// Single-thread query loop over the query set, repeated for at least min_seconds and
// kMinPasses passes (one pass when min_seconds is 0: the caller wants no more than one, e.g. an
// exact scan); each query is timed on its own for the latency percentiles.
template <typename SearchOne>
Timing time_queries(const Workload& w, double min_seconds, SearchOne&& search_one) {
  std::vector<double> lat;
  lat.reserve(1 << 16);
  std::vector<double> passes;
  const size_t min_passes = min_seconds > 0 ? kMinPasses : 1;
  const auto start = clock_type::now();
  size_t done = 0;
  do {
    const auto pass_start = clock_type::now();
    for (size_t q = 0; q < w.nq; ++q) {
      const auto t = clock_type::now();
      search_one(q);
      lat.push_back(seconds_since(t) * 1e6);
    }
    passes.push_back(double(w.nq) / seconds_since(pass_start));
    done += w.nq;
  } while (passes.size() < min_passes || seconds_since(start) < min_seconds);
  const double total = seconds_since(start);
  std::sort(lat.begin(), lat.end());
  double sum = 0;
  for (double x : lat) sum += x;
  return {double(done) / total, sum / double(lat.size()), lat[std::min(lat.size() - 1, lat.size() * 99 / 100)],
          std::move(passes)};
}

// "[q1,q2,...]": a Timing's per-pass QPS as a JSON array.
inline std::string passes_json(const Timing& t) {
  std::string out = "[";
  char buf[32];
  for (size_t i = 0; i < t.passes_qps.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.1f", i ? "," : "", t.passes_qps[i]);
    out += buf;
  }
  return out + "]";
}

inline const char* target() { return build_variant()[0] == 'n' ? "native" : "wasm"; }

}  // namespace quiver::bench
