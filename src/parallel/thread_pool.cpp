#include "parallel/thread_pool.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>

#include "quiver/error.hpp"

#if defined(__EMSCRIPTEN__) && defined(QUIVER_THREADS)
#include <emscripten.h>
#endif

namespace quiver::parallel {
namespace {

// What the calling thread is doing: the pool whose task it runs (null outside tasks), its
// worker index there, and its WorkerLimit.
thread_local const ThreadPool* t_pool = nullptr;
thread_local size_t t_worker = 0;
thread_local size_t t_limit = 0;

// Marks the calling thread as running tasks of `pool` as `worker` until destroyed.
class TaskScope {
 public:
  TaskScope(const ThreadPool* pool, size_t worker) noexcept
      : saved_pool_(std::exchange(t_pool, pool)), saved_worker_(std::exchange(t_worker, worker)) {}
  ~TaskScope() {
    t_pool = saved_pool_;
    t_worker = saved_worker_;
  }
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

 private:
  const ThreadPool* saved_pool_;
  size_t saved_worker_;
};

void run_inline(const ThreadPool* pool, size_t n, TaskFn fn, size_t worker) {
  TaskScope scope(pool, worker);
  for (size_t i = 0; i < n; ++i) fn(i, worker);
}

}  // namespace

// ---- ThreadPool -------------------------------------------------------------------------

#if defined(QUIVER_THREADS)

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = 1;
  if (threads > kMaxThreads) threads = kMaxThreads;
  threads_.reserve(threads - 1);
  for (size_t i = 1; i < threads; ++i) {
    try {
      threads_.emplace_back([this, i] { worker_main(i); });
    } catch (const std::system_error&) {
      break;  // the platform refused a thread (e.g. wasm's pthread pool is exhausted): keep what we have
    }
  }
  workers_ = threads_.size() + 1;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::worker_main(size_t index) {
  size_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      // Workers outside the current job's limit sit it out. Those inside are counted in
      // pending_, so the job (and its fields) cannot change until they have checked out.
      if (index >= participants_) continue;
    }
    run_tasks(index);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

void ThreadPool::run_tasks(size_t worker) {
  TaskScope scope(this, worker);
  TaskFn& fn = *job_fn_;
  const size_t n = job_n_;
  for (;;) {
    const size_t task = next_.fetch_add(1, std::memory_order_relaxed);
    if (task >= n) return;
    try {
      fn(task, worker);
    } catch (...) {
      if (!failed_.exchange(true, std::memory_order_relaxed)) error_ = std::current_exception();
      next_.store(n, std::memory_order_relaxed);  // skip the tasks nobody has started
      return;
    }
  }
}

void ThreadPool::parallel_for(size_t n, TaskFn fn) {
  if (n == 0) return;
  if (t_pool != nullptr) {  // nested: inline, on this thread, with its own worker index
    run_inline(this, n, fn, t_worker);
    return;
  }
  if (n > SIZE_MAX - kMaxThreads) {
    throw Error(ErrorCode::InvalidArgument, "parallel_for: too many tasks");
  }
  size_t use = workers_;
  if (t_limit != 0 && t_limit < use) use = t_limit;
  if (use > n) use = n;
  if (use <= 1) {
    run_inline(this, n, fn, 0);
    return;
  }

  std::lock_guard<std::mutex> call(call_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_fn_ = &fn;
    job_n_ = n;
    participants_ = use;
    pending_ = use - 1;
    next_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  run_tasks(0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    job_fn_ = nullptr;
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

#else  // no threads: everything runs inline on the caller

ThreadPool::ThreadPool(size_t) {}
ThreadPool::~ThreadPool() = default;

void ThreadPool::parallel_for(size_t n, TaskFn fn) {
  if (n == 0) return;
  run_inline(this, n, fn, t_pool != nullptr ? t_worker : 0);
}

#endif

// ---- WorkerLimit and thread state --------------------------------------------------------

WorkerLimit::WorkerLimit(size_t max_workers) noexcept : previous_(std::exchange(t_limit, max_workers)) {}
WorkerLimit::~WorkerLimit() { t_limit = previous_; }

size_t max_workers() noexcept { return t_limit; }
bool in_parallel_task() noexcept { return t_pool != nullptr; }

// ---- the process pool --------------------------------------------------------------------

namespace {

std::mutex g_config_mutex;
size_t g_requested = 0;  // set_thread_count(); 0: automatic
std::atomic<ThreadPool*> g_pool{nullptr};

size_t parse_thread_env() {
  const char* value = std::getenv("QUIVER_THREADS");
  if (value == nullptr || *value == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(value, &end, 10);
  if (*end != '\0' || errno != 0 || n == 0 || value[0] == '-' || value[0] == '+') {
    throw Error(ErrorCode::InvalidArgument,
                std::string("QUIVER_THREADS must be a positive integer, got '") + value + "'");
  }
  return n > kMaxThreads ? kMaxThreads : size_t(n);
}

size_t default_thread_count() {
#if defined(__EMSCRIPTEN__) && defined(QUIVER_THREADS)
  // Module.quiverThreads (the loader's init option) also sizes the pre-spawned pthread pool.
  // The block is JavaScript: clang-format would split its ===.
  // clang-format off
  const int configured = MAIN_THREAD_EM_ASM_INT({
    var n = Module['quiverThreads'];
    return (typeof n === 'number' && n > 0) ? n : 0;
  });
  // clang-format on
  if (configured > 0) return size_t(configured);
#endif
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// Caller must hold g_config_mutex.
size_t resolve_thread_count() {
#if !defined(QUIVER_THREADS)
  return 1;
#else
  size_t n = g_requested;
  if (n == 0) n = parse_thread_env();
  if (n == 0) n = default_thread_count();
  if (n > kMaxThreads) n = kMaxThreads;
  const size_t background = available_background_threads();
  if (n - 1 > background) n = background + 1;
  return n;
#endif
}

}  // namespace

size_t available_background_threads() {
#if !defined(QUIVER_THREADS)
  return 0;
#elif defined(__EMSCRIPTEN__)
  // Free pre-spawned workers of Emscripten's pthread pool (kept on the main browser thread).
  // The block is JavaScript: clang-format would split its ===.
  // clang-format off
  const int free_workers = MAIN_THREAD_EM_ASM_INT({
    return (typeof PThread === 'object' && PThread.unusedWorkers) ? PThread.unusedWorkers.length : 0;
  });
  // clang-format on
  return free_workers > 0 ? size_t(free_workers) : 0;
#else
  return kMaxThreads;
#endif
}

ThreadPool& process_pool() {
  ThreadPool* pool = g_pool.load(std::memory_order_acquire);
  if (pool != nullptr) return *pool;
  std::lock_guard<std::mutex> lock(g_config_mutex);
  pool = g_pool.load(std::memory_order_relaxed);
  if (pool == nullptr) {
    // Never destroyed: workers must outlive every static that might still search at exit.
    pool = new ThreadPool(resolve_thread_count());
    g_pool.store(pool, std::memory_order_release);
  }
  return *pool;
}

void set_thread_count(size_t threads) {
  std::lock_guard<std::mutex> lock(g_config_mutex);
  if (threads > kMaxThreads) threads = kMaxThreads;
  ThreadPool* pool = g_pool.load(std::memory_order_relaxed);
  if (pool != nullptr) {
    if (threads != 0 && threads != pool->size()) {
      throw Error(ErrorCode::InvalidArgument, "the thread pool already runs with " + std::to_string(pool->size()) +
                                                  " threads; set_thread_count must be called before its first use");
    }
    return;
  }
  g_requested = threads;
}

size_t thread_count() {
  if (ThreadPool* pool = g_pool.load(std::memory_order_acquire)) return pool->size();
  std::lock_guard<std::mutex> lock(g_config_mutex);
  if (ThreadPool* pool = g_pool.load(std::memory_order_relaxed)) return pool->size();
  return resolve_thread_count();
}

}  // namespace quiver::parallel
