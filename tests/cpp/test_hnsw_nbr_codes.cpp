// HNSW neighbour codes (HnswIndexOptions::neighbor_codes): recall against exact search close
// to the same graph searched without them, the same graph with and without them, the same
// answers at every ISA level, node bytes, index files (round trip, the NBRC section, tampered
// and misplaced sections), codes kept in step with every change of the graph (removes,
// reused slots, compaction: the answers equal those of a copy loaded from the file, whose
// codes are all computed afresh), searches running while adds link, and bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hnsw_test_support.hpp"
#include "index/hnsw/hnsw_search.hpp"
#include "index/hnsw/hnsw_state.hpp"
#include "container/format.hpp"
#include "io_test_support.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_hnsw_nbr_codes {

using namespace hnsw_test;

HnswIndexOptions opts(size_t dim, Metric metric, bool codes, bool keep = false, size_t M = 12) {
  HnswIndexOptions o;
  o.dim = dim;
  o.metric = metric;
  o.M = M;
  o.ef_construction = 80;
  o.seed = 42;
  o.storage = HnswStorage::sq8;
  o.keep_vectors = keep;
  o.neighbor_codes = codes;
  return o;
}

HnswSearchParams codes_only(size_t ef_value) {
  HnswSearchParams p;
  p.ef = ef_value;
  p.rerank = 0;
  return p;
}

void expect_same_answers(const std::vector<Neighbor>& got, const std::vector<Neighbor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].id, want[i].id) << "row " << i;
    ASSERT_EQ(got[i].distance, want[i].distance) << "row " << i;  // same bits
  }
}

// The file's sections but NBRC (tag -> payload), to compare two indexes' graphs and codes.
std::vector<test::RawSection> sections_but_nbrc(const std::vector<uint8_t>& file) {
  std::vector<test::RawSection> out;
  for (const test::RawSection& s : test::split(file).sections) {
    if (s.tag != io::fourcc("NBRC")) out.push_back(s);
  }
  return out;
}

class HnswNbrCodesRecall : public ::testing::TestWithParam<RecallCase> {};

// Candidates enter by their lowered estimate and are scored when popped: at the same ef the
// walk explores at least as much as without the codes, so recall@10 against exact search is
// not below the same graph searched without them (0.02 of slack), and reaches the floor.
TEST_P(HnswNbrCodesRecall, CloseToTheSameGraphWithout) {
  const RecallCase c = GetParam();
  const std::string w = c.workload;
  const Data d = recall_workload(w);
  HnswIndex plain(opts(d.dim, c.metric, false));
  HnswIndex coded(opts(d.dim, c.metric, true));
  plain.add(d.ids, d.base);
  coded.add(d.ids, d.base);
  EXPECT_TRUE(coded.neighbor_codes());
  EXPECT_FALSE(plain.neighbor_codes());
  const std::vector<Neighbor> truth = exact(d, c.metric, 10);
  const double r_plain = recall(run(plain, d, 10, codes_only(c.ef)), truth, 10);
  const double r_coded = recall(run(coded, d, 10, codes_only(c.ef)), truth, 10);
  EXPECT_GE(r_coded, r_plain - 0.02) << r_coded << " vs " << r_plain << " without neighbour codes";
  EXPECT_GE(r_coded, 0.93);
}

INSTANTIATE_TEST_SUITE_P(
    Workloads, HnswNbrCodesRecall,
    ::testing::Values(RecallCase{"clustered", Metric::l2, 64}, RecallCase{"clustered", Metric::cosine, 64},
                      RecallCase{"clustered", Metric::ip, 128}, RecallCase{"gaussian", Metric::l2, 128},
                      RecallCase{"gaussian", Metric::cosine, 128}, RecallCase{"seed", Metric::cosine, 400}),
    [](const auto& info) { return std::string(info.param.workload) + "_" + metric_name(info.param.metric); });

