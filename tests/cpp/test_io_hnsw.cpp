// Index files of the HNSW index: round trips (every metric, with tombstones, empty), a loaded
// index that goes on exactly like the saved one, loading at every ISA level, and a table of
// bad files (each with its own code and message; a corrupt link or level is CORRUPT, never a
// crash).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "index/hnsw/hnsw_format.hpp"
#include "io_test_support.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_io_hnsw {

using namespace test;  // Bytes, rd/wr helpers, split/assemble/fix_crcs, Failure, failure_of

enum Section { kSlot, kFree, kLevl, kLnk0, kUppr, kVecs };
constexpr size_t kParams = 16 + 48;  // header params[0] in the file

std::vector<uint64_t> ids_from(size_t first, size_t n) {
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < n; ++i) ids.push_back(100 + 7 * (first + i));
  return ids;
}

// n vectors with ids 100 + 7i, then every 9th of the first `removed` * 9 removed (tombstones
// in the file). One build thread, so the graph is a function of the calls.
HnswIndex make_index(Metric metric, size_t n = 300, size_t dim = 12, size_t removed = 5, size_t M = 6) {
  parallel::WorkerLimit one(1);
  HnswIndex index({dim, metric, M, 40, 9, 24});
  std::vector<float> v = clustered_vectors(n, dim, 6, 42, 43);
  if (metric == Metric::ip) {
    for (size_t i = 0; i < v.size(); ++i) v[i] *= 1.0f + float(i % 5);  // not all unit length
  }
  index.add(ids_from(0, n), v);
  std::vector<uint64_t> gone;
  for (size_t i = 0; i < removed; ++i) gone.push_back(100 + 7 * (9 * i + 2));
  index.remove(gone);
  return index;
}

void expect_same_results(const HnswIndex& a, const HnswIndex& b) {
  const size_t dim = a.dim();
  const std::vector<float> queries = clustered_vectors(8, dim, 6, 42, 99);
  const std::vector<uint64_t> allow = ids_from(0, 150);
  for (size_t ef : {0, 10, 100}) {
    HnswSearchParams p;
    p.ef = ef;
    for (int filtered = 0; filtered < 2; ++filtered) {
      if (filtered) {
        p.allow = allow.data();
        p.allow_count = allow.size();
      }
      for (size_t q = 0; q < 8; ++q) {
        const std::vector<float> query(queries.begin() + q * dim, queries.begin() + (q + 1) * dim);
        const auto x = a.search(query, 10, p), y = b.search(query, 10, p);
        ASSERT_EQ(ids_of(x), ids_of(y)) << "query " << q << " ef " << ef << " filtered " << filtered;
        for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i].distance, y[i].distance);
      }
    }
  }
}

void expect_same_index(const HnswIndex& a, const HnswIndex& b) {
  EXPECT_EQ(a.dim(), b.dim());
  EXPECT_EQ(a.metric(), b.metric());
  EXPECT_EQ(a.M(), b.M());
  EXPECT_EQ(a.ef_construction(), b.ef_construction());
  EXPECT_EQ(a.ef_search(), b.ef_search());
  EXPECT_EQ(a.seed(), b.seed());
  EXPECT_EQ(a.size(), b.size());
  EXPECT_EQ(a.max_level(), b.max_level());
  if (a.size() > 0) expect_same_results(a, b);
}

Failure load_failure(const Bytes& b) {
  return failure_of([&] { HnswIndex::load(b.data(), b.size()); });
}

// ---- round trips ----

TEST(HnswIndexFile, RoundTripEveryMetricWithTombstones) {
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    SCOPED_TRACE(metric_name(metric));
    const HnswIndex index = make_index(metric);
    const Bytes bytes = index.serialize();
    const HnswIndex loaded = HnswIndex::load(bytes);
    expect_same_index(index, loaded);
    for (uint64_t id : ids_from(0, 300)) {
      const bool removed = (id - 100) / 7 % 9 == 2 && (id - 100) / 7 < 45;
      ASSERT_EQ(loaded.contains(id), !removed) << id;
    }
    EXPECT_EQ(loaded.serialize(), bytes);  // serialize -> load -> serialize is byte-identical
  }
}

