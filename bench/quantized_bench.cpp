// Quantised index benchmark: recall@10 against exact search (without and with rerank),
// single-thread queries per second with mean and p99 latency, encode throughput and bytes per
// vector, next to the same run's exact f32 flat index — for every ISA level of this build.
// Builds natively and for wasm; prints one JSON object per line (bench/run-quantized.mjs
// merges the native and wasm runs into bench/results/ and renders the table).
//
// Knobs (environment; in wasm only QUIVER_* variables reach the program, hence the prefix):
//   QUIVER_BENCH_WORKLOAD  seed | clustered | both (default both)
//   QUIVER_BENCH_BITS      "2 4"
//   QUIVER_BENCH_RERANKS   "0 2 4 8"
//   QUIVER_BENCH_ISAS      ISA levels to run (default: every available one)
//   QUIVER_BENCH_SECONDS   minimum measured time per QPS figure (default 1)
//   QUIVER_BENCH_ROWS / QUIVER_BENCH_QUERIES   override the workload sizes
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"

namespace {

using namespace quiver;
using clock_type = std::chrono::steady_clock;

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

struct Workload {
  std::string name;
  size_t n, nq, dim;
  std::vector<float> base, queries;
  std::vector<uint64_t> ids;
  std::vector<Neighbor> truth;  // nq x k, exact
};

constexpr size_t kK = 10;

Workload make_workload(const std::string& name) {
  Workload w;
  w.name = name;
  w.dim = 384;
  const bool seed = name == "seed";
  w.n = std::strtoul(env("QUIVER_BENCH_ROWS", seed ? "10000" : "100000").c_str(), nullptr, 10);
  w.nq = std::strtoul(env("QUIVER_BENCH_QUERIES", "256").c_str(), nullptr, 10);
  if (seed) {
    w.base = unit_gaussian_vectors(w.n, w.dim, 42);
    w.queries = unit_gaussian_vectors(w.nq, w.dim, 13);
  } else {
    w.base = clustered_vectors(w.n, w.dim, 64, 42, 43);
    w.queries = clustered_vectors(w.nq, w.dim, 64, 42, 13);
  }
  w.ids.resize(w.n);
  for (size_t i = 0; i < w.n; ++i) w.ids[i] = i;
  FlatIndex flat({w.dim, Metric::l2}, best_isa());
  flat.add(w.ids, w.base);
  w.truth.resize(w.nq * kK);
  for (size_t q = 0; q < w.nq; ++q) flat.search(w.queries.data() + q * w.dim, kK, w.truth.data() + q * kK);
  return w;
}

double recall(const Workload& w, const std::vector<Neighbor>& got) {
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
};

// Single-thread query loop over the query set, repeated for at least min_seconds; each query
// is timed on its own for the latency percentiles.
template <typename SearchOne>
Timing time_queries(const Workload& w, double min_seconds, SearchOne&& search_one) {
  std::vector<double> lat;
  lat.reserve(1 << 16);
  const auto start = clock_type::now();
  size_t done = 0;
  do {
    for (size_t q = 0; q < w.nq; ++q) {
      const auto t = clock_type::now();
      search_one(q);
      lat.push_back(seconds_since(t) * 1e6);
    }
    done += w.nq;
  } while (seconds_since(start) < min_seconds);
  const double total = seconds_since(start);
  std::sort(lat.begin(), lat.end());
  double sum = 0;
  for (double x : lat) sum += x;
  return {double(done) / total, sum / double(lat.size()), lat[std::min(lat.size() - 1, lat.size() * 99 / 100)]};
}

const char* target() { return build_variant()[0] == 'n' ? "native" : "wasm"; }

}  // namespace

