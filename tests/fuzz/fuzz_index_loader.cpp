// libFuzzer target: the index file loader (flat, quantized and hnsw kinds). Any input must either
// load or throw quiver::Error — never crash, leak, read out of bounds or hit undefined
// behaviour. Inputs go through the public path (checksums verified) and, to reach the
// decoders behind the checksums, once more with checksum verification off. Whatever loads
// must search and serialise back to bytes that load to the same bytes. A quantised file is
// also streamed in pieces, and must load (or fail) exactly as its bytes do.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "index/flat/flat_format.hpp"
#include "index/hnsw/hnsw_format.hpp"
#include "index/quantized/quantized_format.hpp"
#include "index/common/stream_loader.hpp"
#include "quiver/quiver.hpp"

namespace {

void exercise(const quiver::FlatIndex& index) {
  if (index.size() > 0) {
    std::vector<float> query(index.dim(), 0.5f);
    quiver::Neighbor out[3];
    index.search(query.data(), 3, out);
  }
  const std::vector<uint8_t> bytes = index.serialize();
  const quiver::FlatIndex again = quiver::FlatIndex::load(bytes);
  if (again.serialize() != bytes || again.size() != index.size()) std::abort();
}

void exercise(const quiver::QuantizedIndex& index) {
  if (index.size() > 0) {
    std::vector<float> query(index.dim(), 0.5f);
    quiver::Neighbor out[3];
    quiver::QuantizedSearchParams p;
    index.search(query.data(), 3, out, p);
    if (index.keeps_vectors() || index.refine_bits() > 0) {  // exact, or from the refine plane
      p.rerank = 2;
      index.search(query.data(), 3, out, p);
    }
    if (index.lists() > 1) {  // partitioned: one probe, then an allow-list that forces more
      p.rerank = 0;
      p.probes = 1;
      index.search(query.data(), 3, out, p);
      const uint64_t allow[2] = {0, 7};
      p.allow = allow;
      p.allow_count = 2;
      index.search(query.data(), 3, out, p);
    }
  }
  const std::vector<uint8_t> bytes = index.serialize();
  const quiver::QuantizedIndex again = quiver::QuantizedIndex::load(bytes);
  if (again.serialize() != bytes || again.size() != index.size()) std::abort();
}

void exercise(const quiver::HnswIndex& index) {
  if (index.size() > 0) {
    std::vector<float> query(index.dim(), 0.5f);
    quiver::Neighbor out[3];
    quiver::HnswSearchParams p;
    p.ef = 8;
    index.search(query.data(), 3, out, p);
    p.rerank = false;  // sq8: the code distances alone
    index.search(query.data(), 3, out, p);
  }
  const std::vector<uint8_t> bytes = index.serialize();
  const quiver::HnswIndex again = quiver::HnswIndex::load(bytes);
  if (again.serialize() != bytes || again.size() != index.size()) std::abort();
}

// What loading a quantised file gives: its index's bytes, or the error.
struct Outcome {
  bool ok = false;
  std::vector<uint8_t> bytes;
  quiver::ErrorCode code = quiver::ErrorCode::Internal;
  std::string message;
  bool operator==(const Outcome& o) const {
    return ok == o.ok && bytes == o.bytes && (ok || (code == o.code && message == o.message));
  }
};

template <class Load>
Outcome outcome_of(Load load) {
  Outcome o;
  try {
    o.bytes = load().serialize();
    o.ok = true;
  } catch (const quiver::Error& e) {
    o.code = e.code();
    o.message = e.what();
  }
  return o;
}

// A quantised file streamed in pieces (io::QuantizedDecoder places the rows, partitioned or
// not, as they arrive) must give what the whole-file loader gives for the same bytes: the same
// index, or the same error code and message (io/stream_loader.hpp).
void compare_streamed_quantized(const uint8_t* data, size_t size) {
  if (size < 20 || (data[16] | data[17] << 8 | data[18] << 16 | uint32_t(data[19]) << 24) != 2) return;
  const Outcome whole = outcome_of([&] { return quiver::QuantizedIndex::load(data, size); });
  const size_t chunk = 1 + data[size - 1] % 97;  // a piece size the input chooses
  for (const bool exact : {false, true}) {
    const Outcome streamed = outcome_of([&] {
      quiver::io::StreamOptions options;
      options.isa = quiver::active_isa();
      options.expected_kind = quiver::IndexKind::quantized;
      if (exact) options.exact_size = size;
      quiver::io::StreamLoader loader(options);
      for (size_t at = 0; at < size; at += chunk) loader.push(data + at, std::min(chunk, size - at));
      loader.finish();
      return loader.take_quantized();
    });
    if (!(streamed == whole)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  compare_streamed_quantized(data, size);
  try {
    exercise(quiver::FlatIndex::load(data, size));
  } catch (const quiver::Error&) {
  }
  try {
    exercise(quiver::QuantizedIndex::load(data, size));
  } catch (const quiver::Error&) {
  }
  try {
    exercise(quiver::HnswIndex::load(data, size));
  } catch (const quiver::Error&) {
  }
  try {
    quiver::inspect_index(data, size);
  } catch (const quiver::Error&) {
  }
  try {
    quiver::io::ReadOptions unchecked;
    unchecked.verify_checksums = false;
    const quiver::io::Reader reader(data, size, unchecked);
    if (reader.header().kind == quiver::IndexKind::flat) {
      exercise(quiver::io::load_flat(reader, quiver::active_isa()));
    } else if (reader.header().kind == quiver::IndexKind::quantized) {
      exercise(quiver::io::load_quantized(reader, quiver::active_isa()));
    } else if (reader.header().kind == quiver::IndexKind::hnsw) {
      exercise(quiver::io::load_hnsw(reader, quiver::active_isa()));
    }
  } catch (const quiver::Error&) {
  }
  return 0;
}
