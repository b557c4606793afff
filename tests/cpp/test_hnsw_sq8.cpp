// HNSW with sq8 storage: recall with exact rerank close to f32 storage and with the codes
// alone, memory per vector, bit-identical graphs and files at every ISA level (integer code
// distances), codes that do not depend on how the adds were batched, vectors of any size,
// compaction, index files (current and transcoded older ones, tampered fields), bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "hnsw_test_support.hpp"
#include "container/format.hpp"
#include "io_test_support.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_hnsw_sq8 {

using namespace hnsw_test;

HnswIndexOptions opts(size_t dim, Metric metric, HnswStorage storage, bool keep = true, size_t M = 12) {
  HnswIndexOptions o;
  o.dim = dim;
  o.metric = metric;
  o.M = M;
  o.ef_construction = 80;
  o.seed = 42;
  o.storage = storage;
  o.keep_vectors = keep;
  return o;
}

HnswSearchParams params(size_t ef_value, bool rerank) {
  HnswSearchParams p;
  p.ef = ef_value;
  if (!rerank) p.rerank = 0;  // unset: the whole final beam is re-scored (kept vectors)
  return p;
}

class HnswSq8Recall : public ::testing::TestWithParam<RecallCase> {};

// With rerank, sq8 reaches the f32 index's recall@10 within 0.02 (and the 0.95);
// without it, the code distances alone reach 0.95 too (rotated per-vector codes).
TEST_P(HnswSq8Recall, RecallWithRerankMatchesF32) {
  const RecallCase c = GetParam();
  // "seed": the seed workload's distribution (unit Gaussian, dim 384) at a test-sized count.
  const std::string w = c.workload;
  const Data d = recall_workload(w);
  HnswIndex f32(opts(d.dim, c.metric, HnswStorage::f32));
  HnswIndex sq8(opts(d.dim, c.metric, HnswStorage::sq8));
  f32.add(d.ids, d.base);
  sq8.add(d.ids, d.base);
  EXPECT_EQ(sq8.storage(), HnswStorage::sq8);
  EXPECT_TRUE(sq8.keeps_vectors());
  const std::vector<Neighbor> truth = exact(d, c.metric, 10);
  const double r_f32 = recall(run(f32, d, 10, ef(c.ef)), truth, 10);
  const std::vector<Neighbor> reranked = run(sq8, d, 10, params(c.ef, true));
  const double r_sq8 = recall(reranked, truth, 10);
  const double r_codes = recall(run(sq8, d, 10, params(c.ef, false)), truth, 10);
  EXPECT_GE(r_sq8, r_f32 - 0.02) << r_sq8 << " vs f32 " << r_f32;
  EXPECT_GE(r_sq8, 0.95);
  EXPECT_GE(r_codes, 0.95) << "codes only";
  // Reranked distances are exact: where the top hit agrees with exact search, so does its distance.
  for (size_t q = 0; q < nq_of(d); ++q) {
    if (reranked[q * 10].id == truth[q * 10].id) {
      EXPECT_NEAR(reranked[q * 10].distance, truth[q * 10].distance, 1e-4f * (1 + std::fabs(truth[q * 10].distance)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, HnswSq8Recall,
    ::testing::Values(RecallCase{"clustered", Metric::l2, 64}, RecallCase{"clustered", Metric::cosine, 64},
                      RecallCase{"clustered", Metric::ip, 128}, RecallCase{"gaussian", Metric::l2, 128},
                      RecallCase{"gaussian", Metric::cosine, 128}, RecallCase{"seed", Metric::cosine, 400}),
    [](const auto& info) { return std::string(info.param.workload) + "_" + metric_name(info.param.metric); });

TEST(HnswSq8, MemoryPerVector) {
  // Storage grows by ~256 KiB chunks of whole rows (128 f32 nodes or kept vectors, 256 sq8
  // nodes): 512 vectors fill whole chunks of every kind, so the bytes compare exactly.
  const Data d = clustered(512, 2, 384);
  HnswIndex f32(opts(384, Metric::l2, HnswStorage::f32, true, 16));
  HnswIndex codes(opts(384, Metric::l2, HnswStorage::sq8, false, 16));
  HnswIndex kept(opts(384, Metric::l2, HnswStorage::sq8, true, 16));
  EXPECT_EQ(f32.node_bytes(), 1728u);   // 384 x 4 + (1 + 32) x 4, to 64 bytes
  EXPECT_EQ(codes.node_bytes(), 576u);  // 384 + 16 (term) + (1 + 32) x 4, to 64 bytes
  EXPECT_EQ(kept.node_bytes(), 576u);
  EXPECT_FALSE(codes.keeps_vectors());
  for (HnswIndex* index : {&f32, &codes, &kept}) {
    index->reserve(d.n);
    index->add(d.ids, d.base);
  }
  EXPECT_LT(codes.bytes_per_vector() * 2, f32.bytes_per_vector());
  // Kept vectors cost their f32 bytes on top (padded stride: 384 floats).
  EXPECT_GE(kept.bytes_per_vector(), codes.bytes_per_vector() + 384 * 4);
  EXPECT_LE(kept.bytes_per_vector(), codes.bytes_per_vector() + 384 * 4 + 64);
}

// Code distances are exact integers and the rest is scalar arithmetic: with one build thread
// the graph — and so the file — is the same at every ISA level, and so are the answers.
TEST(HnswSq8, BitIdenticalAtEveryIsa) {
  const Data d = clustered(1500 / kScale, 40, 40);
  parallel::WorkerLimit one(1);
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    std::vector<uint8_t> first_file;
    std::vector<Neighbor> first_codes;
    for (Isa isa : available_isas()) {
      SCOPED_TRACE(std::string(metric_name(metric)) + " " + isa_name(isa));
      HnswIndex index(opts(d.dim, metric, HnswStorage::sq8, true, 8), isa);
      index.add(d.ids, d.base);
      const std::vector<uint8_t> file = index.serialize();
      const std::vector<Neighbor> got = run(index, d, 10, params(48, false));
      if (first_file.empty()) {
        first_file = file;
        first_codes = got;
        continue;
      }
      EXPECT_EQ(file, first_file);
      ASSERT_EQ(got.size(), first_codes.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].id, first_codes[i].id);
        ASSERT_EQ(got[i].distance, first_codes[i].distance);  // code distances: same bits
      }
    }
  }
}

// The codes of a vector depend on that vector alone: a first add() of one vector followed by
// the rest gives the same codes — with one build worker the same graph and file, byte for
// byte — and the same recall as one add() of everything. (A quantiser trained on the first
// batch saturated every later code here.)
TEST(HnswSq8, FirstBatchOfOneThenTheRestEqualsOneBatch) {
  const Data d = clustered(1001, 50, 24);
  parallel::WorkerLimit one(1);
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    SCOPED_TRACE(metric_name(metric));
    HnswIndex whole(opts(d.dim, metric, HnswStorage::sq8, false, 8));
    whole.add(d.ids, d.base);
    HnswIndex split(opts(d.dim, metric, HnswStorage::sq8, false, 8));
    split.add(d.ids.data(), d.base.data(), 1);
    split.add(d.ids.data() + 1, d.base.data() + d.dim, d.n - 1);
    EXPECT_EQ(split.serialize(), whole.serialize());
    const std::vector<Neighbor> truth = exact(d, metric, 10);
    const double r_whole = recall(run(whole, d, 10, params(64, false)), truth, 10);
    const double r_split = recall(run(split, d, 10, params(64, false)), truth, 10);
    EXPECT_EQ(r_split, r_whole);
    EXPECT_GE(r_split, 0.95);
  }
}

