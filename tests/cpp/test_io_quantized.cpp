// Index files of the quantised index: round trips (every metric, both bit widths, with and
// without kept vectors, with free slots), byte-identical files at every ISA level and on every
// target, and a table of bad files, each with its own code and message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "container/crc32c.hpp"
#include "container/format.hpp"
#include "io_test_support.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_io_quantized {

using namespace test;  // Bytes, rd/wr helpers, split/assemble/fix_crcs, Failure, failure_of

enum Section { kSlot, kFree, kCode, kOffs, kScal, kVecs };
constexpr size_t kParams = 16 + 48;  // header params[0] in the file

std::vector<float> rows(size_t n, size_t dim, uint64_t seed) { return unit_gaussian_vectors(n, dim, seed); }

// n vectors with ids 100 + 7i, then `removed` of them removed (so the file has free slots).
QuantizedIndex make_index(Metric metric, unsigned bits, bool keep, size_t n = 40, size_t dim = 5, size_t removed = 3,
                          uint64_t seed = 7) {
  QuantizedIndex index({dim, metric, bits, seed, keep});
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < n; ++i) ids.push_back(100 + 7 * i);
  std::vector<float> v = rows(n, dim, 11);
  if (metric != Metric::cosine) {
    for (size_t i = 0; i < v.size(); ++i) v[i] *= 1.0f + float(i % 5);  // not all unit length
  }
  index.add(ids, v);
  std::vector<uint64_t> gone;
  for (size_t i = 0; i < removed; ++i) gone.push_back(100 + 7 * (3 + 5 * i));
  index.remove(gone);
  return index;
}

std::vector<uint64_t> live_ids(size_t n = 40, size_t removed = 3) {
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < n; ++i) {
    bool gone = false;
    for (size_t r = 0; r < removed; ++r) gone = gone || i == 3 + 5 * r;
    if (!gone) ids.push_back(100 + 7 * i);
  }
  return ids;
}

void expect_same_results(const QuantizedIndex& a, const QuantizedIndex& b, size_t rerank) {
  const auto queries = rows(6, a.dim(), 99);
  QuantizedSearchParams p;
  p.rerank = rerank;
  for (size_t q = 0; q < 6; ++q) {
    const std::vector<float> query(queries.begin() + q * a.dim(), queries.begin() + (q + 1) * a.dim());
    const auto x = a.search(query, 10, p), y = b.search(query, 10, p);
    ASSERT_EQ(test::ids_of(x), test::ids_of(y)) << "query " << q << " rerank " << rerank;
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i].distance, y[i].distance);
  }
}

void expect_same_index(const QuantizedIndex& a, const QuantizedIndex& b, const std::vector<uint64_t>& ids) {
  ASSERT_EQ(a.dim(), b.dim());
  ASSERT_EQ(a.metric(), b.metric());
  ASSERT_EQ(a.bits(), b.bits());
  ASSERT_EQ(a.seed(), b.seed());
  ASSERT_EQ(a.keeps_vectors(), b.keeps_vectors());
  ASSERT_EQ(a.size(), b.size());
  for (uint64_t id : ids) {
    ASSERT_TRUE(b.contains(id)) << id;
    ASSERT_EQ(a.codes(id), b.codes(id)) << id;
  }
  expect_same_results(a, b, 0);
  if (a.keeps_vectors()) expect_same_results(a, b, 3);
}

Failure load_failure(const Bytes& b) {
  return failure_of([&] { QuantizedIndex::load(b.data(), b.size()); });
}

// ---- round trips ----

TEST(QuantizedIndexFile, RoundTripEveryMetricBitsAndKeep) {
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    for (unsigned bits : {2u, 4u}) {
      for (bool keep : {false, true}) {
        for (size_t dim : {5, 16}) {
          SCOPED_TRACE(std::string(metric_name(metric)) + " bits " + std::to_string(bits) + " keep " +
                       std::to_string(keep) + " dim " + std::to_string(dim));
          const QuantizedIndex index = make_index(metric, bits, keep, 40, dim);
          const Bytes bytes = index.serialize();
          const QuantizedIndex loaded = QuantizedIndex::load(bytes);
          expect_same_index(index, loaded, live_ids());
          EXPECT_FALSE(loaded.contains(100 + 7 * 3));
          EXPECT_EQ(loaded.serialize(), bytes);  // serialize -> load -> serialize is byte-identical
        }
      }
    }
  }
}

