// Partitioned quantised index (issue 14), native side of `npm run bench:ivf` (bench/ivf/run.mjs):
// reads a cached workload (base, queries, exact top-10 from `quiver gen`), builds the
// partitioned codes-only index once per build-thread count (build time, memory_bytes, peak heap
// bytes held during the build), then for every probes value of the sweep measures recall@10, one query per call
// (QPS, mean and p99 latency) and search_batch on the whole pool (QPS, recall); then the exact
// flat index on the same data (QPS on a subset of the queries: it is slow by design) for the
// "× flat" ratio. Prints one JSON object per line. Native only: the wasm side goes through the
// npm package (bench/ivf/measure.mjs), in Node and in Chromium.
//
// Knobs (environment):
//   QUIVER_IVF_BASE, QUIVER_IVF_QUERIES, QUIVER_IVF_GT   the workload files (.fbin / .ibin), required
//   QUIVER_IVF_WORKLOAD        a name for the rows (default "workload")
//   QUIVER_IVF_METRIC          l2 | ip | cosine (default cosine)
//   QUIVER_IVF_BITS            fast-scan bits (default 4); QUIVER_IVF_REFINE_BITS (default 3)
//   QUIVER_IVF_LISTS           auto | N (default auto)
//   QUIVER_IVF_RERANK          SearchParams::rerank for every search: candidates per result
//                              re-scored from the refine plane (default unset: the index's own)
//   QUIVER_IVF_PROBES          the sweep; "default" searches with probes 0, the index's own rule
//                              (default "4 8 12 16 24 32 48 64 96 default"; values above the list
//                              count are dropped)
//   QUIVER_IVF_BUILD_THREADS   pool workers per build, 0 = all (default "1 0"); the sweep uses
//                              the index of the last count
//   QUIVER_IVF_FLAT_QUERIES    queries timed on the flat index (default 200; 0 = no flat)
//   QUIVER_IVF_ADD_ROWS        rows per add() call (default 0: one add of everything). The lists
//                              are trained at fixed sizes (4,096 * 2^j) on the first rows, so any
//                              batching builds the same index; bench/ivf/run.mjs passes the npm
//                              package's slice (what one JS add() becomes), as the wasm runs add
//   QUIVER_IVF_INDEX_FILE      an index file: loaded instead of building when it exists, else
//                              written after the build (for sweeps of one index; no build rows)
//   QUIVER_BENCH_SECONDS       minimum measured time per one-query-per-call figure (default 1)
//   QUIVER_BENCH_ISAS          ISA levels (default: the best one)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "tools/datasets.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "../common/recall_bench.hpp"

using namespace quiver;
using namespace quiver::bench;

