#include "serve/index_cache.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "quiver/error.hpp"

namespace quiver::parallel {

const char* cache_mode_name(CacheMode mode) noexcept { return mode == CacheMode::mutex ? "mutex" : "nolock"; }

CacheMode parse_cache_mode(std::string_view name) {
  if (name == "mutex") return CacheMode::mutex;
  if (name == "nolock") return CacheMode::nolock;
  throw Error(ErrorCode::InvalidArgument, "unknown cache mode '" + std::string(name) + "' (expected mutex or nolock)");
}

IndexHandle IndexCache::get_or_load(std::string_view name, IndexLoader loader) {
  if (IndexHandle hit = find(name)) return hit;
  std::lock_guard<std::mutex> lock(load_mutex_);
  if (IndexHandle hit = find(name)) return hit;  // another thread loaded it while we waited
  IndexHandle loaded = loader();
  if (!loaded) {
    throw Error(ErrorCode::InvalidArgument, "the loader for '" + std::string(name) + "' returned no index");
  }
  loads_.fetch_add(1, std::memory_order_relaxed);
  put(name, loaded);
  return loaded;
}

namespace {

[[noreturn]] void throw_null_index() { throw Error(ErrorCode::InvalidArgument, "cannot cache a null index"); }

// ---- mutex mode: a map under one lock ---------------------------------------------------

class MutexIndexCache final : public IndexCache {
 public:
  explicit MutexIndexCache(size_t budget) : budget_(budget) {}

  CacheMode mode() const noexcept override { return CacheMode::mutex; }

  IndexHandle find(std::string_view name) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(name);
    if (it == map_.end()) return nullptr;
    if (it->second.last_used != clock_) it->second.last_used = ++clock_;
    return it->second.index;
  }

  bool put(std::string_view name, IndexHandle index) override {
    if (!index) throw_null_index();
    const size_t bytes = index->memory_bytes();
    std::vector<IndexHandle> dropped;  // destroyed after the lock is released
    dropped.reserve(4);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(name);
    if (it != map_.end()) {
      dropped.push_back(std::move(it->second.index));
      bytes_ -= it->second.bytes;
      map_.erase(it);
      ++invalidations_;
    }
    if (bytes > budget_) {
      ++rejected_;
      return false;
    }
    while (bytes_ + bytes > budget_) {  // terminates: an empty map holds 0 bytes
      auto victim = std::min_element(map_.begin(), map_.end(), [](const auto& a, const auto& b) {
        return a.second.last_used < b.second.last_used;
      });
      dropped.push_back(std::move(victim->second.index));
      bytes_ -= victim->second.bytes;
      map_.erase(victim);
      ++evictions_;
    }
    map_.emplace(std::string(name), Entry{std::move(index), bytes, ++clock_});
    bytes_ += bytes;
    return true;
  }

  bool invalidate(std::string_view name) override {
    IndexHandle dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(name);
    if (it == map_.end()) return false;
    dropped = std::move(it->second.index);
    bytes_ -= it->second.bytes;
    map_.erase(it);
    ++invalidations_;
    return true;
  }

  void clear() override {
    std::map<std::string, Entry, std::less<>> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    invalidations_ += map_.size();
    dropped.swap(map_);
    bytes_ = 0;
  }

  CacheStats stats() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    CacheStats s;
    s.entries = map_.size();
    s.bytes = bytes_;
    s.budget = budget_;
    s.loads = loads();
    s.evictions = evictions_;
    s.invalidations = invalidations_;
    s.rejected = rejected_;
    return s;
  }

  std::vector<std::string> names_by_recency() const override {
    std::vector<std::pair<uint64_t, std::string>> order;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& [name, entry] : map_) order.emplace_back(entry.last_used, name);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> names;
    for (auto& o : order) names.push_back(std::move(o.second));
    return names;
  }

 private:
  struct Entry {
    IndexHandle index;
    size_t bytes;
    uint64_t last_used;
  };

  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> map_;
  uint64_t clock_ = 0;
  size_t bytes_ = 0;
  const size_t budget_;
  uint64_t evictions_ = 0;
  uint64_t invalidations_ = 0;
  uint64_t rejected_ = 0;
};

// ---- nolock mode: immutable snapshots + hazard pointers ---------------------------------
//
// Readers: load the current snapshot pointer, publish it in this thread's hazard slot, check
// that it is still current (else retry), read, clear the slot. Writers (under write_mutex_):
// build a new snapshot, publish it, and free an old snapshot only once no hazard slot holds
// it. The hazard slots are process-wide (one per thread, claimed on the thread's first
// lookup and released when the thread exits), so a writer's scan covers every cache.

