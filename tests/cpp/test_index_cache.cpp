// The index cache, in both modes: get-or-load, byte budget, LRU order, invalidation and
// replacement, handles outliving eviction, and concurrent lookup / insert / evict / search
// (ThreadSanitizer-clean natively; also run in wasm simd-mt under Node).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "serve/index_cache.hpp"
#include "quiver/error.hpp"
#include "quiver/flat_index.hpp"
#include "tools/workload.hpp"

namespace quiver::parallel {
namespace test_index_cache {

// A stand-in index: a fixed size in bytes, and search() answers its tag, so a test can tell
// which version it got. Counts live instances.
class FakeIndex final : public AnyIndex {
 public:
  FakeIndex(uint64_t tag, size_t bytes, std::atomic<int>* live) : tag_(tag), bytes_(bytes), live_(live) {
    if (live_) live_->fetch_add(1);
  }
  ~FakeIndex() override {
    if (live_) live_->fetch_sub(1);
  }
  IndexKind kind() const noexcept override { return IndexKind::flat; }
  size_t dim() const noexcept override { return 1; }
  Metric metric() const noexcept override { return Metric::l2; }
  Isa isa() const noexcept override { return Isa::scalar; }
  size_t size() const noexcept override { return 1; }
  bool contains(uint64_t id) const noexcept override { return id == tag_; }
  size_t memory_bytes() const noexcept override { return bytes_; }
  std::string describe() const override { return "fake"; }
  // The cache only reads (its handles are const): the writers are never reached.
  void add(const uint64_t*, const float*, size_t) override { unreachable(); }
  void remove(const uint64_t*, size_t) override { unreachable(); }
  void reserve(size_t) override { unreachable(); }
  bool has_vectors() const noexcept override { return false; }
  void get(uint64_t, float*) const override { unreachable(); }
  std::vector<uint8_t> serialize() const override { unreachable(); }
  void save(const std::string&) const override { unreachable(); }
  size_t search(const float*, size_t k, Neighbor* out, const AnySearchParams&) const override {
    for (size_t i = 0; i < k; ++i) out[i] = {tag_, float(i)};
    return k;
  }
  size_t search_batch(const float* q, size_t nq, size_t k, Neighbor* out, const AnySearchParams& p) const override {
    for (size_t i = 0; i < nq; ++i) search(q, k, out + i * k, p);
    return k;
  }
  using AnyIndex::search;
  uint64_t tag() const { return tag_; }

 private:
  [[noreturn]] static void unreachable() { throw std::logic_error("FakeIndex is read-only"); }
  uint64_t tag_;
  size_t bytes_;
  std::atomic<int>* live_;
};

IndexHandle fake(uint64_t tag, size_t bytes, std::atomic<int>* live = nullptr) {
  return std::make_shared<const FakeIndex>(tag, bytes, live);
}

uint64_t tag_of(const IndexHandle& h) {
  Neighbor n;
  h->search(nullptr, 1, &n);
  return n.id;
}

class IndexCacheTest : public ::testing::TestWithParam<CacheMode> {
 protected:
  std::unique_ptr<IndexCache> make(size_t budget = kUnlimitedBytes) { return IndexCache::create(GetParam(), budget); }
};

TEST_P(IndexCacheTest, ReportsItsMode) { EXPECT_EQ(make()->mode(), GetParam()); }

TEST_P(IndexCacheTest, FindMissesThenHitsAfterPut) {
  auto cache = make();
  EXPECT_EQ(cache->find("a"), nullptr);
  EXPECT_TRUE(cache->put("a", fake(1, 10)));
  ASSERT_NE(cache->find("a"), nullptr);
  EXPECT_EQ(tag_of(cache->find("a")), 1u);
  EXPECT_EQ(cache->find("b"), nullptr);
  EXPECT_EQ(cache->find(""), nullptr);
  EXPECT_EQ(cache->find("aa"), nullptr);
  const auto s = cache->stats();
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 10u);
}

TEST_P(IndexCacheTest, GetOrLoadCallsTheLoaderOnlyOnAMiss) {
  auto cache = make();
  int calls = 0;
  auto loader = [&] {
    ++calls;
    return fake(7, 5);
  };
  auto first = cache->get_or_load("x", loader);
  auto second = cache->get_or_load("x", loader);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(first, second);
  EXPECT_EQ(cache->stats().loads, 1u);
  cache->get_or_load("y", loader);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache->stats().loads, 2u);
}

