// The stream loader (src/io/stream_loader.hpp): a file pushed in chunks of any size loads into
// the same index as the whole bytes, and every damaged file is rejected with the same error
// (code and message) as the whole-file loader gives for the same bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "index_files_v1_embedded.hpp"
#include "io/format.hpp"
#include "io/stream_loader.hpp"
#include "io_test_support.hpp"
#include "quiver/quiver.hpp"

namespace quiver::test {
namespace {

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
  size_t chunk;        // bytes per push (the last one shorter)
  bool exact;          // tell the loader the length
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
        expect_same(Bytes(original.begin(), original.begin() + len), what + " truncated to " + std::to_string(len), feeds);
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

// The quantised kind is gathered and handed to its own loader, the HNSW kind decoded as it
// streams (io::HnswDecoder): the same errors too.
TEST(StreamLoader, DamagedFilesOfTheOtherKindsFailLikeTheirBytes) {
  for (size_t i = 0; i < kIndexFilesV1Count; ++i) {
    const std::string name = kIndexFilesV1[i].name;
    if (name.rfind("flat", 0) == 0 || name.substr(name.size() - 4) != ".qvr") continue;
    const Bytes original(kIndexFilesV1[i].data, kIndexFilesV1[i].data + kIndexFilesV1[i].size);
    const std::initializer_list<Feed> feeds = {{333, false}, {4096, true}};
    for (size_t len = 0; len < original.size(); len += len < 600 ? 1 : 997) {
      expect_same(Bytes(original.begin(), original.begin() + len), name + " truncated to " + std::to_string(len), feeds);
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
  wr64(huge, 16 + 16, uint64_t(1) << 30);                           // count
  const uint64_t ids_bytes = (uint64_t(1) << 30) * 8, vec_bytes = (uint64_t(1) << 30) * 8 * 4;
  const size_t table = 16 + hb;
  const uint64_t ids_off = rd64(huge, table + 8);
  const uint64_t vec_off = (ids_off + ids_bytes + 63) / 64 * 64;
  wr64(huge, table + 16, ids_bytes);
  wr64(huge, table + 32 + 8, vec_off);
  wr64(huge, table + 32 + 16, vec_bytes);
  wr64(huge, 16 + 32, vec_off + vec_bytes);                         // file size
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

}  // namespace
}  // namespace quiver::test
