// The stream loader (src/index/common/stream_loader.hpp): a file pushed in chunks of any size loads into
// the same index as the whole bytes, and every damaged file is rejected with the same error
// (code and message) as the whole-file loader gives for the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "index_files_v1_embedded.hpp"
#include "container/format.hpp"
#include "index/common/stream_loader.hpp"
#include "io_test_support.hpp"
#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver::test {
namespace test_stream_loader {

// What a load gives: the loaded index's own bytes, or the error.
struct Outcome {
  bool ok = false;
  Bytes bytes;
  ErrorCode code = ErrorCode::Internal;
  std::string message;
};

std::string describe(const Outcome& o) {
  return o.ok ? "loaded (" + std::to_string(o.bytes.size()) + " bytes)"
              : std::string(error_code_name(o.code)) + ": " + o.message;
}

Outcome whole_file_load(const Bytes& b) {
  Outcome o;
  try {
    switch (io::index_kind_of(b.data(), b.size())) {
      case IndexKind::flat: o.bytes = FlatIndex::load(b.data(), b.size()).serialize(); break;
      case IndexKind::quantized: o.bytes = QuantizedIndex::load(b.data(), b.size()).serialize(); break;
      case IndexKind::hnsw: o.bytes = HnswIndex::load(b.data(), b.size()).serialize(); break;
    }
    o.ok = true;
  } catch (const Error& e) {
    o.code = e.code();
    o.message = e.what();
  }
  return o;
}

struct Feed {
  size_t chunk;  // bytes per push (the last one shorter)
  bool exact;    // tell the loader the length
};

Outcome stream_load(const Bytes& b, Feed feed) {
  io::StreamOptions options;
  options.isa = active_isa();
  if (feed.exact) options.exact_size = b.size();
  io::StreamLoader loader(options);
  Outcome o;
  try {
    for (size_t at = 0; at < b.size(); at += feed.chunk) {
      loader.push(b.data() + at, std::min(feed.chunk, b.size() - at));
    }
    switch (loader.finish()) {
      case IndexKind::flat: o.bytes = loader.take_flat().serialize(); break;
      case IndexKind::quantized: o.bytes = loader.take_quantized().serialize(); break;
      case IndexKind::hnsw: o.bytes = loader.take_hnsw().serialize(); break;
    }
    o.ok = true;
  } catch (const Error& e) {
    o.code = e.code();
    o.message = e.what();
    EXPECT_EQ(loader.buffer_bytes() <= 128 * 1024, true) << "a failed load still holds its gathering block";
  }
  return o;
}

void expect_same(const Bytes& b, const std::string& label, std::initializer_list<Feed> feeds) {
  const Outcome want = whole_file_load(b);
  for (const Feed& f : feeds) {
    const Outcome got = stream_load(b, f);
    ASSERT_EQ(got.ok, want.ok) << label << " chunk " << f.chunk << (f.exact ? " exact" : "") << ": stream "
                               << describe(got) << ", bytes " << describe(want);
    if (want.ok) {
      ASSERT_EQ(got.bytes, want.bytes) << label << " chunk " << f.chunk;
    } else {
      ASSERT_EQ(got.code, want.code) << label << " chunk " << f.chunk << (f.exact ? " exact" : "") << ": stream "
                                     << describe(got) << ", bytes " << describe(want);
      ASSERT_EQ(got.message, want.message) << label << " chunk " << f.chunk << (f.exact ? " exact" : "");
    }
  }
}

// fix_crcs() for edits that may break the layout it relies on (a section count past the end).
// (and offsets or sizes so large that their sum wraps).
void fix_crcs_if_possible(Bytes& b) {
  if (b.size() < 16 + 112) return;
  const uint64_t hb = rd32(b, 12), n = rd32(b, 16 + 40);
  const uint64_t table_end = 16 + hb + 32 * n;
  if (table_end + 4 > b.size()) return;
  for (uint64_t i = 0; i < n; ++i) {
    const size_t e = size_t(16 + hb + 32 * i);
    const uint64_t off = rd64(b, e + 8), size = rd64(b, e + 16);
    if (off <= b.size() && size <= b.size() - off) wr32(b, e + 24, io::crc32c(b.data() + off, size_t(size)));
  }
  wr32(b, size_t(table_end), io::crc32c(b.data(), size_t(table_end)));
}

Bytes small_flat(Metric metric, size_t n, size_t dim = 8) {
  FlatIndex index({dim, metric});
  std::vector<float> v(n * dim);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(float(i) * 0.91f) + float(i % 3) * 0.2f;
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 3 + 1;
  if (n > 0) index.add(ids, v);
  return index.serialize();
}

TEST(StreamLoader, CommittedFilesOfEveryKindLoadLikeTheirBytesInAnyChunking) {
  ASSERT_GT(kIndexFilesV1Count, 0u);
  for (size_t i = 0; i < kIndexFilesV1Count; ++i) {
    const std::string name = kIndexFilesV1[i].name;
    if (name.size() < 4 || name.substr(name.size() - 4) != ".qvr") continue;
    const Bytes b(kIndexFilesV1[i].data, kIndexFilesV1[i].data + kIndexFilesV1[i].size);
    expect_same(b, name, {{1, false}, {7, true}, {64, false}, {4096, true}, {b.size(), false}, {b.size() + 1, true}});
    // Re-serialised, they are the committed bytes.
    EXPECT_EQ(stream_load(b, {1000, false}).bytes, b) << name;
  }
}

TEST(StreamLoader, EmptyAndSmallFlatFilesLoad) {
  for (Metric m : {Metric::l2, Metric::ip, Metric::cosine}) {
    for (size_t n : {0u, 1u, 12u, 300u}) {
      const Bytes b = small_flat(m, n);
      expect_same(b, "flat n=" + std::to_string(n), {{1, false}, {3, true}, {100, false}, {b.size(), true}});
    }
  }
}

TEST(StreamLoader, AFlatLoadAllocatesTheRowsOnceAndTheLoadedIndexAnswers) {
  const size_t dim = 384, n = 2000;
  FlatIndex index({dim, Metric::cosine});
  const auto v = unit_gaussian_vectors(n, dim, 3);
  std::vector<uint64_t> ids(n);
  std::iota(ids.begin(), ids.end(), 100);
  index.add(ids, v);
  const Bytes b = index.serialize();
  for (bool exact : {false, true}) {
    io::StreamOptions options;
    options.isa = active_isa();
    if (exact) options.exact_size = b.size();
    io::StreamLoader loader(options);
    for (size_t at = 0; at < b.size(); at += 65536) {
      loader.push(b.data() + at, std::min<size_t>(65536, b.size() - at));
      EXPECT_LE(loader.buffer_bytes(), 1024u) << "the flat stream keeps only the head";
    }
    ASSERT_EQ(loader.finish(), IndexKind::flat);
    FlatIndex loaded = loader.take_flat();
    EXPECT_EQ(loaded.size(), n);
    EXPECT_LE(loaded.memory_bytes(), index.memory_bytes() + (256u << 10)) << "exact " << exact;
    auto hits = loaded.search(std::vector<float>(v.begin() + 77 * dim, v.begin() + 78 * dim), 1);
    EXPECT_EQ(hits[0].id, 177u);
    EXPECT_EQ(loaded.serialize(), b);
  }
}

// Every damage the JS corruption sweep makes, on small flat files: the stream must agree with
// the whole-file loader on the code and the message, in every chunking.
TEST(StreamLoader, EveryDamagedFlatFileFailsExactlyLikeItsBytes) {
  for (Metric m : {Metric::l2, Metric::cosine}) {
    for (size_t n : {0u, 12u}) {
      const Bytes original = small_flat(m, n);
      const std::string what = std::string("flat ") + metric_name(m) + " n=" + std::to_string(n);
      const std::initializer_list<Feed> feeds = {{1, false}, {5, true}, {64, false}, {original.size(), true}};
      for (size_t len = 0; len < original.size(); ++len) {
        expect_same(Bytes(original.begin(), original.begin() + len), what + " truncated to " + std::to_string(len),
                    feeds);
      }
      Bytes longer = original;
      longer.push_back(0);
      expect_same(longer, what + " one byte longer", feeds);
      for (size_t i = 0; i < original.size(); ++i) {
        Bytes b = original;
        b[i] ^= uint8_t(1u << (i % 8));
        expect_same(b, what + " byte " + std::to_string(i) + " flipped", feeds);
      }
      // Header and table fields edited with every checksum fixed: the loader's own checks decide.
      const uint32_t hb = rd32(original, 12);
      const uint32_t sections = rd32(original, 16 + 40);
      for (size_t at = 16; at < 16 + hb + 32 * sections; at += 4) {
        for (uint32_t value : {0u, 1u, 3u, 7u, 64u, 0xFFFFFFFFu, rd32(original, at) + 1, rd32(original, at) - 64}) {
          Bytes b = original;
          wr32(b, at, value);
          fix_crcs_if_possible(b);
          expect_same(b, what + " field at " + std::to_string(at) + " = " + std::to_string(value), feeds);
        }
      }
      // Payload edits with the CRC fixed: a NaN, a repeated id, a non-zero padding byte.
      for (size_t at = 16 + hb + 32 * sections + 4; at < original.size(); ++at) {
        for (uint8_t value : {0x00, 0x7F, 0xFF}) {
          Bytes b = original;
          if (b[at] == value) continue;
          b[at] = value;
          fix_crcs_if_possible(b);
          expect_same(b, what + " payload byte " + std::to_string(at) + " = " + std::to_string(value), feeds);
        }
      }
    }
  }
}

// The quantised kind (io::QuantizedDecoder) and the HNSW kind (io::HnswDecoder) are decoded
// as they stream: the same errors too.
TEST(StreamLoader, DamagedFilesOfTheOtherKindsFailLikeTheirBytes) {
  for (size_t i = 0; i < kIndexFilesV1Count; ++i) {
    const std::string name = kIndexFilesV1[i].name;
    if (name.rfind("flat", 0) == 0 || name.substr(name.size() - 4) != ".qvr") continue;
    const Bytes original(kIndexFilesV1[i].data, kIndexFilesV1[i].data + kIndexFilesV1[i].size);
    const std::initializer_list<Feed> feeds = {{333, false}, {4096, true}};
    for (size_t len = 0; len < original.size(); len += len < 600 ? 1 : 997) {
      expect_same(Bytes(original.begin(), original.begin() + len), name + " truncated to " + std::to_string(len),
                  feeds);
    }
    for (size_t at = 0; at < original.size(); at += at < 600 ? 1 : 331) {
      Bytes b = original;
      b[at] ^= 0x10;
      expect_same(b, name + " byte " + std::to_string(at) + " flipped", feeds);
      fix_crcs_if_possible(b);
      expect_same(b, name + " byte " + std::to_string(at) + " flipped, checksums fixed", feeds);
    }
  }
}

TEST(StreamLoader, AKindOtherThanTheExpectedOneIsRefusedBeforeDecoding) {
  const Bytes b = small_flat(Metric::l2, 12);
  io::StreamOptions options;
  options.expected_kind = IndexKind::hnsw;
  io::StreamLoader loader(options);
  loader.push(b.data(), b.size());
  const Failure f = failure_of([&] { loader.finish(); });
  const Failure want = failure_of([&] { HnswIndex::load(b.data(), b.size()); });
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
  EXPECT_EQ(f.message, want.message);
}

TEST(StreamLoader, AHeadFaultStopsTheStreamAtOnceAndAHeadLyingAboutItsLengthAllocatesNothing) {
  Bytes b = small_flat(Metric::l2, 12);
  Bytes bad = b;
  bad[0] = 'X';
  io::StreamLoader loader({});
  const Failure f = failure_of([&] { loader.push(bad.data(), 4); });
  EXPECT_EQ(f.code, ErrorCode::BadMagic);
  EXPECT_EQ(failure_of([&] { loader.push(bad.data() + 4, 4); }).code, ErrorCode::BadMagic);
  // A head that declares 2^40 rows and a file to match, but a stream of a few bytes: with the
  // length known it fails at once; without it the rows are allocated only as they arrive.
  Bytes huge = b;
  const uint32_t hb = rd32(huge, 12);
  wr64(huge, 16 + 16, uint64_t(1) << 30);  // count
  const uint64_t ids_bytes = (uint64_t(1) << 30) * 8, vec_bytes = (uint64_t(1) << 30) * 8 * 4;
  const size_t table = 16 + hb;
  const uint64_t ids_off = rd64(huge, table + 8);
  const uint64_t vec_off = (ids_off + ids_bytes + 63) / 64 * 64;
  wr64(huge, table + 16, ids_bytes);
  wr64(huge, table + 32 + 8, vec_off);
  wr64(huge, table + 32 + 16, vec_bytes);
  wr64(huge, 16 + 32, vec_off + vec_bytes);  // file size
  fix_crcs(huge);
  {
    io::StreamOptions options;
    options.exact_size = huge.size();
    io::StreamLoader exact(options);
    EXPECT_EQ(failure_of([&] { exact.push(huge.data(), huge.size()); }).code, ErrorCode::Truncated);
  }
  io::StreamLoader open({});
  open.push(huge.data(), huge.size());
  EXPECT_EQ(failure_of([&] { open.finish(); }).code, ErrorCode::Truncated);
}

// --- Partitioned quantised files -------------------------------------------------------------
// Written with their partition (PART, CENT, LIST) before the codes, so the stream loader places
// each slot's codes in its list as they arrive instead of gathering the file first. Shapes that
// reach every branch of that placement: free slots (in no list), kept vectors, a refine plane,
// an odd number of sub-quantisers (a padding nibble), 2-bit codes, an untrained partition.
struct PartitionedShape {
  const char* name;
  size_t dim;
  Metric metric;
  unsigned bits;
  bool keep;
  unsigned refine_bits;
  size_t lists;
  size_t rows;
};
const PartitionedShape kPartitionedShapes[] = {
    {"l2 4-bit kept, 4 lists", 8, Metric::l2, 4, true, 0, 4, 600},
    {"cosine 4-bit dim 5, 3-bit refine, untrained auto", 5, Metric::cosine, 4, false, 3,
     QuantizedIndexOptions::kAutoLists, 300},
    {"ip 2-bit dim 6 kept, 2-bit refine, 3 lists", 6, Metric::ip, 2, true, 2, 3, 200},
};

QuantizedIndex partitioned_index(const PartitionedShape& shape) {
  QuantizedIndexOptions o{shape.dim, shape.metric, shape.bits, 11, shape.keep, shape.refine_bits, shape.lists};
  QuantizedIndex index(o, active_isa());
  std::vector<float> v(shape.rows * shape.dim);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(float(i) * 0.37f) + float(i % 5) * 0.1f - 0.2f;
  std::vector<uint64_t> ids(shape.rows);
  for (size_t i = 0; i < shape.rows; ++i) ids[i] = i * 5 + 2;
  index.add(ids, v);
  std::vector<uint64_t> gone;  // free slots all over, the first and the last among them
  for (size_t i = 0; i < shape.rows; i += 9) gone.push_back(ids[i]);
  gone.push_back(ids.back());
  index.remove(gone);
  return index;
}

std::vector<Neighbor> answers(const QuantizedIndex& index, size_t dim, size_t probes) {
  constexpr size_t kQueries = 5, kK = 7;
  std::vector<float> queries(kQueries * dim);
  for (size_t i = 0; i < queries.size(); ++i) queries[i] = std::cos(float(i) * 0.53f);
  QuantizedSearchParams p;
  p.probes = probes;
  p.rerank = index.keeps_vectors() || index.refine_bits() > 0 ? 2 : 0;
  std::vector<Neighbor> out(kQueries * kK);
  index.search_batch(queries.data(), kQueries, kK, out.data(), p);
  return out;
}

void expect_same_answers(const QuantizedIndex& a, const QuantizedIndex& b, size_t dim, const std::string& label) {
  for (size_t probes : {size_t(0), size_t(1), a.lists()}) {
    const std::vector<Neighbor> x = answers(a, dim, probes), y = answers(b, dim, probes);
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i].id, y[i].id) << label << ", probes " << probes << ", result " << i;
      EXPECT_EQ(x[i].distance, y[i].distance) << label << ", probes " << probes << ", result " << i;
    }
  }
}

