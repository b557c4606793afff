// Index file format: round trips, byte-identical files on every ISA level and target, and a
// table of bad files (one per error kind), each with its own code and message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "container/crc32c.hpp"
#include "container/format.hpp"
#include "quiver/quiver.hpp"
#include "io_test_support.hpp"
#include "test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_io {

using namespace test;  // Bytes, rd32.., split/assemble/fix_crcs, Failure, failure_of (io_test_support.hpp)

FlatIndex small_index(Metric metric = Metric::l2, size_t n = 5, size_t dim = 3) {
  FlatIndex index({dim, metric});
  std::vector<uint64_t> ids;
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i) {
    ids.push_back(100 + 7 * i);
    for (size_t j = 0; j < dim; ++j) v.push_back(float(i) - 0.5f * float(j) + 0.25f);
  }
  index.add(ids, v);
  return index;
}

Failure load_failure(const Bytes& b) {
  return failure_of([&] { FlatIndex::load(b.data(), b.size()); });
}

// ---- CRC-32C ----

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(io::crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(io::crc32c("", 0), 0u);
  const Bytes zeros(32, 0);
  EXPECT_EQ(io::crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  const Bytes ones(32, 0xFF);
  EXPECT_EQ(io::crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  Bytes inc(32);
  for (int i = 0; i < 32; ++i) inc[i] = uint8_t(i);
  EXPECT_EQ(io::crc32c(inc.data(), inc.size()), 0x46DD794Eu);
}

// The table-driven CRC (slicing by 16, then 8, then bytes) against the bit-at-a-time
// definition, at every length up to 300 and four alignments.
TEST(Crc32c, EqualsTheBitwiseDefinitionAtEveryLengthAndAlignment) {
  const auto bitwise = [](const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
  };
  Bytes data(304);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 131 + 17);
  for (size_t offset = 0; offset < 4; ++offset) {
    for (size_t n = 0; n + offset <= 300; ++n) {
      ASSERT_EQ(io::crc32c(data.data() + offset, n), bitwise(data.data() + offset, n)) << offset << " " << n;
    }
  }
}

TEST(Crc32c, IncrementalEqualsWholeAtEveryOffset) {
  Bytes data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 31 + 7);
  const uint32_t whole = io::crc32c(data.data(), data.size());
  for (size_t cut : {0, 1, 7, 8, 9, 63, 500, 999, 1000}) {
    EXPECT_EQ(io::crc32c_update(io::crc32c(data.data(), cut), data.data() + cut, data.size() - cut), whole);
  }
}

// ---- round trips ----

void expect_same_index(const FlatIndex& a, const FlatIndex& b) {
  ASSERT_EQ(a.dim(), b.dim());
  ASSERT_EQ(a.metric(), b.metric());
  ASSERT_EQ(a.size(), b.size());
  for (size_t s = 0; s < a.size(); ++s) {
    ASSERT_EQ(a.stored_id(s), b.stored_id(s));
    ASSERT_EQ(0, std::memcmp(a.stored_row(s), b.stored_row(s), a.dim() * sizeof(float)));
  }
}

TEST(IndexFile, RoundTripEveryMetric) {
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    SCOPED_TRACE(metric_name(metric));
    const FlatIndex index = small_index(metric, 40, 7);
    const Bytes bytes = index.serialize();
    const FlatIndex loaded = FlatIndex::load(bytes);
    expect_same_index(index, loaded);
    EXPECT_EQ(loaded.serialize(), bytes);  // a second round trip gives the same bytes
    const std::vector<float> q = {0.5f, -1, 2, 0.25f, 3, 1, -2};
    EXPECT_EQ(test::ids_of(index.search(q, 10)), test::ids_of(loaded.search(q, 10)));
    const auto d1 = index.search(q, 10), d2 = loaded.search(q, 10);
    for (size_t i = 0; i < d1.size(); ++i) EXPECT_EQ(d1[i].distance, d2[i].distance);
  }
}

TEST(IndexFile, RoundTripAfterRemovesAndEmpty) {
  FlatIndex index = small_index(Metric::l2, 20, 4);
  index.remove({100, 100 + 7 * 3, 100 + 7 * 19});
  const FlatIndex loaded = FlatIndex::load(index.serialize());
  expect_same_index(index, loaded);
  EXPECT_FALSE(loaded.contains(100));
  EXPECT_TRUE(loaded.contains(107));

  const FlatIndex empty({9, Metric::cosine});
  const Bytes eb = empty.serialize();
  const FlatIndex e2 = FlatIndex::load(eb);
  EXPECT_EQ(e2.size(), 0u);
  EXPECT_EQ(e2.dim(), 9u);
  EXPECT_EQ(e2.metric(), Metric::cosine);
  EXPECT_EQ(e2.serialize(), eb);
}