// The estimator itself, white-box: for every node's neighbours, the kernel's estimate from the
// node's blocks (margin removed) against the exact sq8 code distance. The estimate is close (its
// error a small part of the spread of the distances) and the lowered one is below the exact
// distance about as often as the margin promises.
TEST(HnswNbrCodes, EstimatesTrackTheCodeDistances) {
  for (Metric metric : {Metric::l2, Metric::cosine, Metric::ip}) {
    SCOPED_TRACE(metric_name(metric));
    const Data d = clustered(1500 / kScale, 20, 96);
    HnswIndex index(opts(d.dim, metric, true));
    index.add(d.ids, d.base);
    const hnsw::Graph& g = HnswIndexAccess::graph(index);
    hnsw::Context c;
    c.reserve(g.used(), 16, g.M0, g.dim, 0, g.point_bytes(), g.sq8.scratch_floats());
    c.reserve_tables(g.nbr.table_bytes(), 16);
    double err2 = 0, spread2 = 0, mean = 0;
    size_t n = 0, below = 0;
    std::vector<float> exact_d;
    for (size_t q = 0; q < nq_of(d); ++q) {
      const float* qf = g.prepare_query(d.queries.data() + q * d.dim, c);
      const uint8_t* qp = g.query_point(qf, c);
      quant::BlockScoring bs = g.nbr.prepare(qp, c.aligned_tables());
      quant::BlockScoring plain = bs;  // the margin taken out again: score = <p_q, b>
      const double a = hnsw::Sq8Codec::scale_of(qp, g.code_bytes);
      double square = 0;
      for (size_t i = 0; i < d.dim; ++i) square += (double(qp[i]) - 128) * (double(qp[i]) - 128);
      plain.bias = float(double(bs.bias) - hnsw::NbrCodes::kMarginSigmas * 0.6028102749890869 * a * std::sqrt(square));
      for (uint32_t s = 0; s < g.used(); s += 7) {
        const uint32_t* l = g.list(s, 0);
        float est[32], low[32];
        g.fastscan.scan_block(g.nbr.codes(g.nbr_area(s), 0), c.aligned_tables(), g.nbr.groups(),
                              g.nbr.offsets(g.nbr_area(s), 0), g.nbr.scales(g.nbr_area(s), 0), plain, est);
        g.fastscan.scan_block(g.nbr.codes(g.nbr_area(s), 0), c.aligned_tables(), g.nbr.groups(),
                              g.nbr.offsets(g.nbr_area(s), 0), g.nbr.scales(g.nbr_area(s), 0), bs, low);
        for (size_t v = 0; v < std::min<size_t>(l[0], 32); ++v) {
          const double exact_dist = g.dist(qp, g.pt(l[1 + v]));
          err2 += (est[v] - exact_dist) * (est[v] - exact_dist);
          mean += exact_dist;
          spread2 += exact_dist * exact_dist;
          below += low[v] <= exact_dist;
          ++n;
        }
      }
    }
    ASSERT_GT(n, 1000u);
    mean /= double(n);
    const double rms = std::sqrt(err2 / double(n)), sd = std::sqrt(spread2 / double(n) - mean * mean);
    std::printf("%s: estimate rms error %.4f, distances sd %.4f, lowered estimate below %.4f\n", metric_name(metric),
                rms, sd, double(below) / double(n));
    EXPECT_LT(rms, 0.5 * sd);
    // Lowered by kMarginSigmas standard deviations of the error (a bound on it): below the
    // exact distance at least as often as a Gaussian error would be (0.84 at one), less slack.
    const double gaussian_below = 0.5 * std::erfc(-hnsw::NbrCodes::kMarginSigmas / std::sqrt(2.0));
    EXPECT_GE(double(below) / double(n), gaussian_below - 0.03);
  }
}

// With kept vectors the final beam is re-scored exactly, as without the codes.
TEST(HnswNbrCodes, RerankWithKeptVectors) {
  const Data d = clustered(3000 / kScale, 100, 48);
  HnswIndex coded(opts(d.dim, Metric::l2, true, /*keep=*/true));
  coded.add(d.ids, d.base);
  EXPECT_GE(recall(run(coded, d, 10, ef(64)), exact(d, Metric::l2, 10), 10), 0.95);
}

// The build never uses the codes: with one build worker the graph, codes and vectors are the
// same bytes with and without them (only the NBRC section differs).
TEST(HnswNbrCodes, SameGraphWithAndWithout) {
  const Data d = clustered(1200 / kScale, 20, 40);
  parallel::WorkerLimit one(1);
  HnswIndex plain(opts(d.dim, Metric::cosine, false));
  HnswIndex coded(opts(d.dim, Metric::cosine, true));
  plain.add(d.ids, d.base);
  coded.add(d.ids, d.base);
  const std::vector<test::RawSection> a = sections_but_nbrc(plain.serialize());
  const std::vector<test::RawSection> b = sections_but_nbrc(coded.serialize());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].tag, b[i].tag);
    EXPECT_EQ(a[i].payload, b[i].payload) << io::tag_name(a[i].tag);
  }
  EXPECT_EQ(test::split(coded.serialize()).sections.size(), a.size() + 1);
}

