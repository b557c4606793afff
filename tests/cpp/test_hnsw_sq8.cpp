// HNSW with sq8 storage: recall with exact rerank close to f32 storage, memory per vector,
// bit-identical graphs and files at every ISA level (integer code distances), the first
// batch's quantiser and saturation, compaction, index files, and bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "hnsw_test_support.hpp"
#include "io/format.hpp"
#include "io_test_support.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"

namespace quiver {
namespace {

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
  p.rerank = rerank;
  return p;
}

struct Case {
  const char* workload;
  Metric metric;
  size_t ef;
};

class HnswSq8Recall : public ::testing::TestWithParam<Case> {};

// With rerank, sq8 reaches the f32 index's recall@10 within 0.02 (and the 0.95);
// without it, the code approximations alone still reach 0.85.
TEST_P(HnswSq8Recall, RecallWithRerankMatchesF32) {
  const Case c = GetParam();
  const Data d = std::string(c.workload) == "clustered" ? clustered(3000 / kScale, 100, 48) : gaussian(3000 / kScale, 100, 32);
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
  EXPECT_GE(r_codes, 0.85);
  // Reranked distances are exact: where the top hit agrees with exact search, so does its distance.
  for (size_t q = 0; q < nq_of(d); ++q) {
    if (reranked[q * 10].id == truth[q * 10].id) {
      EXPECT_NEAR(reranked[q * 10].distance, truth[q * 10].distance, 1e-4f * (1 + std::fabs(truth[q * 10].distance)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, HnswSq8Recall,
    ::testing::Values(Case{"clustered", Metric::l2, 64}, Case{"clustered", Metric::cosine, 64},
                      Case{"clustered", Metric::ip, 128}, Case{"gaussian", Metric::l2, 128},
                      Case{"gaussian", Metric::cosine, 128}),
    [](const auto& info) { return std::string(info.param.workload) + "_" + metric_name(info.param.metric); });

TEST(HnswSq8, MemoryPerVector) {
  const Data d = clustered(400, 2, 384);
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

TEST(HnswSq8, FirstBatchSetsTheRangeLaterValuesSaturate) {
  const size_t dim = 8;
  HnswIndex index(opts(dim, Metric::l2, HnswStorage::sq8, true, 4));
  std::vector<float> base;
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < 50; ++i) {
    ids.push_back(i);
    for (size_t j = 0; j < dim; ++j) base.push_back(float((i * 7 + j * 3) % 11) * 0.1f);  // in [0, 1]
  }
  index.add(ids, base);
  // Far outside the first batch's range: every code saturates, yet with rerank the exact
  // distance comes back and the vector is found.
  const std::vector<float> far(dim, 50.0f);
  index.add({1000}, far);
  const auto got = index.search(far, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, 1000u);
  EXPECT_EQ(got[0].distance, 0.0f);
  // A one-vector first batch (zero range) still gives a usable quantiser.
  HnswIndex single(opts(dim, Metric::ip, HnswStorage::sq8, false, 4));
  single.add({700}, std::vector<float>(dim, 0.5f));
  single.add(ids, base);
  EXPECT_EQ(single.size(), 51u);
  EXPECT_EQ(single.search(std::vector<float>(dim, 1.0f), 3).size(), 3u);
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
      EXPECT_EQ(info.sections[5].tag, "SQ8Q");
      EXPECT_EQ(info.sections[6].tag, "CODE");
      EXPECT_EQ(info.sections[6].size, 600u * 20u);
    }
  }
  // An empty l2 index has no quantiser yet; loaded, its first add trains one.
  const HnswIndex empty(opts(4, Metric::l2, HnswStorage::sq8, false, 4));
  HnswIndex e2 = HnswIndex::load(empty.serialize());
  e2.add({1, 2}, {0, 0, 0, 0, 1, 1, 1, 1});
  EXPECT_EQ(e2.search({1, 1, 1, 0.9f}, 1)[0].id, 2u);
}

TEST(HnswSq8, BadFiles) {
  using namespace test;
  const Data d = clustered(100, 2, 6);
  HnswIndex index(opts(d.dim, Metric::l2, HnswStorage::sq8, false, 4));
  index.add(d.ids, d.base);
  const Bytes good = index.serialize();
  auto param = [&](size_t i, uint64_t v) {
    Bytes b = good;
    wr64(b, 16 + 48 + 8 * i, v);
    fix_crcs(b);
    return b;
  };
  auto quant = [&](size_t at, uint32_t v) {
    RawFile r = split(good);
    wr32(r.sections[5].payload, at, v);
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
  RawFile extra_vecs = split(good);
  extra_vecs.sections.push_back({io::fourcc("VECS"), 1, Bytes(100 * 6 * 4, 0)});
  const float nan = std::nanf("");
  uint32_t nan_bits;
  std::memcpy(&nan_bits, &nan, 4);
  const Bad bad[] = {
      {"storage 2", param(3, 2), "unknown vector storage 2"},
      {"keep flag 2", param(4, 2), "impossible keep_vectors flag 2"},
      {"trained flag 2", quant(0, 2), "impossible sq8 trained flag"},
      {"untrained with nodes", quant(0, 0), "has no quantiser"},
      {"NaN scale", quant(4, nan_bits), "impossible sq8 scale"},
      {"zero scale", quant(4, 0), "impossible sq8 scale"},
      {"NaN minimum", quant(8, nan_bits), "impossible sq8 minimum"},
      {"CODE missing", assemble(no_code), "CODE"},
      {"VECS without keep_vectors", assemble(extra_vecs), "keep_vectors is 0"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.name);
    const Failure f = failure(b.file);
    EXPECT_EQ(f.code, ErrorCode::Corrupt) << f.message;
    EXPECT_NE(f.message.find(b.part), std::string::npos) << f.message;
  }
  // A cosine index's quantiser is the fixed [-1, 1] one.
  HnswIndex cosine(opts(d.dim, Metric::cosine, HnswStorage::sq8, false, 4));
  cosine.add(d.ids, d.base);
  RawFile rc = split(cosine.serialize());
  wr32(rc.sections[5].payload, 8, 0);  // min_0 = 0
  const Failure f = failure(assemble(rc));
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

}  // namespace
}  // namespace quiver