TEST(IndexFile, LoadedIndexIsMutable) {
  FlatIndex loaded = FlatIndex::load(small_index().serialize());
  loaded.add({1}, {0, 0, 0});
  EXPECT_EQ(loaded.search({0, 0, 0}, 1)[0].id, 1u);
  EXPECT_THROW(loaded.add({100}, {1, 1, 1}), Error);  // ids survive the round trip
}

TEST(IndexFile, HeaderFieldsAndInspect) {
  const Bytes b = small_index(Metric::ip, 5, 3).serialize();
  EXPECT_EQ(b.size() % 4, 0u);
  const IndexFileInfo info = inspect_index(b.data(), b.size());
  EXPECT_EQ(info.version_major, 1);
  EXPECT_EQ(info.version_minor, 0);
  EXPECT_EQ(info.kind, IndexKind::flat);
  EXPECT_EQ(info.metric, Metric::ip);
  EXPECT_EQ(info.dim, 3u);
  EXPECT_EQ(info.count, 5u);
  EXPECT_EQ(info.file_bytes, b.size());
  ASSERT_EQ(info.sections.size(), 2u);
  EXPECT_EQ(info.sections[0].tag, "IDS ");
  EXPECT_EQ(info.sections[0].size, 40u);
  EXPECT_EQ(info.sections[1].tag, "VECS");
  EXPECT_EQ(info.sections[1].size, 60u);
  EXPECT_EQ(info.sections[1].offset % 64, 0u);
  EXPECT_EQ(io::index_kind_of(b.data(), b.size()), IndexKind::flat);
}

// The same workload gives the same file bytes at every ISA level and in every wasm variant:
// this suite runs under each QUIVER_ISA natively and in each wasm build, against one constant.
TEST(IndexFile, ByteIdenticalEverywhere) {
  const size_t n = 300, dim = 384;
  const auto base = unit_gaussian_vectors(n, dim, 42);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 3 + 1;
  FlatIndex l2({dim, Metric::l2});
  l2.add(ids, base);
  FlatIndex cosine({dim, Metric::cosine});
  cosine.add(ids, base);
  const Bytes a = l2.serialize(), c = cosine.serialize();
  EXPECT_EQ(a.size(), 463488u);
  EXPECT_EQ(test::fnv1a(a.data(), a.size()), 0x743521054982b6feULL) << std::hex << test::fnv1a(a.data(), a.size());
  EXPECT_EQ(test::fnv1a(c.data(), c.size()), 0x93035da6bdb884fULL) << std::hex << test::fnv1a(c.data(), c.size());
  EXPECT_EQ(io::crc32c(a.data(), a.size()), 0xe5dd2925u) << std::hex << io::crc32c(a.data(), a.size());
}

TEST(IndexFile, SaveAndLoadFile) {
  const std::string path = unique_temp_path("quiver_test_index");
  const FlatIndex index = small_index(Metric::cosine, 30, 5);
  index.save(path);
  const FlatIndex loaded = FlatIndex::load_file(path);
  expect_same_index(index, loaded);
  EXPECT_EQ(inspect_index_file(path).count, 30u);
  // A failed save leaves no file behind and names the path.
  const std::string bad = testing::TempDir() + "no_such_dir_quiver/x.qvr";
  const Failure f = failure_of([&] { index.save(bad); });
  EXPECT_EQ(f.code, ErrorCode::IoError);
  EXPECT_NE(f.message.find("no_such_dir_quiver"), std::string::npos) << f.message;
  const Failure missing = failure_of([&] { FlatIndex::load_file(testing::TempDir() + "missing.qvr"); });
  EXPECT_EQ(missing.code, ErrorCode::IoError);
  std::remove(path.c_str());
}

// ---- bad files: one row per kind of damage, each with its own code and message ----

struct BadFile {
  const char* name;
  Bytes (*make)(const Bytes& good);
  ErrorCode code;
  const char* message_part;
};

Bytes flip(const Bytes& b, size_t at) {
  Bytes c = b;
  c[at] ^= 0x10;
  return c;
}

