// The reader-writer lock of every index kind: any number of searches at once, writers (add,
// remove, reserve, compact, loading into the index) alone, and a waiting writer is not starved. With threads
// (QUIVER_THREADS: native, wasm simd-mt) it is std::shared_mutex; in the single-threaded wasm
// builds nothing can run concurrently, so it is an empty type whose calls inline to nothing.
// Never take it twice on one thread (std::shared_mutex is not recursive, even for readers).
#pragma once

#include <mutex>
#include <shared_mutex>

namespace quiver::core {

#if defined(QUIVER_THREADS)
// std::shared_mutex alone may starve writers: glibc's (and musl's) let new readers in while a
// writer waits, so under a steady stream of searches an add() could wait forever. A writer
// first takes the gate and keeps it until it is done; readers pass the gate on their way in,
// so once a writer is waiting no new reader enters, the readers inside finish, and the writer
// runs. Writers are served in the gate mutex's order.
class SharedMutex {
 public:
  void lock() {
    gate_.lock();
    rw_.lock();
  }
  bool try_lock() {
    if (!gate_.try_lock()) return false;
    if (rw_.try_lock()) return true;
    gate_.unlock();
    return false;
  }
  void unlock() {
    rw_.unlock();
    gate_.unlock();
  }
  void lock_shared() {
    gate_.lock();  // waits while a writer holds or waits for the lock
    gate_.unlock();
    rw_.lock_shared();
  }
  bool try_lock_shared() {
    if (!gate_.try_lock()) return false;
    gate_.unlock();
    return rw_.try_lock_shared();
  }
  void unlock_shared() { rw_.unlock_shared(); }

 private:
  std::mutex gate_;
  std::shared_mutex rw_;
};
#else
struct SharedMutex {
  void lock() noexcept {}
  bool try_lock() noexcept { return true; }
  void unlock() noexcept {}
  void lock_shared() noexcept {}
  bool try_lock_shared() noexcept { return true; }
  void unlock_shared() noexcept {}
};
#endif

using ReadLock = std::shared_lock<SharedMutex>;
using WriteLock = std::unique_lock<SharedMutex>;

}  // namespace quiver::core