// Pushes the whole file; what the loader holds then (before finish) says whether it gathered it.
size_t held_after_the_stream(const Bytes& b) {
  io::StreamOptions options;
  options.isa = active_isa();
  options.exact_size = b.size();
  io::StreamLoader loader(options);
  for (size_t at = 0; at < b.size(); at += 4096) loader.push(b.data() + at, std::min<size_t>(4096, b.size() - at));
  const size_t held = loader.buffer_bytes();
  loader.finish();
  return held;
}

uint64_t section_offset(const Bytes& b, const char (&tag)[5]) {
  const uint32_t hb = rd32(b, 12), n = rd32(b, 16 + 40);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = 16 + hb + 32 * i;
    if (rd32(b, e) == io::fourcc(tag)) return rd64(b, e + 8);
  }
  return UINT64_MAX;
}

// The order partitioned files had before: SLOT FREE CODE OFFS SCAL [VECS] [RFIN] PART [CENT] LIST.
Bytes with_the_partition_last(const Bytes& b) {
  RawFile raw = split(b);
  std::stable_partition(raw.sections.begin(), raw.sections.end(), [](const RawSection& s) {
    return s.tag != io::fourcc("PART") && s.tag != io::fourcc("CENT") && s.tag != io::fourcc("LIST");
  });
  return assemble(raw);
}

