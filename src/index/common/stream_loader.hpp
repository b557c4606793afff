// Loading an index file from a stream of chunks (fetch bodies, R2 objects, file reads) without
// ever holding the whole file: the container's head is parsed as soon as it has arrived, and a
// flat index is decoded section by section straight into its row storage while the CRC of each
// section is computed on the fly. Peak memory: the index plus one chunk, instead of the file
// plus the index.
//
//   io::StreamLoader loader({isa});
//   while (have bytes) loader.push(chunk, n);     // throws once the load has surely failed
//   IndexKind kind = loader.finish();             // throws the file's first fault
//   std::unique_ptr<AnyIndex> index = loader.take();   // or take_flat() / take_quantized() / ...
//
// All or nothing, and the same answer as the whole-file loader: a damaged file is rejected
// with the error code (and message) that FlatIndex::load of the same bytes gives, because the
// stream runs the Reader's own checks (io/format.hpp) in the Reader's order. A fault found early
// can be outranked by one that only the rest of the stream reveals (a truncated file is
// TRUNCATED whatever else is wrong with it), so a fault is held back until nothing later in
// the stream can outrank it — at finish(), or at once for faults of the head itself (or, with
// `exact_size`, a head that disagrees with it). Once any fault is known, decoding stops and the
// partial index is freed: the rest of the stream is only counted and checksummed.
//
// Every kind is decoded through its SectionDecoder from the index kind registry
// (kind_registry.hpp): the flat rows, HNSW links, codes and vectors, and the quantised codes,
// scalars, kept vectors and refine rows go straight into the index's storage. A kind's open()
// may decline a file (a partitioned quantised file written before the partition was stored
// ahead of the codes: a slot's list is unknown when its codes arrive); the stream is then
// gathered into one block — sized from the head (or `size_hint`), never larger than the bytes
// that really arrive — and handed to the kind's whole-file load() at finish(). That is the file
// plus the index at the peak, but never the file twice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "container/format.hpp"
#include "index/common/kind_registry.hpp"
#include "quiver/any_index.hpp"
#include "quiver/error.hpp"
#include "quiver/isa.hpp"

namespace quiver::io {

struct StreamOptions {
  Isa isa = Isa::scalar;
  // When set, a file of another kind is rejected (Error(InvalidArgument)) as KindIndex::load
  // would reject it.
  std::optional<IndexKind> expected_kind;
  // The stream's length, when the caller knows it for sure (bytes in memory, a Blob): a head
  // that declares another size is rejected at once, before anything is allocated.
  std::optional<uint64_t> exact_size;
  // A likely length (Content-Length): a kind's decoder, and the gathering block, are sized
  // from it when it matches the head, instead of growing.
  std::optional<uint64_t> size_hint;
  ReadOptions read;
};

class StreamLoader {
 public:
  explicit StreamLoader(StreamOptions options);
  ~StreamLoader();
  StreamLoader(const StreamLoader&) = delete;
  StreamLoader& operator=(const StreamLoader&) = delete;

  // The next n bytes of the file. Throws the fault once the load has surely failed (a fault of
  // the head; the same fault again on every later call); other faults wait for finish().
  void push(const uint8_t* data, size_t n);
  // The stream has ended. Throws the file's first fault (in the whole-file loader's order);
  // otherwise the index is ready to take.
  IndexKind finish();
  // The index finish() loaded (once). take<Index>() for a concrete kind: Error(InvalidArgument)
  // if the stream held another kind.
  std::unique_ptr<AnyIndex> take();
  template <typename Index>
  Index take_as(const char* kind_name);
  FlatIndex take_flat() { return take_as<FlatIndex>("flat"); }
  QuantizedIndex take_quantized() { return take_as<QuantizedIndex>("quantized"); }
  HnswIndex take_hnsw() { return take_as<HnswIndex>("hnsw"); }

  uint64_t bytes_seen() const noexcept { return seen_; }
  // Bytes the loader itself holds now (head, gathering block; not the index it builds).
  size_t buffer_bytes() const noexcept;

 private:
  struct Region;
  // A fault and where the whole-file loader would meet it (lower ranks first).
  void note(uint64_t rank, const Error& error);
  void drop_work() noexcept;
  void on_head();
  void consume(const uint8_t* data, size_t n, uint64_t pos);
  void gather(const uint8_t* data, size_t n, uint64_t pos);

  StreamOptions options_;
  uint64_t seen_ = 0;
  std::vector<uint8_t> head_bytes_;
  bool head_done_ = false;
  Head head_;
  std::vector<Region> regions_;              // gaps and payloads after the head, in file order
  size_t region_ = 0;                        // the region holding byte seen_
  uint32_t crc_ = 0;                         // of the current payload so far
  const IndexKindEntry* kind_ = nullptr;     // the head's kind, once its checks passed
  std::unique_ptr<SectionDecoder> decoder_;  // the kind's, unless the file is gathered
  std::vector<uint8_t> whole_;               // a file its kind does not stream, gathered
  bool gathering_ = false;
  std::optional<Error> fault_;
  uint64_t fault_rank_ = 0;
  bool final_ = false;  // the fault can no longer be outranked: push() throws it
  std::optional<IndexKind> ready_;
  std::unique_ptr<AnyIndex> index_;  // loaded by finish(), until taken
};

template <typename Index>
Index StreamLoader::take_as(const char* kind_name) {
  auto* typed = dynamic_cast<IndexAdapter<Index>*>(index_.get());
  if (typed == nullptr) {
    throw Error(ErrorCode::InvalidArgument, std::string("the stream did not load a ") + kind_name + " index");
  }
  Index index = std::move(typed->index());
  index_.reset();
  return index;
}

}  // namespace quiver::io