struct alignas(64) HazardSlot {
  std::atomic<const void*> ptr{nullptr};
  std::atomic<bool> owned{false};
};

constexpr size_t kHazardSlots = 256;
HazardSlot g_hazards[kHazardSlots];
std::atomic<size_t> g_hazards_used{0};  // slots [0, used) have ever been claimed

struct HazardOwner {
  HazardSlot* slot = nullptr;
  bool tried = false;
  ~HazardOwner() {
    if (slot != nullptr) {
      slot->ptr.store(nullptr, std::memory_order_release);
      slot->owned.store(false, std::memory_order_release);
    }
  }
};
thread_local HazardOwner t_hazard;

// This thread's hazard slot, or null if all are taken (the caller then takes the writer lock).
HazardSlot* my_hazard() {
  if (t_hazard.slot != nullptr) return t_hazard.slot;
  for (size_t i = 0; i < kHazardSlots; ++i) {
    bool expected = false;
    if (!g_hazards[i].owned.load(std::memory_order_relaxed) &&
        g_hazards[i].owned.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      size_t used = g_hazards_used.load(std::memory_order_relaxed);
      while (used < i + 1 && !g_hazards_used.compare_exchange_weak(used, i + 1, std::memory_order_acq_rel)) {
      }
      t_hazard.slot = &g_hazards[i];
      return t_hazard.slot;
    }
  }
  return nullptr;
}

class NolockIndexCache final : public IndexCache {
 public:
  explicit NolockIndexCache(size_t budget) : budget_(budget), current_(new Snapshot) {}

  ~NolockIndexCache() override {
    // No reader may be inside the cache while it is destroyed.
    delete current_.load(std::memory_order_relaxed);
    for (const Snapshot* s : retired_) delete s;
  }

  CacheMode mode() const noexcept override { return CacheMode::nolock; }

  IndexHandle find(std::string_view name) override {
    HazardSlot* hazard = my_hazard();
    if (hazard == nullptr) {
      std::lock_guard<std::mutex> lock(write_mutex_);
      return lookup(*current_.load(std::memory_order_relaxed), name);
    }
    const Snapshot* snapshot = current_.load(std::memory_order_acquire);
    for (;;) {
      hazard->ptr.store(snapshot, std::memory_order_seq_cst);
      const Snapshot* again = current_.load(std::memory_order_seq_cst);
      if (again == snapshot) break;
      snapshot = again;
    }
    IndexHandle result = lookup(*snapshot, name);
    hazard->ptr.store(nullptr, std::memory_order_release);
    return result;
  }

  bool put(std::string_view name, IndexHandle index) override {
    if (!index) throw_null_index();
    const size_t bytes = index->memory_bytes();
    auto slot = std::make_shared<Slot>(std::string(name), std::move(index), bytes);
    std::vector<const Snapshot*> reclaim;  // freed after the lock is released
    bool kept = true;
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      const Snapshot& old = *current_.load(std::memory_order_relaxed);
      std::vector<std::shared_ptr<Slot>> slots;
      slots.reserve(old.slots.size() + 1);
      size_t total = 0;
      for (const auto& s : old.slots) {
        if (s->name == slot->name) {
          ++invalidations_;
          continue;
        }
        slots.push_back(s);
        total += s->bytes;
      }
      if (bytes > budget_) {
        ++rejected_;
        kept = false;
      } else {
        while (total + bytes > budget_) {
          auto victim = std::min_element(slots.begin(), slots.end(), [](const auto& a, const auto& b) {
            return a->last_used.load(std::memory_order_relaxed) < b->last_used.load(std::memory_order_relaxed);
          });
          total -= (*victim)->bytes;
          slots.erase(victim);
          ++evictions_;
        }
        slot->last_used.store(clock_.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        auto pos = std::lower_bound(slots.begin(), slots.end(), slot->name,
                                    [](const auto& s, const std::string& n) { return s->name < n; });
        slots.insert(pos, std::move(slot));
        total += bytes;
      }
      publish(std::move(slots), total, reclaim);
    }
    for (const Snapshot* s : reclaim) delete s;
    return kept;
  }

