// The HnswIndex decoder (hnsw_format.cpp): an index from a validated container, for generic
// dispatch on the stored kind (CLI, bindings) and for fuzzing, and the piecewise decoder that
// both the whole-file loader and the stream loader (io/stream_loader.hpp) feed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "container/format.hpp"
#include "quiver/hnsw_index.hpp"
#include "quiver/isa.hpp"

namespace quiver::io {

// Throws quiver::Error (Corrupt, UnsupportedVersion, InvalidArgument for another kind, ...).
HnswIndex load_hnsw(const Reader& reader, Isa isa);

// Decodes an HNSW file's payloads as they come. The large sections — level-0 links (LNK0),
// sq8 codes (CODE) and vectors (VECS), nearly all of the file — go straight into the index's
// node storage, which grows chunk by chunk with the rows that really arrive; the small ones
// (ids, free list, levels, upper links, sq8 scales: a few bytes per node) are kept until
// finish(). The constructor runs every check the head allows; feed() takes any section's
// bytes, each section's in order, in pieces of any size, and throws only OutOfMemory;
// finish() runs the content checks in the whole-file loader's order (so both report the same
// first fault), then builds the index around the rows already in place. Peak memory: the
// index plus the small sections, never the file.
class HnswDecoder {
 public:
  HnswDecoder(const Head& head, Isa isa);
  void feed(uint32_t tag, const uint8_t* data, size_t n);
  HnswIndex finish();

 private:
  void feed_rows(uint32_t tag, const uint8_t* data, size_t n);
  void check_contents();
  void fill();

  Metric metric_;
  uint64_t M_, slots_, nfree_, entry_, draws_;
  size_t dim_, M0_;
  bool sq8_, keep_, legacy_, nbr_codes_;
  HnswIndex index_;
  // Small sections, as stored (little-endian), until finish().
  std::vector<uint8_t> ids_, free_, levels_, upper_, scales_, quant_, nbrc_;
  // Bytes of LNK0 / CODE / VECS taken so far (their rows are in the index).
  uint64_t links_in_ = 0, codes_in_ = 0, vectors_in_ = 0;
};

}  // namespace quiver::io
