// The quantised index with a refine plane (QuantizedIndexOptions::refine_bits): codes-only
// recall, which data each rerank depth re-scores with, the same answers at every ISA level and
// target, memory accounting, index files and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/row_blocks.hpp"
#include "container/format.hpp"
#include "io_test_support.hpp"
#include "quantized_test_support.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_quantized_refine {

using test::Bytes;

using test::batch_top_k;
using test::exact_top_k;
using test::recall_at_k;
using test::rerank_depth;
using Data = test::Workload;

// The clustered workload at test size (64 components, ids 3i + 1): the hard case for codes
// (neighbours sit close).
Data clustered(size_t n, size_t nq, size_t dim) { return test::clustered_workload(n, nq, dim, 64, 3, 1); }

QuantizedIndexOptions options(size_t dim, Metric metric, unsigned bits, bool keep, unsigned refine) {
  return test::quantized_options(dim, metric, bits, keep, 0, refine);
}

struct RecallCase {
  Metric metric;
  unsigned bits, refine;
};

class RefineRecall : public ::testing::TestWithParam<RecallCase> {};

// Codes alone (no f32 vectors) against exact search on 5,000 x 384 clustered vectors, at the
// default depth (rerank 0) and at depth 10: the refine plane lifts recall@10 well past the
// fast-scan codes' own. Floors sit a few points under what the method gives here.
TEST_P(RefineRecall, CodesOnlyAgainstExactSearch) {
  const auto [metric, bits, refine] = GetParam();
  const size_t k = 10;
  const Data d = clustered(5000, 60, 384);
  const auto truth = exact_top_k(d, metric, k);
  QuantizedIndex plain(options(d.dim, metric, bits, false, 0));
  QuantizedIndex refined(options(d.dim, metric, bits, false, refine));
  plain.add(d.ids, d.base);
  refined.add(d.ids, d.base);
  const double codes = recall_at_k(batch_top_k(plain, d, d.nq(), k), truth, k);
  const double by_default = recall_at_k(batch_top_k(refined, d, d.nq(), k), truth, k);
  const double deep = recall_at_k(batch_top_k(refined, d, d.nq(), k, rerank_depth(10)), truth, k);
  RecordProperty("codes", std::to_string(codes));
  RecordProperty("refined", std::to_string(by_default));
  // Here: codes alone 0.90 (l2, cosine) and 0.95 (ip, where norms decide most), 0.68 at 2
  // bits; refined 0.98-0.995 at 4 + 3 bits, 0.97 at 4 + 2 and 2 + 4; 2 + 5 (the cheaper first
  // stage, twice the candidates) as 4 + 3.
  const double floor = bits + refine >= 7 ? 0.95 : 0.93;
  EXPECT_GE(by_default, floor) << "codes alone: " << codes;
  EXPECT_GE(deep, floor);
  // The plane removes at least half of the codes' misses.
  EXPECT_LE(1.0 - by_default, (1.0 - codes) / 2) << "codes alone: " << codes << ", refined: " << by_default;
}

INSTANTIATE_TEST_SUITE_P(MetricsAndBits, RefineRecall,
                         ::testing::Values(RecallCase{Metric::l2, 4, 3}, RecallCase{Metric::ip, 4, 3},
                                           RecallCase{Metric::cosine, 4, 3}, RecallCase{Metric::cosine, 4, 2},
                                           RecallCase{Metric::cosine, 2, 4}, RecallCase{Metric::cosine, 2, 5},
                                           RecallCase{Metric::l2, 2, 5}),
                         [](const auto& info) {
                           return std::string(metric_name(info.param.metric)) + "_" + std::to_string(info.param.bits) +
                                  "bit_refine" + std::to_string(info.param.refine);
                         });

