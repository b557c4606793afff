// IndexStream: the binding of io::StreamLoader (src/index/common/stream_loader.hpp). JS copies each slice
// of an index file into the stream's own staging block (buffer(), capacity() bytes) and calls
// push(n); finish() names the kind the file held, and <Kind>Index.fromStream(stream) takes the
// index out. The file is never whole in the heap (flat), or only once (the other kinds).
// Like every entry point (errors.hpp), none of these throws: a failure returns a sentinel
// (null, false, "") and leaves its code and message for js/errors.js.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "errors.hpp"
#include "index/common/stream_loader.hpp"
#include "quiver/quiver.hpp"

namespace quiver::bindings {

class IndexStreamBinding {
 public:
  // Bounded staging: a slice at a time, whatever the size of the file or of the chunks the
  // source delivers.
  static constexpr size_t kStagingBytes = size_t(256) << 10;

  // expected: "" for any kind, else the kind the file must hold ("flat", "quantized", "hnsw").
  // exact_size: the stream's length when certain (bytes, a Blob), else -1; size_hint: a likely
  // length (Content-Length), else -1.
  static IndexStreamBinding* create(const std::string& expected, double exact_size, double size_hint) {
    return guarded<IndexStreamBinding*>(nullptr, [&] {
      io::StreamOptions o;
      o.isa = active_isa();
      if (!expected.empty()) o.expected_kind = parse_index_kind(expected);
      if (exact_size >= 0) o.exact_size = byte_count(exact_size);
      if (size_hint >= 0) o.size_hint = byte_count(size_hint);
      auto binding = std::make_unique<IndexStreamBinding>();
      binding->loader_ = std::make_unique<io::StreamLoader>(o);
      binding->staging_.resize(kStagingBytes);
      return binding.release();
    });
  }

  uintptr_t buffer() const { return reinterpret_cast<uintptr_t>(staging_.data()); }
  size_t capacity() const { return staging_.size(); }
  // The next n (<= capacity()) bytes of the file, from the staging block. false: the load has
  // failed for sure (the error is recorded; stop reading).
  bool push(size_t n) {
    return guarded_call([&] {
      if (n > staging_.size())
        throw Error(ErrorCode::InvalidArgument, "push of more bytes than the staging block holds");
      loader_->push(staging_.data(), n);
    });
  }
  // The stream ended: the kind of index it held ("flat", ...), or "" with the error recorded.
  // The staging block is freed either way.
  std::string finish() {
    std::vector<uint8_t>().swap(staging_);
    return guarded(std::string(), [&] { return std::string(index_kind_name(loader_->finish())); });
  }
  double bytes_seen() const { return double(loader_->bytes_seen()); }
  io::StreamLoader& loader() { return *loader_; }

 private:
  static uint64_t byte_count(double x) {
    if (!(x >= 0 && x <= 9007199254740991.0) || std::floor(x) != x) {
      throw Error(ErrorCode::InvalidArgument, "a stream length must be an integer byte count");
    }
    return uint64_t(x);
  }

  std::unique_ptr<io::StreamLoader> loader_;
  std::vector<uint8_t> staging_;
};

}  // namespace quiver::bindings