TEST(QuantizedIndexFile, LoadedIndexReusesSlotsLikeTheOriginal) {
  QuantizedIndex index = make_index(Metric::l2, 4, true, 70, 9, 6);
  QuantizedIndex loaded = QuantizedIndex::load(index.serialize());
  // The free list survives: the same adds land in the same slots, so the files stay equal.
  const auto more = rows(10, 9, 5);
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < 10; ++i) ids.push_back(5000 + i);
  index.add(ids, more);
  loaded.add(ids, more);
  EXPECT_EQ(loaded.serialize(), index.serialize());
  EXPECT_THROW(loaded.add({100}, std::vector<float>(9, 1.0f)), Error);  // ids survive
  loaded.remove({100, 5003});
  EXPECT_FALSE(loaded.contains(100));
  expect_same_results(loaded, QuantizedIndex::load(loaded.serialize()), 2);
}

TEST(QuantizedIndexFile, EmptyAndAllRemoved) {
  const QuantizedIndex empty({33, Metric::cosine, 2, 1234, false});
  const Bytes eb = empty.serialize();
  const QuantizedIndex e2 = QuantizedIndex::load(eb);
  EXPECT_EQ(e2.size(), 0u);
  EXPECT_EQ(e2.dim(), 33u);
  EXPECT_EQ(e2.bits(), 2u);
  EXPECT_EQ(e2.seed(), 1234u);
  EXPECT_FALSE(e2.keeps_vectors());
  EXPECT_EQ(e2.serialize(), eb);

  QuantizedIndex all = make_index(Metric::ip, 4, true, 3, 4, 0);
  all.remove({100, 107, 114});
  const Bytes ab = all.serialize();
  QuantizedIndex a2 = QuantizedIndex::load(ab);
  EXPECT_EQ(a2.size(), 0u);
  EXPECT_EQ(a2.serialize(), ab);
  a2.add({1}, {1, 0, 0, 0});
  EXPECT_EQ(a2.search({1, 0, 0, 0}, 1)[0].id, 1u);
}

TEST(QuantizedIndexFile, HeaderFieldsAndInspect) {
  const QuantizedIndex index = make_index(Metric::cosine, 2, true, 40, 5, 3, 77);
  const Bytes b = index.serialize();
  const IndexFileInfo info = inspect_index(b.data(), b.size());
  EXPECT_EQ(info.kind, IndexKind::quantized);
  EXPECT_EQ(info.metric, Metric::cosine);
  EXPECT_EQ(info.dim, 5u);
  EXPECT_EQ(info.count, 37u);
  EXPECT_EQ(info.seed, 77u);
  EXPECT_EQ(info.params[0], 2u);   // bits
  EXPECT_EQ(info.params[1], 1u);   // keep_vectors
  EXPECT_EQ(info.params[2], 40u);  // slots
  EXPECT_EQ(info.params[3], 3u);   // free
  EXPECT_EQ(info.params[6], 1u);   // encoding version
  EXPECT_EQ(info.params[7], 0u);
  ASSERT_EQ(info.sections.size(), 6u);
  const char* tags[] = {"SLOT", "FREE", "CODE", "OFFS", "SCAL", "VECS"};
  const uint64_t sizes[] = {40 * 8, 3 * 4, 40 * 2, 40 * 4, 40 * 4, 40 * 5 * 4};  // 3 sub-quantisers: 2 bytes
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(info.sections[i].tag, tags[i]);
    EXPECT_EQ(info.sections[i].size, sizes[i]) << tags[i];
    EXPECT_TRUE(info.sections[i].required);
  }
  EXPECT_EQ(io::index_kind_of(b.data(), b.size()), IndexKind::quantized);
  // Without kept vectors there is no VECS section.
  const Bytes nb = make_index(Metric::l2, 4, false).serialize();
  EXPECT_EQ(inspect_index(nb.data(), nb.size()).sections.size(), 5u);
}

