// libFuzzer target: the index file loader (flat, quantized and hnsw kinds). Any input must either
// load or throw quiver::Error — never crash, leak, read out of bounds or hit undefined
// behaviour. Inputs go through the public path (checksums verified) and, to reach the
// decoders behind the checksums, once more with checksum verification off. Whatever loads
// must search and serialise back to bytes that load to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "io/flat_format.hpp"
#include "io/hnsw_format.hpp"
#include "io/quantized_format.hpp"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
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
