// "Search allocates nothing in steady state", checked with a counting global operator new for
// the parallel paths: parallel_for, FlatIndex::search_batch on the process pool, and cache
// lookups in both modes. Its own executable, because replacing operator new is program-wide.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "serve/index_cache.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/flat_index.hpp"
#include "tools/workload.hpp"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace quiver::parallel {
namespace {

// Allocations made (by any thread) while fn runs.
template <typename Fn>
long allocations_during(Fn&& fn) {
  const long before = g_allocations.load();
  fn();
  return g_allocations.load() - before;
}

TEST(ParallelAllocations, CounterWorks) {
  // The test can fail: a vector allocates and is seen.
  EXPECT_GE(allocations_during([] {
              std::vector<int> v(10);
              v[3] = 1;
            }),
            1);
}

TEST(ParallelAllocations, ParallelForAllocatesNothing) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> runs(1000);
  auto body = [&](size_t task, size_t) { runs[task].fetch_add(1, std::memory_order_relaxed); };
  pool.parallel_for(runs.size(), body);  // warm: thread-local state of the workers
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 50; ++i) pool.parallel_for(runs.size(), body);
            }),
            0);
  EXPECT_EQ(runs[0].load(), 51);
}

TEST(ParallelAllocations, BatchSearchOnTheProcessPoolAllocatesNothing) {
  const size_t dim = 64, n = 4000, nq = 32, k = 10;
  FlatIndex index({dim, Metric::l2});
  const auto base = unit_gaussian_vectors(n, dim, 42);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  index.add(ids, base);
  const auto queries = unit_gaussian_vectors(nq, dim, 13);
  std::vector<Neighbor> out(nq * k);
  index.search_batch(queries.data(), nq, k, out.data());  // warm: creates the process pool
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 10; ++i) index.search_batch(queries.data(), nq, k, out.data());
            }),
            0);
}

TEST(ParallelAllocations, CacheLookupsAllocateNothing) {
  for (CacheMode mode : {CacheMode::mutex, CacheMode::nolock}) {
    FlatIndex index({8, Metric::l2});
    index.add({1, 2}, std::vector<float>(16, 0.5f));
    auto cache = IndexCache::create(mode);
    cache->put("a-fairly-long-index-name-beyond-small-string-optimisation", make_any_index(std::move(index)));
    cache->put("b", make_any_index(FlatIndex({8, Metric::l2})));
    const char* name = "a-fairly-long-index-name-beyond-small-string-optimisation";
    float query[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    Neighbor out[2];
    cache->find(name);  // warm: claims this thread's hazard slot (nolock)
    EXPECT_EQ(allocations_during([&] {
                for (int i = 0; i < 100; ++i) {
                  IndexHandle h = cache->find(i % 2 ? name : "b");
                  if (i % 2) h->search(query, 2, out);
                  cache->get_or_load(name, [] { return IndexHandle(); });  // a hit: no load
                }
              }),
              0)
        << cache_mode_name(mode);
  }
}

}  // namespace
}  // namespace quiver::parallel
