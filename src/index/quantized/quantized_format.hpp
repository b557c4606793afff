// The QuantizedIndex decoders (quantized_format.cpp): an index from a validated container, for
// generic dispatch on the stored kind (CLI, bindings) and for fuzzing, and the piecewise decoder
// the stream loader (io/stream_loader.hpp) feeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "container/format.hpp"
#include "quiver/isa.hpp"
#include "quiver/quantized_index.hpp"

namespace quiver::io {

// Throws quiver::Error (Corrupt, UnsupportedVersion, InvalidArgument for another kind, ...).
// Feeds every section of the file to a QuantizedFileDecoder.
QuantizedIndex load_quantized(const Reader& reader, Isa isa);

// The decoder of a quantised file whose bytes are all in memory (load_quantized, and the files
// the stream loader gathers because QuantizedDecoder does not take them): each section's
// payload is fed as it lies in the file and borrowed, not copied, so it must stay valid until
// finish() (a section fed in several pieces is copied together). finish() runs
// decode_quantized() (quantized_decode.hpp) straight over the payloads: the same checks in the
// same order as QuantizedDecoder, which reads its rows back from the index it streamed them
// into instead — a round trip that costs a file in memory about a quarter more time.
class QuantizedFileDecoder {
 public:
  QuantizedFileDecoder(const Head& head, Isa isa) : head_(head), isa_(isa) {}
  // Throws only Error(OutOfMemory) (for a section in pieces).
  void feed(uint32_t tag, const uint8_t* data, size_t n);
  QuantizedIndex finish();

  class Source;  // decode_quantized's view of the payloads (quantized_format.cpp)

 private:
  struct Payload {
    uint32_t tag;
    const uint8_t* data;
    size_t size;
    std::vector<uint8_t> copy;  // a section that came in pieces
  };
  const Payload* payload(uint32_t tag) const noexcept;

  Head head_;
  Isa isa_;
  std::vector<Payload> payloads_;  // in file order
};

// Decodes a quantised file's payloads as they come: the codes, offsets, scales, kept vectors
// and refine rows — nearly all of the file — go straight into the index's chunked storage,
// which grows with the rows that really arrive; the ids, the free list and the few other small
// sections are kept until finish(). A partitioned file whose partition (PART, CENT, LIST)
// precedes its codes, as files are written now, streams too: each live slot's codes are
// appended to its list as they arrive, in slot order (the lists the whole-file loader builds),
// and its offset and scale join them there. finish() then runs load_quantized's checks in
// load_quantized's order over the rows read back from the index (so both report the same first
// fault) and enters the slots in the slot table. Peak memory: the index, the ids (8 bytes a
// slot), the lists of the slots (4 bytes a slot, partitioned) and the free list, never the file.
//
// Not taken — open() returns null and the stream loader gathers the file for load_quantized,
// which reports what is wrong with it or loads it (file plus index at the peak): a partitioned
// file of the older order (its LIST after the codes), and a head this decoder cannot size an
// index from (impossible parameters, a refine section whose size fits no bit width).
class QuantizedDecoder {
 public:
  // `length_known`: the stream's length, certain or expected (Content-Length), matches the
  // head: the kept small sections are then allocated once at their declared sizes; otherwise
  // they start small and grow (by copies) with the bytes that really arrive.
  static std::unique_ptr<QuantizedDecoder> open(const Head& head, Isa isa, bool length_known);
  // Any section's bytes, each section's in order, in pieces of any size. Throws only
  // Error(OutOfMemory).
  void feed(uint32_t tag, const uint8_t* data, size_t n);
  QuantizedIndex finish();

  class Source;  // load_quantized's view of the decoded file (quantized_format.cpp)

 private:
  QuantizedDecoder(const Head& head, QuantizedIndex index, Isa isa, size_t refine_row_bytes, bool partitioned,
                   bool length_known);
  // Partitioned: what the kept SLOT and LIST bytes say of a slot (false while unknown).
  bool is_free(uint64_t slot) const noexcept;
  bool placed(uint64_t slot) const noexcept;  // live, in a list that exists: its rows are in it
  uint32_t list_of(uint64_t slot) const noexcept;
  void on_part();  // PART has arrived: begin the lists it declares
  void note_dirty_free(uint64_t slot, const uint8_t* bytes, size_t n) noexcept;
  // Whole records of `record` bytes after `skip` header bytes (kept in refine_head_), each
  // handed to put(slot, bytes) once complete; a record split across pieces waits in pending_.
  template <class Put>
  void feed_records(uint64_t& in, size_t skip, size_t record, const uint8_t* data, size_t n, Put put);

  Head head_;
  QuantizedIndex index_;
  Isa isa_;
  size_t dim_, row_bytes_, subq_, refine_row_bytes_;
  uint64_t slots_;
  std::vector<uint8_t> ids_, free_, part_, cent_, list_, sprd_, refine_head_;  // small sections, as stored
  uint64_t codes_in_ = 0, offs_in_ = 0, scales_in_ = 0, vectors_in_ = 0, refine_in_ = 0;
  uint32_t pending_tag_ = 0;
  std::vector<uint8_t> pending_;
  // The first slot whose code padding nibble is not zero (the index keeps no padding) and it.
  uint64_t padding_slot_ = UINT64_MAX;
  uint8_t padding_nibble_ = 0;
  // Partitioned: the lists begun from PART (0 until then), and the first free slot whose
  // codes, offset or scale were not all zero bytes (a free slot has no place in the lists).
  bool partitioned_ = false;
  bool length_known_ = false;
  size_t lists_ = 0;
  uint64_t dirty_free_slot_ = UINT64_MAX;
};

}  // namespace quiver::io