// The same workload gives the same file bytes at every ISA level and in every wasm variant:
// this suite runs under each QUIVER_ISA natively and in each wasm build, against one constant.
// tests/js/quantized-index.test.mjs checks the same constants through the npm package.
TEST(QuantizedIndexFile, ByteIdenticalEverywhere) {
  const size_t n = 300, dim = 384;
  const auto base = rows(n, dim, 42);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 3 + 1;
  QuantizedIndex four({dim, Metric::l2, 4, 42, false});
  four.add(ids, base);
  four.remove({1, 4, 301});
  QuantizedIndex two({dim, Metric::cosine, 2, 9, true});
  two.add(ids, base);
  const Bytes a = four.serialize(), c = two.serialize();
  EXPECT_EQ(a.size(), 62832u);
  EXPECT_EQ(test::fnv1a(a.data(), a.size()), 0xb0776c206d58d92eULL) << std::hex << test::fnv1a(a.data(), a.size());
  EXPECT_EQ(test::fnv1a(c.data(), c.size()), 0xcb884c8cc13b94e4ULL) << std::hex << test::fnv1a(c.data(), c.size());
  EXPECT_EQ(io::crc32c(a.data(), a.size()), 0xb954c5c8u) << std::hex << io::crc32c(a.data(), a.size());
}

TEST(QuantizedIndexFile, SaveAndLoadFile) {
  const std::string path = unique_temp_path("quiver_test_quantized");
  const QuantizedIndex index = make_index(Metric::l2, 4, true, 50, 12);
  index.save(path);
  const QuantizedIndex loaded = QuantizedIndex::load_file(path);
  expect_same_index(index, loaded, live_ids(50));
  EXPECT_EQ(inspect_index_file(path).kind, IndexKind::quantized);
  const Failure missing = failure_of([&] { QuantizedIndex::load_file(testing::TempDir() + "missing.qvr"); });
  EXPECT_EQ(missing.code, ErrorCode::IoError);
  const Failure bad = failure_of([&] { index.save(testing::TempDir() + "no_such_dir_quiver/q.qvr"); });
  EXPECT_EQ(bad.code, ErrorCode::IoError);
  std::remove(path.c_str());
}

TEST(QuantizedIndexFile, LoadsAtEveryIsaWithTheSameResults) {
  const QuantizedIndex index = make_index(Metric::ip, 4, true, 200, 40, 10);
  const Bytes b = index.serialize();
  for (Isa isa : available_isas()) {
    SCOPED_TRACE(isa_name(isa));
    const QuantizedIndex loaded = QuantizedIndex::load(b.data(), b.size(), isa);
    EXPECT_EQ(loaded.isa(), isa);
    expect_same_results(index, loaded, 0);
  }
}

// ---- bad files ----

Bytes with_param(const Bytes& g, size_t i, uint64_t v) {
  Bytes b = g;
  wr64(b, kParams + 8 * i, v);
  fix_crcs(b);
  return b;
}

template <typename Edit>
Bytes edit_section(const Bytes& g, Section s, Edit edit) {
  RawFile r = split(g);
  edit(r.sections[s].payload);
  return assemble(r);
}

void put_f32(Bytes& b, size_t at, float v) { std::memcpy(b.data() + at, &v, 4); }

struct BadFile {
  const char* name;
  Bytes (*make)(const Bytes& good);
  ErrorCode code;
  const char* message_part;
};