// Which data a depth re-scores with: rerank >= 1 uses the f32 vectors when kept (exact
// distances) and the refine plane otherwise; rerank 0 never reads the f32 vectors.
TEST(QuantizedRefine, RerankUsesTheBestDataTheIndexHolds) {
  const size_t k = 10;
  const Data d = clustered(2000, 10, 64);
  QuantizedIndex both(options(d.dim, Metric::l2, 4, true, 3));
  QuantizedIndex refine_only(options(d.dim, Metric::l2, 4, false, 3));
  QuantizedIndex plain(options(d.dim, Metric::l2, 4, false, 0));
  both.add(d.ids, d.base);
  refine_only.add(d.ids, d.base);
  plain.add(d.ids, d.base);
  FlatIndex flat({d.dim, Metric::l2});
  flat.add(d.ids, d.base);
  for (size_t q = 0; q < 10; ++q) {
    const std::vector<float> query(d.queries.begin() + q * d.dim, d.queries.begin() + (q + 1) * d.dim);
    // Exact distances with the f32 vectors, even though the index has a refine plane too.
    const auto truth = flat.search(query, k);
    const auto exact_rerank = both.search(query, k, rerank_depth(20));
    for (size_t j = 0; j < k; ++j) {
      EXPECT_EQ(exact_rerank[j].id, truth[j].id);
      EXPECT_NEAR(exact_rerank[j].distance, truth[j].distance, 1e-4f * std::max(1.0f, truth[j].distance));
    }
    // Without f32 vectors a depth re-scores from the refine plane: estimates, the same as the
    // codes-only default gives for the same candidates, and different from exact ones.
    const auto refined = refine_only.search(query, k, rerank_depth(4));
    const auto codes_only = both.search(query, k);
    ASSERT_EQ(refined.size(), k);
    for (size_t j = 0; j < k; ++j) {
      EXPECT_EQ(refined[j].id, codes_only[j].id);
      EXPECT_EQ(refined[j].distance, codes_only[j].distance);
    }
    bool any_inexact = false;
    for (size_t j = 0; j < k; ++j) any_inexact = any_inexact || refined[j].distance != truth[j].distance;
    EXPECT_TRUE(any_inexact);
    // The float-table reference mode scores the fast-scan codes only, refine plane or not.
    QuantizedSearchParams reference;
    reference.float_tables = true;
    const auto a = refine_only.search(query, k, reference), b = plain.search(query, k, reference);
    for (size_t j = 0; j < k; ++j) {
      EXPECT_EQ(a[j].id, b[j].id);
      EXPECT_EQ(a[j].distance, b[j].distance);
    }
  }
  // rerank needs one of the two.
  const test::Failure f = test::failure_of([&] { plain.search(std::vector<float>(d.dim, 0.5f), k, rerank_depth(2)); });
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
  EXPECT_NE(f.message.find("refine"), std::string::npos) << f.message;
}

// Zero vectors (l2, ip) get a zero refine row and scale 0: their estimate is exact.
TEST(QuantizedRefine, ZeroVectorsAreExact) {
  const size_t dim = 24;
  std::vector<float> rows = unit_gaussian_vectors(40, dim, 3);
  std::fill(rows.begin(), rows.begin() + dim, 0.0f);
  std::vector<uint64_t> ids(40);
  for (size_t i = 0; i < 40; ++i) ids[i] = i;
  const std::vector<float> query = unit_gaussian_vectors(1, dim, 4);
  double q2 = 0.0;
  for (float x : query) q2 += double(x) * x;
  for (Metric metric : {Metric::l2, Metric::ip}) {
    QuantizedIndex index(options(dim, metric, 4, false, 3));
    index.add(ids, rows);
    QuantizedSearchParams only_zero;
    const uint64_t zero_id = 0;
    only_zero.allow = &zero_id;
    only_zero.allow_count = 1;
    const auto hit = index.search(query, 1, only_zero);
    ASSERT_EQ(hit.size(), 1u);
    EXPECT_EQ(hit[0].distance, metric == Metric::l2 ? float(q2) : 0.0f) << metric_name(metric);
  }
}

// Identical ids and distances at every ISA level: the candidates come from the dispatched
// fast-scan kernels (exact integer sums), the refine scores from one scalar code path.
TEST(QuantizedRefine, EveryIsaGivesIdenticalResults) {
  const Data d = clustered(1500, 20, 96);
  std::vector<Neighbor> reference;
  for (Isa isa : available_isas()) {
    QuantizedIndex index(options(d.dim, Metric::cosine, 4, false, 3), isa);
    index.add(d.ids, d.base);
    const auto got = batch_top_k(index, d, d.nq(), 10);
    if (reference.empty()) reference = got;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].id, reference[i].id) << isa_name(isa);
      ASSERT_EQ(got[i].distance, reference[i].distance) << isa_name(isa);
    }
  }
}

