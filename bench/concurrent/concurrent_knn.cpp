// concurrent_knn — does the index cache's lock limit concurrent k-NN throughput?
//
// N threads each loop { cache lookup -> search -> drop the handle } over a pool of queries for
// a fixed time after a barrier; for each N it reports total ops, QPS (total and per thread),
// speedup over N = 1 and mean / p50 / p99 latency, plus a per-call cost breakdown at one
// thread (lookup, search, overhead) and a lookup-only sweep (the lock's cost when nothing
// else runs). The same program runs natively and in wasm simd-mt (under Node).
//
// Knobs (environment variables; defaults are the reference's):
//   THREADS="1 2 4 8 16"  DURATION_S=5  CORPUS_ROWS=10000  DIM=384  QUERY_POOL=256  K=10
//   BIT_WIDTH=4 (quantised index)  INDEX=flat|quantised|hnsw
//   MODE=mutex    lookups through IndexCache in mutex mode (a map under a std::mutex)
//   MODE=nolock   lookups through IndexCache in nolock mode (snapshot + hazard pointer)
//   MODE=direct   no cache: every thread searches one shared index (the reference's
//                 "nolock" arm, the floor for the other two)
//   WARMUP_S=0.2 (per thread count, untimed)  LOOKUP_ONLY_S=0.5 (0 skips the lookup-only sweep)
//   LATENCY_SAMPLES=200000 (per thread; beyond it a reservoir sample is kept)
// Output: a table on stdout, then one JSON object on a line of its own (bench/concurrent/run.mjs
// collects it into bench/concurrent/results/).
#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "../common/bench_env.hpp"
#include "serve/index_cache.hpp"
#include "parallel/thread_pool.hpp"

#if !defined(QUIVER_THREADS)
int main() {
  std::fprintf(stderr, "concurrent_knn needs threads: build it natively or for wasm simd-mt\n");
  return 2;
}
#else

namespace {

using namespace quiver;
using namespace quiver::bench;
using parallel::CacheMode;
using parallel::IndexCache;
using parallel::IndexHandle;

enum class Mode { mutex, nolock, direct };

const char* const kIndexName = "bench-corpus";

struct alignas(64) ThreadState {
  std::vector<float> latency_us;  // preallocated: capacity LATENCY_SAMPLES, never grows
  uint64_t ops = 0;
  uint64_t seen = 0;  // ops offered to the reservoir
  double sum_us = 0;
  double end_s = 0;
  uint64_t rng = 0;
  uint64_t checksum = 0;
};

struct RunResult {
  size_t threads;
  uint64_t ops;
  double seconds, qps, qps_per_thread, speedup, mean_us, p50_us, p99_us;
};

double percentile(std::vector<float>& all, double p) {
  if (all.empty()) return 0;
  const size_t i = std::min(all.size() - 1, size_t(p * double(all.size() - 1) + 0.5));
  std::nth_element(all.begin(), all.begin() + i, all.end());
  return all[i];
}

class Bench {
 public:
  Bench(Mode mode, const Workload& w, IndexHandle index)
      : mode_(mode), w_(w), shared_(std::move(index)), loader_calls_(0) {
    if (mode_ != Mode::direct) {
      cache_ = IndexCache::create(mode_ == Mode::mutex ? CacheMode::mutex : CacheMode::nolock);
      lookup();  // the one load; every timed lookup is a hit
    }
  }

  // One cache lookup (get-or-load), as a request handler does it.
  IndexHandle lookup() {
    return cache_->get_or_load(kIndexName, [this] {
      ++loader_calls_;
      return shared_;
    });
  }