// Reversed batches of a few vectors give every vector the same codes (the graph differs:
// insertion order does), and codes-only recall stays high.
TEST(HnswSq8, CodesDoNotDependOnBatchOrder) {
  const Data d = clustered(600, 40, 16);
  HnswIndex forward(opts(d.dim, Metric::l2, HnswStorage::sq8, false, 8));
  forward.add(d.ids, d.base);
  HnswIndex backward(opts(d.dim, Metric::l2, HnswStorage::sq8, false, 8));
  for (size_t end = d.n; end > 0;) {
    const size_t begin = end >= 7 ? end - 7 : 0;
    backward.add(d.ids.data() + begin, d.base.data() + begin * d.dim, end - begin);
    end = begin;
  }
  // Slot i of `forward` holds row i; compare each row's codes and scale through the files.
  const test::RawFile a = test::split(forward.serialize()), b = test::split(backward.serialize());
  ASSERT_EQ(a.sections[0].tag, io::fourcc("SLOT"));
  ASSERT_EQ(a.sections[5].tag, io::fourcc("SQ8S"));
  ASSERT_EQ(a.sections[6].tag, io::fourcc("CODE"));
  std::vector<size_t> slot_of_row(d.n);
  for (size_t s = 0; s < d.n; ++s) slot_of_row[(test::rd64(b.sections[0].payload, 8 * s) - 3) / 7] = s;
  for (size_t row = 0; row < d.n; ++row) {
    const size_t s = slot_of_row[row];
    ASSERT_EQ(test::rd64(a.sections[0].payload, 8 * row), d.ids[row]);
    ASSERT_EQ(test::rd32(a.sections[5].payload, 4 * row), test::rd32(b.sections[5].payload, 4 * s)) << row;
    ASSERT_TRUE(std::equal(a.sections[6].payload.begin() + row * d.dim,
                           a.sections[6].payload.begin() + (row + 1) * d.dim,
                           b.sections[6].payload.begin() + s * d.dim))
        << row;
  }
  EXPECT_GE(recall(run(backward, d, 10, params(64, false)), exact(d, Metric::l2, 10), 10), 0.95);
}