const BadFile kBadFiles[] = {
    {"empty", [](const Bytes&) { return Bytes{}; }, ErrorCode::Truncated, "shorter than the 16-byte preamble"},
    {"wrong magic",
     [](const Bytes& g) {
       Bytes b = g;
       b[1] = 'X';
       return b;
     },
     ErrorCode::BadMagic, "not a quiver index"},
    {"a JSON file", [](const Bytes&) { return Bytes{'{', '"', 'a', '"', ':', '1', '}'}; }, ErrorCode::BadMagic,
     "magic"},
    {"truncated in the preamble", [](const Bytes& g) { return Bytes(g.begin(), g.begin() + 12); }, ErrorCode::Truncated,
     "preamble"},
    {"truncated in the header", [](const Bytes& g) { return Bytes(g.begin(), g.begin() + 60); }, ErrorCode::Truncated,
     "the header needs"},
    {"truncated in the table", [](const Bytes& g) { return Bytes(g.begin(), g.begin() + 150); }, ErrorCode::Truncated,
     "section table"},
    {"truncated in the data", [](const Bytes& g) { return Bytes(g.begin(), g.end() - 5); }, ErrorCode::Truncated,
     "declares"},
    {"flipped byte in the header", [](const Bytes& g) { return flip(g, 16 + 8); }, ErrorCode::ChecksumMismatch,
     "header checksum mismatch"},
    {"flipped byte in the table", [](const Bytes& g) { return flip(g, 16 + 112 + 32 + 16); },
     ErrorCode::ChecksumMismatch, "header checksum mismatch"},
    {"flipped byte in the vectors", [](const Bytes& g) { return flip(g, g.size() - 3); }, ErrorCode::ChecksumMismatch,
     "section VECS checksum mismatch"},
    {"flipped byte in the ids", [](const Bytes& g) { return flip(g, size_t(rd64(g, 16 + 112 + 8)) + 1); },
     ErrorCode::ChecksumMismatch, "section IDS  checksum mismatch"},
    {"newer major version",
     [](const Bytes& g) {
       Bytes b = g;
       wr16(b, 8, 2);
       return b;
     },
     ErrorCode::UnsupportedVersion, "format version 2.0 is not supported"},
    {"major version 0",
     [](const Bytes& g) {
       Bytes b = g;
       wr16(b, 8, 0);
       return b;
     },
     ErrorCode::UnsupportedVersion, "format version 0.0"},
    {"unknown required section (newer minor)",
     [](const Bytes& g) {
       RawFile r = split(g);
       r.minor = 9;
       r.sections.push_back({io::fourcc("ZZZZ"), 1, Bytes(10, 1)});
       return assemble(r);
     },
     ErrorCode::UnsupportedVersion, "required section ZZZZ is not understood"},
    {"unknown index kind",
     [](const Bytes& g) {
       Bytes b = g;
       wr32(b, 16, 9);
       fix_crcs(b);
       return b;
     },
     ErrorCode::UnknownIndexKind, "unknown index kind 9"},
    {"impossible header size",
     [](const Bytes& g) {
       Bytes b = g;
       wr32(b, 12, 0xFFFFFFF0u);
       return b;
     },
     ErrorCode::Corrupt, "impossible header size"},
    {"impossible section count",
     [](const Bytes& g) {
       Bytes b = g;
       wr32(b, 16 + 40, 1u << 30);
       return b;
     },
     ErrorCode::Corrupt, "impossible section count"},
    {"impossible vector count",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 16, 1ull << 40);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "impossible vector count"},
    {"count disagrees with the data",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 16, 4);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "but the header implies"},
    {"impossible dimension",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 8, 0);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "impossible dimension 0"},
    {"impossible section size",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 112 + 32 + 16, 1ull << 62);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "impossible size"},
    {"overlapping sections",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 112 + 32 + 8, rd64(g, 16 + 112 + 8));
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "impossible offset"},
    {"unknown metric",
     [](const Bytes& g) {
       Bytes b = g;
       wr32(b, 20, 7);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "unknown metric 7"},
    {"trailing bytes",
     [](const Bytes& g) {
       Bytes b = g;
       b.push_back(0);
       return b;
     },
     ErrorCode::Corrupt, "unexpected bytes after the declared end"},
    {"non-zero padding",
     [](const Bytes& g) {
       Bytes b = g;
       b[16 + 112 + 64 + 4 + 1] = 1;
       return b;
     },
     ErrorCode::Corrupt, "non-zero padding"},
    {"missing section",
     [](const Bytes& g) {
       RawFile r = split(g);
       r.sections.pop_back();
       return assemble(r);
     },
     ErrorCode::Corrupt, "required section VECS is missing"},
    {"duplicate id",
     [](const Bytes& g) {
       RawFile r = split(g);
       std::memcpy(r.sections[0].payload.data() + 8, r.sections[0].payload.data(), 8);
       return assemble(r);
     },
     ErrorCode::Corrupt, "invalid contents: id 100"},
    {"NaN in a vector",
     [](const Bytes& g) {
       RawFile r = split(g);
       const float nan = std::nanf("");
       std::memcpy(r.sections[1].payload.data() + 4, &nan, 4);
       return assemble(r);
     },
     ErrorCode::Corrupt, "non-finite"},
};

