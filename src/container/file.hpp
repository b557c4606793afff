// Whole-file input and atomic output for index files and datasets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace quiver::io {

// A read-only view of a whole file: mmap natively, read into memory under Emscripten.
// Throws Error(IoError) naming the file if it cannot be opened or read.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<uint8_t> copy_;
};

// Writes `path` atomically: bytes go to a temporary file in the same directory, which
// commit() flushes and renames over `path`. If commit() is never reached (an error, an
// exception) the temporary file is removed and `path` is untouched.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void write(const void* data, size_t size);
  void commit();

 private:
  std::string path_;
  std::string temp_;
  int fd_ = -1;
  int slot_ = -1;  // its place in the table remove_temp_files_signal_safe() reads
};

// Convenience: the whole of `data` to `path`, atomically.
void write_file_atomic(const std::string& path, const void* data, size_t size);

// Unlinks the temporary file of every AtomicFileWriter still open in this process. It makes
// only async-signal-safe calls, so a signal handler may call it before the process dies: the
// destructor never runs on SIGINT or SIGTERM, and without this an interrupted save would leave
// its "<path>.tmp-<pid>-<n>" behind. Nothing installs a handler here (a library must not take
// over a process's signals); the quiver CLI does (src/cli/signals.cpp).
void remove_temp_files_signal_safe() noexcept;

// Test seam: when set, AtomicFileWriter::commit() calls hook(temporary path) after the bytes
// are flushed and before the rename, so a test can interrupt a save at that exact point.
using BeforeRenameHook = void (*)(const char* temp_path);
void set_before_rename_hook(BeforeRenameHook hook) noexcept;

}  // namespace quiver::io
