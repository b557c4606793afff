// The concurrency contract of every index kind: any number of threads may search (search and
// search_batch) while another thread adds and removes; writers are exclusive. Run under
// ThreadSanitizer (build native-tsan) this must report nothing; everywhere it checks that every
// search sees a consistent index (full results, only ids that exist at some point).
// Builds without threads (wasm simd, baseline) have nothing to run concurrently.
#include <gtest/gtest.h>

#if defined(QUIVER_THREADS)

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "index_kinds_support.hpp"
#include "io_test_support.hpp"

namespace quiver {
namespace test_index_concurrency {

using namespace test;

class IndexConcurrency : public testing::TestWithParam<Kind> {};

std::vector<float> vectors(size_t n, size_t dim, uint64_t seed) {
  std::vector<float> v(n * dim);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = float(int64_t(s >> 40) % 2001 - 1000) / 1000.0f;
  }
  return v;
}

TEST_P(IndexConcurrency, SearchesRunWhileAnotherThreadAddsAndRemoves) {
  constexpr size_t kDim = 16, kBase = 300, kK = 5, kReaders = 3, kRounds = 40, kChurn = 8;
  constexpr size_t kSearches = 150;
  auto index = make_index(GetParam(), kDim, Metric::l2);
  std::vector<uint64_t> base_ids(kBase);
  for (size_t i = 0; i < kBase; ++i) base_ids[i] = i;
  index->add(base_ids, vectors(kBase, kDim, 1));
  const std::vector<float> queries = vectors(8, kDim, 2);

  std::atomic<bool> failed{false};
  std::atomic<size_t> readers_started{0};
  std::atomic<bool> writer_done{false};
  auto reader = [&](size_t r) {
    readers_started.fetch_add(1);
    std::vector<Neighbor> out(kK), batch(4 * kK);
    // At least kSearches each, and on until the writer is done, so reads and writes overlap.
    for (size_t i = 0; (i < kSearches || !writer_done.load()) && !failed.load(); ++i) {
      const float* q = queries.data() + ((r + i) % 8) * kDim;
      // The base vectors stay, so every search has at least kK candidates.
      const size_t got =
          (i % 3 == 2) ? index->search_batch(queries.data(), 4, kK, batch.data()) : index->search(q, kK, out.data());
      if (got != kK) failed.store(true);
      const Neighbor* res = (i % 3 == 2) ? batch.data() : out.data();
      for (size_t j = 0; j < ((i % 3 == 2) ? 4 * kK : kK); ++j) {
        // Base ids are < kBase; the writer's ids are 1000 + round * kChurn + j.
        const uint64_t id = res[j].id;
        if (!(id < kBase || (id >= 1000 && id < 1000 + kRounds * kChurn))) failed.store(true);
      }
    }
  };
  auto writer = [&] {
    while (readers_started.load() < kReaders) std::this_thread::yield();
    std::vector<uint64_t> previous;
    for (size_t round = 0; round < kRounds; ++round) {
      std::vector<uint64_t> ids(kChurn);
      for (size_t j = 0; j < kChurn; ++j) ids[j] = 1000 + round * kChurn + j;
      index->add(ids, vectors(kChurn, kDim, 100 + round));
      if (!previous.empty()) index->remove(previous);
      previous = ids;
    }
    writer_done.store(true);
  };
  std::vector<std::thread> threads;
  for (size_t r = 0; r < kReaders; ++r) threads.emplace_back(reader, r);
  threads.emplace_back(writer);
  for (auto& t : threads) t.join();
  EXPECT_FALSE(failed.load());
  EXPECT_EQ(index->size(), kBase + kChurn);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, IndexConcurrency, testing::ValuesIn(kAllKinds),
                         [](const testing::TestParamInfo<Kind>& info) { return std::string(kind_name(info.param)); });

}  // namespace test_index_concurrency
}  // namespace quiver

#endif  // QUIVER_THREADS
