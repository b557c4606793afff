// The FlatIndex decoder (flat_format.cpp): an index from a validated container, for generic
// dispatch on the stored kind (CLI, bindings) and for fuzzing, and the piecewise decoder that
// both the whole-file loader and the stream loader (io/stream_loader.hpp) feed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "container/format.hpp"
#include "quiver/flat_index.hpp"
#include "quiver/isa.hpp"

namespace quiver::io {

// Throws quiver::Error (Corrupt, UnsupportedVersion, InvalidArgument for another kind, ...).
FlatIndex load_flat(const Reader& reader, Isa isa);

// Decodes a flat file's payloads as they come, straight into the index's row storage (no
// copy of the file, no temporary of the rows). The constructor runs every check the head
// allows (kind, known sections, count against the section sizes); feed() takes the bytes of
// IDS and VECS, each section's in order, in pieces of any size, and checks every id and row
// as it completes; finish() hands out the index once all of them came.
class FlatDecoder {
 public:
  // `reserve_all`: allocate the rows the head declares at once (a whole file is at hand);
  // otherwise the storage grows chunk by chunk with the rows that really arrive, so a head
  // that declares more than the stream holds never allocates more than it delivered.
  FlatDecoder(const Head& head, Isa isa, bool reserve_all);
  // Throws Error(Corrupt) for an invalid id or row, Error(OutOfMemory).
  void feed(uint32_t tag, const uint8_t* data, size_t n);
  FlatIndex finish();

 private:
  void feed_ids(const uint8_t* data, size_t n);
  void feed_rows(const uint8_t* data, size_t n);
  size_t count_;
  size_t dim_;
  FlatIndex index_;
  uint64_t id_bytes_ = 0;   // IDS bytes taken so far
  uint64_t row_bytes_ = 0;  // VECS bytes taken so far
  uint8_t id_carry_[8] = {};
};

}  // namespace quiver::io