// Integer kernel sums and a scalar epilogue without contraction: the same answers (ids and
// distance bits) at every ISA level, and the same file.
TEST(HnswNbrCodes, SameAnswersAtEveryIsa) {
  const Data d = clustered(1500 / kScale, 40, 72);  // 72: a partial fast-scan group
  parallel::WorkerLimit one(1);
  for (Metric metric : {Metric::l2, Metric::ip, Metric::cosine}) {
    std::vector<uint8_t> first_file;
    std::vector<Neighbor> first;
    for (Isa isa : available_isas()) {
      SCOPED_TRACE(std::string(metric_name(metric)) + " " + isa_name(isa));
      HnswIndex index(opts(d.dim, metric, true), isa);
      index.add(d.ids, d.base);
      const std::vector<uint8_t> file = index.serialize();
      const std::vector<Neighbor> got = run(index, d, 10, codes_only(32));
      if (first_file.empty()) {
        first_file = file;
        first = got;
        continue;
      }
      EXPECT_EQ(file, first_file);
      expect_same_answers(got, first);
    }
  }
}

// Node bytes: the sq8 node, then one block per 32 level-0 links: dim / 16 groups of 64 code
// bytes and 32 offsets and scales (dim 384, M 16: 576 + 1536 + 256). memory_bytes counts them.
TEST(HnswNbrCodes, NodeBytesAndMemory) {
  HnswIndex plain(opts(384, Metric::l2, false, false, 16));
  HnswIndex coded(opts(384, Metric::l2, true, false, 16));
  EXPECT_EQ(plain.node_bytes(), 576u);
  EXPECT_EQ(coded.node_bytes(), 576u + 1536u + 256u);
  // M 24: 48 links, two blocks; dim 20: two groups (32 dimensions, the rest padding).
  EXPECT_EQ(HnswIndex(opts(20, Metric::l2, true, false, 24)).node_bytes(),
            HnswIndex(opts(20, Metric::l2, false, false, 24)).node_bytes() + 2 * (2 * 64 + 256));
  const Data d = clustered(512, 2, 384);
  plain.add(d.ids, d.base);
  coded.add(d.ids, d.base);
  EXPECT_GE(coded.memory_bytes(), plain.memory_bytes() + d.n * (1536 + 256));
  EXPECT_GE(coded.bytes_per_vector(), plain.bytes_per_vector() + 1536 + 256);
}

// A file records the option (NBRC) and not the codes: loading recomputes them, so the loaded
// index answers exactly as the saved one and writes the same bytes, at every ISA level. An
// index without the option writes no NBRC and loads without it.
TEST(HnswNbrCodes, FileRoundTrip) {
  const Data d = clustered(1000 / kScale, 30, 40);
  for (Metric metric : {Metric::l2, Metric::cosine}) {
    SCOPED_TRACE(metric_name(metric));
    HnswIndex index(opts(d.dim, metric, true));
    index.add(d.ids, d.base);
    const std::vector<uint8_t> file = index.serialize();
    bool has_nbrc = false;
    for (const test::RawSection& s : test::split(file).sections) {
      if (s.tag == io::fourcc("NBRC")) {
        has_nbrc = true;
        EXPECT_EQ(s.payload, (std::vector<uint8_t>{1, 0, 0, 0}));
      }
    }
    EXPECT_TRUE(has_nbrc);
    const std::vector<Neighbor> want = run(index, d, 10, codes_only(40));
    for (Isa isa : available_isas()) {
      SCOPED_TRACE(isa_name(isa));
      const HnswIndex loaded = HnswIndex::load(file.data(), file.size(), isa);
      EXPECT_TRUE(loaded.neighbor_codes());
      EXPECT_EQ(loaded.node_bytes(), index.node_bytes());
      EXPECT_EQ(loaded.serialize(), file);
      expect_same_answers(run(loaded, d, 10, codes_only(40)), want);
    }
    HnswIndex plain(opts(d.dim, metric, false));
    plain.add(d.ids, d.base);
    const std::vector<uint8_t> plain_file = plain.serialize();
    for (const test::RawSection& s : test::split(plain_file).sections) EXPECT_NE(s.tag, io::fourcc("NBRC"));
    EXPECT_FALSE(HnswIndex::load(plain_file).neighbor_codes());
  }
}

