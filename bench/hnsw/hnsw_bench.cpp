// HNSW benchmark: build time (per build-thread count), memory per vector, and for each ef of a
// sweep recall@10 against exact search, single-thread queries per second, mean and p99
// latency — for every ISA level of this build and every storage kind asked for. Builds
// natively and for wasm; prints one JSON object per line, then one "summary" line per
// (workload, ISA, storage) with the QPS at the smallest swept ef whose recall@10 reaches 0.95
// and the QPS at recall@10 = 0.95 interpolated (linearly in recall) between the two swept efs
// around it (equal to the first point's when the smallest ef already reaches 0.95; 0 if none).
//
// Knobs (environment; in wasm only QUIVER_* variables reach the program, hence the prefix):
//   QUIVER_BENCH_WORKLOAD       clustered | seed | embedding | both (= clustered seed) | a list
//                               (default clustered)
//   QUIVER_BENCH_ROWS           base vectors (default 100000 clustered, 10000 seed)
//   QUIVER_BENCH_QUERIES        queries (default 256)
//   QUIVER_BENCH_DIM            dimension (default 384)
//   QUIVER_BENCH_M              links per node (default 16)
//   QUIVER_BENCH_EFC            efConstruction (default 200)
//   QUIVER_BENCH_EFS            ef sweep (default "10 20 40 60 80 120 160 200 300 400")
//   QUIVER_BENCH_BUILD_THREADS  build worker counts, 0 = all pool workers (default "0"); the
//                               searches use the index from the last count listed
//   QUIVER_BENCH_ISAS           ISA levels to run (default: every available one)
//   QUIVER_BENCH_SECONDS        minimum measured time per QPS figure (default 1)
//   QUIVER_BENCH_METRIC         l2 | ip | cosine (default l2)
//   QUIVER_BENCH_STORAGE        storage kinds: f32, sq8 (codes + kept f32 vectors, exact rerank),
//                               sq8-codes (codes only, no rerank); default "f32". A "+nbr" suffix
//                               on an sq8 kind (sq8+nbr, sq8-codes+nbr) turns on neighbour codes
//                               (HnswIndexOptions::neighbor_codes): the rows then carry
//                               "neighbor_codes":true and their node_bytes / bytes_per_vector.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
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
  std::vector<std::string> workloads = words(env("QUIVER_BENCH_WORKLOAD", "clustered"));
  if (workloads.size() == 1 && workloads[0] == "both") workloads = {"clustered", "seed"};
  std::vector<Isa> isas;
  for (const auto& name : words(env("QUIVER_BENCH_ISAS", ""))) isas.push_back(parse_isa(name));
  if (isas.empty()) isas = available_isas();
  std::vector<size_t> efs;
  for (const auto& e : words(env("QUIVER_BENCH_EFS", "10 20 40 60 80 120 160 200 300 400")))
    efs.push_back(std::stoul(e));
  std::vector<size_t> build_threads;
  for (const auto& t : words(env("QUIVER_BENCH_BUILD_THREADS", "0"))) build_threads.push_back(std::stoul(t));
  const size_t M = std::strtoul(env("QUIVER_BENCH_M", "16").c_str(), nullptr, 10);
  const size_t efc = std::strtoul(env("QUIVER_BENCH_EFC", "200").c_str(), nullptr, 10);
  const Metric metric = parse_metric(env("QUIVER_BENCH_METRIC", "l2"));
  const size_t pool_workers = parallel::process_pool().size();
  const std::vector<std::string> storages = words(env("QUIVER_BENCH_STORAGE", "f32"));

  for (const auto& name : workloads) {
    const Workload w = make_workload(name, metric);
    std::vector<Neighbor> out(w.nq * kK);
    for (Isa isa : isas) {
      for (const std::string& storage_name : storages) {
        const std::string suffix = "+nbr";
        const bool neighbor_codes =
            storage_name.size() > suffix.size() &&
            storage_name.compare(storage_name.size() - suffix.size(), suffix.size(), suffix) == 0;
        const std::string kind =
            neighbor_codes ? storage_name.substr(0, storage_name.size() - suffix.size()) : storage_name;
        const bool codes_only = kind == "sq8-codes";
        const HnswStorage storage = parse_hnsw_storage(codes_only ? "sq8" : kind);
        std::unique_ptr<HnswIndex> index;
        for (size_t threads : build_threads) {
          HnswIndexOptions options{w.dim, metric, M, efc, 42, 64};
          options.storage = storage;
          options.keep_vectors = !codes_only;
          options.neighbor_codes = neighbor_codes;
          index = std::make_unique<HnswIndex>(options, isa);
          parallel::WorkerLimit limit(threads);
          const auto t0 = clock_type::now();
          index->add(w.ids, w.base);
          const double build_s = seconds_since(t0);
          const size_t used = threads == 0 || threads > pool_workers ? pool_workers : threads;
          std::printf(
              "{\"kind\":\"hnsw_build\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\",\"workload\":\"%s\","
              "\"metric\":\"%s\",\"storage\":\"%s\",\"neighbor_codes\":%s,\"rows\":%zu,\"dim\":%zu,\"M\":%zu,"
              "\"ef_construction\":%zu,\"build_threads\":%zu,\"build_s\":%.3f,\"vectors_per_s\":%.0f,\"memory_bytes\":%"
              "zu,\"bytes_per_vector\":%.1f,"
              "\"node_bytes\":%zu,\"max_level\":%d}\n",
              target(), build_variant(), isa_name(isa), name.c_str(), metric_name(metric), storage_name.c_str(),
              neighbor_codes ? "true" : "false", w.n, w.dim, M, efc, used, build_s, double(w.n) / build_s,
              index->memory_bytes(), double(index->memory_bytes()) / double(w.n), index->node_bytes(),
              index->max_level());
          std::fflush(stdout);
        }
        double qps_at_95 = 0, recall_at_95 = 0, interpolated_95 = 0;
        double prev_recall = -1, prev_qps = 0;
        size_t ef_at_95 = 0;
        for (size_t ef : efs) {
          HnswSearchParams p;
          p.ef = ef;
          if (codes_only) p.rerank = 0;  // else unset: the whole final beam is re-scored
          for (size_t q = 0; q < w.nq; ++q) index->search(w.queries.data() + q * w.dim, kK, out.data() + q * kK, p);
          const double r = recall(w, out);
          const Timing t = time_queries(w, min_seconds, [&](size_t q) {
            index->search(w.queries.data() + q * w.dim, kK, out.data() + q * kK, p);
          });
          std::printf(
              "{\"kind\":\"hnsw_search\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\",\"workload\":\"%s\","
              "\"metric\":\"%s\",\"storage\":\"%s\",\"neighbor_codes\":%s,\"rows\":%zu,\"dim\":%zu,\"queries\":%zu,"
              "\"k\":%zu,\"M\":%zu,"
              "\"ef_construction\":%zu,\"ef\":%zu,\"recall\":%.4f,\"qps\":%.1f,\"mean_us\":%.2f,\"p99_us\":%.2f,"
              "\"passes_qps\":%s}\n",
              target(), build_variant(), isa_name(isa), name.c_str(), metric_name(metric), storage_name.c_str(),
              neighbor_codes ? "true" : "false", w.n, w.dim, w.nq, kK, M, efc, ef, r, t.qps, t.mean_us, t.p99_us,
              passes_json(t).c_str());
          std::fflush(stdout);
          if (ef_at_95 == 0 && r >= 0.95) {
            ef_at_95 = ef;
            qps_at_95 = t.qps;
            recall_at_95 = r;
            // Between the previous ef (recall below 0.95) and this one, linearly in recall.
            interpolated_95 = prev_recall < 0 || r == prev_recall
                                  ? t.qps
                                  : prev_qps + (t.qps - prev_qps) * (0.95 - prev_recall) / (r - prev_recall);
          }
          prev_recall = r;
          prev_qps = t.qps;
        }
        std::printf(
            "{\"kind\":\"hnsw_summary\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\",\"workload\":\"%s\","
            "\"storage\":\"%s\",\"neighbor_codes\":%s,\"rows\":%zu,\"dim\":%zu,\"bytes_per_vector\":%zu,\"ef_at_recall_"
            "95\":%zu,"
            "\"recall\":%.4f,\"qps_at_recall_95\":%.1f,\"qps_at_recall_95_interpolated\":%.1f}\n",
            target(), build_variant(), isa_name(isa), name.c_str(), storage_name.c_str(),
            neighbor_codes ? "true" : "false", w.n, w.dim, index->bytes_per_vector(), ef_at_95, recall_at_95, qps_at_95,
            interpolated_95);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