// Vectors of any accepted magnitude are coded without saturating: far outside the others, huge
// or tiny (both coded through the power-of-two pre-scaling); a vector beyond the shared norm
// bound is refused with NON_FINITE and changes nothing.
TEST(HnswSq8, VectorsOfAnyMagnitude) {
  const size_t dim = 8;
  std::vector<float> base;
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < 50; ++i) {
    ids.push_back(i);
    for (size_t j = 0; j < dim; ++j) base.push_back(float((i * 7 + j * 3) % 11) * 0.1f);  // in [0, 1]
  }
  for (Metric metric : {Metric::l2, Metric::ip}) {
    SCOPED_TRACE(metric_name(metric));
    HnswIndex index(opts(dim, metric, HnswStorage::sq8, false, 4));
    index.add(ids, base);
    const std::vector<float> far(dim, 50.0f), huge(dim, 1e14f), tiny(dim, 1e-30f);
    index.add({1000}, far);
    index.add({1001}, huge);
    index.add({1002}, tiny);
    if (metric == Metric::l2) {
      for (const auto& [id, v] : {std::pair<uint64_t, const std::vector<float>*>{1000, &far}, {1001, &huge}}) {
        const auto got = index.search(*v, 1, params(0, false));
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].id, id);
        EXPECT_EQ(got[0].distance, 0.0f);  // equal codes and scales: exactly 0
      }
    } else {
      EXPECT_EQ(index.search(far, 1, params(0, false))[0].id, 1001u);  // the largest dot product
    }
    EXPECT_EQ(index.size(), 53u);
  }
  HnswIndex small(opts(dim, Metric::l2, HnswStorage::sq8, false, 4));
  small.add({1}, std::vector<float>(dim, 1.0f));
  const std::vector<float> beyond(dim, 1e16f);  // squared norm 8e32 > 2^100
  const test::Failure f = test::failure_of([&] { small.add({2}, beyond); });
  EXPECT_EQ(f.code, ErrorCode::NonFinite) << f.message;
  EXPECT_EQ(small.size(), 1u);
  EXPECT_EQ(test::failure_of([&] { small.search(beyond, 1); }).code, ErrorCode::NonFinite);
}

TEST(HnswSq8, CompactAndUpdates) {
  Data d = clustered(2000 / kScale, 50, 32);
  HnswIndex index(opts(d.dim, Metric::l2, HnswStorage::sq8, true, 10));
  index.add(d.ids, d.base);
  std::vector<uint64_t> gone;
  std::vector<size_t> kept;
  for (size_t i = 0; i < d.n; ++i) (i % 4 == 1 ? gone.push_back(d.ids[i]) : kept.push_back(i));
  index.remove(gone);
  const size_t before = index.memory_bytes();
  index.compact();
  EXPECT_LT(index.memory_bytes(), before);
  EXPECT_EQ(index.size(), kept.size());
  const std::vector<Neighbor> got = run(index, d, 10, params(64, true));
  for (const Neighbor& nb : got) ASSERT_NE((nb.id - 3) / 7 % 4, 1u) << nb.id;
  EXPECT_GE(recall(got, exact(d, Metric::l2, 10, kept), 10), 0.95);
  // Re-add what was removed (update = remove + add).
  std::vector<float> rows;
  for (size_t i = 1; i < d.n; i += 4) rows.insert(rows.end(), &d.base[i * d.dim], &d.base[(i + 1) * d.dim]);
  index.add(gone, rows);
  EXPECT_GE(recall(run(index, d, 10, params(64, true)), exact(d, Metric::l2, 10), 10), 0.95);
}