TEST(HnswIndexFile, LoadedIndexGoesOnExactlyLikeTheOriginal) {
  HnswIndex index = make_index(Metric::l2, 300, 12, 8);
  HnswIndex loaded = HnswIndex::load(index.serialize());
  // The free list and the level generator survive: the same calls (reusing the 8 tombstones,
  // then fresh slots) build the same graph, so the files stay equal.
  parallel::WorkerLimit one(1);
  const std::vector<float> more = clustered_vectors(20, 12, 6, 42, 5);
  const std::vector<uint64_t> ids = ids_from(1000, 20);
  index.add(ids, more);
  loaded.add(ids, more);
  EXPECT_EQ(loaded.serialize(), index.serialize());
  EXPECT_EQ(loaded.size(), 312u);
  EXPECT_THROW(loaded.add({100}, std::vector<float>(12, 1.0f)), Error);  // ids survive
  loaded.remove({100, ids[3]});
  index.remove({100, ids[3]});
  EXPECT_FALSE(loaded.contains(100));
  for (const Neighbor& n : loaded.search(std::vector<float>(more.begin(), more.begin() + 12), 50)) {
    EXPECT_NE(n.id, 100u);
    EXPECT_NE(n.id, ids[3]);
  }
  loaded.add({100}, std::vector<float>(more.begin(), more.begin() + 12));  // update = remove + add
  index.add({100}, std::vector<float>(more.begin(), more.begin() + 12));
  // 100 now has the same vector as ids[0] (7100): the tie goes to the smaller id.
  EXPECT_EQ(loaded.search(std::vector<float>(more.begin(), more.begin() + 12), 1)[0].id, 100u);
  expect_same_index(index, loaded);
  EXPECT_EQ(loaded.serialize(), index.serialize());
}

TEST(HnswIndexFile, EmptyAndAllRemoved) {
  const HnswIndex empty({33, Metric::cosine, 5, 20, 1234, 7});
  const Bytes eb = empty.serialize();
  HnswIndex e2 = HnswIndex::load(eb);
  EXPECT_EQ(e2.size(), 0u);
  EXPECT_EQ(e2.dim(), 33u);
  EXPECT_EQ(e2.M(), 5u);
  EXPECT_EQ(e2.ef_construction(), 20u);
  EXPECT_EQ(e2.ef_search(), 7u);
  EXPECT_EQ(e2.seed(), 1234u);
  EXPECT_EQ(e2.max_level(), -1);
  EXPECT_EQ(e2.serialize(), eb);
  std::vector<float> one(33, 0.0f);
  one[3] = 1.0f;
  e2.add({9}, one);
  EXPECT_EQ(e2.search(one, 1)[0].id, 9u);

  HnswIndex all = make_index(Metric::ip, 30, 4, 0);
  all.remove(ids_from(0, 30));
  const Bytes ab = all.serialize();
  HnswIndex a2 = HnswIndex::load(ab);
  EXPECT_EQ(a2.size(), 0u);
  EXPECT_EQ(a2.serialize(), ab);
  EXPECT_EQ(failure_of([&] { a2.search(std::vector<float>{1, 0, 0, 0}, 1); }).code, ErrorCode::EmptyIndex);
  a2.add({1, 2}, {1, 0, 0, 0, 0, 1, 0, 0});
  EXPECT_EQ(a2.search({1, 0, 0, 0}, 1)[0].id, 1u);
  EXPECT_EQ(a2.size(), 2u);
}