TEST(StreamLoader, PartitionedFilesStreamIntoTheirListsAndLoadLikeTheirBytes) {
  for (const PartitionedShape& shape : kPartitionedShapes) {
    SCOPED_TRACE(shape.name);
    const QuantizedIndex index = partitioned_index(shape);
    const Bytes b = index.serialize();
    EXPECT_LT(section_offset(b, "LIST"), section_offset(b, "CODE"));
    EXPECT_LT(section_offset(b, "PART"), section_offset(b, "CODE"));
    expect_same(b, shape.name, {{1, false}, {7, true}, {64, false}, {4096, true}, {b.size(), false}});
    // Not gathered: after the last byte the loader holds its head and nothing more.
    EXPECT_LT(held_after_the_stream(b), size_t(4096)) << "file " << b.size() << " bytes";
    const Outcome streamed = stream_load(b, {333, true});
    ASSERT_TRUE(streamed.ok) << describe(streamed);
    EXPECT_EQ(streamed.bytes, b) << "re-serialised, a streamed load gives the file back";
    io::StreamOptions options;
    options.isa = active_isa();
    io::StreamLoader loader(options);
    for (size_t at = 0; at < b.size(); at += 100) loader.push(b.data() + at, std::min<size_t>(100, b.size() - at));
    ASSERT_EQ(loader.finish(), IndexKind::quantized);
    const QuantizedIndex loaded = loader.take_quantized();
    EXPECT_EQ(loaded.lists(), index.lists());
    EXPECT_EQ(loaded.lists_option(), index.lists_option());
    EXPECT_EQ(loaded.centroids(), index.centroids());
    expect_same_answers(loaded, index, shape.dim, "streamed");
  }
  // Empty, and with every vector removed.
  for (bool all_removed : {false, true}) {
    QuantizedIndex index(QuantizedIndexOptions{4, Metric::l2, 4, 3, false, 0, 5}, active_isa());
    if (all_removed) {
      index.add(std::vector<uint64_t>{1, 2, 3}, std::vector<float>(12, 0.5f));
      index.remove(std::vector<uint64_t>{1, 2, 3});
    }
    const Bytes b = index.serialize();
    expect_same(b, all_removed ? "all removed" : "empty", {{1, false}, {64, true}});
    EXPECT_EQ(stream_load(b, {64, false}).bytes, b);
  }
}

