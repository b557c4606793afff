// The worker thread pool: every task exactly once, worker indices in range and exclusive,
// exceptions to the caller, nested calls inline, concurrent callers serialised. Runs natively
// (also under TSan and ASan) and in every wasm variant (inline with one worker without threads).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "parallel/thread_pool.hpp"
#include "quiver/error.hpp"
#include "quiver/flat_index.hpp"
#include "tools/workload.hpp"

namespace quiver::parallel {
namespace test_thread_pool {

#if defined(QUIVER_THREADS)
constexpr bool kThreads = true;
#else
constexpr bool kThreads = false;
#endif

const size_t kPoolSizes[] = {1, 2, 3, 4, 8};
const size_t kTaskCounts[] = {0, 1, 2, 3, 7, 64, 1000, 10007};

TEST(ThreadPool, SizeIsWhatWasAskedWithThreadsAndOneWithout) {
  for (size_t threads : kPoolSizes) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), kThreads ? threads : 1u) << threads;
  }
  ThreadPool zero(0);
  EXPECT_EQ(zero.size(), 1u);
}

TEST(ThreadPool, EveryTaskRunsExactlyOnceWithAWorkerInRange) {
  for (size_t threads : kPoolSizes) {
    ThreadPool pool(threads);
    for (size_t n : kTaskCounts) {
      std::vector<std::atomic<int>> runs(n);
      std::atomic<size_t> bad_worker{0};
      pool.parallel_for(n, [&](size_t task, size_t worker) {
        runs[task].fetch_add(1, std::memory_order_relaxed);
        if (worker >= pool.size()) bad_worker.fetch_add(1);
      });
      size_t wrong = 0;
      for (size_t i = 0; i < n; ++i) wrong += runs[i].load() != 1;
      EXPECT_EQ(wrong, 0u) << "threads " << threads << ", n " << n;
      EXPECT_EQ(bad_worker.load(), 0u) << "threads " << threads << ", n " << n;
    }
  }
}

TEST(ThreadPool, RepeatedCallsOnOnePool) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> runs(97);
  for (int round = 0; round < 300; ++round) {
    pool.parallel_for(runs.size(), [&](size_t task, size_t) { runs[task].fetch_add(1); });
  }
  for (auto& r : runs) EXPECT_EQ(r.load(), 300);
}

TEST(ThreadPool, AWorkerRunsOneTaskAtATime) {
  for (size_t threads : kPoolSizes) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> busy(pool.size());
    std::atomic<int> overlaps{0};
    std::atomic<uint64_t> sink{0};
    pool.parallel_for(2000, [&](size_t task, size_t worker) {
      if (busy[worker].fetch_add(1) != 0) overlaps.fetch_add(1);
      uint64_t x = task;
      for (int i = 0; i < 200; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      sink.fetch_add(x, std::memory_order_relaxed);
      busy[worker].fetch_sub(1);
    });
    EXPECT_EQ(overlaps.load(), 0) << threads;
  }
}

// size() tasks that each wait until all size() have started: finishes only if size() workers
// really run at the same time (each blocked worker holds exactly one task).
TEST(ThreadPool, AllWorkersRunConcurrently) {
  for (size_t threads : kPoolSizes) {
    ThreadPool pool(threads);
    const size_t n = pool.size();
    std::atomic<size_t> arrived{0};
    std::vector<std::atomic<int>> seen(n);
    pool.parallel_for(n, [&](size_t, size_t worker) {
      seen[worker].fetch_add(1);
      arrived.fetch_add(1);
      while (arrived.load() < n) std::this_thread::yield();
    });
    for (size_t w = 0; w < n; ++w) EXPECT_EQ(seen[w].load(), 1) << "worker " << w << " of " << n;
  }
}

