// scaling_batch — batch search throughput over 1..N pool threads, natively and in wasm simd-mt.
//
// The process pool is sized once for the largest thread count (set_thread_count), and each
// point limits the workers a search_batch call may use (parallel::WorkerLimit). Each point
// runs whole batches for at least MIN_SECONDS and checks that the results equal the 1-thread
// results bit for bit.
//
// Knobs: THREADS="1 2 4 8 16"  MIN_SECONDS=1  CORPUS_ROWS=10000  DIM=384  QUERY_POOL=256 (the
// batch)  K=10  BIT_WIDTH=4  INDEX=flat|quantised|hnsw.
// Output: a table on stdout, then one JSON object on a line of its own.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../common/bench_env.hpp"
#include "parallel/thread_pool.hpp"

int main() {
  using namespace quiver;
  using namespace quiver::bench;
  const std::vector<size_t> thread_counts = env_list("THREADS", "1 2 4 8 16");
  const double min_seconds = env_num("MIN_SECONDS", 1.0);
  const size_t max_threads = *std::max_element(thread_counts.begin(), thread_counts.end());
  parallel::set_thread_count(max_threads);
  parallel::ThreadPool& pool = parallel::process_pool();

  const Workload w = make_workload();
  const std::shared_ptr<const AnyIndex> index = build_index(w);
  std::printf("scaling_batch: target %s (%s), isa %s, %u hardware threads, pool %zu workers\n", target_name(),
              build_variant(), isa_name(active_isa()), std::thread::hardware_concurrency(), pool.size());
  std::printf("index %s: %zu x %zu; batch of %zu queries, k %zu; >= %.2f s per point\n", w.index.c_str(), w.rows, w.dim,
              w.queries, w.k, min_seconds);

  std::vector<Neighbor> reference(w.queries * w.k), out(w.queries * w.k);
  {
    parallel::WorkerLimit one(1);
    index->search_batch(w.query_pool.data(), w.queries, w.k, reference.data());
  }

  struct Point {
    size_t threads, workers, batches;
    double seconds, qps, speedup, efficiency;
    bool identical;
  };
  std::vector<Point> points;
  std::printf("\n| threads | workers used | batches | QPS | speedup | efficiency | identical |\n");
  std::printf("|--:|--:|--:|--:|--:|--:|:-:|\n");
  double base = 0;
  for (size_t threads : thread_counts) {
    parallel::WorkerLimit limit(threads);
    index->search_batch(w.query_pool.data(), w.queries, w.k, out.data());  // warm
    size_t batches = 0;
    const double t0 = now_s();
    double elapsed = 0;
    do {
      index->search_batch(w.query_pool.data(), w.queries, w.k, out.data());
      ++batches;
      elapsed = now_s() - t0;
    } while (elapsed < min_seconds);
    Point p{};
    p.threads = threads;
    p.workers = std::min(threads, pool.size());
    p.batches = batches;
    p.seconds = elapsed;
    p.qps = double(batches * w.queries) / elapsed;
    if (points.empty()) base = p.qps / double(threads);
    p.speedup = p.qps / (base * double(thread_counts[0]));
    p.efficiency = p.speedup / double(threads);
    p.identical = std::equal(out.begin(), out.end(), reference.begin(), [](const Neighbor& a, const Neighbor& b) {
      return a.id == b.id && std::memcmp(&a.distance, &b.distance, sizeof(float)) == 0;  // same bits
    });
    points.push_back(p);
    std::printf("| %zu | %zu | %zu | %.0f | %.2fx | %.2f | %s |\n", p.threads, p.workers, p.batches, p.qps, p.speedup,
                p.efficiency, p.identical ? "yes" : "NO");
    std::fflush(stdout);
  }

  std::printf(
      "{\"benchmark\":\"scaling_batch\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\","
      "\"hardware_concurrency\":%u,\"pool_workers\":%zu,\"index\":\"%s\",",
      target_name(), build_variant(), isa_name(active_isa()), std::thread::hardware_concurrency(), pool.size(),
      w.index.c_str());
  std::printf(
      "\"knobs\":{\"THREADS\":\"%s\",\"MIN_SECONDS\":%g,\"CORPUS_ROWS\":%zu,\"DIM\":%zu,"
      "\"QUERY_POOL\":%zu,\"K\":%zu,\"BIT_WIDTH\":%zu,\"INDEX\":\"%s\"},\"results\":[",
      json_escape(env_str("THREADS", "1 2 4 8 16")).c_str(), min_seconds, w.rows, w.dim, w.queries, w.k, w.bit_width,
      json_escape(w.index).c_str());
  bool all_identical = true;
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    all_identical = all_identical && p.identical;
    std::printf(
        "%s{\"threads\":%zu,\"workers\":%zu,\"batches\":%zu,\"seconds\":%.4f,\"qps\":%.2f,"
        "\"speedup\":%.4f,\"efficiency\":%.4f,\"identical\":%s}",
        i ? "," : "", p.threads, p.workers, p.batches, p.seconds, p.qps, p.speedup, p.efficiency,
        p.identical ? "true" : "false");
  }
  std::printf("]}\n");
  return all_identical ? 0 : 1;
}