// The same file bytes and answers on every target (natively at each ISA level, and in the wasm
// GoogleTest run): codes, refine rows and scales, and the re-scored distances.
TEST(QuantizedRefine, FileAndResultsAreTheSameOnEveryTarget) {
  const Data d = clustered(1000, 16, 384);
  uint64_t h = test::fnv1a(nullptr, 0);
  for (const auto& [bits, refine] : {std::pair{4u, 3u}, std::pair{2u, 4u}, std::pair{2u, 5u}}) {
    QuantizedIndex index(options(d.dim, Metric::l2, bits, false, refine));
    index.add(d.ids, d.base);
    const Bytes file = index.serialize();
    h = test::fnv1a(file.data(), file.size(), h);
    for (const Neighbor& nb : batch_top_k(index, d, d.nq(), 10)) {
      h = test::fnv1a(&nb.id, sizeof nb.id, h);
      h = test::fnv1a(&nb.distance, sizeof nb.distance, h);
    }
  }
  EXPECT_EQ(h, 0x873d6528834df081ULL) << std::hex << h;
}

// How many candidates a search re-scores from the plane when the call gives no depth: 4 per
// result over 4-bit codes, 8 over 2-bit ones (their coarser ranking needs the deeper list; see
// kRefinePlaneDepth2Bit), counted by the bytes of refine rows the search reads: the default
// reads what rerank 4 (resp. 8) reads, and a deeper rerank exactly its extra rows more.
TEST(QuantizedRefine, TwoBitCodesReScoreTwiceTheCandidatesByDefault) {
  const Data d = clustered(2000, 8, 384);
  const size_t k = 10;
  for (const auto& [bits, refine, depth] : {std::tuple{4u, 3u, size_t(4)}, std::tuple{2u, 5u, size_t(8)}}) {
    QuantizedIndex index(options(d.dim, Metric::cosine, bits, false, refine));
    index.add(d.ids, d.base);
    const auto bytes_at = [&](std::optional<size_t> rerank) {
      QuantizedSearchStats stats;
      QuantizedSearchParams p;
      p.rerank = rerank;
      p.stats = &stats;
      batch_top_k(index, d, d.nq(), k, p);
      return stats.bytes_scanned / stats.queries;
    };
    const uint64_t row = (d.dim / 8) * refine + sizeof(float);
    EXPECT_EQ(bytes_at(std::nullopt), bytes_at(depth)) << bits << " bits";
    EXPECT_EQ(bytes_at(2 * depth), bytes_at(depth) + depth * k * row) << bits << " bits";
  }
}

// Bytes per vector: the fast-scan codes and scalars plus the refine row and its scalar, and
// memory_bytes() grows by at least the plane.
TEST(QuantizedRefine, ReportsItsBytes) {
  const Data d = clustered(640, 1, 384);
  QuantizedIndex plain(options(384, Metric::cosine, 4, false, 0));
  QuantizedIndex refined(options(384, Metric::cosine, 4, false, 3));
  EXPECT_EQ(plain.code_bytes_per_vector(), 192u + 8u);
  EXPECT_EQ(refined.code_bytes_per_vector(), 192u + 8u + 144u + 4u);
  EXPECT_EQ(refined.refine_bits(), 3u);
  EXPECT_EQ(plain.refine_bits(), 0u);
  plain.add(d.ids, d.base);
  refined.add(d.ids, d.base);
  EXPECT_GE(refined.memory_bytes(), plain.memory_bytes() + 640 * 148);
  // Nothing else grows: the plane is all the difference — its rows and scales, held in whole
  // chunks (core::RowBlocks), so at most one partly used chunk of each and their chunk tables.
  const size_t row_chunk = core::RowBlocks<uint8_t>::rows_per_chunk_within(144, 32 << 10) * 144;
  const size_t scale_chunk = 1024 * sizeof(float);  // RefinePlane's scales per chunk
  EXPECT_LE(refined.memory_bytes(), plain.memory_bytes() + 640 * 148 + row_chunk + scale_chunk + 2 * sizeof(void*));
  EXPECT_EQ(QuantizedIndex(options(9, Metric::l2, 2, false, 4)).code_bytes_per_vector(), 4u + 8u + 8u + 4u);
}