TEST(IndexFileBad, EveryKindOfDamageHasItsOwnError) {
  const Bytes good = small_index().serialize();
  ASSERT_NO_THROW(FlatIndex::load(good));
  for (const BadFile& bad : kBadFiles) {
    SCOPED_TRACE(bad.name);
    const Bytes b = bad.make(good);
    const Failure f = load_failure(b);
    EXPECT_EQ(f.code, bad.code) << error_code_name(f.code) << ": " << f.message;
    EXPECT_NE(f.message.find(bad.message_part), std::string::npos) << f.message;
    EXPECT_EQ(f.message.rfind("index file: ", 0), 0u) << f.message;
  }
}

TEST(IndexFileBad, NewerMinorVersionWithExtrasLoads) {
  const FlatIndex index = small_index(Metric::cosine);
  RawFile r = split(index.serialize());
  r.minor = 3;
  r.header.resize(r.header.size() + 24, 0xAB);                                       // fields a 1.3 writer appends
  r.sections.insert(r.sections.begin() + 1, {io::fourcc("NOTE"), 0, Bytes(77, 5)});  // optional
  const Bytes b = assemble(r);
  const FlatIndex loaded = FlatIndex::load(b);
  expect_same_index(index, loaded);
  const IndexFileInfo info = inspect_index(b.data(), b.size());
  EXPECT_EQ(info.version_minor, 3);
  EXPECT_EQ(info.sections.size(), 3u);
  EXPECT_FALSE(info.sections[1].required);
}

TEST(IndexFileBad, OtherKindIsNotAFlatIndex) {
  Bytes b = small_index().serialize();
  wr32(b, 16, uint32_t(IndexKind::hnsw));
  fix_crcs(b);
  EXPECT_EQ(io::index_kind_of(b.data(), b.size()), IndexKind::hnsw);
  const Failure f = load_failure(b);
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
  EXPECT_NE(f.message.find("holds a hnsw index"), std::string::npos) << f.message;
}

TEST(IndexFileBad, EveryTruncationIsTruncated) {
  const Bytes good = small_index().serialize();
  for (size_t len = 0; len < good.size(); ++len) {
    const Failure f = load_failure(Bytes(good.begin(), good.begin() + len));
    ASSERT_EQ(f.code, ErrorCode::Truncated) << "length " << len << ": " << f.message;
  }
}

TEST(IndexFileBad, EveryByteFlipIsRejected) {
  const Bytes good = small_index().serialize();
  for (size_t at = 0; at < good.size(); ++at) {
    for (uint8_t mask : {0x01, 0x80}) {
      Bytes b = good;
      b[at] ^= mask;
      bool threw = false;
      try {
        FlatIndex::load(b);
      } catch (const Error& e) {
        threw = true;
      }
      ASSERT_TRUE(threw) << "flip at " << at;
    }
  }
}

TEST(IndexFileBad, NothingIsAllocatedForHugeDeclaredSizes) {
  // A 300-byte file that claims 2^40 vectors of dimension 2^24 fails on the size check (a
  // multiplication would overflow and an allocation would fail) before allocating anything.
  Bytes b = small_index().serialize();
  wr64(b, 16 + 8, 1u << 24);
  wr64(b, 16 + 16, b.size() - 1);
  fix_crcs(b);
  const Failure f = load_failure(b);
  EXPECT_EQ(f.code, ErrorCode::Corrupt);
  EXPECT_NE(f.message.find("impossible vector count"), std::string::npos) << f.message;
}

TEST(IndexFileBad, ErrorCodeNamesAreUpperSnakeCase) {
  EXPECT_STREQ(error_code_name(ErrorCode::Truncated), "TRUNCATED");
  EXPECT_STREQ(error_code_name(ErrorCode::ChecksumMismatch), "CHECKSUM_MISMATCH");
  EXPECT_STREQ(error_code_name(ErrorCode::BadMagic), "BAD_MAGIC");
  EXPECT_STREQ(error_code_name(ErrorCode::UnsupportedVersion), "UNSUPPORTED_VERSION");
  EXPECT_STREQ(error_code_name(ErrorCode::UnknownIndexKind), "UNKNOWN_INDEX_KIND");
  EXPECT_STREQ(error_code_name(ErrorCode::IoError), "IO_ERROR");
  // The code the JS binding already reports for unexpected C++ exceptions.
  EXPECT_STREQ(error_code_name(ErrorCode::Internal), "INTERNAL");
}

}  // namespace test_io
}  // namespace quiver