TEST_P(IndexCacheTest, LoaderFailureCachesNothing) {
  auto cache = make();
  EXPECT_THROW(cache->get_or_load("x", []() -> IndexHandle { throw std::runtime_error("disk on fire"); }),
               std::runtime_error);
  EXPECT_EQ(cache->find("x"), nullptr);
  EXPECT_THROW(cache->get_or_load("x", [] { return IndexHandle(); }), Error);
  EXPECT_EQ(cache->find("x"), nullptr);
  EXPECT_THROW(cache->put("x", nullptr), Error);
  EXPECT_EQ(cache->stats().entries, 0u);
  EXPECT_EQ(cache->stats().loads, 0u);
}

TEST_P(IndexCacheTest, BudgetEvictsTheLeastRecentlyUsed) {
  auto cache = make(100);
  cache->put("a", fake(1, 40));
  cache->put("b", fake(2, 40));
  EXPECT_EQ(cache->stats().bytes, 80u);
  cache->put("c", fake(3, 40));  // 120 > 100: a (oldest) goes
  EXPECT_EQ(cache->find("a"), nullptr);
  EXPECT_NE(cache->find("b"), nullptr);
  EXPECT_NE(cache->find("c"), nullptr);
  auto s = cache->stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.bytes, 80u);
  EXPECT_EQ(s.budget, 100u);
  EXPECT_EQ(s.evictions, 1u);
  cache->put("big", fake(4, 100));  // needs everything else out
  EXPECT_EQ(cache->names_by_recency(), std::vector<std::string>{"big"});
  EXPECT_EQ(cache->stats().evictions, 3u);
  EXPECT_EQ(cache->stats().bytes, 100u);
}

TEST_P(IndexCacheTest, LookupsRefreshRecency) {
  auto cache = make(100);
  cache->put("a", fake(1, 30));
  cache->put("b", fake(2, 30));
  cache->put("c", fake(3, 30));
  EXPECT_EQ(cache->names_by_recency(), (std::vector<std::string>{"c", "b", "a"}));
  cache->find("a");
  cache->find("a");  // already the most recent: changes nothing
  EXPECT_EQ(cache->names_by_recency(), (std::vector<std::string>{"a", "c", "b"}));
  cache->get_or_load("b", [] { return fake(99, 1); });  // a hit: refreshes b, no load
  EXPECT_EQ(cache->names_by_recency(), (std::vector<std::string>{"b", "a", "c"}));
  cache->put("d", fake(4, 30));  // evicts c, the least recently used
  EXPECT_EQ(cache->names_by_recency(), (std::vector<std::string>{"d", "b", "a"}));
  EXPECT_EQ(cache->find("c"), nullptr);
  EXPECT_EQ(tag_of(cache->find("b")), 2u);
}

TEST_P(IndexCacheTest, AnIndexLargerThanTheBudgetIsReturnedButNotKept) {
  auto cache = make(100);
  cache->put("small", fake(1, 10));
  EXPECT_FALSE(cache->put("huge", fake(2, 101)));
  EXPECT_EQ(cache->find("huge"), nullptr);
  EXPECT_NE(cache->find("small"), nullptr);  // nothing was evicted for it
  int calls = 0;
  auto loader = [&] {
    ++calls;
    return fake(3, 500);
  };
  EXPECT_EQ(tag_of(cache->get_or_load("huge", loader)), 3u);
  EXPECT_EQ(tag_of(cache->get_or_load("huge", loader)), 3u);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache->stats().rejected, 3u);
  EXPECT_EQ(cache->stats().entries, 1u);
  auto none = make(0);
  EXPECT_FALSE(none->put("a", fake(1, 1)));
  EXPECT_TRUE(none->put("empty", fake(1, 0)));
}