TEST(QuantizedRefine, RejectsBadRefineBits) {
  for (unsigned refine : {6u, 8u, 1000u}) {
    const test::Failure f = test::failure_of([&] { QuantizedIndex index(options(16, Metric::l2, 4, false, refine)); });
    EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
    EXPECT_NE(f.message.find("refine_bits"), std::string::npos) << f.message;
  }
  for (unsigned refine : {1u, 2u, 3u, 4u, 5u}) {
    QuantizedIndex index(options(16, Metric::l2, 4, false, refine));
    EXPECT_EQ(index.refine_bits(), refine);
  }
}

// ---- index files ----

QuantizedIndex holey_index(Metric metric, unsigned bits, bool keep, unsigned refine, size_t dim) {
  const Data d = clustered(300, 1, dim);
  QuantizedIndex index(options(dim, metric, bits, keep, refine));
  index.add(d.ids, d.base);
  std::vector<uint64_t> gone;
  for (size_t i = 0; i < 300; i += 7) gone.push_back(d.ids[i]);
  index.remove(gone);
  // Re-add a few into freed slots, with other vectors.
  std::vector<uint64_t> back(gone.begin(), gone.begin() + 10);
  index.add(back, std::vector<float>(d.base.begin() + 100 * dim, d.base.begin() + 110 * dim));
  return index;
}

TEST(QuantizedRefineFile, RoundTripsWithTheSameBytesAndAnswers) {
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    for (unsigned bits : {2u, 4u}) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(std::string(metric_name(metric)) + " bits " + std::to_string(bits) + (keep ? " keep" : ""));
        const QuantizedIndex index = holey_index(metric, bits, keep, 3, 37);
        const Bytes file = index.serialize();
        const QuantizedIndex loaded = QuantizedIndex::load(file);
        EXPECT_EQ(loaded.refine_bits(), 3u);
        EXPECT_EQ(loaded.serialize(), file);
        const Data d = clustered(10, 8, 37);
        for (size_t r : {size_t(0), size_t(3)}) {
          const auto a = batch_top_k(index, d, d.nq(), 10, rerank_depth(r));
          const auto b = batch_top_k(loaded, d, d.nq(), 10, rerank_depth(r));
          for (size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].id, b[i].id);
            EXPECT_EQ(a[i].distance, b[i].distance);
          }
        }
      }
    }
  }
}

// An index without a refine plane writes no RFIN section: its files keep their bytes.
TEST(QuantizedRefineFile, OnlyIndexesWithAPlaneWriteTheSection) {
  const Bytes without = holey_index(Metric::l2, 4, false, 0, 20).serialize();
  const Bytes with = holey_index(Metric::l2, 4, false, 2, 20).serialize();
  auto has_rfin = [](const Bytes& b) {
    for (const auto& s : test::split(b).sections) {
      if (s.tag == io::fourcc("RFIN")) return true;
    }
    return false;
  };
  EXPECT_FALSE(has_rfin(without));
  EXPECT_TRUE(has_rfin(with));
  EXPECT_EQ(QuantizedIndex::load(without).refine_bits(), 0u);
}

struct BadRefine {
  const char* name;
  void (*edit)(Bytes& payload, size_t row_bytes, size_t record);
  ErrorCode code;
  const char* message_part;
};