// The good file: l2, 4 bits, dim 5 (odd: one padding nibble per vector), kept vectors,
// 40 slots, ids 100 + 7i, slots 3, 8, 13 free.
const BadFile kBadFiles[] = {
    {"flipped byte in the codes",
     [](const Bytes& g) {
       Bytes b = g;
       b[size_t(rd64(g, 16 + 112 + 2 * 32 + 8)) + 1] ^= 0x10;
       return b;
     },
     ErrorCode::ChecksumMismatch, "section CODE checksum mismatch"},
    {"truncated", [](const Bytes& g) { return Bytes(g.begin(), g.end() - 7); }, ErrorCode::Truncated, "declares"},
    {"bit width 3", [](const Bytes& g) { return with_param(g, 0, 3); }, ErrorCode::Corrupt, "impossible bit width 3"},
    {"keep flag 2", [](const Bytes& g) { return with_param(g, 1, 2); }, ErrorCode::Corrupt,
     "impossible keep_vectors flag"},
    {"impossible slot count", [](const Bytes& g) { return with_param(g, 2, 1ull << 40); }, ErrorCode::Corrupt,
     "impossible slot count"},
    {"slot count disagrees with the data",
     [](const Bytes& g) {
       Bytes b = with_param(g, 2, 41);
       wr64(b, 16 + 16, 38);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "but the header implies"},
    {"counts disagree", [](const Bytes& g) { return with_param(g, 3, 4); }, ErrorCode::Corrupt, "counts disagree"},
    {"newer encoding version", [](const Bytes& g) { return with_param(g, 6, 2); }, ErrorCode::UnsupportedVersion,
     "quantiser encoding version 2 is not supported"},
    {"another build's codebook", [](const Bytes& g) { return with_param(g, 4, rd64(g, kParams + 32) ^ 1); },
     ErrorCode::UnsupportedVersion, "incompatible build"},
    {"another build's rotation", [](const Bytes& g) { return with_param(g, 5, rd64(g, kParams + 40) ^ 1); },
     ErrorCode::UnsupportedVersion, "incompatible build"},
    {"another seed",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 24, 8);
       fix_crcs(b);
       return b;
     },
     ErrorCode::UnsupportedVersion, "seed 8"},
    {"non-zero params[7]", [](const Bytes& g) { return with_param(g, 7, 1); }, ErrorCode::Corrupt,
     "impossible quantiser parameters"},
    {"dimension too large for a quantized index",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 8, (1u << 20) + 1);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "for a quantized index"},
    {"another dimension",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 8, 6);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "but the header implies"},
    {"duplicate id",
     [](const Bytes& g) {
       return edit_section(g, kSlot, [](Bytes& p) { std::memcpy(p.data() + 8 * 39, p.data(), 8); });
     },
     ErrorCode::Corrupt, "id 100 appears twice"},
    {"duplicate id (the later copy at slot 0)",
     [](const Bytes& g) {
       return edit_section(g, kSlot, [](Bytes& p) { std::memcpy(p.data(), p.data() + 8 * 39, 8); });
     },
     ErrorCode::Corrupt, "appears twice"},
    {"live slot marked free",
     [](const Bytes& g) { return edit_section(g, kSlot, [](Bytes& p) { std::memset(p.data() + 8 * 5, 0xFF, 8); }); },
     ErrorCode::Corrupt, "free slot 5 holds data"},
    {"free slot given an id",
     [](const Bytes& g) {
       return edit_section(g, kSlot, [](Bytes& p) {
         std::memset(p.data() + 8 * 3, 0, 8);
         p[8 * 3] = 1;
       });
     },
     ErrorCode::Corrupt, "2 slots are free but the header declares 3"},
    {"free list names a live slot", [](const Bytes& g) { return edit_section(g, kFree, [](Bytes& p) { p[0] = 4; }); },
     ErrorCode::Corrupt, "free list names slot 4"},
    {"free list names a slot twice",
     [](const Bytes& g) { return edit_section(g, kFree, [](Bytes& p) { std::memcpy(p.data() + 4, p.data(), 4); }); },
     ErrorCode::Corrupt, "not a distinct free slot"},
    {"free list names a slot past the end",
     [](const Bytes& g) { return edit_section(g, kFree, [](Bytes& p) { p[0] = 200; }); }, ErrorCode::Corrupt,
     "free list names slot 200"},
    {"NaN offset",
     [](const Bytes& g) { return edit_section(g, kOffs, [](Bytes& p) { put_f32(p, 4 * 2, std::nanf("")); }); },
     ErrorCode::Corrupt, "slot 2 has a non-finite offset or scale"},
    {"infinite scale",
     [](const Bytes& g) { return edit_section(g, kScal, [](Bytes& p) { put_f32(p, 4 * 6, INFINITY); }); },
     ErrorCode::Corrupt, "slot 6 has a non-finite"},
    {"NaN in a kept vector",
     [](const Bytes& g) { return edit_section(g, kVecs, [](Bytes& p) { put_f32(p, 4 * 7, std::nanf("")); }); },
     ErrorCode::Corrupt, "non-finite"},
    {"code padding bits set",
     [](const Bytes& g) {
       return edit_section(g, kCode, [](Bytes& p) { p[3 * 1 + 2] |= 0x40; });  // slot 1, last byte, high nibble
     },
     ErrorCode::Corrupt, "slot 1 has non-zero code padding bits"},
    {"codes in a free slot", [](const Bytes& g) { return edit_section(g, kCode, [](Bytes& p) { p[3 * 8] = 1; }); },
     ErrorCode::Corrupt, "free slot 8 holds data"},
    {"offset in a free slot",
     [](const Bytes& g) { return edit_section(g, kOffs, [](Bytes& p) { put_f32(p, 4 * 13, -0.0f); }); },
     ErrorCode::Corrupt, "free slot 13 holds data"},
    {"vector in a free slot",
     [](const Bytes& g) { return edit_section(g, kVecs, [](Bytes& p) { put_f32(p, 4 * (5 * 3 + 4), 1.0f); }); },
     ErrorCode::Corrupt, "free slot 3 holds data"},
    {"missing VECS with keep_vectors",
     [](const Bytes& g) {
       RawFile r = split(g);
       r.sections.pop_back();
       return assemble(r);
     },
     ErrorCode::Corrupt, "required section VECS is missing"},
    {"VECS without keep_vectors", [](const Bytes& g) { return with_param(g, 1, 0); }, ErrorCode::Corrupt,
     "VECS is present but keep_vectors is 0"},
    {"missing CODE",
     [](const Bytes& g) {
       RawFile r = split(g);
       r.sections.erase(r.sections.begin() + kCode);
       return assemble(r);
     },
     ErrorCode::Corrupt, "required section CODE is missing"},
    {"CODE one row short",
     [](const Bytes& g) { return edit_section(g, kCode, [](Bytes& p) { p.resize(p.size() - 3); }); },
     ErrorCode::Corrupt, "section CODE holds 117 bytes but the header implies 120 (slots x packed codes)"},
    {"unknown required section",
     [](const Bytes& g) {
       RawFile r = split(g);
       r.minor = 4;
       r.sections.push_back({io::fourcc("QQQQ"), 1, Bytes(8, 1)});
       return assemble(r);
     },
     ErrorCode::UnsupportedVersion, "required section QQQQ is not understood"},
};