TEST(HnswIndexFile, HeaderFieldsAndInspect) {
  const HnswIndex index = make_index(Metric::cosine, 300, 12, 5);
  const Bytes b = index.serialize();
  const IndexFileInfo info = inspect_index(b.data(), b.size());
  EXPECT_EQ(info.kind, IndexKind::hnsw);
  EXPECT_EQ(info.metric, Metric::cosine);
  EXPECT_EQ(info.dim, 12u);
  EXPECT_EQ(info.count, 295u);
  EXPECT_EQ(info.seed, 9u);
  EXPECT_EQ(info.params[0], 6u);    // M
  EXPECT_EQ(info.params[1], 40u);   // ef_construction
  EXPECT_EQ(info.params[2], 24u);   // ef_search
  EXPECT_EQ(info.params[3], 0u);    // storage f32
  EXPECT_EQ(info.params[4], 1u);    // vectors kept
  EXPECT_EQ(info.params[5], 300u);  // slots
  EXPECT_EQ(info.params[6] >> 32, uint64_t(index.max_level()));
  EXPECT_EQ(info.params[7], 300u);  // levels drawn
  ASSERT_EQ(info.sections.size(), 6u);
  const char* tags[] = {"SLOT", "FREE", "LEVL", "LNK0", "UPPR", "VECS"};
  const uint64_t sizes[] = {300 * 8, 5 * 4, 300, 300 * 13 * 4, 0 /* depends on levels */, 300 * 12 * 4};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(info.sections[i].tag, tags[i]);
    if (i != kUppr) {
      EXPECT_EQ(info.sections[i].size, sizes[i]) << tags[i];
    }
    EXPECT_TRUE(info.sections[i].required);
  }
  EXPECT_GT(info.sections[kUppr].size, 0u);
  EXPECT_EQ(info.sections[kUppr].size % (7 * 4), 0u);
  EXPECT_EQ(io::index_kind_of(b.data(), b.size()), IndexKind::hnsw);
  // The generic reader dispatches on the kind.
  const io::Reader reader(b.data(), b.size());
  EXPECT_EQ(io::load_hnsw(reader, Isa::scalar).size(), 295u);
}

TEST(HnswIndexFile, SaveAndLoadFile) {
  const std::string path = unique_temp_path("quiver_test_hnsw");
  const HnswIndex index = make_index(Metric::l2, 200, 10);
  index.save(path);
  const HnswIndex loaded = HnswIndex::load_file(path);
  expect_same_index(index, loaded);
  EXPECT_EQ(inspect_index_file(path).kind, IndexKind::hnsw);
  EXPECT_EQ(failure_of([&] { HnswIndex::load_file(testing::TempDir() + "missing.qvr"); }).code, ErrorCode::IoError);
  EXPECT_EQ(failure_of([&] { index.save(testing::TempDir() + "no_such_dir_quiver/h.qvr"); }).code, ErrorCode::IoError);
  std::remove(path.c_str());
}

TEST(HnswIndexFile, LoadsAtEveryIsaWithTheSameGraph) {
  const HnswIndex index = make_index(Metric::l2, 400, 24, 10);
  const Bytes b = index.serialize();
  for (Isa isa : available_isas()) {
    SCOPED_TRACE(isa_name(isa));
    const HnswIndex loaded = HnswIndex::load(b.data(), b.size(), isa);
    EXPECT_EQ(loaded.isa(), isa);
    EXPECT_EQ(loaded.serialize(), b);  // the same graph, whatever kernels score it
    const std::vector<float> queries = clustered_vectors(10, 24, 6, 42, 99);
    std::vector<Neighbor> x(10 * 10), y(10 * 10);
    index.search_batch(queries.data(), 10, 10, x.data());
    loaded.search_batch(queries.data(), 10, 10, y.data());
    EXPECT_EQ(ids_of(x), ids_of(y));
  }
}

#if defined(QUIVER_THREADS)
TEST(HnswIndexFile, SerializeWhileAddingGivesALoadableFile) {
  HnswIndex index = make_index(Metric::l2, 200, 8, 0);
  const std::vector<float> more = clustered_vectors(400, 8, 6, 42, 5);
  std::thread adder([&] {
    for (size_t i = 0; i < 400; i += 20) {
      index.add(ids_from(5000 + i, 20), std::vector<float>(more.begin() + i * 8, more.begin() + (i + 20) * 8));
    }
  });
  for (int i = 0; i < 10; ++i) {
    const Bytes b = index.serialize();  // a consistent snapshot between two adds
    const HnswIndex loaded = HnswIndex::load(b);
    EXPECT_EQ((loaded.size() - 200) % 20, 0u);
  }
  adder.join();
  EXPECT_EQ(HnswIndex::load(index.serialize()).size(), 600u);
}
#endif  // QUIVER_THREADS

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

// The good file: l2, dim 12, M 6 (13 words per level-0 list, 7 per upper list), 300 slots,
// ids 100 + 7i, slots 2, 11, 20, 29, 38 tombstones.
constexpr size_t kL0 = 13 * 4;

// First slot with a level above 0, and the entry point's slot.
size_t first_upper_slot(const Bytes& g) {
  const RawFile r = split(g);
  for (size_t s = 0; s < 300; ++s) {
    if (r.sections[kLevl].payload[s] > 0) return s;
  }
  return 0;
}