TEST(ThreadPool, TheCallerIsWorkerZero) {
  ThreadPool pool(4);
  const auto caller = std::this_thread::get_id();
  std::atomic<int> mismatches{0};
  pool.parallel_for(500, [&](size_t, size_t worker) {
    const bool on_caller = std::this_thread::get_id() == caller;
    if (on_caller != (worker == 0)) mismatches.fetch_add(1);
  });
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ThreadPool, ExceptionPropagatesToTheCallerAndThePoolStaysUsable) {
  for (size_t threads : kPoolSizes) {
    ThreadPool pool(threads);
    for (size_t thrower : {size_t(0), size_t(1), size_t(500), size_t(999)}) {
      std::atomic<int> ran{0};
      try {
        pool.parallel_for(1000, [&](size_t task, size_t) {
          ran.fetch_add(1);
          if (task == thrower) throw std::runtime_error("task " + std::to_string(task));
        });
        ADD_FAILURE() << "no exception, threads " << threads;
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "task " + std::to_string(thrower));
      }
      EXPECT_GE(ran.load(), 1);
      EXPECT_LE(ran.load(), 1000);
      std::vector<std::atomic<int>> runs(100);
      pool.parallel_for(100, [&](size_t task, size_t) { runs[task].fetch_add(1); });
      for (auto& r : runs) EXPECT_EQ(r.load(), 1);
    }
  }
}

TEST(ThreadPool, WhenManyTasksThrowOneOfThemReachesTheCaller) {
  ThreadPool pool(4);
  try {
    pool.parallel_for(1000, [&](size_t task, size_t) {
      if (task % 3 == 0) throw Error(ErrorCode::InvalidArgument, std::to_string(task));
    });
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(std::stoul(e.what()) % 3, 0u);
  }
}

TEST(ThreadPool, NestedCallsRunInlineWithTheCallersWorkerIndex) {
  for (size_t threads : kPoolSizes) {
    ThreadPool pool(threads);
    constexpr size_t kOuter = 16, kInner = 50;
    std::vector<std::atomic<int>> runs(kOuter * kInner);
    std::atomic<int> wrong_worker{0}, not_in_task{0};
    EXPECT_FALSE(in_parallel_task());
    pool.parallel_for(kOuter, [&](size_t outer, size_t outer_worker) {
      if (!in_parallel_task()) not_in_task.fetch_add(1);
      const auto thread = std::this_thread::get_id();
      pool.parallel_for(kInner, [&](size_t inner, size_t inner_worker) {
        runs[outer * kInner + inner].fetch_add(1);
        if (inner_worker != outer_worker || std::this_thread::get_id() != thread) wrong_worker.fetch_add(1);
      });
    });
    EXPECT_FALSE(in_parallel_task());
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
    EXPECT_EQ(wrong_worker.load(), 0);
    EXPECT_EQ(not_in_task.load(), 0);
  }
}

TEST(ThreadPool, NestedExceptionPropagatesThroughBothLevels) {
  ThreadPool pool(4);
  EXPECT_THROW(pool.parallel_for(8,
                                 [&](size_t outer, size_t) {
                                   pool.parallel_for(8, [&](size_t inner, size_t) {
                                     if (outer == 5 && inner == 3) throw std::logic_error("inner");
                                   });
                                 }),
               std::logic_error);
  EXPECT_FALSE(in_parallel_task());
}