TEST(HnswSq8, FilesRoundTripWithAndWithoutVectors) {
  const Data d = clustered(600, 10, 20);
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(std::string(metric_name(metric)) + (keep ? " kept" : " codes only"));
      HnswIndex index(opts(d.dim, metric, HnswStorage::sq8, keep, 6));
      index.add(d.ids, d.base);
      index.remove({d.ids[3], d.ids[30]});
      const std::vector<uint8_t> bytes = index.serialize();
      const HnswIndex loaded = HnswIndex::load(bytes);
      EXPECT_EQ(loaded.storage(), HnswStorage::sq8);
      EXPECT_EQ(loaded.keeps_vectors(), keep);
      EXPECT_EQ(loaded.size(), index.size());
      EXPECT_EQ(loaded.serialize(), bytes);
      for (bool rerank : {false, true}) {
        const auto a = run(index, d, 10, params(32, rerank)), b = run(loaded, d, 10, params(32, rerank));
        ASSERT_EQ(test::ids_of(a), test::ids_of(b));
        for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i].distance, b[i].distance);
      }
      const IndexFileInfo info = inspect_index(bytes.data(), bytes.size());
      EXPECT_EQ(info.params[3], 1u);
      EXPECT_EQ(info.params[4], keep ? 1u : 0u);
      EXPECT_EQ(info.sections.size(), keep ? 8u : 7u);
      EXPECT_EQ(info.sections[5].tag, "SQ8S");
      EXPECT_EQ(info.sections[5].size, 600u * 4u);
      EXPECT_EQ(info.sections[6].tag, "CODE");
      EXPECT_EQ(info.sections[6].size, 600u * 20u);
    }
  }
  // An empty index round-trips; loaded, it codes its first adds like a new one.
  const HnswIndex empty(opts(4, Metric::l2, HnswStorage::sq8, false, 4));
  HnswIndex e2 = HnswIndex::load(empty.serialize());
  e2.add({1, 2}, {0, 0, 0, 0, 1, 1, 1, 1});
  EXPECT_EQ(e2.search({1, 1, 1, 0.9f}, 1)[0].id, 2u);
}

// An sq8 file as the previous scheme wrote it: "SQ8Q" (trained flag, one scale, per-dimension
// minimums; cosine: the fixed [-1, 1] range) and per-dimension codes, instead of "SQ8S" and the
// rotated codes. Made from a current file of an index that holds rows 0..n-1 in slots 0..n-1.
test::Bytes legacy_file(const test::Bytes& current, const Data& d, Metric metric) {
  std::vector<float> rows = d.base;
  if (metric == Metric::cosine) {
    for (size_t r = 0; r < d.n; ++r) {
      double n2 = 0.0;
      for (size_t j = 0; j < d.dim; ++j) n2 += double(rows[r * d.dim + j]) * rows[r * d.dim + j];
      const double inv = 1.0 / std::sqrt(n2);
      for (size_t j = 0; j < d.dim; ++j) rows[r * d.dim + j] = float(rows[r * d.dim + j] * inv);
    }
  }
  std::vector<float> mins(d.dim, -1.0f), maxs(d.dim, 1.0f);
  float scale = 2.0f / 255.0f;
  if (metric != Metric::cosine) {
    for (size_t j = 0; j < d.dim; ++j) mins[j] = maxs[j] = rows[j];
    for (size_t r = 0; r < d.n; ++r) {
      for (size_t j = 0; j < d.dim; ++j) {
        mins[j] = std::min(mins[j], rows[r * d.dim + j]);
        maxs[j] = std::max(maxs[j], rows[r * d.dim + j]);
      }
    }
    float range = 0.0f;
    for (size_t j = 0; j < d.dim; ++j) range = std::max(range, maxs[j] - mins[j]);
    scale = range / 255.0f;
  }
  test::Bytes quant, codes;
  test::push32(quant, 1);
  float f = scale;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  test::push32(quant, bits);
  for (float m : mins) {
    std::memcpy(&bits, &m, 4);
    test::push32(quant, bits);
  }
  for (size_t r = 0; r < d.n; ++r) {
    for (size_t j = 0; j < d.dim; ++j) {
      const float t = std::floor((rows[r * d.dim + j] - mins[j]) / scale + 0.5f);
      codes.push_back(t <= 0.0f ? 0 : t >= 255.0f ? 255 : uint8_t(t));
    }
  }
  test::RawFile raw = test::split(current);
  EXPECT_EQ(raw.sections[5].tag, io::fourcc("SQ8S"));
  EXPECT_EQ(raw.sections[6].tag, io::fourcc("CODE"));
  raw.sections[5] = {io::fourcc("SQ8Q"), 1, quant};
  raw.sections[6].payload = codes;
  return test::assemble(raw);
}