// Tampered files: an unknown scheme, a wrong size, NBRC in an f32 file — CORRUPT.
TEST(HnswNbrCodes, BadFilesAreCorrupt) {
  const Data d = clustered(200, 2, 16);
  HnswIndex index(opts(d.dim, Metric::l2, true));
  index.add(d.ids, d.base);
  const test::RawFile raw = test::split(index.serialize());
  size_t at = raw.sections.size();
  for (size_t i = 0; i < raw.sections.size(); ++i) {
    if (raw.sections[i].tag == io::fourcc("NBRC")) at = i;
  }
  ASSERT_LT(at, raw.sections.size());
  {
    test::RawFile r = raw;
    r.sections[at].payload = {2, 0, 0, 0};
    const test::Failure f = test::failure_of([&] { HnswIndex::load(test::assemble(r)); });
    EXPECT_EQ(f.code, ErrorCode::Corrupt);
    EXPECT_NE(f.message.find("neighbour-code scheme"), std::string::npos) << f.message;
  }
  {
    test::RawFile r = raw;
    r.sections[at].payload = {1, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(test::failure_of([&] { HnswIndex::load(test::assemble(r)); }).code, ErrorCode::Corrupt);
  }
  {
    HnswIndexOptions o = opts(d.dim, Metric::l2, false);
    o.storage = HnswStorage::f32;
    HnswIndex f32(o);
    f32.add(d.ids, d.base);
    test::RawFile r = test::split(f32.serialize());
    r.sections.push_back({io::fourcc("NBRC"), io::kSectionRequired, {1, 0, 0, 0}});
    EXPECT_EQ(test::failure_of([&] { HnswIndex::load(test::assemble(r)); }).code, ErrorCode::Corrupt);
  }
}

// White-box: every node's code blocks are what coding its level-0 list afresh gives, and its
// codes are marked fresh. Returns how many nodes are not.
size_t nodes_out_of_step(HnswIndex& index) {
  const hnsw::Graph& g = HnswIndexAccess::graph(index);
  std::vector<uint8_t> area(g.nbr.bytes());
  size_t bad = 0;
  for (uint32_t s = 0; s < g.used(); ++s) {
    const uint32_t* l = g.list(s, 0);
    for (size_t v = 0; v < g.nbr.blocks() * 32; ++v) {
      if (v < l[0]) {
        g.nbr.put(area.data(), v, g.pt(l[1 + v]));
      } else {
        g.nbr.clear(area.data(), v);
      }
    }
    bad += std::memcmp(area.data(), g.nbr_area(s), area.size()) != 0 || g.sync[s].codes_fresh.load() != 1;
  }
  return bad;
}

// Every change of the graph keeps the codes in step with the lists: after removes, adds that
// reuse few slots (one-way links to them survive the repair) or many (the full sweep), and
// compaction, the index answers exactly like a copy loaded from its file (whose codes are all
// computed afresh from the links and the sq8 codes).
TEST(HnswNbrCodes, CodesFollowEveryChange) {
  const Data d = clustered(2400 / kScale, 40, 24);
  const size_t half = d.n / 2;
  HnswIndex index(opts(d.dim, Metric::l2, true, false, 8));
  auto check = [&](const char* step) {
    SCOPED_TRACE(step);
    EXPECT_EQ(nodes_out_of_step(index), 0u);
    const HnswIndex loaded = HnswIndex::load(index.serialize());
    expect_same_answers(run(index, d, 10, codes_only(24)), run(loaded, d, 10, codes_only(24)));
  };
  index.add(d.ids.data(), d.base.data(), half);
  check("first half");
  for (size_t i = half; i < d.n; i += 97) index.add(&d.ids[i], &d.base[i * d.dim], std::min<size_t>(97, d.n - i));
  check("the rest in small batches");
  {
    // A node R that another node X links to without R linking back: reusing R's slot repairs
    // R's own neighbours only, so X keeps its link to the slot, which now holds a new vector.
    const hnsw::Graph& g = HnswIndexAccess::graph(index);
    uint32_t one_way = UINT32_MAX;
    for (uint32_t x = 0; x < g.used() && one_way == UINT32_MAX; ++x) {
      const uint32_t* l = g.list(x, 0);
      for (size_t i = 0; i < l[0] && one_way == UINT32_MAX; ++i) {
        const uint32_t r = l[1 + i];
        const uint32_t* back = g.list(r, 0);
        if (std::find(back + 1, back + 1 + back[0], x) == back + 1 + back[0]) one_way = r;
      }
    }
    ASSERT_NE(one_way, UINT32_MAX);
    const uint64_t id = g.slots.id_at(one_way);
    index.remove(&id, 1);
    const uint64_t fresh_id = 1000000007;
    std::vector<float> v(d.base.begin(), d.base.begin() + d.dim);
    for (float& x : v) x = 2.0f * x + 1.0f;
    index.add(&fresh_id, v.data(), 1);  // takes the one free slot
    ASSERT_EQ(g.slots.id_at(one_way), fresh_id);
    check("a reused slot with a one-way link to it");
    index.remove(&fresh_id, 1);
    index.add(&id, &d.base[size_t(id - 3) / 7 * d.dim], 1);
  }
  std::vector<uint64_t> gone;
  for (size_t i = 0; i < d.n; i += 5) gone.push_back(d.ids[i]);
  index.remove(gone);
  check("removes");
  // Reuse one slot at a time (few: neighbours repaired, one-way links kept), then many.
  std::vector<float> moved(d.base.begin(), d.base.begin() + 3 * d.dim);
  for (float& x : moved) x = -x;
  for (size_t i = 0; i < 3; ++i) index.add(&gone[i], &moved[i * d.dim], 1);
  check("few reused slots");
  std::vector<float> rest;
  for (size_t i = 3; i < gone.size(); ++i) {
    const size_t row = size_t(gone[i] - 3) / 7;  // clustered(): ids 3 + 7 i
    for (size_t j = 0; j < d.dim; ++j) rest.push_back(d.base[row * d.dim + j] * 0.5f);
  }
  index.add(gone.data() + 3, rest.data(), gone.size() - 3);
  check("many reused slots");
  index.remove(std::vector<uint64_t>(gone.begin(), gone.begin() + gone.size() / 2));
  index.compact();
  check("compaction");
  EXPECT_TRUE(index.neighbor_codes());
}

#if defined(QUIVER_THREADS)
// Searches keep running while an add links nodes (they skip the estimate for lists the add
// has changed: NodeSync's sequence lock); afterwards the codes are complete.
TEST(HnswNbrCodes, SearchesDuringAdds) {
  const Data d = clustered(3000 / kScale, 20, 32);
  HnswIndex index(opts(d.dim, Metric::l2, true, false, 8));
  const size_t first = d.n / 3;
  index.add(d.ids.data(), d.base.data(), first);
  std::atomic<bool> done{false};
  std::thread searcher([&] {
    std::vector<Neighbor> out(10);
    while (!done.load()) {
      for (size_t q = 0; q < nq_of(d); ++q) {
        const size_t got = index.search(d.queries.data() + q * d.dim, 10, out.data(), codes_only(32));
        EXPECT_EQ(got, 10u);
      }
    }
  });
  for (size_t i = first; i < d.n; i += 200) index.add(&d.ids[i], &d.base[i * d.dim], std::min<size_t>(200, d.n - i));
  done = true;
  searcher.join();
  EXPECT_EQ(nodes_out_of_step(index), 0u);
  const HnswIndex loaded = HnswIndex::load(index.serialize());
  expect_same_answers(run(index, d, 10, codes_only(32)), run(loaded, d, 10, codes_only(32)));
}
#endif

TEST(HnswNbrCodes, OnlyWithSq8Storage) {
  HnswIndexOptions o = opts(8, Metric::l2, true);
  o.storage = HnswStorage::f32;
  const test::Failure f = test::failure_of([&] { HnswIndex index(o); });
  EXPECT_EQ(f.code, ErrorCode::InvalidArgument);
  EXPECT_NE(f.message.find("neighbor_codes"), std::string::npos) << f.message;
}

}  // namespace test_hnsw_nbr_codes
}  // namespace quiver