struct BadFile {
  const char* name;
  Bytes (*make)(const Bytes& good);
  ErrorCode code;
  const char* message_part;
};

const BadFile kBadFiles[] = {
    {"wrong magic",
     [](const Bytes& g) {
       Bytes b = g;
       b[1] = 'X';
       return b;
     },
     ErrorCode::BadMagic, "magic"},
    {"truncated", [](const Bytes& g) { return Bytes(g.begin(), g.end() - 7); }, ErrorCode::Truncated, "declares"},
    {"truncated to the header", [](const Bytes& g) { return Bytes(g.begin(), g.begin() + 100); }, ErrorCode::Truncated,
     ""},
    {"flipped byte in the links",
     [](const Bytes& g) {
       Bytes b = g;
       b[size_t(rd64(g, 16 + 112 + 3 * 32 + 8)) + 5] ^= 0x10;
       return b;
     },
     ErrorCode::ChecksumMismatch, "section LNK0 checksum mismatch"},
    {"flipped byte in the header",
     [](const Bytes& g) {
       Bytes b = g;
       b[kParams] ^= 1;
       return b;
     },
     ErrorCode::ChecksumMismatch, ""},
    {"M 1", [](const Bytes& g) { return with_param(g, 0, 1); }, ErrorCode::Corrupt, "impossible M 1"},
    {"M 7 (sizes no longer fit)", [](const Bytes& g) { return with_param(g, 0, 7); }, ErrorCode::Corrupt, "LNK0"},
    {"ef_construction below M", [](const Bytes& g) { return with_param(g, 1, 3); }, ErrorCode::Corrupt,
     "impossible ef_construction"},
    {"ef_search 0", [](const Bytes& g) { return with_param(g, 2, 0); }, ErrorCode::Corrupt, "impossible ef_search"},
    {"unknown storage", [](const Bytes& g) { return with_param(g, 3, 7); }, ErrorCode::Corrupt,
     "unknown vector storage 7"},
    {"f32 without vectors", [](const Bytes& g) { return with_param(g, 4, 0); }, ErrorCode::Corrupt,
     "impossible keep_vectors"},
    {"impossible slot count", [](const Bytes& g) { return with_param(g, 5, 1ull << 40); }, ErrorCode::Corrupt,
     "impossible slot count"},
    {"slot count disagrees with the data", [](const Bytes& g) { return with_param(with_param(g, 7, 301), 5, 301); },
     ErrorCode::Corrupt, "SLOT"},
    {"more vectors than slots",
     [](const Bytes& g) {
       Bytes b = g;
       wr64(b, 16 + 16, 301);
       fix_crcs(b);
       return b;
     },
     ErrorCode::Corrupt, "301 vectors in 300 slots"},
    {"entry past the slots", [](const Bytes& g) { return with_param(g, 6, (rd64(g, kParams + 48) >> 32 << 32) | 300); },
     ErrorCode::Corrupt, "impossible entry point"},
    {"entry level 40", [](const Bytes& g) { return with_param(g, 6, (uint64_t(40) << 32) | 1); }, ErrorCode::Corrupt,
     "impossible entry point"},
    {"entry not on its own level",
     [](const Bytes& g) { return with_param(g, 6, rd64(g, kParams + 48) + (1ull << 32)); }, ErrorCode::Corrupt,
     "is not the level of its node"},
    {"no entry in a non-empty graph", [](const Bytes& g) { return with_param(g, 6, ~0ull); }, ErrorCode::Corrupt,
     "entry point does not match"},
    {"fewer draws than slots", [](const Bytes& g) { return with_param(g, 7, 299); }, ErrorCode::Corrupt,
     "fewer levels drawn"},
    {"level 32", [](const Bytes& g) { return edit_section(g, kLevl, [](Bytes& p) { p[7] = 32; }); }, ErrorCode::Corrupt,
     "slot 7 has impossible level 32"},
    {"a level more (upper links no longer fit)",
     [](const Bytes& g) {
       const size_t not_entry = (rd64(g, kParams + 48) & 0xFFFFFFFFu) == 7 ? 8 : 7;
       return edit_section(g, kLevl, [&](Bytes& p) { p[not_entry] += 1; });
     },
     ErrorCode::Corrupt, "UPPR"},
    {"link past the slots",
     [](const Bytes& g) { return edit_section(g, kLnk0, [](Bytes& p) { wr32(p, 4 * kL0 + 4, 300); }); },
     ErrorCode::Corrupt, "slot 4 links to slot 300 on level 0, which does not exist"},
    {"huge link target",
     [](const Bytes& g) { return edit_section(g, kLnk0, [](Bytes& p) { wr32(p, 9 * kL0 + 8, 0xFFFFFFFFu); }); },
     ErrorCode::Corrupt, "slot 9 links to slot 4294967295"},
    {"upper link past the slots",
     [](const Bytes& g) { return edit_section(g, kUppr, [](Bytes& p) { wr32(p, 4, 1000); }); }, ErrorCode::Corrupt,
     "links to slot 1000 on level 1"},
    {"link count above 2M",
     [](const Bytes& g) { return edit_section(g, kLnk0, [](Bytes& p) { wr32(p, 3 * kL0, 13); }); }, ErrorCode::Corrupt,
     "slot 3 has 13 links on level 0 (at most 12)"},
    {"upper link count above M", [](const Bytes& g) { return edit_section(g, kUppr, [](Bytes& p) { wr32(p, 0, 7); }); },
     ErrorCode::Corrupt, "links on level 1 (at most 6)"},
    {"non-zero link padding",
     [](const Bytes& g) {
       return edit_section(g, kLnk0, [](Bytes& p) {
         const uint32_t n = rd32(p, 5 * kL0);
         wr32(p, 5 * kL0, n - 1);  // the last link becomes padding
       });
     },
     ErrorCode::Corrupt, "slot 5 has non-zero link padding"},
    {"duplicate id",
     [](const Bytes& g) {
       return edit_section(g, kSlot, [](Bytes& p) { std::memcpy(p.data() + 8 * 299, p.data(), 8); });
     },
     ErrorCode::Corrupt, "id 100 appears twice"},
    {"live slot marked as a tombstone",
     [](const Bytes& g) { return edit_section(g, kSlot, [](Bytes& p) { std::memset(p.data() + 8 * 5, 0xFF, 8); }); },
     ErrorCode::Corrupt, "6 slots are tombstones but the header declares 5"},
    {"free list names a live slot", [](const Bytes& g) { return edit_section(g, kFree, [](Bytes& p) { p[0] = 4; }); },
     ErrorCode::Corrupt, "free list names slot 4"},
    {"free list names a slot twice",
     [](const Bytes& g) { return edit_section(g, kFree, [](Bytes& p) { std::memcpy(p.data() + 4, p.data(), 4); }); },
     ErrorCode::Corrupt, "not a distinct tombstone"},
    {"free list names a slot past the end",
     [](const Bytes& g) { return edit_section(g, kFree, [](Bytes& p) { wr32(p, 0, 5000); }); }, ErrorCode::Corrupt,
     "free list names slot 5000"},
    {"NaN in a vector",
     [](const Bytes& g) {
       return edit_section(g, kVecs, [](Bytes& p) { put_f32(p, 4 * (12 * 6 + 3), std::nanf("")); });
     },
     ErrorCode::Corrupt, "slot 6"},
    {"infinity in a tombstone's vector",
     [](const Bytes& g) { return edit_section(g, kVecs, [](Bytes& p) { put_f32(p, 4 * 12 * 2, INFINITY); }); },
     ErrorCode::Corrupt, "slot 2"},
    {"a section missing",
     [](const Bytes& g) {
       RawFile r = split(g);
       r.sections.erase(r.sections.begin() + kUppr);
       return assemble(r);
     },
     ErrorCode::Corrupt, "UPPR"},
    {"an unknown required section",
     [](const Bytes& g) {
       RawFile r = split(g);
       r.sections.push_back({io::fourcc("XTRA"), 1, Bytes(8, 0)});
       return assemble(r);
     },
     ErrorCode::UnsupportedVersion, "XTRA"},
    {"a flat index file",
     [](const Bytes&) {
       FlatIndex flat({4, Metric::l2});
       flat.add({1}, {1, 2, 3, 4});
       return flat.serialize();
     },
     ErrorCode::InvalidArgument, "holds a flat index"},
};