  bool invalidate(std::string_view name) override {
    std::vector<const Snapshot*> reclaim;
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      const Snapshot& old = *current_.load(std::memory_order_relaxed);
      auto it = std::find_if(old.slots.begin(), old.slots.end(), [&](const auto& s) { return s->name == name; });
      if (it == old.slots.end()) return false;
      std::vector<std::shared_ptr<Slot>> slots;
      slots.reserve(old.slots.size());
      for (const auto& s : old.slots) {
        if (s != *it) slots.push_back(s);
      }
      ++invalidations_;
      publish(std::move(slots), bytes_ - (*it)->bytes, reclaim);
    }
    for (const Snapshot* s : reclaim) delete s;
    return true;
  }

  void clear() override {
    std::vector<const Snapshot*> reclaim;
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      invalidations_ += current_.load(std::memory_order_relaxed)->slots.size();
      publish({}, 0, reclaim);
    }
    for (const Snapshot* s : reclaim) delete s;
  }

  CacheStats stats() const override {
    std::lock_guard<std::mutex> lock(write_mutex_);
    CacheStats s;
    s.entries = current_.load(std::memory_order_relaxed)->slots.size();
    s.bytes = bytes_;
    s.budget = budget_;
    s.loads = loads();
    s.evictions = evictions_;
    s.invalidations = invalidations_;
    s.rejected = rejected_;
    return s;
  }

  std::vector<std::string> names_by_recency() const override {
    std::vector<std::pair<uint64_t, std::string>> order;
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      for (const auto& s : current_.load(std::memory_order_relaxed)->slots) {
        order.emplace_back(s->last_used.load(std::memory_order_relaxed), s->name);
      }
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> names;
    for (auto& o : order) names.push_back(std::move(o.second));
    return names;
  }

 private:
  // One cached index. Shared by consecutive snapshots, so its recency survives other writes.
  struct Slot {
    Slot(std::string n, IndexHandle i, size_t b) : name(std::move(n)), index(std::move(i)), bytes(b) {}
    const std::string name;
    const IndexHandle index;
    const size_t bytes;
    std::atomic<uint64_t> last_used{0};
  };
  // Immutable once published: slots sorted by name.
  struct Snapshot {
    std::vector<std::shared_ptr<Slot>> slots;
  };

  IndexHandle lookup(const Snapshot& snapshot, std::string_view name) {
    auto it = std::lower_bound(snapshot.slots.begin(), snapshot.slots.end(), name,
                               [](const auto& s, std::string_view n) { return std::string_view(s->name) < n; });
    if (it == snapshot.slots.end() || (*it)->name != name) return nullptr;
    Slot& slot = **it;
    // Only a lookup that changes the recency order writes: re-reading the most recently used
    // entry (the hot path under load) leaves every shared cache line untouched.
    if (slot.last_used.load(std::memory_order_relaxed) != clock_.load(std::memory_order_relaxed)) {
      slot.last_used.store(clock_.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    return slot.index;
  }

  // Caller holds write_mutex_. Publishes a new snapshot and moves the snapshots no reader can
  // still see into `reclaim`.
  void publish(std::vector<std::shared_ptr<Slot>> slots, size_t bytes, std::vector<const Snapshot*>& reclaim) {
    auto* fresh = new Snapshot{std::move(slots)};
    const Snapshot* old = current_.exchange(fresh, std::memory_order_seq_cst);
    bytes_ = bytes;
    retired_.push_back(old);
    const size_t used = g_hazards_used.load(std::memory_order_acquire);
    auto protected_by_reader = [&](const Snapshot* s) {
      for (size_t i = 0; i < used; ++i) {
        if (g_hazards[i].ptr.load(std::memory_order_seq_cst) == s) return true;
      }
      return false;
    };
    auto keep = std::partition(retired_.begin(), retired_.end(), protected_by_reader);
    reclaim.insert(reclaim.end(), keep, retired_.end());
    retired_.erase(keep, retired_.end());
  }

  const size_t budget_;
  std::atomic<const Snapshot*> current_;
  alignas(64) std::atomic<uint64_t> clock_{0};
  mutable std::mutex write_mutex_;  // guards everything below and serialises writers
  std::vector<const Snapshot*> retired_;
  size_t bytes_ = 0;
  uint64_t evictions_ = 0;
  uint64_t invalidations_ = 0;
  uint64_t rejected_ = 0;
};

}  // namespace

std::unique_ptr<IndexCache> IndexCache::create(CacheMode mode, size_t byte_budget) {
  if (mode == CacheMode::mutex) return std::make_unique<MutexIndexCache>(byte_budget);
  return std::make_unique<NolockIndexCache>(byte_budget);
}

}  // namespace quiver::parallel
