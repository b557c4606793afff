// Quantised index benchmark: recall@10 against exact search (without and with rerank),
// single-thread queries per second with mean and p99 latency, encode throughput and bytes per
// vector, next to the same run's exact f32 flat index — for every ISA level of this build.
// Builds natively and for wasm; prints one JSON object per line (bench/quantized/run.mjs
// merges the native and wasm runs into bench/quantized/results/ and renders the table).
//
// Knobs (environment; in wasm only QUIVER_* variables reach the program, hence the prefix):
//   QUIVER_BENCH_WORKLOAD  seed | clustered | both (default both)
//   QUIVER_BENCH_BITS      "2 4"
//   QUIVER_BENCH_RERANKS   "0 2 4 8"
//   QUIVER_BENCH_ISAS      ISA levels to run (default: every available one)
//   QUIVER_BENCH_SECONDS   minimum measured time per QPS figure (default 1)
//   QUIVER_BENCH_ROWS / QUIVER_BENCH_QUERIES / QUIVER_BENCH_DIM   override the workload sizes
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
#include "../common/recall_bench.hpp"

using namespace quiver;
using namespace quiver::bench;

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
    const Workload w = make_workload(name, Metric::l2);
    std::vector<Neighbor> out(w.nq * kK);
    for (Isa isa : isas) {
      // The exact flat index at the same ISA level, for the speed ratio.
      FlatIndex flat({w.dim, Metric::l2}, isa);
      flat.add(w.ids, w.base);
      const Timing ft = time_queries(
          w, min_seconds, [&](size_t q) { flat.search(w.queries.data() + q * w.dim, kK, out.data() + q * kK); });
      std::printf(
          "{\"kind\":\"flat\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\",\"workload\":\"%s\","
          "\"rows\":%zu,\"dim\":%zu,\"queries\":%zu,\"k\":%zu,\"qps\":%.1f,\"mean_us\":%.2f,\"p99_us\":%.2f,"
          "\"recall\":%.4f,\"bytes_per_vector\":%zu}\n",
          target(), build_variant(), isa_name(isa), name.c_str(), w.n, w.dim, w.nq, kK, ft.qps, ft.mean_us, ft.p99_us,
          recall(w, out), w.dim * sizeof(float));
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
              target(), build_variant(), isa_name(isa), name.c_str(), w.n, w.dim, w.nq, kK, bits, rerank, r, t.qps,
              batch_qps, t.mean_us, t.p99_us, ft.qps, t.qps / ft.qps, double(w.n) / encode_s,
              index.code_bytes_per_vector(), index.memory_bytes());
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