TEST(HnswIndexFile, BadFilesEachGiveTheirOwnError) {
  const Bytes good = make_index(Metric::l2).serialize();
  ASSERT_GT(first_upper_slot(good), 0u);
  ASSERT_EQ(rd32(good, 16 + 40), 6u);
  for (const BadFile& bad : kBadFiles) {
    SCOPED_TRACE(bad.name);
    const Bytes b = bad.make(good);
    const Failure f = load_failure(b);
    EXPECT_EQ(f.code, bad.code) << f.message;
    EXPECT_NE(f.message.find(bad.message_part), std::string::npos) << f.message;
  }
}

// A cosine index stores unit vectors and its distance (1 - dot) relies on it: a checksummed
// file with a row that is not unit length is refused (it returned distances far below 0, ahead
// of an exact match), for f32 storage and for the kept vectors of sq8 storage alike.
TEST(HnswIndexFile, CosineRowsMustBeUnitLength) {
  for (HnswStorage storage : {HnswStorage::f32, HnswStorage::sq8}) {
    SCOPED_TRACE(hnsw_storage_name(storage));
    HnswIndexOptions o{12, Metric::cosine, 6, 40, 9, 24};
    o.storage = storage;
    HnswIndex index(o);
    index.add(ids_from(0, 50), clustered_vectors(50, 12, 3, 42, 43));
    const Bytes good = index.serialize();
    const RawFile raw = split(good);
    size_t vecs = raw.sections.size();
    for (size_t i = 0; i < raw.sections.size(); ++i) {
      if (raw.sections[i].tag == io::fourcc("VECS")) vecs = i;
    }
    ASSERT_LT(vecs, raw.sections.size());
    for (float factor : {3e9f, 0.5f}) {
      RawFile r = raw;
      Bytes& row = r.sections[vecs].payload;
      for (size_t j = 0; j < 12; ++j) {  // row of slot 4
        float v;
        std::memcpy(&v, row.data() + (4 * 12 + j) * 4, 4);
        put_f32(row, (4 * 12 + j) * 4, v * factor);
      }
      const Failure f = load_failure(assemble(r));
      EXPECT_EQ(f.code, ErrorCode::Corrupt) << f.message;
      EXPECT_NE(f.message.find("slot 4"), std::string::npos) << f.message;
    }
  }
}