// Files of the previous sq8 scheme load, transcoded: with kept vectors the nodes are coded
// from them — exactly the index a current build makes —, without them from the old codes;
// either way the graph is kept, codes-only search still finds the neighbours, and the index
// is written back in the current format.
TEST(HnswSq8, OlderFilesAreTranscodedOnLoad) {
  const Data d = clustered(800, 40, 24);
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(std::string(metric_name(metric)) + (keep ? " kept" : " codes only"));
      HnswIndex index(opts(d.dim, metric, HnswStorage::sq8, keep, 8));
      index.add(d.ids, d.base);
      const test::Bytes current = index.serialize();
      const test::Bytes old = legacy_file(current, d, metric);
      const HnswIndex loaded = HnswIndex::load(old);
      EXPECT_EQ(loaded.size(), index.size());
      EXPECT_EQ(loaded.keeps_vectors(), keep);
      const test::Bytes again = loaded.serialize();
      if (keep) {
        EXPECT_EQ(again, current);
      } else {
        const IndexFileInfo info = inspect_index(again.data(), again.size());
        EXPECT_EQ(info.sections[5].tag, "SQ8S");
        EXPECT_EQ(HnswIndex::load(again).serialize(), again);
        // The links are the saved graph's.
        EXPECT_EQ(test::split(again).sections[3].payload, test::split(current).sections[3].payload);
      }
      EXPECT_GE(recall(run(loaded, d, 10, params(64, false)), exact(d, metric, 10), 10), 0.9);
    }
  }
}

