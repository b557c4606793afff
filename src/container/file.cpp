#include "container/file.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

#include "quiver/error.hpp"

namespace quiver::io {
namespace {

[[noreturn]] void io_error(const std::string& what, const std::string& path, int err) {
  throw Error(ErrorCode::IoError, what + " '" + path + "': " + std::strerror(err));
}

// Temporary files of the AtomicFileWriters open right now, for remove_temp_files_signal_safe().
// A signal handler can read neither a std::string nor anything behind a lock, so each open
// writer copies its temporary path into a fixed slot; a slot's state is an atomic that the
// handler reads without blocking. A writer that finds no free slot (more than kTempSlots saves
// at once, or a path longer than kTempPathMax) still cleans up normally, just not on a signal.
constexpr int kTempSlots = 16;
constexpr size_t kTempPathMax = 4096;
enum SlotState : int { kSlotFree = 0, kSlotFilling = 1, kSlotActive = 2 };
struct TempSlot {
  std::atomic<int> state{kSlotFree};
  char path[kTempPathMax];
};
TempSlot g_temp_slots[kTempSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slot state");

int register_temp(const std::string& path) noexcept {
  if (path.size() >= kTempPathMax) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = kSlotFree;
    if (!g_temp_slots[i].state.compare_exchange_strong(expected, kSlotFilling)) continue;
    std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
    g_temp_slots[i].state.store(kSlotActive, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_temp(int slot) noexcept {
  if (slot >= 0) g_temp_slots[slot].state.store(kSlotFree, std::memory_order_release);
}

std::atomic<BeforeRenameHook> g_before_rename{nullptr};

}  // namespace

void remove_temp_files_signal_safe() noexcept {
  for (auto& slot : g_temp_slots) {
    if (slot.state.load(std::memory_order_acquire) == kSlotActive) ::unlink(slot.path);
  }
}

void set_before_rename_hook(BeforeRenameHook hook) noexcept { g_before_rename.store(hook); }

MappedFile::MappedFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; with it
  // the open returns at once and the regular-file check below rejects it. (On a regular file
  // the flag has no effect.)
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) io_error("cannot open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    io_error("cannot stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::IoError, "'" + path + "' is not a regular file");
  }
  if (uint64_t(st.st_size) > SIZE_MAX) {
    ::close(fd);
    throw Error(ErrorCode::IoError, "'" + path + "' is too large for this address space");
  }
  size_ = size_t(st.st_size);
  if (size_ == 0) {
    ::close(fd);
    return;
  }
#if !defined(__EMSCRIPTEN__)
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p != MAP_FAILED) {
    data_ = static_cast<const uint8_t*>(p);
    mapped_ = true;
    ::close(fd);
    return;
  }
#endif
  // No mmap (wasm, or a file system that refuses it): read the file.
  try {
    copy_.resize(size_);
  } catch (const std::bad_alloc&) {
    ::close(fd);
    throw Error(ErrorCode::OutOfMemory, "out of memory reading '" + path + "'");
  }
  size_t done = 0;
  while (done < size_) {
    const ssize_t n = ::read(fd, copy_.data() + done, size_ - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      io_error("cannot read", path, err);
    }
    done += size_t(n);
  }
  ::close(fd);
  data_ = copy_.data();
}

MappedFile::~MappedFile() {
#if !defined(__EMSCRIPTEN__)
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
#endif
}

AtomicFileWriter::AtomicFileWriter(const std::string& path) : path_(path) {
  static std::atomic<unsigned> counter{0};
  temp_ = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  // Registered before it exists, so no moment has the file on disk but unknown to a handler.
  slot_ = register_temp(temp_);
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int err = errno;
    unregister_temp(slot_);
    io_error("cannot create", temp_, err);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
  // Only after the unlink: a signal in between finds the slot still active and unlinks too
  // (a harmless ENOENT), never a file left with no one to remove it.
  unregister_temp(slot_);
}

void AtomicFileWriter::write(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error("cannot write", temp_, n < 0 ? errno : EIO);
    p += n;
    size -= size_t(n);
  }
}

void AtomicFileWriter::commit() {
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != ENOSYS) io_error("cannot flush", temp_, errno);
  if (const BeforeRenameHook hook = g_before_rename.load()) hook(temp_.c_str());
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp_.c_str());
    io_error("cannot close", temp_, err);
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp_.c_str());
    io_error("cannot rename the temporary file to", path_, err);
  }
}

void write_file_atomic(const std::string& path, const void* data, size_t size) {
  AtomicFileWriter file(path);
  file.write(data, size);
  file.commit();
}

}  // namespace quiver::io
