// IndexCache — a registry of loaded indexes by name, as a server or an edge function keeps
// between requests: get-or-load, a byte budget with least-recently-used eviction, and
// invalidation when an index changes.
//
//   auto cache = IndexCache::create(CacheMode::nolock, 512 << 20);
//   IndexHandle index = cache->get_or_load("docs", [&] { return make_any_index(load_docs()); });
//   index->search(query, 10, out);
//
// Entries are shared_ptr<const AnyIndex> (quiver/any_index.hpp, the one interface over every
// index kind; only its const calls are reachable through a handle): a handle keeps its index alive, so a search in
// flight survives eviction, invalidation and replacement (the memory goes when the last handle
// does).
//
// Two modes behind one interface:
//   mutex   a name-ordered map under one std::mutex: every lookup takes the lock briefly (the
//           reference design, what most servers do).
//   nolock  lookups take no lock: the entries live in an immutable snapshot that writers
//           replace atomically (copy on write), and a per-thread hazard pointer keeps a
//           snapshot alive while a reader is inside it. In the steady state a lookup writes
//           only its own thread's hazard slot (and the handle's reference count, below). Writers pay: each
//           put/invalidate/evict copies the entry table and scans the hazard slots. (If more than 256 threads read at
//           once the extra ones take the writer lock instead.)
// Both return a copy of the shared_ptr (one atomic increment on the index's control block).
//
// Recency: a lookup marks its entry most recently used; marking an entry that already is the
// most recently used writes nothing, so a hot entry is not a contended cache line.
//
// Loads: get_or_load calls the loader outside the lookup lock (mutex mode) / without blocking
// readers (nolock mode); loads into one cache are serialised, so a name is loaded once even
// when many threads miss at the same time. A loader's exception propagates and caches nothing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "parallel/function_ref.hpp"
#include "quiver/any_index.hpp"

namespace quiver::parallel {

// What caches and benchmarks hold: a shared, read-only index of any kind. A cached index is
// never mutated while searches run on it: to change one, build or copy a new index and put()
// it under the same name.
using IndexHandle = std::shared_ptr<const AnyIndex>;

enum class CacheMode { mutex, nolock };

const char* cache_mode_name(CacheMode mode) noexcept;
// "mutex" or "nolock"; throws Error(InvalidArgument) otherwise.
CacheMode parse_cache_mode(std::string_view name);

using IndexLoader = function_ref<IndexHandle()>;

inline constexpr size_t kUnlimitedBytes = SIZE_MAX;

struct CacheStats {
  size_t entries = 0;
  size_t bytes = 0;  // sum of the entries' memory_bytes() at insertion
  size_t budget = 0;
  uint64_t loads = 0;          // loader calls that returned an index
  uint64_t evictions = 0;      // entries dropped to fit the budget
  uint64_t invalidations = 0;  // entries dropped by invalidate(), clear() or replacement
  uint64_t rejected = 0;       // indexes larger than the whole budget (returned, not kept)
};

class IndexCache {
 public:
  // byte_budget: the most bytes the entries may hold together (kUnlimitedBytes: no limit).
  static std::unique_ptr<IndexCache> create(CacheMode mode, size_t byte_budget = kUnlimitedBytes);
  virtual ~IndexCache() = default;
  IndexCache(const IndexCache&) = delete;
  IndexCache& operator=(const IndexCache&) = delete;

  virtual CacheMode mode() const noexcept = 0;

  // The index cached under `name` (now the most recently used), or null. Allocates nothing.
  virtual IndexHandle find(std::string_view name) = 0;

  // find(name), or on a miss: loader(), insert, evict least recently used entries until the
  // budget holds, and return the loaded index. An index larger than the whole budget is
  // returned but not kept. Throws Error(InvalidArgument) if the loader returns null.
  IndexHandle get_or_load(std::string_view name, IndexLoader loader);

  // Inserts `index` under `name`, replacing (invalidating) what was there, then evicts as
  // above. Returns false if the index alone exceeds the budget (then nothing is cached under
  // `name`). Throws Error(InvalidArgument) for a null index.
  virtual bool put(std::string_view name, IndexHandle index) = 0;

  // Drops the entry for `name` (e.g. because the index changed); returns whether there was one.
  // Handles already returned stay valid.
  virtual bool invalidate(std::string_view name) = 0;

  // Drops every entry.
  virtual void clear() = 0;

  virtual CacheStats stats() const = 0;

  // Cached names, most recently used first.
  virtual std::vector<std::string> names_by_recency() const = 0;

 protected:
  IndexCache() = default;

 private:
  std::mutex load_mutex_;
  std::atomic<uint64_t> loads_{0};

 protected:
  uint64_t loads() const noexcept { return loads_.load(std::memory_order_relaxed); }
};

}  // namespace quiver::parallel