TEST(QuantizedIndexFileBad, EveryKindOfDamageHasItsOwnError) {
  const Bytes good = make_index(Metric::l2, 4, true).serialize();
  ASSERT_NO_THROW(QuantizedIndex::load(good));
  for (const BadFile& bad : kBadFiles) {
    SCOPED_TRACE(bad.name);
    const Bytes b = bad.make(good);
    const Failure f = load_failure(b);
    EXPECT_EQ(f.code, bad.code) << error_code_name(f.code) << ": " << f.message;
    EXPECT_NE(f.message.find(bad.message_part), std::string::npos) << f.message;
    EXPECT_EQ(f.message.rfind("index file: ", 0), 0u) << f.message;
  }
}

TEST(QuantizedIndexFileBad, TwoBitCodesPastTheDimension) {
  // dim 5 at 2 bits: 3 sub-quantisers, the last covers coordinate 4 alone, so its code's
  // upper two bits (a sixth coordinate) must be zero; the second nibble of byte 1 is padding.
  const Bytes good = make_index(Metric::ip, 2, false).serialize();
  ASSERT_NO_THROW(QuantizedIndex::load(good));
  const Failure past = load_failure(edit_section(good, kCode, [](Bytes& p) { p[2 * 4 + 1] |= 0x04; }));
  EXPECT_EQ(past.code, ErrorCode::Corrupt) << past.message;
  EXPECT_NE(past.message.find("slot 4 has a code for a coordinate past the dimension"), std::string::npos)
      << past.message;
  const Failure pad = load_failure(edit_section(good, kCode, [](Bytes& p) { p[2 * 4 + 1] |= 0x10; }));
  EXPECT_NE(pad.message.find("slot 4 has non-zero code padding bits"), std::string::npos) << pad.message;
}