int main() {
  const double min_seconds = std::strtod(env("QUIVER_BENCH_SECONDS", "1").c_str(), nullptr);
  std::vector<std::string> workloads = words(env("QUIVER_BENCH_WORKLOAD", "both"));
  if (workloads.size() == 1 && workloads[0] == "both") workloads = {"seed", "clustered"};
  std::vector<Isa> isas;
  for (const auto& name : words(env("QUIVER_BENCH_ISAS", ""))) isas.push_back(parse_isa(name));
  if (isas.empty()) isas = available_isas();
  std::vector<unsigned> bit_widths;
  for (const auto& b : words(env("QUIVER_BENCH_BITS", "2 4"))) bit_widths.push_back(unsigned(std::stoul(b)));
  std::vector<size_t> reranks;
  for (const auto& r : words(env("QUIVER_BENCH_RERANKS", "0 2 4 8"))) reranks.push_back(std::stoul(r));

  for (const auto& name : workloads) {
    const Workload w = make_workload(name);
    std::vector<Neighbor> out(w.nq * kK);
    for (Isa isa : isas) {
      // The exact flat index at the same ISA level, for the speed ratio.
      FlatIndex flat({w.dim, Metric::l2}, isa);
      flat.add(w.ids, w.base);
      const Timing ft = time_queries(w, min_seconds, [&](size_t q) {
        flat.search(w.queries.data() + q * w.dim, kK, out.data() + q * kK);
      });
      std::printf(
          "{\"kind\":\"flat\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\",\"workload\":\"%s\","
          "\"rows\":%zu,\"dim\":%zu,\"queries\":%zu,\"k\":%zu,\"qps\":%.1f,\"mean_us\":%.2f,\"p99_us\":%.2f,"
          "\"recall\":%.4f,\"bytes_per_vector\":%zu}\n",
          target(), build_variant(), isa_name(isa), name.c_str(), w.n, w.dim, w.nq, kK, ft.qps,
          ft.mean_us, ft.p99_us, recall(w, out), w.dim * sizeof(float));
      std::fflush(stdout);
      for (unsigned bits : bit_widths) {
        QuantizedIndex index({w.dim, Metric::l2, bits, 42, true}, isa);
        const auto t0 = clock_type::now();
        index.add(w.ids, w.base);
        const double encode_s = seconds_since(t0);
        for (size_t rerank : reranks) {
          QuantizedSearchParams p;
          p.rerank = rerank;
          for (size_t q = 0; q < w.nq; ++q) {
            index.search(w.queries.data() + q * w.dim, kK, out.data() + q * kK, p);
          }
          const double r = recall(w, out);
          const Timing t = time_queries(w, min_seconds, [&](size_t q) {
            index.search(w.queries.data() + q * w.dim, kK, out.data() + q * kK, p);
          });
          // Batch search on one thread: several queries per pass over the codes.
          double batch_qps = 0;
          {
            parallel::WorkerLimit one_thread(1);
            const auto start = clock_type::now();
            size_t done = 0;
            do {
              index.search_batch(w.queries.data(), w.nq, kK, out.data(), p);
              done += w.nq;
            } while (seconds_since(start) < min_seconds);
            batch_qps = double(done) / seconds_since(start);
          }
          std::printf(
              "{\"kind\":\"quantized\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\","
              "\"workload\":\"%s\",\"rows\":%zu,\"dim\":%zu,\"queries\":%zu,\"k\":%zu,\"bits\":%u,"
              "\"rerank\":%zu,\"recall\":%.4f,\"qps\":%.1f,\"batch_qps_1thread\":%.1f,\"mean_us\":%.2f,\"p99_us\":%.2f,"
              "\"flat_qps\":%.1f,\"speedup_vs_flat\":%.3f,\"encode_vectors_per_s\":%.0f,"
              "\"code_bytes_per_vector\":%zu,\"memory_bytes\":%zu}\n",
              target(), build_variant(), isa_name(isa), name.c_str(), w.n, w.dim, w.nq, kK, bits,
              rerank, r, t.qps, batch_qps, t.mean_us, t.p99_us, ft.qps, t.qps / ft.qps,
              double(w.n) / encode_s, index.code_bytes_per_vector(), index.memory_bytes());
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