TEST(HnswSq8, BadFiles) {
  using namespace test;
  const Data d = clustered(100, 2, 6);
  HnswIndex index(opts(d.dim, Metric::l2, HnswStorage::sq8, false, 4));
  index.add(d.ids, d.base);
  const Bytes good = index.serialize();
  const Bytes old = legacy_file(good, d, Metric::l2);
  auto param = [&](size_t i, uint64_t v) {
    Bytes b = good;
    wr64(b, 16 + 48 + 8 * i, v);
    fix_crcs(b);
    return b;
  };
  auto bits_of = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  auto edit = [](const Bytes& file, size_t section, size_t at, uint32_t v) {
    RawFile r = split(file);
    wr32(r.sections[section].payload, at, v);
    return assemble(r);
  };
  // Slot 1's codes all moved to 130 (they no longer span the scale), or all to 128 (the zero
  // vector's codes under a non-zero scale).
  auto codes_of_slot1 = [&](uint8_t value) {
    RawFile r = split(good);
    std::fill(r.sections[6].payload.begin() + 6, r.sections[6].payload.begin() + 12, value);
    return assemble(r);
  };
  auto failure = [](const Bytes& b) { return failure_of([&] { HnswIndex::load(b); }); };
  struct Bad {
    const char* name;
    Bytes file;
    const char* part;
  };
  RawFile no_code = split(good);
  no_code.sections.erase(no_code.sections.begin() + 6);
  RawFile no_scales = split(good);
  no_scales.sections.erase(no_scales.sections.begin() + 5);
  RawFile short_scales = split(good);
  short_scales.sections[5].payload.resize(99 * 4);
  RawFile both = split(good);
  both.sections.push_back(split(old).sections[5]);
  RawFile extra_vecs = split(good);
  extra_vecs.sections.push_back({io::fourcc("VECS"), 1, Bytes(100 * 6 * 4, 0)});
  const float nan = std::nanf("");
  const Bad bad[] = {
      {"storage 2", param(3, 2), "unknown vector storage 2"},
      {"keep flag 2", param(4, 2), "impossible keep_vectors flag 2"},
      {"NaN scale", edit(good, 5, 4, bits_of(nan)), "slot 1: an sq8 scale is negative or not finite"},
      {"infinite scale", edit(good, 5, 0, bits_of(INFINITY)), "slot 0: an sq8 scale is negative or not finite"},
      {"negative scale", edit(good, 5, 8, bits_of(-0.5f)), "slot 2: an sq8 scale is negative"},
      {"negative zero scale", edit(good, 5, 8, bits_of(-0.0f)), "slot 2: an sq8 scale is negative"},
      {"zero scale", edit(good, 5, 12, 0), "slot 3: an sq8 scale is zero but its codes are not"},
      {"codes that do not span", codes_of_slot1(130), "slot 1: sq8 codes do not span their scale"},
      {"zero codes", codes_of_slot1(128), "slot 1: an sq8 scale is zero but its codes are not"},
      {"SQ8S missing", assemble(no_scales), "SQ8S"},
      {"SQ8S short", assemble(short_scales), "slots x 4-byte scales"},
      {"old and new sections", assemble(both), "both the old (SQ8Q) and the current (SQ8S)"},
      {"CODE missing", assemble(no_code), "CODE"},
      {"VECS without keep_vectors", assemble(extra_vecs), "keep_vectors is 0"},
      // The older scheme's quantiser.
      {"old trained flag 2", edit(old, 5, 0, 2), "impossible sq8 trained flag"},
      {"old untrained with nodes", edit(old, 5, 0, 0), "has no quantiser"},
      {"old NaN scale", edit(old, 5, 4, bits_of(nan)), "impossible sq8 scale"},
      {"old zero scale", edit(old, 5, 4, 0), "impossible sq8 scale"},
      {"old NaN minimum", edit(old, 5, 8, bits_of(nan)), "impossible sq8 minimum"},
      {"old huge range", edit(edit(old, 5, 8, bits_of(3.3e38f)), 5, 4, bits_of(1e37f)), "decoded sq8 vector"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.name);
    const Failure f = failure(b.file);
    EXPECT_EQ(f.code, ErrorCode::Corrupt) << f.message;
    EXPECT_NE(f.message.find(b.part), std::string::npos) << f.message;
  }
  // Under cosine a scale is implied by its codes (the decoded vector has unit length): one
  // ulp off is refused. The older scheme's cosine quantiser is the fixed [-1, 1] one.
  HnswIndex cosine(opts(d.dim, Metric::cosine, HnswStorage::sq8, false, 4));
  cosine.add(d.ids, d.base);
  const Bytes cgood = cosine.serialize();
  const uint32_t scale2 = rd32(split(cgood).sections[5].payload, 8);
  Failure f = failure(edit(cgood, 5, 8, scale2 + 1));
  EXPECT_EQ(f.code, ErrorCode::Corrupt);
  EXPECT_NE(f.message.find("slot 2: an sq8 scale is not the one its codes imply"), std::string::npos) << f.message;
  f = failure(edit(legacy_file(cgood, d, Metric::cosine), 5, 8, 0));  // min_0 = 0
  EXPECT_EQ(f.code, ErrorCode::Corrupt);
  EXPECT_NE(f.message.find("fixed [-1, 1]"), std::string::npos) << f.message;
}

TEST(HnswSq8, StorageNamesAndBadOptions) {
  EXPECT_STREQ(hnsw_storage_name(HnswStorage::f32), "f32");
  EXPECT_STREQ(hnsw_storage_name(HnswStorage::sq8), "sq8");
  EXPECT_EQ(parse_hnsw_storage("f32"), HnswStorage::f32);
  EXPECT_EQ(parse_hnsw_storage("sq8"), HnswStorage::sq8);
  EXPECT_EQ(test::failure_of([] { parse_hnsw_storage("pq"); }).code, ErrorCode::InvalidArgument);
  EXPECT_EQ(test::failure_of([] { HnswIndex(opts(65537, Metric::l2, HnswStorage::sq8)); }).code,
            ErrorCode::InvalidArgument);
  EXPECT_EQ(test::failure_of([] { HnswIndex(opts(4, Metric::l2, HnswStorage(9))); }).code, ErrorCode::InvalidArgument);
  // f32 storage always keeps its vectors, whatever keep_vectors says.
  EXPECT_TRUE(HnswIndex(opts(4, Metric::l2, HnswStorage::f32, false)).keeps_vectors());
  // Bad input leaves an sq8 index (and its untrained quantiser) unchanged.
  HnswIndex index(opts(3, Metric::l2, HnswStorage::sq8, true, 4));
  EXPECT_THROW(index.add({1, 2}, {0, 0, 0, 1, std::nanf(""), 1}), Error);
  EXPECT_EQ(index.size(), 0u);
  index.add({1, 2}, {0, 0, 0, 1, 1, 1});
  EXPECT_EQ(index.search({1, 1, 1}, 1)[0].id, 2u);
}

}  // namespace test_hnsw_sq8
}  // namespace quiver