// Files of the older order (the partition last) are gathered whole, as before, and load into
// the same index; saved again, they take the streamable order.
TEST(StreamLoader, PartitionedFilesOfTheOlderOrderAreGatheredAndLoadTheSame) {
  for (const PartitionedShape& shape : kPartitionedShapes) {
    SCOPED_TRACE(shape.name);
    const QuantizedIndex index = partitioned_index(shape);
    const Bytes current = index.serialize();
    const Bytes old = with_the_partition_last(current);
    ASSERT_NE(old, current);
    EXPECT_GT(section_offset(old, "LIST"), section_offset(old, "CODE"));
    expect_same(old, shape.name, {{1, false}, {4096, true}, {old.size(), false}});
    EXPECT_GE(held_after_the_stream(old), old.size()) << "the older order is gathered first";
    EXPECT_EQ(stream_load(old, {333, false}).bytes, current);
    const QuantizedIndex loaded = QuantizedIndex::load(old);
    EXPECT_EQ(loaded.serialize(), current);
    expect_same_answers(loaded, index, shape.dim, "older order");
  }
}

// Every fault a partitioned file can have is reported by the stream exactly as by its bytes:
// the first one in the whole-file loader's order, with its code and message — including those
// of slots that have no place in the lists (free slots holding data, lists that do not exist).
TEST(StreamLoader, DamagedPartitionedFilesFailLikeTheirBytes) {
  const std::initializer_list<Feed> feeds = {{1, false}, {333, false}, {4096, true}};
  for (const PartitionedShape& shape : kPartitionedShapes) {
    SCOPED_TRACE(shape.name);
    const QuantizedIndex index = partitioned_index(shape);
    const Bytes original = index.serialize();
    const uint64_t lists = index.lists();
    for (size_t len = 0; len < original.size(); len += len < 700 ? 7 : 401) {
      expect_same(Bytes(original.begin(), original.begin() + len), "truncated to " + std::to_string(len),
                  {{333, false}});
    }
    const RawFile raw = split(original);
    const uint32_t hb = rd32(original, 12);
    for (size_t i = 0; i < raw.sections.size(); ++i) {
      const size_t e = 16 + hb + 32 * i;
      const uint64_t off = rd64(original, e + 8), size = rd64(original, e + 16);
      for (uint64_t at = 0; at < size; at += at < 24 ? 1 : 97) {
        Bytes b = original;
        b[size_t(off + at)] ^= 0x41;
        const std::string what = io::tag_name(raw.sections[i].tag) + " byte " + std::to_string(at) + " flipped";
        expect_same(b, what, {{4096, true}});
        fix_crcs(b);
        expect_same(b, what + ", checksums fixed", {{7, false}, {333, false}, {4096, true}});
      }
    }
    // Edits behind valid checksums, aimed at the slots the lists do not hold.
    std::vector<size_t> free_slots, live_slots;
    for (const RawSection& s : raw.sections) {
      if (s.tag != io::fourcc("SLOT")) continue;
      for (size_t slot = 0; slot < s.payload.size() / 8; ++slot) {
        (rd64(s.payload, slot * 8) == UINT64_MAX ? free_slots : live_slots).push_back(slot);
      }
    }
    ASSERT_GE(free_slots.size(), 3u);
    const size_t row_bytes = ((shape.bits == 4 ? shape.dim : (shape.dim + 1) / 2) + 1) / 2;
    auto edited = [&](const char(&tag)[5], const std::function<void(Bytes&)>& edit) {
      RawFile r = raw;
      for (RawSection& s : r.sections) {
        if (s.tag == io::fourcc(tag)) edit(s.payload);
      }
      return assemble(r);
    };
    for (size_t k = 0; k < 3; ++k) {
      const size_t f = free_slots[k * (free_slots.size() - 1) / 2], l = live_slots[k * (live_slots.size() - 1) / 2];
      const std::string at = " (free slot " + std::to_string(f) + ", live slot " + std::to_string(l) + ")";
      expect_same(edited("CODE", [&](Bytes& p) { p[f * row_bytes] = 0x10; }), "a free slot's codes" + at, feeds);
      expect_same(edited("OFFS", [&](Bytes& p) { wr32(p, f * 4, 0x3f800000); }), "a free slot's offset" + at, feeds);
      expect_same(edited("SCAL", [&](Bytes& p) { wr32(p, f * 4, 0x80000000); }), "a free slot's scale -0" + at, feeds);
      expect_same(edited("LIST", [&](Bytes& p) { wr32(p, f * 4, 1); }), "a free slot in list 1" + at, feeds);
      expect_same(edited("LIST", [&](Bytes& p) { wr32(p, l * 4, uint32_t(lists)); }), "a list past the last" + at,
                  feeds);
      expect_same(edited("LIST", [&](Bytes& p) { wr32(p, l * 4, UINT32_MAX); }), "list 2^32 - 1" + at, feeds);
      expect_same(edited("SCAL", [&](Bytes& p) { wr32(p, l * 4, 0x3f800000); }), "a positive scale" + at, feeds);
      expect_same(edited("CODE", [&](Bytes& p) { p[l * row_bytes + row_bytes - 1] |= 0xF0; }),
                  "a code's high nibble" + at, feeds);
      expect_same(edited("SLOT", [&](Bytes& p) { wr64(p, l * 8, rd64(p, live_slots[0] * 8)); }), "a duplicate id" + at,
                  feeds);
      // Two faults: a free slot holding data and a live slot in no list, whichever comes first.
      RawFile two = raw;
      for (RawSection& s : two.sections) {
        if (s.tag == io::fourcc("CODE")) s.payload[f * row_bytes] = 0x01;
        if (s.tag == io::fourcc("LIST")) wr32(s.payload, l * 4, uint32_t(lists) + 3);
      }
      expect_same(assemble(two), "a free slot's codes and a live slot's list" + at, feeds);
    }
    // The partition's own values.
    expect_same(edited("PART", [](Bytes& p) { wr64(p, 0, 0); }), "lists option 0", feeds);
    expect_same(edited("PART", [](Bytes& p) { wr64(p, 8, 0); }), "0 lists", feeds);
    expect_same(edited("PART", [](Bytes& p) { wr64(p, 8, (uint64_t(1) << 16) + 1); }), "too many lists", feeds);
    expect_same(edited("PART", [&](Bytes& p) { wr64(p, 8, lists + 1); }), "one list more", feeds);
    expect_same(edited("PART", [](Bytes& p) { p.resize(24); }), "a short PART", feeds);
    expect_same(edited("LIST", [](Bytes& p) { p.resize(p.size() - 4); }), "a short LIST", feeds);
  }
}

}  // namespace test_stream_loader
}  // namespace quiver::test
