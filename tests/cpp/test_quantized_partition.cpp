// The partitioned quantised index (QuantizedIndexOptions::lists): recall floors against exact
// search on clustered data, probing every list == the unpartitioned index, the determinism
// fingerprint of the coarse quantiser (same constant natively at every ISA level and in wasm),
// training and re-training rules, add / remove / slot reuse, allow-lists, batch search, files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include "index/quantized/quantized_impl.hpp"
#include "container/format.hpp"
#include "io_test_support.hpp"
#include "quantized_test_support.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"
#include "tools/workload.hpp"

namespace quiver {
namespace test_quantized_partition {

using test::batch_top_k;
using test::exact_top_k;
using test::expect_same_rows;
using test::recall_at_k;
using Data = test::Workload;

// Clustered data (the project's clustered workload, small): 32 mixture components, ids 7i + 1.
Data clustered(size_t n, size_t nq, size_t dim) { return test::clustered_workload(n, nq, dim, 32, 7, 1); }

QuantizedIndexOptions options(size_t dim, Metric metric, size_t lists, bool keep = true, unsigned bits = 4) {
  return test::quantized_options(dim, metric, bits, keep, lists);
}

TEST(QuantizedPartition, TrainsOnceLargeEnoughThenProbesFewLists) {
  const Data d = clustered(2000, 10, 32);
  QuantizedIndex index(options(d.dim, Metric::l2, 16));
  EXPECT_EQ(index.lists_option(), 16u);
  // 32 x 16 = 512 vectors train it; below that it is one list.
  index.add(std::vector<uint64_t>(d.ids.begin(), d.ids.begin() + 511),
            std::vector<float>(d.base.begin(), d.base.begin() + 511 * d.dim));
  EXPECT_EQ(index.lists(), 1u);
  EXPECT_TRUE(index.centroids().empty());
  index.add(std::vector<uint64_t>(d.ids.begin() + 511, d.ids.end()),
            std::vector<float>(d.base.begin() + 511 * d.dim, d.base.end()));
  EXPECT_EQ(index.lists(), 16u);
  EXPECT_EQ(index.centroids().size(), 16u * d.dim);
  EXPECT_EQ(index.default_probes(), 8u);  // round(1.5 sqrt(16)) = 6, at least 8
  std::vector<size_t> per_list(16, 0);
  for (uint64_t id : d.ids) ++per_list[index.list_of(id)];
  for (size_t l = 0; l < 16; ++l) EXPECT_GT(per_list[l], 0u) << "list " << l << " is empty";
  // Not partitioned: one list, list_of 0, no centroids.
  QuantizedIndex flat(options(d.dim, Metric::l2, 0));
  flat.add(d.ids, d.base);
  EXPECT_EQ(flat.lists(), 0u);
  EXPECT_EQ(flat.list_of(d.ids[5]), 0u);
}

// probes 0 on a small index (4,000 vectors in 64 lists of ~62): the adaptive default scans at
// least 2,048 vectors and goes on until its answer settled — here the full scan's answers (the
// unpartitioned index's); an explicit count is taken as given. (The rule itself:
// test_quantized_partition_adaptive.cpp.)
TEST(QuantizedPartition, DefaultSearchOfASmallIndexAnswersAsTheFullScan) {
  const Data d = clustered(4000, 20, 16);
  QuantizedIndex part(options(d.dim, Metric::l2, 64, false));
  QuantizedIndex full(options(d.dim, Metric::l2, 0, false));
  part.add(d.ids, d.base);
  full.add(d.ids, d.base);
  ASSERT_EQ(part.lists(), 64u);
  expect_same_rows(batch_top_k(part, d, 20, 10), batch_top_k(full, d, 20, 10));
  QuantizedSearchParams one;
  one.probes = 1;
  const std::vector<Neighbor> probed = batch_top_k(part, d, 20, 10, one);
  size_t differ = 0;
  const std::vector<Neighbor> all = batch_top_k(full, d, 20, 10);
  for (size_t i = 0; i < all.size(); ++i) differ += probed[i].id != all[i].id;
  EXPECT_GT(differ, 0u) << "one probe of 64 lists should miss some neighbours";
}

TEST(QuantizedPartition, AutoListsFollowFixedThresholdsAndRetrainAtTwice) {
  const size_t dim = 8;
  const std::vector<float> base = clustered_vectors(16384, dim, 16, 1, 2);
  std::vector<uint64_t> ids(16384);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  QuantizedIndex index(options(dim, Metric::l2, QuantizedIndexOptions::kAutoLists, false));
  auto add_range = [&](size_t from, size_t to) { index.add(ids.data() + from, base.data() + from * dim, to - from); };
  add_range(0, 4095);
  EXPECT_EQ(index.lists(), 1u);
  add_range(4095, 4097);  // past 4096: 4096 / 256 = 16 lists (of the threshold, not the size)
  EXPECT_EQ(index.lists(), 16u);
  add_range(4097, 8191);
  EXPECT_EQ(index.lists(), 16u);
  add_range(8191, 8192);  // 2 x 4096: re-trained with 8192 / 256 = 32 lists
  EXPECT_EQ(index.lists(), 32u);
  add_range(8192, 16384);  // 4 x 4096: 64 lists
  EXPECT_EQ(index.lists(), 64u);
  for (uint64_t id : {uint64_t(0), uint64_t(9000), uint64_t(16383)}) EXPECT_LT(index.list_of(id), 64u);
}

// The auto rule itself, at sizes no test builds: 256 vectors per list at the training size
// until 3 sqrt(T) is fewer (from T = 589,824), never below 1 or above kMaxLists; with 2-bit
// codes twice as many lists (128 vectors a list, 6 sqrt(T)).
TEST(QuantizedPartition, AutoListRuleIsLinearThenSquareRoot) {
  using quantized::auto_lists;
  EXPECT_EQ(auto_lists(0, 4), 1u);
  EXPECT_EQ(auto_lists(255, 4), 1u);
  EXPECT_EQ(auto_lists(4096, 4), 16u);
  EXPECT_EQ(auto_lists(65536, 4), 256u);     // 100,000 vectors
  EXPECT_EQ(auto_lists(524288, 4), 2048u);   // 1,000,000 vectors: 2,048 < round(3 sqrt(T)) = 2,172
  EXPECT_EQ(auto_lists(589824, 4), 2304u);   // where the two parts meet: 589,824 / 256 = 3 * 768
  EXPECT_EQ(auto_lists(1048576, 4), 3072u);  // 3 * 1024 < 4,096
  EXPECT_EQ(auto_lists(2097152, 4), 4344u);  // round(3 * 1448.15)
  EXPECT_EQ(auto_lists(size_t(1) << 31, 4), quantized::kMaxLists);  // 3 sqrt(2^31) = 139,023
  // 2-bit codes.
  EXPECT_EQ(auto_lists(127, 2), 1u);
  EXPECT_EQ(auto_lists(4096, 2), 32u);
  EXPECT_EQ(auto_lists(65536, 2), 512u);     // 100,000 vectors
  EXPECT_EQ(auto_lists(524288, 2), 4096u);   // 1,000,000 vectors: 4,096 < round(6 sqrt(T)) = 4,344
  EXPECT_EQ(auto_lists(1048576, 2), 6144u);  // 6 * 1024 < 8,192
  EXPECT_EQ(auto_lists(size_t(1) << 31, 2), quantized::kMaxLists);
}

// The adaptive default's patience: 5 quiet lists up to 2,048 lists, 5 per 2,048 beyond (rounded),
// so that at 4,096 lists, half the vectors a list, it waits as long as at 2,048 (at 4,096 lists
// x 1M five lists stopped at recall 0.952 / 0.9498 on the 1,000- / 10,000-topic sets, ten at
// 0.961 / 0.9555). No test builds an index that large.
TEST(QuantizedPartition, AdaptivePatienceGrowsWithTheListCountPast2048) {
  using quantized::adaptive_patience;
  EXPECT_EQ(adaptive_patience(1), 5u);
  EXPECT_EQ(adaptive_patience(256), 5u);
  EXPECT_EQ(adaptive_patience(2048), 5u);
  EXPECT_EQ(adaptive_patience(2252), 5u);  // 5 x 2,252 / 2,048 = 5.498: rounds to 5
  EXPECT_EQ(adaptive_patience(2253), 6u);
  EXPECT_EQ(adaptive_patience(4096), 10u);
  EXPECT_EQ(adaptive_patience(65536), 160u);
}

// The lists are a function of the rows in add order, not of the batching: one add, the JS
// binding's 4 MiB slices (2,730 rows at d = 384) and the CLI's chunks (max(1024, n / 100))
// give the same file to the byte — centroids, every vector's list and position — under auto
// lists (thresholds 4096, 8192, 16384 crossed mid-batch) and a fixed count.
TEST(QuantizedPartition, TheBatchingOfTheSameRowsDoesNotChangeTheIndex) {
  const size_t n = 20000, dim = 8;
  const std::vector<float> base = clustered_vectors(n, dim, 16, 3, 4);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = 5 * i + 2;
  for (size_t lists : {QuantizedIndexOptions::kAutoLists, size_t(40)}) {
    std::vector<std::vector<uint8_t>> files;
    for (size_t batch : {n, size_t(2730), size_t(1024), size_t(777)}) {
      QuantizedIndex index(options(dim, Metric::cosine, lists, false));
      for (size_t at = 0; at < n; at += batch) {
        index.add(ids.data() + at, base.data() + at * dim, std::min(batch, n - at));
      }
      // auto: the last threshold reached is 16384 (64 lists); 40 lists: 1280 x 2^3 = 10240.
      EXPECT_EQ(index.lists(), lists == 40 ? 40u : 64u) << "batches of " << batch;
      files.push_back(index.serialize());
    }
    for (size_t i = 1; i < files.size(); ++i) {
      EXPECT_TRUE(files[i] == files[0]) << "lists option " << lists << ": batching " << i << " gave other bytes";
    }
  }
}

struct RecallCase {
  Metric metric;
  bool rerank;
  double floor;
};

class QuantizedPartitionRecall : public ::testing::TestWithParam<RecallCase> {};

// Recall against exact search at default_probes() lists (10 of 48) on clustered data,
// 6000 x 64. (A call with probes 0 also scans at least 8192 vectors — all of this index — so
// the probe count is given explicitly to test the partitions.) Floors sit a few points under
// what the method gives here.
TEST_P(QuantizedPartitionRecall, MeetsTheFloorAtDefaultProbes) {
  const RecallCase c = GetParam();
  const Data d = clustered(6000, 100, 64);
  QuantizedIndex index(options(d.dim, c.metric, 48));
  index.add(d.ids, d.base);
  ASSERT_EQ(index.lists(), 48u);
  ASSERT_EQ(index.default_probes(), 10u);
  QuantizedSearchParams p;
  p.probes = index.default_probes();
  p.rerank = c.rerank ? 4 : 0;
  const double r = recall_at_k(batch_top_k(index, d, 100, 10, p), exact_top_k(d, c.metric, 10, 100), 10);
  EXPECT_GE(r, c.floor) << "recall@10 " << r;
  // More probes never lose recall on this data; all of them is the full scan.
  p.probes = 48;
  QuantizedIndex full(options(d.dim, c.metric, 0));
  full.add(d.ids, d.base);
  QuantizedSearchParams fp;
  fp.rerank = p.rerank;
  expect_same_rows(batch_top_k(index, d, 100, 10, p), batch_top_k(full, d, 100, 10, fp));
}

INSTANTIATE_TEST_SUITE_P(Metrics, QuantizedPartitionRecall,
                         ::testing::Values(RecallCase{Metric::l2, false, 0.80}, RecallCase{Metric::l2, true, 0.95},
                                           RecallCase{Metric::cosine, false, 0.80},
                                           RecallCase{Metric::cosine, true, 0.95}, RecallCase{Metric::ip, true, 0.90}));

// The refine plane re-scores the candidates of the probed lists: codes only (no f32), the
// recall floor holds at the default probes, and probing every list equals the unpartitioned
// index with the same plane.
TEST(QuantizedPartition, RefinePlaneRescoresTheProbedCandidates) {
  const Data d = clustered(6000, 100, 64);
  QuantizedIndexOptions o = options(d.dim, Metric::cosine, 48, false);
  o.refine_bits = 3;
  QuantizedIndex index(o);
  index.add(d.ids, d.base);
  QuantizedSearchParams p;
  p.probes = index.default_probes();
  const double r = recall_at_k(batch_top_k(index, d, 100, 10, p), exact_top_k(d, Metric::cosine, 10, 100), 10);
  EXPECT_GE(r, 0.93) << "recall@10 " << r;
  o.lists = 0;
  QuantizedIndex full(o);
  full.add(d.ids, d.base);
  QuantizedSearchParams all;
  all.probes = 48;
  expect_same_rows(batch_top_k(index, d, 100, 10, all), batch_top_k(full, d, 100, 10));
  const QuantizedIndex copy = QuantizedIndex::load(index.serialize());
  expect_same_rows(batch_top_k(copy, d, 100, 10), batch_top_k(index, d, 100, 10));
}

// The coarse quantiser is the same bits everywhere: centroids, every vector's list and the
// answers hash to one constant natively at every ISA level (ctest runs this suite under each
// QUIVER_ISA) and in every wasm variant.
TEST(QuantizedPartition, DeterminismFingerprint) {
  const Data d = clustered(3000, 20, 48);
  for (Metric metric : {Metric::l2, Metric::cosine}) {
    QuantizedIndex index(options(d.dim, metric, 24, false));
    index.add(d.ids, d.base);
    ASSERT_EQ(index.lists(), 24u);
    const std::vector<float> cent = index.centroids();
    uint64_t h = test::fnv1a(cent.data(), cent.size() * sizeof(float));
    for (uint64_t id : d.ids) {
      const uint32_t l = uint32_t(index.list_of(id));
      h = test::fnv1a(&l, sizeof l, h);
    }
    QuantizedSearchParams p;
    p.probes = 3;
    for (const Neighbor& nb : batch_top_k(index, d, 20, 10, p)) {
      h = test::fnv1a(&nb.id, sizeof nb.id, h);
      h = test::fnv1a(&nb.distance, sizeof nb.distance, h);
    }
    // The file is the same bytes on every target, and the index it loads answers the same: a
    // file written natively loads in wasm (and back) with identical answers.
    const std::vector<uint8_t> bytes = index.serialize();
    h = test::fnv1a(bytes.data(), bytes.size(), h);
    expect_same_rows(batch_top_k(QuantizedIndex::load(bytes), d, 20, 10, p), batch_top_k(index, d, 20, 10, p));
    // (The file stores its partition before the codes since the streamed partitioned load: the
    // same bytes in the older section order gave 0x2a43bfd1e248ec29 and 0xc327fc7cf9dd35e2.
    // Before balanced lists, the centroids of plain k-means gave 0xf74f6500103da9fb and
    // 0x553c240586746b87.)
    EXPECT_EQ(h, metric == Metric::l2 ? 0xaba7987f7dbe39daULL : 0x2a8281acaacbf45eULL)
        << "metric " << metric_name(metric) << " fingerprint 0x" << std::hex << h;
  }
}

// From CoarseQuantizer::kApproxFrom lists on, the probe order comes from the 8-bit centroid
// codes: the same bits everywhere as well (one constant at every ISA level and wasm variant),
// and probing every list still equals the unpartitioned index.
TEST(QuantizedPartition, DeterminismFingerprintWithTheApproximateListOrder) {
  const size_t lists = quantized::CoarseQuantizer::kApproxFrom;
  const Data d = clustered(32 * lists, 300, 16);
  uint64_t h = test::fnv1a(nullptr, 0);
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    QuantizedIndex index(options(d.dim, metric, lists, false));
    index.add(d.ids, d.base);
    ASSERT_EQ(index.lists(), lists);
    for (size_t probes : {size_t(0), size_t(3), size_t(40)}) {
      QuantizedSearchParams p;
      p.probes = probes;
      for (const Neighbor& nb : batch_top_k(index, d, 40, 10, p)) {
        h = test::fnv1a(&nb.id, sizeof nb.id, h);
        h = test::fnv1a(&nb.distance, sizeof nb.distance, h);
      }
    }
    QuantizedIndexOptions o = options(d.dim, metric, 0, false);
    QuantizedIndex full(o);
    full.add(d.ids, d.base);
    QuantizedSearchParams all;
    all.probes = lists;
    expect_same_rows(batch_top_k(index, d, 20, 10, all), batch_top_k(full, d, 20, 10));
  }
  // (l2 and ip only, before the cosine order and the inner-product order's half spread credit:
  // 0xd9a8700edb198f27.)
  EXPECT_EQ(h, 0x26fdf86958fc7f6bULL) << "fingerprint 0x" << std::hex << h;
}

TEST(QuantizedPartition, RemoveReuseAndAllowListsMatchTheUnpartitionedIndex) {
  const Data d = clustered(3000, 30, 32);
  QuantizedIndex part(options(d.dim, Metric::l2, 16));
  QuantizedIndex full(options(d.dim, Metric::l2, 0));
  for (QuantizedIndex* index : {&part, &full}) index->add(d.ids, d.base);
  // Remove every third id, then re-add a third of those (slots come back from the free list).
  std::vector<uint64_t> gone, back;
  for (size_t i = 0; i < d.n; i += 3) gone.push_back(d.ids[i]);
  std::vector<float> back_rows;
  for (size_t i = 0; i < d.n; i += 9) {
    back.push_back(d.ids[i]);
    back_rows.insert(back_rows.end(), d.base.begin() + i * d.dim, d.base.begin() + (i + 1) * d.dim);
  }
  for (QuantizedIndex* index : {&part, &full}) {
    index->remove(gone);
    EXPECT_FALSE(index->contains(gone[1]));
    index->add(back, back_rows);
  }
  EXPECT_EQ(part.size(), full.size());
  const std::set<uint64_t> removed(gone.begin(), gone.end());
  const std::set<uint64_t> readded(back.begin(), back.end());
  QuantizedSearchParams all;
  all.probes = 16;
  for (size_t rerank : {0, 3}) {
    all.rerank = rerank;
    QuantizedSearchParams fp;
    fp.rerank = rerank;
    expect_same_rows(batch_top_k(part, d, 30, 10, all), batch_top_k(full, d, 30, 10, fp));
  }
  for (const Neighbor& nb : batch_top_k(part, d, 30, 10)) {
    EXPECT_TRUE(removed.count(nb.id) == 0 || readded.count(nb.id) == 1) << "removed id " << nb.id << " returned";
  }
  // A tight allow-list: every allowed id comes back even with one probe (the search goes on
  // past `probes` until it has the candidates it needs).
  const std::vector<uint64_t> allow = {d.ids[1], d.ids[2], d.ids[500], d.ids[2999], 123456789};
  QuantizedSearchParams p;
  p.probes = 1;
  p.allow = allow.data();
  p.allow_count = allow.size();
  const std::vector<Neighbor> hits =
      part.search(std::vector<float>(d.queries.begin(), d.queries.begin() + d.dim), 10, p);
  std::set<uint64_t> got;
  for (const Neighbor& nb : hits) got.insert(nb.id);
  EXPECT_EQ(got, (std::set<uint64_t>{d.ids[1], d.ids[2], d.ids[500], d.ids[2999]}));
  // Batch rows equal single searches.
  const std::vector<Neighbor> rows = batch_top_k(part, d, 30, 10);
  for (size_t q = 0; q < 30; ++q) {
    const std::vector<Neighbor> one =
        part.search(std::vector<float>(d.queries.begin() + q * d.dim, d.queries.begin() + (q + 1) * d.dim), 10);
    expect_same_rows(one, std::vector<Neighbor>(rows.begin() + q * 10, rows.begin() + (q + 1) * 10));
  }
  // Emptying a list entirely and searching still works.
  part.remove(std::vector<uint64_t>(readded.begin(), readded.end()));
  std::vector<uint64_t> rest;
  for (uint64_t id : d.ids) {
    if (part.contains(id)) rest.push_back(id);
  }
  part.remove(std::vector<uint64_t>(rest.begin(), rest.end() - 5));
  EXPECT_EQ(part.search(std::vector<float>(d.queries.begin(), d.queries.begin() + d.dim), 10).size(), 5u);
}

// rerank 1 never ranks from worse candidates than rerank 0: its k results are the code
// stage's top k (float tables, or the refine plane) re-ordered by exact distance, so its
// recall equals rerank 0's; with only k 8-bit candidates (before) it lost recall to rerank 0.
// Partitioned (every list probed) and unpartitioned, with and without a refine plane.
TEST(QuantizedPartition, RerankOneReordersTheCodeStageTopK) {
  const Data d = clustered(2000, 100, 32);
  for (unsigned refine : {0u, 3u}) {
    for (size_t lists : {size_t(0), size_t(16)}) {
      QuantizedIndexOptions o = options(d.dim, Metric::l2, lists, true);
      o.refine_bits = refine;
      QuantizedIndex index(o);
      index.add(d.ids, d.base);
      QuantizedSearchParams p0, p1;
      p0.probes = p1.probes = 16;
      p0.rerank = 0;
      p1.rerank = 1;
      const std::vector<Neighbor> r0 = batch_top_k(index, d, 100, 10, p0), r1 = batch_top_k(index, d, 100, 10, p1);
      const std::vector<Neighbor> truth = exact_top_k(d, Metric::l2, 10, 100);
      for (size_t q = 0; q < 100; ++q) {
        std::set<uint64_t> a, b;
        for (size_t j = 0; j < 10; ++j) {
          a.insert(r0[q * 10 + j].id);
          b.insert(r1[q * 10 + j].id);
        }
        EXPECT_EQ(b, a) << "refine " << refine << ", lists " << lists << ", query " << q;
      }
      EXPECT_GE(recall_at_k(r1, truth, 10), recall_at_k(r0, truth, 10)) << "refine " << refine << ", lists " << lists;
    }
  }
}

TEST(QuantizedPartition, FilesRoundTripAndAnswerTheSame) {
  const Data d = clustered(2500, 20, 24);
  for (bool keep : {false, true}) {
    for (size_t lists : {size_t(12), QuantizedIndexOptions::kAutoLists, size_t(500)}) {
      QuantizedIndex index(options(d.dim, Metric::cosine, lists, keep));
      index.add(d.ids, d.base);
      index.remove(std::vector<uint64_t>(d.ids.begin() + 10, d.ids.begin() + 40));
      const std::vector<uint8_t> bytes = index.serialize();
      const QuantizedIndex copy = QuantizedIndex::load(bytes);
      EXPECT_EQ(copy.lists_option(), lists);
      EXPECT_EQ(copy.lists(), index.lists());
      EXPECT_EQ(copy.centroids(), index.centroids());
      EXPECT_EQ(copy.serialize(), bytes);
      QuantizedSearchParams p;
      p.rerank = keep ? 2 : 0;
      expect_same_rows(batch_top_k(copy, d, 20, 10, p), batch_top_k(index, d, 20, 10, p));
      EXPECT_EQ(copy.list_of(d.ids[100]), index.list_of(d.ids[100]));
    }
  }
}

TEST(QuantizedPartition, CorruptPartitionSectionsAreRejected) {
  const Data d = clustered(1000, 1, 16);
  QuantizedIndex index(options(d.dim, Metric::l2, 8, false));
  index.add(d.ids, d.base);
  const test::Bytes good = index.serialize();
  auto edited = [&](uint32_t tag, const std::function<void(test::Bytes&)>& edit) {
    test::RawFile raw = test::split(good);
    for (auto& s : raw.sections) {
      if (s.tag == tag) edit(s.payload);
    }
    return test::assemble(raw);
  };
  const uint32_t list_tag = io::fourcc("LIST"), part_tag = io::fourcc("PART"), cent_tag = io::fourcc("CENT");
  auto code_of = [](const test::Bytes& b) { return test::failure_of([&] { QuantizedIndex::load(b); }).code; };
  EXPECT_EQ(code_of(edited(list_tag, [](test::Bytes& p) { test::wr32(p, 4, 8); })), ErrorCode::Corrupt);
  EXPECT_EQ(code_of(edited(part_tag, [](test::Bytes& p) { test::wr64(p, 8, 9); })), ErrorCode::Corrupt);
  EXPECT_EQ(code_of(edited(part_tag, [](test::Bytes& p) { test::wr64(p, 0, 0); })), ErrorCode::Corrupt);
  EXPECT_EQ(code_of(edited(cent_tag, [](test::Bytes& p) { test::wr32(p, 8, 0x7fc00000); })), ErrorCode::Corrupt);
  EXPECT_EQ(code_of(edited(cent_tag, [](test::Bytes& p) { p.resize(p.size() - 4); })), ErrorCode::Corrupt);
  // PART removed but LIST kept; every partition section removed is a valid unpartitioned file.
  test::RawFile raw = test::split(good);
  raw.sections.erase(std::remove_if(raw.sections.begin(), raw.sections.end(),
                                    [&](const test::RawSection& s) { return s.tag == part_tag; }),
                     raw.sections.end());
  EXPECT_EQ(code_of(test::assemble(raw)), ErrorCode::Corrupt);
  raw.sections.erase(std::remove_if(raw.sections.begin(), raw.sections.end(),
                                    [&](const test::RawSection& s) { return s.tag == list_tag || s.tag == cent_tag; }),
                     raw.sections.end());
  EXPECT_EQ(QuantizedIndex::load(test::assemble(raw)).lists(), 0u);
  // Options are checked.
  EXPECT_EQ(test::failure_of([&] { QuantizedIndex(options(8, Metric::l2, (size_t(1) << 16) + 1)); }).code,
            ErrorCode::InvalidArgument);
}

}  // namespace test_quantized_partition
}  // namespace quiver
