// HnswIndex::compact(): recall is kept, removed ids never come back, size/contains/ids are
// unchanged, memory drops, the entry point may be among the removed, and the compacted index
// goes on accepting adds, removes, files and concurrent searches.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "hnsw_test_support.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_hnsw_compact {

using namespace hnsw_test;

TEST(HnswCompact, KeepsRecallSizeAndIdsAndDropsMemory) {
  Data d = clustered(3000 / kScale, 80, 32);
  HnswIndex index({d.dim, Metric::l2, 12, 80, 42});
  index.add(d.ids, d.base);
  // Remove 40% (every slot whose index is 0 or 3 mod 5): the entry point is likely among them.
  std::vector<uint64_t> gone;
  std::vector<size_t> kept;
  for (size_t i = 0; i < d.n; ++i) (i % 5 == 0 || i % 5 == 3 ? gone.push_back(d.ids[i]) : kept.push_back(i));
  index.remove(gone);
  const size_t memory_before = index.memory_bytes();
  const std::vector<Neighbor> truth = exact(d, Metric::l2, 10, kept);
  const double recall_before = recall(run(index, d, 10, ef(64)), truth, 10);

  index.compact();
  EXPECT_EQ(index.size(), kept.size());
  for (size_t i = 0; i < d.n; ++i) ASSERT_EQ(index.contains(d.ids[i]), i % 5 != 0 && i % 5 != 3) << i;
  // Node storage now holds 60% of the nodes, freed in whole ~256 KiB chunks (one partly used
  // chunk may stay: with fewer nodes — sanitizer builds — the graph is a chunk or two).
  EXPECT_LT(index.memory_bytes(), memory_before * 3 / 4 + (size_t(256) << 10));
  EXPECT_LE(index.bytes_per_vector() * kept.size(), index.memory_bytes());
  const std::vector<Neighbor> got = run(index, d, 10, ef(64));
  const std::set<uint64_t> gone_set(gone.begin(), gone.end());
  for (const Neighbor& nb : got) ASSERT_EQ(gone_set.count(nb.id), 0u) << nb.id;
  const double recall_after = recall(got, truth, 10);
  EXPECT_GE(recall_after, 0.95);
  EXPECT_GE(recall_after, recall_before - 0.02);
  // Nothing left to drop: a second compaction changes nothing.
  const std::vector<uint8_t> file = index.serialize();
  index.compact();
  EXPECT_EQ(index.serialize(), file);
  // The file of a compacted index has no tombstones and loads to the same answers.
  const IndexFileInfo info = inspect_index(file.data(), file.size());
  EXPECT_EQ(info.params[5], kept.size());  // slots
  EXPECT_EQ(info.sections[1].size, 0u);    // FREE
  EXPECT_EQ(test::ids_of(run(HnswIndex::load(file), d, 10, ef(64))), test::ids_of(got));
}

TEST(HnswCompact, CompactedIndexAcceptsUpdates) {
  Data d = clustered(1500 / kScale, 40, 24);
  HnswIndex index({d.dim, Metric::cosine, 8, 60, 7});
  index.add(d.ids, d.base);
  const size_t half = d.n / 2;
  std::vector<uint64_t> first(d.ids.begin(), d.ids.begin() + half);
  index.remove(first);
  index.compact();
  EXPECT_EQ(index.size(), d.n - half);
  // Re-add the removed ids (fresh slots now), remove some others, compact again.
  index.add(first, std::vector<float>(d.base.begin(), d.base.begin() + half * d.dim));
  EXPECT_EQ(index.size(), d.n);
  EXPECT_GE(recall(run(index, d, 10, ef(64)), exact(d, Metric::cosine, 10), 10), 0.95);
  std::vector<uint64_t> some;
  std::vector<size_t> kept;
  for (size_t i = 0; i < d.n; ++i) (i % 7 == 1 ? some.push_back(d.ids[i]) : kept.push_back(i));
  index.remove(some);
  index.compact();
  EXPECT_EQ(index.size(), kept.size());
  EXPECT_GE(recall(run(index, d, 10, ef(64)), exact(d, Metric::cosine, 10, kept), 10), 0.95);
  EXPECT_THROW(index.add({d.ids[0]}, std::vector<float>(d.dim, 1.0f)), Error);  // ids kept
}

TEST(HnswCompact, EverythingRemovedGivesAnEmptyIndex) {
  const Data d = clustered(300, 10, 16);
  // One build thread: a parallel build of so small a graph (300 nodes in 16 clusters) can, in
  // a rare interleaving, link a cluster poorly; the serial build is fixed for the seed.
  parallel::WorkerLimit one(1);
  HnswIndex index({d.dim, Metric::l2, 8, 64, 3});
  index.compact();  // empty: nothing to do
  index.add(d.ids, d.base);
  index.remove(d.ids);
  index.compact();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.max_level(), -1);
  EXPECT_EQ(index.bytes_per_vector(), 0u);
  std::vector<Neighbor> out(10);
  EXPECT_THROW(index.search(d.queries.data(), 10, out.data()), Error);
  index.add(d.ids, d.base);
  EXPECT_GE(recall(run(index, d, 10, ef(64)), exact(d, Metric::l2, 10), 10), 0.95);
}

// One build thread: compaction is serial, so the compacted graph is the same at every ISA.
TEST(HnswCompact, DeterministicAtEveryIsa) {
  const Data d = clustered(1200 / kScale, 20, 32);
  parallel::WorkerLimit one(1);
  std::vector<uint64_t> gone;
  for (size_t i = 0; i < d.n; i += 3) gone.push_back(d.ids[i]);
  std::vector<std::vector<uint64_t>> results;
  for (Isa isa : available_isas()) {
    HnswIndex index({d.dim, Metric::l2, 8, 48, 42}, isa);
    index.add(d.ids, d.base);
    index.remove(gone);
    index.compact();
    results.push_back(test::ids_of(run(index, d, 10, ef(32))));
    EXPECT_EQ(results.back(), results.front()) << isa_name(isa);
  }
}

#if defined(QUIVER_THREADS)
// Compaction while other threads search: searches wait for it and always see a valid graph
// (checked for data races under ThreadSanitizer).
TEST(HnswCompact, ConcurrentSearches) {
  const Data d = clustered(1200 / kScale, 20, 16);
  HnswIndex index({d.dim, Metric::l2, 8, 40, 42});
  index.add(d.ids, d.base);
  std::atomic<bool> done{false};
  std::atomic<size_t> searches{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      std::vector<Neighbor> out(5);
      while (!done.load()) {
        const size_t got = index.search(d.queries.data() + (searches % 20) * d.dim, 5, out.data());
        EXPECT_EQ(got, 5u);
        ++searches;
      }
    });
  }
  for (size_t round = 0; round < 4; ++round) {
    std::vector<uint64_t> gone;
    for (size_t i = round; i < d.n; i += 8) gone.push_back(d.ids[i]);
    index.remove(gone);
    index.compact();
    index.add(gone, [&] {
      std::vector<float> rows;
      for (size_t i = round; i < d.n; i += 8) rows.insert(rows.end(), &d.base[i * d.dim], &d.base[(i + 1) * d.dim]);
      return rows;
    }());
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(index.size(), d.n);
  EXPECT_GT(searches.load(), 0u);
}
#endif  // QUIVER_THREADS

}  // namespace test_hnsw_compact
}  // namespace quiver