// The good file: l2, 4 bits, dim 37 (5 groups of 8, the last one partial), refine 3 bits, 300
// slots with every 7th freed and 10 of those re-used; slot 7 is free, slot 1 is live.
void put_f32(Bytes& b, size_t at, float v) { std::memcpy(b.data() + at, &v, 4); }
float get_f32(const Bytes& b, size_t at) {
  float v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
constexpr size_t kHead = 8;
const BadRefine kBadRefines[] = {
    {"bit width 0", [](Bytes& p, size_t, size_t) { test::wr32(p, 0, 0); }, ErrorCode::Corrupt,
     "impossible refine plane bit width 0"},
    {"bit width 6", [](Bytes& p, size_t, size_t) { test::wr32(p, 0, 6); }, ErrorCode::Corrupt,
     "impossible refine plane bit width 6"},
    {"another bit width", [](Bytes& p, size_t, size_t) { test::wr32(p, 0, 2); }, ErrorCode::Corrupt,
     "slots x (refine row"},
    {"another build's sub-codebook", [](Bytes& p, size_t, size_t) { test::wr32(p, 4, test::rd32(p, 4) ^ 1); },
     ErrorCode::UnsupportedVersion, "sub-codebook"},
    {"short", [](Bytes& p, size_t, size_t) { p.resize(p.size() - 1); }, ErrorCode::Corrupt, "slots x (refine row"},
    {"head only", [](Bytes& p, size_t, size_t) { p.resize(4); }, ErrorCode::Corrupt, "RFIN"},
    {"free slot with a row", [](Bytes& p, size_t, size_t rec) { p[kHead + 7 * rec] = 1; }, ErrorCode::Corrupt,
     "free slot 7 holds refine plane data"},
    {"free slot with -0 scale", [](Bytes& p, size_t rb, size_t rec) { put_f32(p, kHead + 7 * rec + rb, -0.0f); },
     ErrorCode::Corrupt, "free slot 7"},
    {"padding bit", [](Bytes& p, size_t rb, size_t rec) { p[kHead + rec + rb - 1] |= 0x80; }, ErrorCode::Corrupt,
     "slot 1 has non-zero refine code padding bits"},
    {"positive scale",
     [](Bytes& p, size_t rb, size_t rec) { put_f32(p, kHead + rec + rb, -get_f32(p, kHead + rec + rb)); },
     ErrorCode::Corrupt, "slot 1 has a positive refine scale"},
    {"NaN scale", [](Bytes& p, size_t rb, size_t rec) { put_f32(p, kHead + rec + rb, NAN); }, ErrorCode::Corrupt,
     "slot 1 has a non-finite refine scale"},
    {"zero scale", [](Bytes& p, size_t rb, size_t rec) { put_f32(p, kHead + rec + rb, 0.0f); }, ErrorCode::Corrupt,
     "slot 1 has a refine scale of 0"},
    {"scale 4x",
     [](Bytes& p, size_t rb, size_t rec) { put_f32(p, kHead + rec + rb, 4 * get_f32(p, kHead + rec + rb)); },
     ErrorCode::Corrupt, "do not allow"},
};

class RefineBadFile : public ::testing::TestWithParam<BadRefine> {};

TEST_P(RefineBadFile, IsRejectedWithItsOwnError) {
  const BadRefine& bad = GetParam();
  const Bytes good = holey_index(Metric::l2, 4, false, 3, 37).serialize();
  ASSERT_NO_THROW(QuantizedIndex::load(good));
  test::RawFile raw = test::split(good);
  const size_t row_bytes = (37 + 7) / 8 * 3;
  bool edited = false;
  for (auto& s : raw.sections) {
    if (s.tag != io::fourcc("RFIN")) continue;
    bad.edit(s.payload, row_bytes, row_bytes + 4);
    edited = true;
  }
  ASSERT_TRUE(edited);
  const Bytes file = test::assemble(raw);
  const test::Failure f = test::failure_of([&] { QuantizedIndex::load(file); });
  EXPECT_EQ(f.code, bad.code) << f.message;
  EXPECT_NE(f.message.find(bad.message_part), std::string::npos) << f.message;
}

INSTANTIATE_TEST_SUITE_P(Edits, RefineBadFile, ::testing::ValuesIn(kBadRefines), [](const auto& info) {
  std::string name;
  for (const char* c = info.param.name; *c; ++c) name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return name;
});

}  // namespace test_quantized_refine
}  // namespace quiver