namespace {

std::string required(const char* name) {
  const std::string v = env(name, "");
  if (v.empty()) {
    std::fprintf(stderr, "error: %s is required\n", name);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main() {
  const io::Vectors base = io::read_vectors(required("QUIVER_IVF_BASE"));
  const io::Vectors queries = io::read_vectors(required("QUIVER_IVF_QUERIES"));
  const io::GroundTruth gt = io::read_ground_truth(required("QUIVER_IVF_GT"));
  if (base.dim != queries.dim || gt.rows != queries.rows || gt.k < kK) {
    std::fprintf(stderr, "error: inconsistent workload files\n");
    return 2;
  }
  const std::string workload = env("QUIVER_IVF_WORKLOAD", "workload");
  const Metric metric = parse_metric(env("QUIVER_IVF_METRIC", "cosine"));
  const unsigned bits = unsigned(std::stoul(env("QUIVER_IVF_BITS", "4")));
  const unsigned refine_bits = unsigned(std::stoul(env("QUIVER_IVF_REFINE_BITS", "3")));
  const std::string lists_knob = env("QUIVER_IVF_LISTS", "auto");
  const std::string rerank_knob = env("QUIVER_IVF_RERANK", "");
  const size_t lists = lists_knob == "auto" ? QuantizedIndexOptions::kAutoLists : std::stoul(lists_knob);
  const std::vector<std::string> probe_words = words(env("QUIVER_IVF_PROBES", "4 8 12 16 24 32 48 64 96 default"));
  std::vector<size_t> build_threads;
  for (const auto& t : words(env("QUIVER_IVF_BUILD_THREADS", "1 0"))) build_threads.push_back(std::stoul(t));
  const size_t flat_queries = std::stoul(env("QUIVER_IVF_FLAT_QUERIES", "200"));
  const size_t add_rows = std::stoul(env("QUIVER_IVF_ADD_ROWS", "0"));
  const double min_seconds = std::strtod(env("QUIVER_BENCH_SECONDS", "1").c_str(), nullptr);
  std::vector<Isa> isas;
  for (const auto& name : words(env("QUIVER_BENCH_ISAS", ""))) isas.push_back(parse_isa(name));
  if (isas.empty()) isas = {best_isa()};
  const size_t pool_workers = parallel::process_pool().size();

  // The recall helpers of recall_bench.hpp work on a Workload: the files' rows, ids 0..n-1.
  Workload w;
  w.name = workload;
  w.n = base.rows;
  w.nq = queries.rows;
  w.dim = base.dim;
  w.metric = metric;
  w.queries = queries.data;
  w.truth.resize(w.nq * kK);
  for (size_t q = 0; q < w.nq; ++q) {
    for (size_t j = 0; j < kK; ++j) w.truth[q * kK + j].id = uint64_t(gt.ids[q * gt.k + j]);
  }
  std::vector<uint64_t> ids(w.n);
  for (size_t i = 0; i < w.n; ++i) ids[i] = i;
  std::vector<Neighbor> out(w.nq * kK);

  for (Isa isa : isas) {
    std::unique_ptr<QuantizedIndex> index;
    const std::string index_file = env("QUIVER_IVF_INDEX_FILE", "");
    const bool cached = !index_file.empty() && std::ifstream(index_file).good();
    if (cached) index = std::make_unique<QuantizedIndex>(QuantizedIndex::load_file(index_file));
    for (size_t threads : cached ? std::vector<size_t>{} : build_threads) {
      index.reset();
      QuantizedIndexOptions o{w.dim, metric, bits};
      o.keep_vectors = false;
      o.refine_bits = refine_bits;
      o.lists = lists;
      // Peak memory: the most bytes held through operator new at once during the build, beyond
      // what was held before it (the counting allocator, tests/cpp/alloc_counter.cpp). Not RSS
      // growth: the pages of the previous build's index, freed just above, stay resident in
      // the allocator, so a second build's RSS hardly grows (it read 4.8-14.5 MiB for a
      // 39 MB index).
      const size_t held_before = test::live_bytes();
      test::reset_peak_live_bytes();
      index = std::make_unique<QuantizedIndex>(o, isa);
      parallel::WorkerLimit limit(threads);
      const auto t0 = clock_type::now();
      const size_t step = add_rows == 0 ? w.n : add_rows;
      for (size_t at = 0; at < w.n; at += step) {
        const size_t n = std::min(step, w.n - at);
        index->add(ids.data() + at, base.data.data() + at * w.dim, n);
      }
      const double build_s = seconds_since(t0);
      const size_t peak = test::peak_live_bytes() - held_before;
      const size_t used = threads == 0 || threads > pool_workers ? pool_workers : threads;
      std::printf(
          "{\"kind\":\"ivf_build\",\"target\":\"native\",\"variant\":\"native\",\"isa\":\"%s\",\"workload\":\"%s\","
          "\"metric\":\"%s\",\"rows\":%zu,\"dim\":%zu,\"bits\":%u,\"refine_bits\":%u,\"lists\":%zu,\"default_probes\":%"
          "zu,"
          "\"add_rows\":%zu,\"build_threads\":%zu,\"build_s\":%.3f,\"memory_bytes\":%zu,\"bytes_per_vector\":%.1f,"
          "\"code_bytes_per_vector\":%zu,\"peak_bytes\":%zu,\"peak_what\":\"heap peak\"}\n",
          isa_name(isa), workload.c_str(), metric_name(metric), w.n, w.dim, bits, refine_bits, index->lists(),
          index->default_probes(), add_rows, used, build_s, index->memory_bytes(),
          double(index->memory_bytes()) / double(w.n), index->code_bytes_per_vector(), peak);
      std::fflush(stdout);
    }
    if (!cached && !index_file.empty()) index->save(index_file);
    // The sweep, in ascending probes, each value once. "default" searches with probes = 0 (the
    // index's default_probes() lists, and more until 8,192 vectors were scanned) and replaces
    // an explicit value equal to default_probes().
    bool wants_default = false;
    std::set<size_t> probes;
    for (const auto& p : probe_words) {
      if (p == "default") {
        wants_default = true;
        probes.insert(index->default_probes());
        continue;
      }
      const size_t v = std::stoul(p);
      if (v >= 1 && v <= index->lists()) probes.insert(v);
    }
    for (size_t p : probes) {
      const bool is_default = wants_default && p == index->default_probes();
      QuantizedSearchParams params;
      params.probes = is_default ? 0 : p;
      if (!rerank_knob.empty()) params.rerank = std::stoul(rerank_knob);
      QuantizedSearchStats stats;
      params.stats = &stats;
      for (size_t q = 0; q < w.nq; ++q) index->search(w.queries.data() + q * w.dim, kK, out.data() + q * kK, params);
      params.stats = nullptr;
      const double r = recall(w, out);
      const double per_query = 1.0 / double(std::max<uint64_t>(1, stats.queries));
      const Timing t = time_queries(w, min_seconds, [&](size_t q) {
        index->search(w.queries.data() + q * w.dim, kK, out.data() + q * kK, params);
      });
      index->search_batch(w.queries.data(), w.nq, kK, out.data(), params);  // warm-up
      const auto b0 = clock_type::now();
      index->search_batch(w.queries.data(), w.nq, kK, out.data(), params);
      const double batch_s = seconds_since(b0);
      std::printf(
          "{\"kind\":\"ivf_search\",\"target\":\"native\",\"variant\":\"native\",\"isa\":\"%s\",\"workload\":\"%s\","
          "\"rows\":%zu,\"queries\":%zu,\"lists\":%zu,\"probes\":%zu,\"default\":%s,\"recall\":%.4f,\"qps\":%.1f,"
          "\"mean_us\":%.2f,\"p99_us\":%.2f,\"batch_threads\":%zu,\"batch_qps\":%.1f,\"batch_recall\":%.4f,"
          "\"lists_per_query\":%.2f,\"vectors_per_query\":%.0f,\"bytes_per_query\":%.0f,\"rerank\":\"%s\"}\n",
          isa_name(isa), workload.c_str(), w.n, w.nq, index->lists(), p, is_default ? "true" : "false", r, t.qps,
          t.mean_us, t.p99_us, pool_workers, double(w.nq) / batch_s, recall(w, out),
          double(stats.lists_probed) * per_query, double(stats.vectors_scanned) * per_query,
          double(stats.bytes_scanned) * per_query, rerank_knob.c_str());
      std::fflush(stdout);
    }
  }

  if (flat_queries > 0) {
    FlatIndex flat({w.dim, metric}, isas.front());
    flat.add(ids.data(), base.data.data(), w.n);
    Workload sub = w;
    sub.nq = std::min(flat_queries, w.nq);
    std::vector<Neighbor> flat_out(sub.nq * kK);
    const Timing t = time_queries(
        sub, 0, [&](size_t q) { flat.search(sub.queries.data() + q * sub.dim, kK, flat_out.data() + q * kK); });
    std::printf(
        "{\"kind\":\"flat_search\",\"target\":\"native\",\"variant\":\"native\",\"isa\":\"%s\",\"workload\":\"%s\","
        "\"rows\":%zu,\"queries\":%zu,\"recall\":%.4f,\"qps\":%.1f,\"mean_us\":%.2f,\"p99_us\":%.2f,"
        "\"memory_bytes\":%zu,\"bytes_per_vector\":%.1f}\n",
        isa_name(isas.front()), workload.c_str(), w.n, sub.nq, recall(sub, flat_out), t.qps, t.mean_us, t.p99_us,
        flat.memory_bytes(), double(flat.memory_bytes()) / double(w.n));
    std::fflush(stdout);
  }
  return 0;
}