  // Runs `threads` threads for `seconds` after a barrier. With record = false only counts.
  void run(size_t threads, double seconds, std::vector<ThreadState>& states, bool lookups_only) {
    std::atomic<size_t> ready{0};
    std::atomic<bool> go{false}, stop{false};
    double start = 0;
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (size_t t = 0; t < threads; ++t) {
      ThreadState* state = &states[t];
      state->ops = state->seen = 0;
      state->sum_us = 0;
      state->latency_us.clear();
      state->rng = 0x9E3779B97F4A7C15ULL * (t + 1);
      pool.emplace_back([&, t, state] {
        ThreadState& s = *state;
        std::vector<Neighbor> out(w_.k);
        size_t q = (t * w_.queries) / threads;  // threads start at different queries
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        if (lookups_only) {
          uint64_t n = 0;
          while (!stop.load(std::memory_order_relaxed)) {
            for (int i = 0; i < 64; ++i) {
              IndexHandle h = lookup();
              s.checksum += reinterpret_cast<uintptr_t>(h.get()) & 1;
            }
            n += 64;
          }
          s.ops = n;
          s.end_s = now_s();
          return;
        }
        while (!stop.load(std::memory_order_relaxed)) {
          call(s, w_.query_pool.data() + q * w_.dim, out.data());
          if (++q == w_.queries) q = 0;
        }
        s.end_s = now_s();
      });
    }
    while (ready.load() < threads) std::this_thread::yield();
    start = now_s();
    go.store(true, std::memory_order_release);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop.store(true, std::memory_order_relaxed);
    for (auto& th : pool) th.join();
    start_ = start;
  }

  // One timed request: lookup -> search -> release, recorded in s. Returns microseconds.
  double call(ThreadState& s, const float* query, Neighbor* out) {
    const double t0 = now_s();
    size_t found;
    if (mode_ == Mode::direct) {
      found = shared_->search(query, w_.k, out);
    } else {
      IndexHandle h = lookup();
      found = h->search(query, w_.k, out);
    }
    const double us = (now_s() - t0) * 1e6;
    s.checksum += found + out[0].id;
    s.sum_us += us;
    ++s.ops;
    // Reservoir of latencies in preallocated storage.
    if (s.latency_us.size() < s.latency_us.capacity()) {
      s.latency_us.push_back(float(us));
    } else {
      s.rng ^= s.rng << 13;
      s.rng ^= s.rng >> 7;
      s.rng ^= s.rng << 17;
      const uint64_t j = s.rng % (s.seen + 1);
      if (j < s.latency_us.size()) s.latency_us[j] = float(us);
    }
    ++s.seen;
    return us;
  }

  struct Breakdown {
    double total_us, lookup_us, search_us, overhead_us;
  };
  // Per-call costs at one thread, on this thread: lookups alone, searches alone (same index,
  // same queries, no lookup) and full calls, interleaved in rounds; the best round of each
  // counts, so a burst of other work on the machine does not land in only one of them.
  Breakdown breakdown(double budget_s, ThreadState& s) {
    std::vector<Neighbor> out(w_.k);
    const int rounds = 5;
    size_t searches = 1;
    {
      const double t0 = now_s();
      shared_->search(w_.query_pool.data(), w_.k, out.data());
      const double one = std::max(1e-7, now_s() - t0);
      searches = std::max<size_t>(8, size_t(budget_s / rounds / 2 / one));
    }
    const size_t lookups = 100000;
    Breakdown best{1e30, 1e30, 1e30, 0};
    for (int r = 0; r < rounds; ++r) {
      if (mode_ != Mode::direct) {
        uint64_t sink = 0;
        const double t0 = now_s();
        for (size_t i = 0; i < lookups; ++i) sink += lookup().use_count() != 0;
        best.lookup_us = std::min(best.lookup_us, (now_s() - t0) / double(lookups) * 1e6);
        if (sink != lookups) die("lookup missed");
      } else {
        best.lookup_us = 0;
      }
      double t0 = now_s();
      for (size_t i = 0; i < searches; ++i) {
        shared_->search(w_.query_pool.data() + (i % w_.queries) * w_.dim, w_.k, out.data());
      }
      best.search_us = std::min(best.search_us, (now_s() - t0) / double(searches) * 1e6);
      s.latency_us.clear();
      s.ops = s.seen = 0;
      t0 = now_s();
      for (size_t i = 0; i < searches; ++i) call(s, w_.query_pool.data() + (i % w_.queries) * w_.dim, out.data());
      best.total_us = std::min(best.total_us, (now_s() - t0) / double(searches) * 1e6);
    }
    best.overhead_us = best.total_us - best.lookup_us - best.search_us;
    return best;
  }

  double start() const { return start_; }
  int loader_calls() const { return loader_calls_; }
  Mode mode() const { return mode_; }
  const IndexHandle& shared() const { return shared_; }