TEST_P(IndexCacheTest, InvalidateDropsTheEntryButNotHandlesInFlight) {
  std::atomic<int> live{0};
  auto cache = make();
  cache->put("a", fake(1, 10, &live));
  cache->put("b", fake(2, 10, &live));
  IndexHandle held = cache->find("a");
  EXPECT_TRUE(cache->invalidate("a"));
  EXPECT_FALSE(cache->invalidate("a"));
  EXPECT_FALSE(cache->invalidate("zzz"));
  EXPECT_EQ(cache->find("a"), nullptr);
  EXPECT_EQ(live.load(), 2);  // still held
  EXPECT_EQ(tag_of(held), 1u);
  held.reset();
  EXPECT_EQ(live.load(), 1);
  EXPECT_EQ(cache->stats().bytes, 10u);
  EXPECT_EQ(cache->stats().invalidations, 1u);
  cache->clear();
  EXPECT_EQ(live.load(), 0);
  EXPECT_EQ(cache->find("b"), nullptr);
  EXPECT_EQ(cache->stats().entries, 0u);
  EXPECT_EQ(cache->stats().bytes, 0u);
  EXPECT_EQ(cache->stats().invalidations, 2u);
}

TEST_P(IndexCacheTest, PutReplacesAChangedIndex) {
  std::atomic<int> live{0};
  auto cache = make(100);
  cache->put("a", fake(1, 60, &live));
  IndexHandle old = cache->find("a");
  cache->put("a", fake(2, 80, &live));  // replaces: the old 60 bytes no longer count
  EXPECT_EQ(tag_of(cache->find("a")), 2u);
  EXPECT_EQ(tag_of(old), 1u);
  EXPECT_EQ(cache->stats().bytes, 80u);
  EXPECT_EQ(cache->stats().evictions, 0u);
  EXPECT_EQ(cache->stats().invalidations, 1u);
  old.reset();
  EXPECT_EQ(live.load(), 1);
  EXPECT_FALSE(cache->put("a", fake(3, 200, &live)));  // too big: and the old entry is gone
  EXPECT_EQ(cache->find("a"), nullptr);
  EXPECT_EQ(live.load(), 0);
}

TEST_P(IndexCacheTest, EvictedIndexLivesUntilItsLastHandleGoes) {
  std::atomic<int> live{0};
  auto cache = make(50);
  cache->put("a", fake(1, 50, &live));
  IndexHandle in_flight = cache->find("a");
  cache->put("b", fake(2, 50, &live));  // evicts a
  EXPECT_EQ(cache->find("a"), nullptr);
  EXPECT_EQ(live.load(), 2);
  EXPECT_EQ(tag_of(in_flight), 1u);
  in_flight.reset();
  EXPECT_EQ(live.load(), 1);
  cache.reset();
  EXPECT_EQ(live.load(), 0);
}

TEST_P(IndexCacheTest, HoldsARealFlatIndex) {
  const size_t dim = 32, n = 500, k = 5;
  FlatIndex index({dim, Metric::cosine});
  const auto base = unit_gaussian_vectors(n, dim, 42);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 2 + 1;
  index.add(ids, base);
  const auto query = unit_gaussian_vectors(1, dim, 13);
  std::vector<Neighbor> direct(k), cached(k);
  index.search(query.data(), k, direct.data());
  const size_t bytes = index.memory_bytes();

  auto cache = make();
  IndexHandle h = cache->get_or_load("docs", [&] { return make_any_index(std::move(index)); });
  EXPECT_EQ(h->kind(), IndexKind::flat);
  EXPECT_EQ(h->dim(), dim);
  EXPECT_EQ(h->size(), n);
  EXPECT_EQ(cache->stats().bytes, bytes);
  ASSERT_EQ(cache->find("docs")->search(query.data(), k, cached.data()), k);
  for (size_t i = 0; i < k; ++i) {
    EXPECT_EQ(cached[i].id, direct[i].id);
    EXPECT_EQ(cached[i].distance, direct[i].distance);
  }
  auto* typed = dynamic_cast<const IndexAdapter<FlatIndex>*>(h.get());
  ASSERT_NE(typed, nullptr);
  EXPECT_EQ(typed->index().size(), n);
}