TEST(ThreadPool, WorkerLimitCapsTheWorkersUsed) {
  ThreadPool pool(4);
  for (size_t limit : {size_t(1), size_t(2), size_t(3)}) {
    WorkerLimit scoped(limit);
    EXPECT_EQ(max_workers(), limit);
    std::atomic<size_t> max_seen{0};
    std::vector<std::atomic<int>> runs(300);
    pool.parallel_for(runs.size(), [&](size_t task, size_t worker) {
      runs[task].fetch_add(1);
      size_t m = max_seen.load();
      while (worker > m && !max_seen.compare_exchange_weak(m, worker)) {
      }
    });
    EXPECT_LT(max_seen.load(), limit);
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
  EXPECT_EQ(max_workers(), 0u);
}

TEST(ThreadPool, ProcessPoolIsOneFixedPool) {
  ThreadPool& pool = process_pool();
  EXPECT_EQ(&pool, &process_pool());
  EXPECT_GE(pool.size(), 1u);
  EXPECT_LE(pool.size(), kMaxThreads);
  EXPECT_EQ(thread_count(), pool.size());
  if (!kThreads) EXPECT_EQ(pool.size(), 1u);
  EXPECT_NO_THROW(set_thread_count(pool.size()));  // same size: fine
  EXPECT_THROW(set_thread_count(pool.size() + 1), Error);
  std::vector<std::atomic<int>> runs(1000);
  pool.parallel_for(runs.size(), [&](size_t task, size_t) { runs[task].fetch_add(1); });
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
}

TEST(ThreadPool, ParallelBatchSearchEqualsSerialSearch) {
  const size_t dim = 24, n = 3000, nq = 61, k = 7;
  FlatIndex index({dim, Metric::l2});
  const auto base = unit_gaussian_vectors(n, dim, 42);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = 1000 + i * 3;
  index.add(ids, base);
  const auto queries = unit_gaussian_vectors(nq, dim, 13);
  std::vector<Neighbor> batch(nq * k), one(k);
  ASSERT_EQ(index.search_batch(queries.data(), nq, k, batch.data()), k);
  for (size_t q = 0; q < nq; ++q) {
    ASSERT_EQ(index.search(queries.data() + q * dim, k, one.data()), k);
    for (size_t j = 0; j < k; ++j) {
      EXPECT_EQ(batch[q * k + j].id, one[j].id) << q << "," << j;
      EXPECT_EQ(batch[q * k + j].distance, one[j].distance) << q << "," << j;
    }
  }
  // The same from inside a pool task (nested: runs inline) and with one worker.
  std::vector<Neighbor> nested(nq * k), limited(nq * k);
  ThreadPool outer(2);
  outer.parallel_for(1, [&](size_t, size_t) { index.search_batch(queries.data(), nq, k, nested.data()); });
  {
    WorkerLimit one_worker(1);
    index.search_batch(queries.data(), nq, k, limited.data());
  }
  for (size_t i = 0; i < nq * k; ++i) {
    EXPECT_EQ(nested[i].id, batch[i].id);
    EXPECT_EQ(limited[i].id, batch[i].id);
  }
}

#if defined(QUIVER_THREADS)
TEST(ThreadPool, ConcurrentCallersFromOutsideThreadsAreSerialised) {
  ThreadPool pool(3);
  constexpr int kCallers = 4, kRounds = 40;
  std::vector<std::vector<std::atomic<int>>> runs;
  for (int c = 0; c < kCallers; ++c) runs.emplace_back(200);
  std::vector<std::atomic<int>> busy(pool.size());
  std::atomic<int> overlaps{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r) {
        pool.parallel_for(runs[c].size(), [&](size_t task, size_t worker) {
          if (busy[worker].fetch_add(1) != 0) overlaps.fetch_add(1);
          runs[c][task].fetch_add(1);
          busy[worker].fetch_sub(1);
        });
      }
    });
  }
  for (auto& t : callers) t.join();
  for (auto& caller_runs : runs) {
    for (auto& r : caller_runs) EXPECT_EQ(r.load(), kRounds);
  }
  EXPECT_EQ(overlaps.load(), 0);
}

TEST(ThreadPool, ConcurrentBatchSearchesOnTheProcessPool) {
  const size_t dim = 16, n = 2000, nq = 40, k = 5;
  FlatIndex index({dim, Metric::ip});
  const auto base = unit_gaussian_vectors(n, dim, 42);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  index.add(ids, base);
  const auto queries = unit_gaussian_vectors(nq, dim, 13);
  std::vector<Neighbor> expected(nq * k);
  index.search_batch(queries.data(), nq, k, expected.data());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      std::vector<Neighbor> out(nq * k);
      for (int r = 0; r < 10; ++r) {
        index.search_batch(queries.data(), nq, k, out.data());
        for (size_t i = 0; i < nq * k; ++i) mismatches += out[i].id != expected[i].id;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}
#endif

}  // namespace test_thread_pool
}  // namespace quiver::parallel