 private:
  Mode mode_;
  const Workload& w_;
  IndexHandle shared_;
  std::unique_ptr<IndexCache> cache_;
  int loader_calls_;
  double start_ = 0;
};

}  // namespace

int main() {
  const std::vector<size_t> thread_counts = env_list("THREADS", "1 2 4 8 16");
  const double duration = env_num("DURATION_S", 5);
  const double warmup = env_num("WARMUP_S", 0.2);
  const double lookup_only_s = env_num("LOOKUP_ONLY_S", 0.5);
  const size_t samples = env_size("LATENCY_SAMPLES", 200000);
  const std::string mode_name = env_str("MODE", "mutex");
  Mode mode;
  if (mode_name == "mutex")
    mode = Mode::mutex;
  else if (mode_name == "nolock")
    mode = Mode::nolock;
  else if (mode_name == "direct")
    mode = Mode::direct;
  else
    die("MODE must be mutex, nolock or direct, got '" + mode_name + "'");

  const Workload w = make_workload();
  const double build_start = now_s();
  IndexHandle index = build_index(w);
  const double build_s = now_s() - build_start;
  Bench bench(mode, w, index);

  const size_t max_threads = *std::max_element(thread_counts.begin(), thread_counts.end());
  std::vector<ThreadState> states(max_threads);
  for (auto& s : states) s.latency_us.reserve(samples);

  std::printf("concurrent_knn: target %s (%s), isa %s, %u hardware threads\n", target_name(), build_variant(),
              isa_name(active_isa()), std::thread::hardware_concurrency());
  std::printf("index %s: %zu x %zu, %.1f MiB, built in %.2f s; mode %s; k %zu; query pool %zu; %.1f s per point\n",
              w.index.c_str(), w.rows, w.dim, double(index->memory_bytes()) / (1 << 20), build_s, mode_name.c_str(),
              w.k, w.queries, duration);

  // Per-call breakdown at one thread (lookup, search, overhead = the rest: clock reads,
  // latency recording, handle release accounting, loop).
  const auto cost = bench.breakdown(std::max(0.5, duration / 2), states[0]);

  std::vector<RunResult> results;
  double base_qps = 0;
  std::printf("\n| threads | ops | QPS | QPS/thread | speedup | mean us | p50 us | p99 us |\n");
  std::printf("|--------:|----:|----:|-----------:|--------:|--------:|-------:|-------:|\n");
  for (size_t threads : thread_counts) {
    if (warmup > 0) bench.run(threads, warmup, states, false);
    bench.run(threads, duration, states, false);
    RunResult r{};
    r.threads = threads;
    double end = 0, sum_us = 0;
    std::vector<float> all;
    all.reserve(threads * samples);
    for (size_t t = 0; t < threads; ++t) {
      r.ops += states[t].ops;
      sum_us += states[t].sum_us;
      end = std::max(end, states[t].end_s);
      all.insert(all.end(), states[t].latency_us.begin(), states[t].latency_us.end());
    }
    r.seconds = end - bench.start();
    r.qps = double(r.ops) / r.seconds;
    r.qps_per_thread = r.qps / double(threads);
    if (results.empty()) base_qps = r.qps / double(threads);  // per-thread QPS of the first point
    r.speedup = r.qps / (base_qps * double(thread_counts[0]));
    r.mean_us = r.ops ? sum_us / double(r.ops) : 0;
    r.p50_us = percentile(all, 0.50);
    r.p99_us = percentile(all, 0.99);
    results.push_back(r);
    std::printf("| %7zu | %" PRIu64 " | %.0f | %.0f | %.2fx | %.1f | %.1f | %.1f |\n", threads, r.ops, r.qps,
                r.qps_per_thread, r.speedup, r.mean_us, r.p50_us, r.p99_us);
    std::fflush(stdout);
  }
  if (thread_counts[0] != 1)
    std::printf("(speedup is relative to %zu threads x its per-thread QPS)\n", thread_counts[0]);

  // Lookup-only sweep: how many cache lookups per second N threads get when they do nothing
  // else — the ceiling the lock (or its absence) puts on a much cheaper search.
  std::vector<std::pair<size_t, double> > lookup_rates;
  if (mode != Mode::direct && lookup_only_s > 0) {
    std::printf("\n| threads | lookups/s (lookup only) | ns per lookup per thread |\n|--:|--:|--:|\n");
    for (size_t threads : thread_counts) {
      bench.run(threads, lookup_only_s, states, true);
      uint64_t ops = 0;
      double end = 0;
      for (size_t t = 0; t < threads; ++t) {
        ops += states[t].ops;
        end = std::max(end, states[t].end_s);
      }
      const double rate = double(ops) / (end - bench.start());
      lookup_rates.emplace_back(threads, rate);
      std::printf("| %zu | %.3g | %.1f |\n", threads, rate, 1e9 * double(threads) / rate);
    }
  }

  std::printf("\nper-call breakdown at 1 thread (%s; best of 5 interleaved rounds):\n", mode_name.c_str());
  std::printf("  %8.3f us total (lookup + search + recording)\n", cost.total_us);
  std::printf("  %8.3f us lookup (get_or_load hit + handle release)%s\n", cost.lookup_us,
              mode == Mode::direct ? " - none in direct mode" : "");
  std::printf("  %8.3f us search (k=%zu over %zu rows)\n", cost.search_us, w.k, w.rows);
  std::printf("  %8.3f us overhead (clock reads, latency record, loop)\n", cost.overhead_us);
  std::printf("  lookup share %.3f %%\n", 100.0 * cost.lookup_us / cost.total_us);
  if (bench.loader_calls() > 1) die("the index was loaded more than once");

  // JSON (one line).
  std::printf(
      "{\"benchmark\":\"concurrent_knn\",\"target\":\"%s\",\"variant\":\"%s\",\"isa\":\"%s\","
      "\"hardware_concurrency\":%u,\"index\":\"%s\",\"mode\":\"%s\",\"index_bytes\":%zu,"
      "\"build_seconds\":%.3f,",
      target_name(), build_variant(), isa_name(active_isa()), std::thread::hardware_concurrency(),
      json_escape(w.index).c_str(), mode_name.c_str(), index->memory_bytes(), build_s);
  std::printf(
      "\"knobs\":{\"THREADS\":\"%s\",\"DURATION_S\":%g,\"CORPUS_ROWS\":%zu,\"DIM\":%zu,"
      "\"QUERY_POOL\":%zu,\"K\":%zu,\"BIT_WIDTH\":%zu,\"MODE\":\"%s\",\"INDEX\":\"%s\","
      "\"WARMUP_S\":%g,\"LOOKUP_ONLY_S\":%g,\"LATENCY_SAMPLES\":%zu},",
      json_escape(env_str("THREADS", "1 2 4 8 16")).c_str(), duration, w.rows, w.dim, w.queries, w.k, w.bit_width,
      mode_name.c_str(), json_escape(w.index).c_str(), warmup, lookup_only_s, samples);
  std::printf("\"results\":[");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::printf("%s{\"threads\":%zu,\"ops\":%" PRIu64
                ",\"seconds\":%.4f,\"qps\":%.2f,\"qps_per_thread\":%.2f,"
                "\"speedup\":%.4f,\"latency_mean_us\":%.2f,\"latency_p50_us\":%.2f,\"latency_p99_us\":%.2f}",
                i ? "," : "", r.threads, r.ops, r.seconds, r.qps, r.qps_per_thread, r.speedup, r.mean_us, r.p50_us,
                r.p99_us);
  }
  std::printf("],\"lookup_only\":[");
  for (size_t i = 0; i < lookup_rates.size(); ++i) {
    std::printf("%s{\"threads\":%zu,\"lookups_per_s\":%.1f}", i ? "," : "", lookup_rates[i].first,
                lookup_rates[i].second);
  }
  std::printf(
      "],\"breakdown\":{\"threads\":1,\"total_us\":%.4f,\"lookup_us\":%.5f,\"search_us\":%.4f,"
      "\"overhead_us\":%.4f,\"lookup_share\":%.6f}}\n",
      cost.total_us, cost.lookup_us, cost.search_us, cost.overhead_us, cost.lookup_us / cost.total_us);
  return 0;
}
#endif