TEST(IndexCacheModes, ParseAndName) {
  EXPECT_EQ(parse_cache_mode("mutex"), CacheMode::mutex);
  EXPECT_EQ(parse_cache_mode("nolock"), CacheMode::nolock);
  EXPECT_STREQ(cache_mode_name(CacheMode::mutex), "mutex");
  EXPECT_STREQ(cache_mode_name(CacheMode::nolock), "nolock");
  EXPECT_THROW(parse_cache_mode("rwlock"), Error);
  EXPECT_THROW(parse_cache_mode(""), Error);
}

#if defined(QUIVER_THREADS)
// Readers look up and search while writers insert, replace, invalidate and (through a budget
// that holds only some of the names) evict. Every handle a reader gets must be a live index
// of the name it asked for; at the end every index ever created is destroyed exactly once.
TEST_P(IndexCacheTest, ConcurrentLookupInsertEvictAndSearch) {
  constexpr int kNames = 8, kReaders = 3, kWriters = 2, kReaderOps = 4000, kWriterOps = 400;
  std::atomic<int> live{0};
  std::atomic<int> wrong{0}, misses{0}, loads_seen{0};
  {
    auto cache = make(4 * 100);  // room for 4 of the 8 names
    auto name_of = [](int i) { return "index-" + std::to_string(i); };
    std::vector<std::string> names;
    for (int i = 0; i < kNames; ++i) names.push_back(name_of(i));
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int r = 0; r < kReaders; ++r) {
      threads.emplace_back([&, r] {
        while (!go.load()) std::this_thread::yield();
        Neighbor out[3];
        for (int op = 0; op < kReaderOps; ++op) {
          const int i = (op * 7 + r * 3) % kNames;
          IndexHandle h;
          if (op % 2 == 0) {
            h = cache->find(names[i]);
            if (!h) {
              misses.fetch_add(1);
              continue;
            }
          } else {
            h = cache->get_or_load(names[i], [&] {
              loads_seen.fetch_add(1);
              return fake(uint64_t(i) * 1000, 100, &live);
            });
          }
          h->search(nullptr, 3, out);
          if (out[0].id / 1000 != uint64_t(i) || out[2].id != out[0].id) wrong.fetch_add(1);
        }
      });
    }
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        while (!go.load()) std::this_thread::yield();
        for (int op = 0; op < kWriterOps; ++op) {
          const int i = (op * 5 + w) % kNames;
          switch (op % 5) {
            case 0:
            case 1:
            case 2: cache->put(names[i], fake(uint64_t(i) * 1000 + 1 + w, 100, &live)); break;
            case 3: cache->invalidate(names[i]); break;
            default:
              if (op % 50 == 4)
                cache->clear();
              else
                cache->names_by_recency();
              break;
          }
        }
      });
    }
    go.store(true);
    for (auto& t : threads) t.join();
    const auto s = cache->stats();
    EXPECT_LE(s.bytes, 400u);
    EXPECT_LE(s.entries, 4u);
    EXPECT_EQ(s.bytes, s.entries * 100);
    EXPECT_GT(s.evictions + s.invalidations, 0u);
    EXPECT_EQ(s.loads, uint64_t(loads_seen.load()));
  }
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(live.load(), 0);  // no leak, no double free (ASan/TSan would also say so)
}

// Many threads hammer one hot name: the benchmark's access pattern.
TEST_P(IndexCacheTest, ConcurrentHotLookups) {
  auto cache = make();
  cache->put("hot", fake(42, 1));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        IndexHandle h = cache->find("hot");
        if (!h || tag_of(h) != 42) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(cache->names_by_recency(), std::vector<std::string>{"hot"});
}
#endif

INSTANTIATE_TEST_SUITE_P(Modes, IndexCacheTest, ::testing::Values(CacheMode::mutex, CacheMode::nolock),
                         [](const auto& info) { return std::string(cache_mode_name(info.param)); });

}  // namespace test_index_cache
}  // namespace quiver::parallel