TEST(QuantizedIndexFileBad, KindsAreNotInterchangeable) {
  const Bytes q = make_index(Metric::l2, 4, true).serialize();
  const Failure as_flat = failure_of([&] { FlatIndex::load(q); });
  EXPECT_EQ(as_flat.code, ErrorCode::InvalidArgument);
  EXPECT_NE(as_flat.message.find("holds a quantized index, not a flat index"), std::string::npos) << as_flat.message;
  FlatIndex flat({3, Metric::l2});
  flat.add({1}, {1, 2, 3});
  const Failure as_q = failure_of([&] { QuantizedIndex::load(flat.serialize()); });
  EXPECT_EQ(as_q.code, ErrorCode::InvalidArgument);
  EXPECT_NE(as_q.message.find("holds a flat index, not a quantized index"), std::string::npos) << as_q.message;
}

TEST(QuantizedIndexFileBad, EveryTruncationIsTruncated) {
  const Bytes good = make_index(Metric::cosine, 2, true, 12, 3, 2).serialize();
  for (size_t len = 0; len < good.size(); ++len) {
    const Failure f = load_failure(Bytes(good.begin(), good.begin() + len));
    ASSERT_EQ(f.code, ErrorCode::Truncated) << "length " << len << ": " << f.message;
  }
}

TEST(QuantizedIndexFileBad, EveryByteFlipIsRejected) {
  const Bytes good = make_index(Metric::l2, 4, true, 12, 3, 2).serialize();
  for (size_t at = 0; at < good.size(); ++at) {
    for (uint8_t mask : {0x01, 0x80}) {
      Bytes b = good;
      b[at] ^= mask;
      bool threw = false;
      try {
        QuantizedIndex::load(b);
      } catch (const Error&) {
        threw = true;
      }
      ASSERT_TRUE(threw) << "flip at " << at;
    }
  }
}

// With checksums recomputed, every single-byte change to the contents is either rejected with
// a quiver::Error or loads into an index that serialises back to exactly those bytes.
TEST(QuantizedIndexFileBad, EveryEditBehindValidChecksumsIsRejectedOrCanonical) {
  const Bytes good = make_index(Metric::l2, 2, true, 9, 3, 2).serialize();
  const size_t first_payload = size_t(rd64(good, 16 + 112 + 8));
  for (size_t at = first_payload; at < good.size(); ++at) {
    for (uint8_t mask : {0x01, 0x10, 0x80}) {
      Bytes b = good;
      b[at] ^= mask;
      fix_crcs(b);
      try {
        const QuantizedIndex loaded = QuantizedIndex::load(b);
        ASSERT_EQ(loaded.serialize(), b) << "edit at " << at;
      } catch (const Error&) {
      }
    }
  }
}

TEST(QuantizedIndexFileBad, NothingIsAllocatedForHugeDeclaredSizes) {
  Bytes b = make_index(Metric::l2, 4, false).serialize();
  wr64(b, kParams + 16, UINT32_MAX);       // slots
  wr64(b, kParams + 24, UINT32_MAX - 37);  // free
  fix_crcs(b);
  const Failure f = load_failure(b);
  EXPECT_EQ(f.code, ErrorCode::Corrupt);
  EXPECT_NE(f.message.find("section SLOT holds 320 bytes but the header implies 34359738360"), std::string::npos)
      << f.message;
}

TEST(QuantizedIndexFileBad, DuplicateIdsInDifferentDecodeChunks) {
  // dim 384 with kept vectors decodes about 600 slots per chunk: slots 0 and 650 are in
  // different chunks, so the check against the ids already loaded is the one that fires.
  QuantizedIndex index({384, Metric::l2, 4, 42, true});
  std::vector<uint64_t> ids(700);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = 10 + i;
  index.add(ids, rows(700, 384, 3));
  const Bytes good = index.serialize();
  ASSERT_NO_THROW(QuantizedIndex::load(good));
  const Failure f =
      load_failure(edit_section(good, kSlot, [](Bytes& p) { std::memcpy(p.data() + 8 * 650, p.data(), 8); }));
  EXPECT_EQ(f.code, ErrorCode::Corrupt);
  EXPECT_NE(f.message.find("id 10 appears twice"), std::string::npos) << f.message;
}

}  // namespace test_io_quantized
}  // namespace quiver
