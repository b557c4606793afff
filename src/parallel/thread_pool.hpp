// ThreadPool — a fixed set of worker threads and one operation, parallel_for.
//
//   quiver::parallel::process_pool().parallel_for(n, [&](size_t task, size_t worker) { ... });
//
// * The workers are created once, when the pool is constructed; a call creates no thread and
//   allocates nothing (the callable is passed as a non-owning function_ref).
// * The calling thread takes part as worker 0; background workers are 1..size()-1. Tasks are
//   handed out through one atomic counter, so each of the n tasks runs exactly once, on some
//   worker, and `worker` (< size()) is unique among the tasks running at the same moment: index
//   per-worker scratch with it.
// * An exception thrown by a task is rethrown to the caller once every worker has stopped
//   (the first one wins; tasks not yet started are skipped, tasks already running finish).
// * Nested use is safe: parallel_for called from inside a task (of this pool or any other)
//   runs the inner tasks inline on the calling thread, in order, with the caller's own worker
//   index. Calls from several outside threads at once are serialised: one job runs at a time.
// * Without threads (wasm `simd` and `baseline`, built without QUIVER_THREADS) the same API runs
//   everything inline with one worker.
//
// One pool per process: process_pool(). Its size is fixed when it is first used, from (in
// order) set_thread_count(), the QUIVER_THREADS environment variable, or the CPU count
// (std::thread::hardware_concurrency). In wasm `simd-mt` it never starts more background
// threads than the pre-spawned pthread pool has free workers (PTHREAD_POOL_SIZE, which the JS
// loader sets from Module.quiverThreads or the CPU count), because a thread beyond that pool
// cannot start while the caller blocks. Programs and tests may also create their own pools.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "parallel/function_ref.hpp"

namespace quiver::parallel {

// The most workers a pool will have (more are clamped).
inline constexpr size_t kMaxThreads = 256;

using TaskFn = function_ref<void(size_t task, size_t worker)>;

class ThreadPool {
 public:
  // A pool of `threads` workers in total, the caller included (so threads - 1 background
  // threads); 0 means 1. Clamped to kMaxThreads, and to 1 in builds without threads. If the
  // platform refuses a thread the pool keeps the workers it got (see size()).
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Workers, the caller included.
  size_t size() const noexcept { return workers_; }

  // Runs fn(task, worker) for every task in [0, n), on at most min(size(), max_workers())
  // workers, and returns when all have finished. See the header comment for the guarantees.
  void parallel_for(size_t n, TaskFn fn);

 private:
#if defined(QUIVER_THREADS)
  void worker_main(size_t index);
  void run_tasks(size_t worker);

  std::mutex call_mutex_;  // one job at a time
  std::mutex mutex_;       // guards generation_, stop_, pending_ and the job fields below
  std::condition_variable wake_;
  std::condition_variable done_;
  size_t generation_ = 0;
  bool stop_ = false;
  size_t pending_ = 0;       // background workers still on the current job
  size_t participants_ = 0;  // workers taking part in the current job, the caller included
  TaskFn* job_fn_ = nullptr;
  size_t job_n_ = 0;
  alignas(64) std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
#endif
  size_t workers_ = 1;
};

// Limits how many workers parallel_for calls made by this thread may use, for the lifetime of
// the object (e.g. to measure scaling, or to keep one request on one core). Nestable; 0 or a
// value above the pool size means "all".
class WorkerLimit {
 public:
  explicit WorkerLimit(size_t max_workers) noexcept;
  ~WorkerLimit();
  WorkerLimit(const WorkerLimit&) = delete;
  WorkerLimit& operator=(const WorkerLimit&) = delete;

 private:
  size_t previous_;
};

// This thread's current limit (0: none).
size_t max_workers() noexcept;

// True while the calling thread is running a parallel_for task.
bool in_parallel_task() noexcept;

// The process-wide pool, created on first use.
ThreadPool& process_pool();

// Fixes the process pool's size before its first use. Throws Error(InvalidArgument) if the
// pool already exists with a different size (a pool's workers are created exactly once).
void set_thread_count(size_t threads);

// The size the process pool has, or will have when first used (creates nothing). Throws
// Error(InvalidArgument) if QUIVER_THREADS is set to something other than a positive integer.
size_t thread_count();

// Background threads the platform lets the pool start: unlimited natively; in wasm simd-mt the
// free pre-spawned pthread workers; 0 without threads.
size_t available_background_threads();

}  // namespace quiver::parallel