// An optional unknown section is skipped (a newer minor version may add one).
TEST(HnswIndexFile, SkipsUnknownOptionalSections) {
  const HnswIndex index = make_index(Metric::l2, 100, 8);
  RawFile r = split(index.serialize());
  r.minor = 7;
  r.sections.push_back({io::fourcc("NEWS"), 0, Bytes(16, 1)});
  const HnswIndex loaded = HnswIndex::load(assemble(r));
  expect_same_index(index, loaded);
}

// Every single-byte corruption of the header fields and payloads of a small file (checksums
// re-computed, so the decoder sees it) either loads an index that searches and round-trips,
// or throws quiver::Error. (The container fields — sizes, the section table — are the
// reader's, tested in test_io.cpp; fix_crcs needs them intact.)
TEST(HnswIndexFile, EveryByteEditIsAnErrorOrAValidIndex) {
  const HnswIndex index = make_index(Metric::cosine, 24, 3, 2, 2);
  const Bytes good = index.serialize();
  size_t loaded = 0;
  const size_t payloads = size_t(rd64(good, 16 + 112 + 8));  // first section's offset
  for (size_t at = 16; at < good.size(); ++at) {
    const bool field = (at < 16 + 32) || (at >= kParams && at < kParams + 64) || at >= payloads;
    if (!field) continue;
    for (uint8_t x : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
      Bytes b = good;
      b[at] ^= x;
      fix_crcs(b);
      try {
        const HnswIndex h = HnswIndex::load(b);
        ++loaded;
        if (h.size() > 0) h.search(std::vector<float>{0.5f, 0.25f, 1.0f}, 3);
        const Bytes again = h.serialize();
        EXPECT_EQ(HnswIndex::load(again).serialize(), again);
      } catch (const Error&) {
      }
    }
  }
  EXPECT_GT(loaded, 0u);  // e.g. a changed link to another valid slot still loads
}

}  // namespace test_io_hnsw
}  // namespace quiver
