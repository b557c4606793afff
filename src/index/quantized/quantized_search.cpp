// Search, the quantised index's third job, in two steps with a seam between them:
//   1. scan: every 32-vector block of codes is scored with the query's 8-bit tables by the
//      dispatched fast-scan kernel (quant/fastscan.hpp), skipping blocks the allow-list rules
//      out; the best `depth` slots are kept as candidates (id, estimate, slot).
//   2. re-score: the candidates get the codes' better estimate — the refine plane's
//      (quant/refine_plane.hpp), else float-table scores of the same codes — and with an exact
//      rerank r >= 1 the best k * r of them exact distances from the kept f32 vectors; the
//      best k are returned.
// Also the per-thread scratch (warm searches allocate nothing) and the per-call checks.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "base/cache_lines.hpp"
#include "base/topk.hpp"
#include "base/validate.hpp"
#include "index/quantized/quantized_impl.hpp"
#include "index/common/search_params.hpp"
#include "quiver/error.hpp"

namespace quiver {
namespace quantized {

using quant::kGroupTableBytes;

void Scratch::reserve(size_t dim, size_t subq, size_t groups, size_t cand, size_t blocks) {
  for (QueryLane& lane : lanes) {
    if (lane.query.size() < dim) {
      lane.query.resize(dim);
      lane.rotated.resize(dim);
    }
    if (lane.ftables.size() < subq * 16) {
      lane.ftables.resize(subq * 16);
      lane.lows.resize(subq);
    }
    lane.tables.reserve(groups * kGroupTableBytes, 0);
    if (lane.candidates.size() < cand) lane.candidates.resize(cand);
  }
  if (rot_tmp.size() < dim) rot_tmp.resize(dim);
  if (allow_mask.size() < blocks) allow_mask.resize(blocks, 0);
}

void Scratch::reserve_lists(size_t lists, size_t dim) {
  if (list_order.size() < lists) {
    list_scores.resize(lists);
    list_order.resize(lists);
    list_keys.resize(lists);
    block_base.resize(lists + 1);
  }
  if (coarse_codes.size() < dim) coarse_codes.resize(dim);
}

Scratch& thread_scratch() {
  static thread_local Scratch scratch;
  return scratch;
}

}  // namespace quantized

using quant::kBlockVectors;
using quantized::Candidate;
using quantized::QueryTables;
using quantized::Scratch;

namespace {

// The partitioned scan's candidates: the best `depth` by (distance, id), like core::BasicTopK,
// but without reading the id of every hit and without a heap. Slots of a partitioned scan come
// in list order, so their ids are scattered over the slot table and each read was a cache miss
// (two thirds of the scan loop's own time in a profile); the order only needs an id to break an
// exact tie of distances, so ties read it then, and finish() fills in the ids of the kept
// candidates. And a heap of depth 80 spent about 12 sift steps on every hit once full (nearly a
// quarter of the kernel's own time natively, in __push_heap / __adjust_heap), so hits are
// appended to a buffer of twice the depth instead, which is cut back to the best `depth`
// (nth_element) whenever it fills: a hit costs a compare and a copy, and the cut a few compares
// a hit. The admission threshold is the depth-th best at the last cut, never below the heap's,
// so the candidates kept in the end are the heap's exactly (every target's answers unchanged);
// only the threshold the kernel sees tightens in steps, so a few more hits reach push().
class PartitionCandidates {
 public:
  // `slots` has room for 2 * k candidates (k >= 1).
  PartitionCandidates(Candidate* slots, size_t k, const uint64_t* ids) noexcept : slots_(slots), k_(k), before_{ids} {}

  // Whether the k-th best candidate so far has a finite distance (the heap's threshold() <
  // INFINITY): the search never stops before.
  bool full() const noexcept { return finite_ >= k_; }
  // A hit must lie at or below this to be kept: the k-th best distance at the last cut.
  float threshold() const noexcept { return threshold_; }

  void push(const Candidate& c) noexcept {
    Candidate candidate = c;
    if (std::isnan(candidate.distance)) candidate.distance = INFINITY;  // as core::BasicTopK
    if (candidate.distance > threshold_) return;
    finite_ += candidate.distance < INFINITY;
    slots_[size_++] = candidate;
    if (size_ == 2 * k_) cut();
  }

  // Keeps the best k, sorted best first, gives them their ids, returns how many there are.
  size_t finish() noexcept {
    if (size_ > k_) cut();
    std::sort(slots_, slots_ + size_, before_);
    for (size_t i = 0; i < size_; ++i) slots_[i].id = before_.ids[slots_[i].slot];
    return size_;
  }

 private:
  struct Before {  // (distance, id) order, the id read from the slot table on a tie only
    const uint64_t* ids;
    bool operator()(const Candidate& a, const Candidate& b) const noexcept {
      return a.distance < b.distance || (a.distance == b.distance && ids[a.slot] < ids[b.slot]);
    }
  };
  void cut() noexcept {  // the best k to the front (the k-th at k - 1), the rest dropped
    std::nth_element(slots_, slots_ + (k_ - 1), slots_ + size_, before_);
    size_ = k_;
    threshold_ = slots_[k_ - 1].distance;
  }
  Candidate* slots_;
  size_t k_;
  size_t size_ = 0;
  size_t finite_ = 0;  // candidates taken in with a finite distance
  float threshold_ = INFINITY;
  Before before_;
};

// The adaptive default of a partitioned search (probes 0, no allow set): a fixed probe count
// cannot know when a query's answer is settled — at 1,000,000 x 384 the old default (68 of
// 2,048 lists) reached recall 0.982 at a quarter of the speed of 20 probes (0.955), a query
// whose neighbours all lie in its first list scanned 67 more, and on data whose topics are many
// and skewed 68 lists were just enough. So the search watches its own answer and the geometry
// around the query, and stops once both say the rest cannot matter:
//  - settled: it tracks the best kSettleDepth (at least k) estimates seen and the last list that
//    changed them; kSettleLists lists, and kSettleGrowth times as many as it took to reach that
//    change, went by without one (the patience grows with the depth of the last change, so a
//    long tail is followed);
//  - outside the ball: the next list's score is above (1 + kSettleBall) times the nearest
//    list's: squared distances under l2, d^2 + r^2 / 2 under cosine (kSettleBallCosine, below)
//    (SPANN's query-aware pruning). Where the query sits
//    among many lists at about the same distance — a big diffuse topic, neighbours straddling
//    lists, answers arriving rarely but steadily — the patience alone stopped too early (at
//    10,000 topics: recall 0.929 against 0.953 with the ball); where its lists stand apart the
//    ball is small and the patience decides. (Not under inner product, whose centroid scores
//    are not distances: there the patience alone.)
// Measured in one sitting natively (mean lists, recall@10, vectors scanned a query; the fixed
// counts for comparison), embedding-like 384-d, cosine, 2-bit codes + 5-bit refine plane at 1M,
// 4 + 3 at 100k, with the patience at 1.0 and the ball at 0.16 (before: 1.5 and 0.1):
//   1,000,000, 1,000 topics: 22.9 lists, 0.960, 14,424 (before: 27.2 lists, 0.967, 16,762;
//   probes 20: 0.952, 13,732)
//   1,000,000, 10,000 topics: 116.8 lists, 0.954, 77,433 (before: 96.6 lists, 0.946, 60,467;
//   probes 128: 0.947, 98,870 — no fixed count up to 128 reaches 0.95)
//   100,000: 23.6 lists, 0.976, 12,130 (before: 18.6 lists, 0.972, 9,785; probes 16: 0.958,
//   9,315); clustered 100,000: 8.2 lists, 0.964, 3,366 (before: 8.6 lists, the same recall).
// Since the cosine list order charges half a list's spread (CoarseQuantizer::cosine_scores,
// 2026-12-07) a cosine query's scores are d^2 + r^2 / 2, closer together than the squared
// distances, so its ball is 0.09 (0.16 there scanned 23,408 vectors a query at 1,000 topics for
// 0.971); l2 keeps the squared distances and 0.16. With the cosine order, natively, the same
// files: 1,000 topics 21.1 lists, 0.959, 11,886 (ball 0.08: 0.958, 11,301; 0.10: 0.960,
// 12,735); 10,000 topics 77.9 lists, 0.958, 49,481 (0.08: 0.953, 40,895; 0.10: 0.961, 58,071);
// 100,000 embedding-like 0.981 from 10,171 vectors (0.976 from 12,130 before); clustered
// 100,000 unchanged (0.964, 3,358).
// The patience decides where the query's lists stand apart (1,000 topics, ball 0.1: 1.5 took
// 27.2 lists a query for 0.967, 1.0 19.3 for 0.956), the ball where they crowd (10,000 topics,
// patience 1.0: 0.1 stopped at 0.936, 0.14 at 0.949, 0.15 0.953, 0.16 0.954, 0.2 0.963 at 1.37x
// the vectors of 0.16). A ball of 0.05 gave 0.921 where a fixed count of as many lists gave 0.936
// (the test's embedding-like set, quantized_partition_adaptive). The estimates are the 8-bit
// scan's, before re-scoring: noise in them only prolongs the search.
// (bench/ivf/results/adaptive-rule-ab-20261207.*)
constexpr size_t kSettleDepth = 10;         // estimates watched (at least k)
constexpr size_t kSettleLists = 5;          // lists without a change before the search may stop...
constexpr size_t kSettleListsPer = 2048;    // ... for every this many lists (and at least kSettleLists)
constexpr double kSettleGrowth = 1.0;       // ... and at least this times the lists up to the last change
constexpr double kSettleBall = 0.16;        // lists within (1 + this) x the nearest squared distance: probed
constexpr double kSettleBallCosine = 0.09;  // the same on the cosine order's scores (below)
// An adaptive search scans at least this many vectors (all of a smaller index): with tiny lists
// a few lists without a change say little.
constexpr size_t kAdaptiveMinScanned = 2048;
}  // namespace

// kSettleLists at up to kSettleListsPer lists, in proportion beyond, so that the patience is
// the same share of the index (at 4,096 lists a list holds half the vectors it holds at 2,048,
// and five of them said less).
size_t quantized::adaptive_patience(size_t lists) {
  return std::max(kSettleLists, (kSettleLists * lists + kSettleListsPer / 2) / kSettleListsPer);
}

namespace {

// The watch itself: a max-heap of the best `depth` estimates (in scratch: no allocation once
// warm) and the number of lists probed up to the last one that changed it.
class SettleWatch {
 public:
  // `lists`: the index's list count, which sets the patience (quantized::adaptive_patience).
  SettleWatch(std::vector<float>& heap, size_t depth, size_t lists)
      : depth_(depth), patience_(quantized::adaptive_patience(lists)) {
    if (heap.size() < depth) heap.resize(depth);
    heap_ = heap.data();
  }
  // An estimate of the i-th probed list's scan.
  void offer(float d, size_t i) noexcept {
    if (std::isnan(d)) return;  // as +inf: never enters
    if (size_ < depth_) {
      heap_[size_++] = d;
      std::push_heap(heap_, heap_ + size_);
    } else if (d < heap_[0]) {
      std::pop_heap(heap_, heap_ + size_);
      heap_[size_ - 1] = d;
      std::push_heap(heap_, heap_ + size_);
    } else {
      return;
    }
    changed_through_ = i + 1;
  }
  // Before probing the i-th list (0-based): whether the lists since the last change are enough.
  bool settled(size_t i) const noexcept {
    const size_t quiet = i - changed_through_;
    return quiet >= patience_ && double(quiet) >= kSettleGrowth * double(changed_through_);
  }

 private:
  float* heap_;
  size_t depth_;
  size_t patience_;
  size_t size_ = 0;
  size_t changed_through_ = 0;
};

constexpr size_t kRefineFactor = 2;  // 8-bit candidates per result, re-scored in float
// Candidates per result re-scored from the refine plane when the call gives no depth: 4-bit
// fast-scan codes alone rank the true top 10 inside their top 40 (recall ~0.999 on the
// clustered workload at 100k), and re-scoring 40 rows costs far less than the scan. 2-bit codes
// are the cheaper first stage (half the bytes and half the table lookups of a scan) but a
// coarser ranking, so they keep twice as many: at 1M x 384 with a 5-bit refine plane and 20
// probes, 40 candidates gave recall@10 0.938, 80 gave 0.952 and 160 0.954 at 0.7x the speed.
// On tightly clustered data 2-bit codes rank worse still (clustered 100k: 0.919 at 80, 0.956 at
// 160, 0.964 at 320 against 4 + 3's 0.964 at 40), which is why 4-bit codes stay the default.
constexpr size_t kRefinePlaneDepth = 4;
constexpr size_t kRefinePlaneDepth2Bit = 8;

// The probe order's sort key of a list: its score's bits mapped so that unsigned integers
// compare as the floats do (negative floats bit-flipped, positive ones with the sign bit
// set; -0 made +0 first, as the floats compare equal), above the list number, so integer order
// is the order (score, then list). Scores are never NaN (finite inputs).
inline uint64_t order_key(float score, uint32_t list) noexcept {
  uint32_t bits;
  const float f = score + 0.0f;  // -0 -> +0
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
  return (uint64_t(bits) << 32) | list;
}
// The first stretch of the order sorted at once: a query probes at least a few lists, and each
// stretch costs a pass over every list.
constexpr size_t kFirstSorted = 32;
}  // namespace

float QuantizedIndex::Impl::refine_distance(const QueryTables& t, const float* rotated_query,
                                            const Candidate& c) const {
  size_t lane = c.lane;
  const uint8_t* block = c.block != nullptr ? c.block : code_block(c.slot, lane);
  const float offset = c.block != nullptr ? c.offset : offset_of(c.slot);
  const quant::CoarseCodes coarse_codes{block + lane, kBlockVectors};
  const float score = refine_codec.score(rotated_query, coarse_codes, refine.row(c.slot));
  return (t.c0 + offset) + refine.scale(c.slot) * score;
}

float QuantizedIndex::Impl::exact_distance(const float* query, uint32_t slot) const {
  const float* x = vectors.row(slot);
  switch (metric) {
    case Metric::l2: return kernels.l2sq_f32(query, x, dim);
    case Metric::ip: return -kernels.dot_f32(query, x, dim);
    case Metric::cosine: return kernels.cos_f32(query, x, dim);
  }
  return 0.0f;
}

// Whether an allow set is given as a mask set up front (set_allow_mask): always for an allow
// list; for an allow bitmap when it admits at most 1/32 of the vectors — then looking up its
// ids costs less than testing every vector's id in the blocks the search reaches (which, with
// so few allowed, is most of them: the stop rule scores every allowed vector).
// `bits_count` is index::allow_bits_count(p), counted once by the caller.
bool QuantizedIndex::Impl::masked_up_front(const QuantizedSearchParams& p, size_t bits_count) const {
  return p.allow != nullptr || (p.allow_bits != nullptr && bits_count * 32 <= live());
}

size_t QuantizedIndex::Impl::set_allow_mask(const QuantizedSearchParams& p, Scratch& s, bool on) const {
  size_t allowed = 0;  // distinct allowed slots (an id given twice sets its bit once)
  const auto mark = [&](uint64_t id) {
    uint32_t slot;
    if (!slots.find(id, slot)) return;
    size_t word_index, lane;
    if (partitioned()) {  // block_base set by search_partitioned
      const uint32_t pos = *slot_pos.row(slot);
      word_index = s.block_base[*slot_list.row(slot)] + pos / kBlockVectors;
      lane = pos % kBlockVectors;
    } else {
      word_index = slot / kBlockVectors;
      lane = slot % kBlockVectors;
    }
    uint32_t& word = s.allow_mask[word_index];
    const uint32_t bit = 1u << lane;
    allowed += (word & bit) == 0;
    word = on ? (word | bit) : 0u;
  };
  if (p.allow != nullptr) {
    for (size_t i = 0; i < p.allow_count; ++i) mark(p.allow[i]);
  } else {
    const size_t words = (p.allow_bits_size + 63) / 64;
    for (size_t w = 0; w < words; ++w) {
      for (uint64_t b = p.allow_bits[w]; b != 0; b &= b - 1) {
        const uint64_t id = w * 64 + uint64_t(__builtin_ctzll(b));
        if (id < p.allow_bits_size) mark(id);
      }
    }
  }
  return allowed;
}

// A block's allow word from the allow bitmap: bit v for lane v < n whose slot's id it admits
// (a dead slot's id is kNoId, past every bitmap). Unpartitioned: the block's slots are
// first, first + 1, ...; partitioned: the list's slot table.
uint32_t QuantizedIndex::Impl::bits_mask(const QuantizedSearchParams& p, size_t first, size_t n) const {
  uint32_t word = 0;
  for (size_t v = 0; v < n; ++v) word |= uint32_t(index::bits_admit(p, slots.id_at(uint32_t(first + v)))) << v;
  return word;
}

uint32_t QuantizedIndex::Impl::bits_mask(const QuantizedSearchParams& p, const uint32_t* slot_of, size_t n) const {
  uint32_t word = 0;
  for (size_t v = 0; v < n; ++v) word |= uint32_t(index::bits_admit(p, slots.id_at(slot_of[v]))) << v;
  return word;
}

// Float score of one slot's codes against the float tables (the 8-bit tables' reference).
// Four partial sums in a fixed order: no long dependency chain, same bits everywhere.
float QuantizedIndex::Impl::float_score(uint32_t slot, const float* ft) const {
  size_t v;
  const uint8_t* block = code_block(slot, v);
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const size_t pairs = subq / 2;
  for (size_t p = 0; p < pairs; ++p) {
    const uint8_t byte = block[p * kBlockVectors + v];
    sum[(2 * p) & 3] += ft[(2 * p) * 16 + (byte & 15)];
    sum[(2 * p + 1) & 3] += ft[(2 * p + 1) * 16 + (byte >> 4)];
  }
  if (subq % 2) sum[0] += ft[(subq - 1) * 16 + (block[pairs * kBlockVectors + v] & 15)];
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

// Candidates: the 8-bit scan keeps kRefineFactor * k (kRefinePlaneDepth[2Bit] * k with a refine
// plane), re-scored by the codes' better estimate (float tables of the same codes, or the refine
// plane), so the 8-bit tables' rounding does not decide the final order. A rerank r >= 1 keeps
// max(k * r, that depth): rerank then re-scores the best k * r *by the better estimate*, so it
// never ranks from fewer or worse candidates than rerank 0 does (with only k * r 8-bit
// candidates, rerank 1 lost recall to rerank 0).
size_t QuantizedIndex::Impl::candidate_depth(size_t k, const QuantizedSearchParams& p) const {
  const size_t rerank = p.rerank.value_or(0);  // the quantised default is 0 (check_search validated it)
  const size_t plane_depth = bits == 2 ? kRefinePlaneDepth2Bit : kRefinePlaneDepth;
  const size_t code_depth = k * (refine_codec.enabled() ? plane_depth : kRefineFactor);
  return std::min(rerank > 0 ? std::max(index::rerank_candidates(k, rerank), code_depth) : code_depth, live());
}

void QuantizedIndex::Impl::search_many(const float* const* queries, size_t nq, size_t k, Neighbor* const* outs,
                                       size_t* counts, const QuantizedSearchParams& p, Scratch& s) const {
  if (partitioned()) {
    for (size_t i = 0; i < nq; ++i) counts[i] = search_partitioned(queries[i], k, outs[i], p, s);
    return;
  }
  const size_t depth = candidate_depth(k, p);
  s.reserve(dim, subq, groups, depth, blocks());
  QueryTables t[quant::kMaxQueriesPerPass];
  const uint8_t* table_ptrs[quant::kMaxQueriesPerPass];
  core::BasicTopK<Candidate> tops[quant::kMaxQueriesPerPass] = {{s.lanes[0].candidates.data(), depth},
                                                                {s.lanes[1].candidates.data(), depth},
                                                                {s.lanes[2].candidates.data(), depth},
                                                                {s.lanes[3].candidates.data(), depth}};
  for (size_t i = 0; i < nq; ++i) {
    t[i] = build_tables(queries[i], s.lanes[i], s.rot_tmp.data(), needs_float_tables(p));
    table_ptrs[i] = s.lanes[i].tables.data();
  }
  const bool filtered = masked_up_front(p, index::allow_bits_count(p));
  const bool bits = !filtered && p.allow_bits != nullptr;  // tested block by block
  if (filtered) set_allow_mask(p, s, true);

  const size_t nblocks = blocks();
  const size_t used = slots.used();
  size_t blocks_scored = 0;
  float dist[quant::kMaxQueriesPerPass * kBlockVectors];
  uint32_t hits[quant::kMaxQueriesPerPass];
  quant::BlockScoring bs[quant::kMaxQueriesPerPass];
  for (size_t b = 0; b < nblocks; ++b) {
    const size_t base = b * kBlockVectors;
    uint32_t allowed = ~0u;
    if (filtered) {
      allowed = s.allow_mask[b];
    } else if (bits) {
      allowed = bits_mask(p, base, std::min(kBlockVectors, used - base));
    }
    if (allowed == 0) continue;  // no allowed id in this block
    ++blocks_scored;
    // A block's 32 offsets and scales never straddle two chunks (kSlotsPerScalarChunk is a
    // multiple of 32).
    const float* off = offset.row(base);
    const float* sc = scale.row(base);
    const uint8_t* block = codes.row(b);
    for (size_t i = 0; i < nq; ++i) {
      // Dead and padding slots score +inf and never enter, even while the heap has room.
      bs[i] = {t[i].c0, t[i].bias, t[i].step, std::min(tops[i].threshold(), FLT_MAX)};
    }
    if (p.float_tables) {
      for (size_t i = 0; i < nq; ++i) {
        hits[i] = 0;
        for (size_t v = 0; v < kBlockVectors; ++v) {
          const bool alive = base + v < used && slots.id_at(uint32_t(base + v)) != kNoId;
          const float score = alive ? float_score(uint32_t(base + v), s.lanes[i].ftables.data()) : 0.0f;
          float& d = dist[i * kBlockVectors + v];
          d = (t[i].c0 + off[v]) + sc[v] * score;
          hits[i] |= uint32_t(d <= bs[i].threshold) << v;
        }
      }
    } else if (nq == 1) {
      hits[0] = fastscan.scan_block(block, table_ptrs[0], groups, off, sc, bs[0], dist);
    } else {
      fastscan.scan_block_multi(block, table_ptrs, nq, groups, off, sc, bs, dist, hits);
    }
    for (size_t i = 0; i < nq; ++i) {
      uint32_t h = hits[i] & allowed;
      while (h) {
        const unsigned v = unsigned(__builtin_ctz(h));
        h &= h - 1;
        const uint64_t id = slots.id_at(uint32_t(base + v));
        if (p.predicate != nullptr && !p.predicate(p.predicate_ctx, id)) continue;
        tops[i].push(id, dist[i * kBlockVectors + v], uint32_t(base + v));
      }
    }
  }
  if (filtered) set_allow_mask(p, s, false);

  for (size_t i = 0; i < nq; ++i) {
    const size_t found = tops[i].finish();
    counts[i] = rescore(queries[i], t[i], s.lanes[i], found, k, p, outs[i]);
    add_stats(p, 0, blocks_scored * kBlockVectors, blocks_scored * block_scan_bytes() + rescore_bytes(found, k, p));
  }
}

// The seam between the scan and the final list: the scan's `found` candidates (lane.candidates,
// best first by their 8-bit estimate) are re-scored in place by the code stage — the refine
// plane, else float tables of the same codes (with float_tables the scan's scores already are)
// — then, for an exact rerank r >= 1, the best k * r of them by that estimate get exact
// distances from the kept vectors; the best k go to out.
size_t QuantizedIndex::Impl::rescore(const float* query, const QueryTables& t, quantized::QueryLane& lane, size_t found,
                                     size_t k, const QuantizedSearchParams& p, Neighbor* out) const {
  Candidate* cand = lane.candidates.data();
  const size_t rerank = p.rerank.value_or(0);
  if (refine_codec.enabled() && (rerank > 0 || !p.float_tables)) {  // the refine plane
    // Every candidate's row and scale are cache misses of their own (per slot, scattered): ask
    // for them all first, so the misses overlap instead of stalling one candidate at a time. In
    // wasm that is by loading them (core::warm_lines): 1.11x faster at 1M, 1,000 topics, in
    // Chromium and Node (bench/ivf/results/warm-rows-ab-20261207.txt). Not the code blocks: they
    // were just scanned, and warming them too was slower.
    uint32_t warmed = 0;
    for (size_t c = 0; c < found; ++c) {
      warmed += core::warm_lines(refine.row(cand[c].slot), refine.row_bytes());
      warmed += core::warm_lines(refine.scale_address(cand[c].slot), sizeof(float));
    }
    lane.warmed = warmed;
    for (size_t c = 0; c < found; ++c) cand[c].distance = refine_distance(t, lane.rotated.data(), cand[c]);
  } else if (!p.float_tables) {  // float-table scores of the same codes
    for (size_t c = 0; c < found; ++c) {
      const uint32_t slot = cand[c].slot;
      cand[c].distance = (t.c0 + offset_of(slot)) + scale_of(slot) * float_score(slot, lane.ftables.data());
    }
  }
  core::TopK best(out, std::min(k, found));
  if (rerank > 0 && keep_vectors) {  // exact distances for the best k * r by the code estimate
    const size_t exact = std::min(found, index::rerank_candidates(k, rerank));
    if (exact < found) {
      // Ties to the lower id, as the final list breaks them: the same set on every target.
      std::nth_element(cand, cand + exact, cand + found, [](const Candidate& a, const Candidate& b) {
        return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
      });
    }
    const float* q = metric == Metric::cosine ? lane.query.data() : query;
    for (size_t c = 0; c < exact; ++c) best.push(cand[c].id, exact_distance(q, cand[c].slot));
  } else {
    for (size_t c = 0; c < found; ++c) best.push(cand[c].id, cand[c].distance);
  }
  return best.finish();
}

// Bytes the re-scoring of `found` candidates reads: refine-plane rows, and the kept vectors of
// an exact rerank (rescore, above).
size_t QuantizedIndex::Impl::rescore_bytes(size_t found, size_t k, const QuantizedSearchParams& p) const {
  const size_t rerank = p.rerank.value_or(0);
  size_t bytes = 0;
  if (refine_codec.enabled() && (rerank > 0 || !p.float_tables))
    bytes += found * (refine.row_bytes() + sizeof(float));  // row and scale
  if (rerank > 0 && keep_vectors) bytes += std::min(found, index::rerank_candidates(k, rerank)) * dim * sizeof(float);
  return bytes;
}

// Adds one query's counts to p.stats (QuantizedSearchStats), if the call gave one.
void QuantizedIndex::Impl::add_stats(const QuantizedSearchParams& p, size_t lists, size_t vectors, size_t bytes) const {
  if (p.stats == nullptr) return;
  __atomic_fetch_add(&p.stats->queries, uint64_t(1), __ATOMIC_RELAXED);
  __atomic_fetch_add(&p.stats->lists_probed, uint64_t(lists), __ATOMIC_RELAXED);
  __atomic_fetch_add(&p.stats->vectors_scanned, uint64_t(vectors), __ATOMIC_RELAXED);
  __atomic_fetch_add(&p.stats->bytes_scanned, uint64_t(bytes), __ATOMIC_RELAXED);
}

size_t QuantizedIndex::Impl::search_partitioned(const float* query, size_t k, Neighbor* out,
                                                const QuantizedSearchParams& p, Scratch& s) const {
  const size_t depth = candidate_depth(k, p);
  const size_t nlists = ivf.lists();
  const size_t bits_count = index::allow_bits_count(p);  // 0 without a bitmap
  const bool listed = masked_up_front(p, bits_count);    // else an allow bitmap tested block by block
  const bool filtered = index::has_allow_set(p);
  // Twice the depth: PartitionCandidates' buffer. The allow mask only if used.
  s.reserve(dim, subq, groups, 2 * depth, listed ? blocks() : 0);
  s.reserve_lists(nlists, dim);
  quantized::QueryLane& lane = s.lanes[0];
  const QueryTables t = build_tables(query, lane, s.rot_tmp.data(), needs_float_tables(p));
  PartitionCandidates top(lane.candidates.data(), depth, slots.slot_ids());

  // Probe order: nearest centroid first (ties to the lower list), from the rotated query
  // (unit length under cosine) against the centroids in the same space; fixed-order scalar
  // sums (quantized_coarse.cpp), so every ISA probes the same lists.
  // Only the first lists of the order are ever needed (`probes` of them, more only while an
  // allow-list keeps the candidates short), so they are sorted on demand: order[0, sorted) is
  // final. The order is the total order (score, then list), so the prefix is the same as a
  // full sort's. It is kept as one 64-bit key a list (order_key: the score's bits made to
  // sort as integers, then the list), so selecting the next stretch is a pass of integer
  // compares over a contiguous array: with a comparison that loaded two scores through the
  // list numbers, the heap of std::partial_sort was 5 % of a wasm query at 4,096 lists.
  uint32_t* order = s.list_order.data();
  uint64_t* keys = s.list_keys.data();
  size_t sorted = nlists;
  const float* score = s.list_scores.data();
  // From CoarseQuantizer::kApproxFrom lists on, the scores are the 8-bit approximations
  // (quantized_coarse.hpp): natively at 2,048 lists x 384 the float scores were a fifth of a
  // query at the knee (3.1 MB read from L3 per query), the 8-bit ones take a quarter of the bytes
  // and fit in L2, and they probe the same lists but for near ties: the same recall at every
  // probe count on the 1M workload (docs/quantized.md).
  if (coarse.trained()) {
    coarse.order_scores(lane.rotated.data(), metric, kernels.dot_u8_gather, s.coarse_codes.data(),
                        s.list_scores.data());
    for (size_t l = 0; l < nlists; ++l) keys[l] = order_key(score[l], uint32_t(l));
    sorted = 0;
  } else {
    for (size_t l = 0; l < nlists; ++l) order[l] = uint32_t(l);  // one list (untrained): as it is
  }
  const auto sort_through = [&](size_t i) {  // makes order[i] final
    if (i < sorted) return;
    const size_t upto = std::min(nlists, std::max({i + 1, 2 * sorted, kFirstSorted}));
    std::partial_sort(keys + sorted, keys + upto, keys + nlists);
    for (size_t j = sorted; j < upto; ++j) order[j] = uint32_t(keys[j]);
    sorted = upto;
  };

  // Allow list: one mask word per block of every list, at block_base[list] + block. An allow
  // bitmap: each visited block's word is made from its slots' ids when it is reached.
  size_t allowed_total = 0;
  if (listed) {
    uint32_t* base = s.block_base.data();
    base[0] = 0;
    for (size_t l = 0; l < nlists; ++l) base[l + 1] = base[l] + uint32_t(ivf.blocks(l));
    allowed_total = set_allow_mask(p, s, true);
  } else if (filtered) {
    allowed_total = std::min(bits_count, live());
  }

  // Probes 0: unfiltered, the adaptive rule (SettleWatch); with an allow set, the budget below
  // from default_probes() lists and at least quantized::kDefaultMinScanned vectors (on a small
  // index the lists are few vectors each, while scanning a few thousand codes costs little).
  const bool adaptive = p.probes == 0 && !filtered;
  const size_t probes = std::min(p.probes > 0 ? p.probes : default_probes(), nlists);
  const size_t min_scanned = p.probes > 0 ? 0 : quantized::kDefaultMinScanned;
  sort_through((adaptive ? std::min(quantized::adaptive_patience(nlists), nlists) : probes) - 1);
  // When to stop (never before the candidates are full):
  //  - unfiltered (or a predicate only) at probes 0: once the answer settled (SettleWatch) and
  //    kAdaptiveMinScanned vectors were scanned;
  //  - unfiltered at probes p > 0: after p lists;
  //  - with an allow set (list or bitmap), N being what the unfiltered search scans (the sizes
  //    of the `probes` nearest lists, at least min_scanned), past `probes` lists: once as many *allowed* vectors
  //    were scored as N, or the blocks that held an allowed vector held 2 N vectors (and at
  //    least kMinAllowedScored allowed ones were scored), or every allowed vector was.
  //    Where the allowed vectors are spread evenly (a share s everywhere) the filtered top k
  //    lie among the unfiltered top k / s, further out than the unfiltered top k, and about
  //    twice the unfiltered scan recovers them to the unfiltered recall (measured on the
  //    filtered benchmark at s = 10 %: 1x gave recall 0.85 against 0.91 unfiltered, 2x 0.91,
  //    3x 0.94). Where they are a region (the blocks that hold one are mostly allowed) the
  //    region is searched like an unfiltered index: N allowed vectors, as an unfiltered search
  //    scans. Blocks without an allowed vector cost nothing and count for neither. So a
  //    filtered search costs about one to two unfiltered ones at any share, and a small allow
  //    set is scored exactly. Stopping at a full candidate heap instead (the first rule) lost a
  //    third of the neighbours under a 1 % allow-list: the few allowed vectors of the nearest
  //    lists fill the heap, while the allowed set's true neighbours lie in lists further out.
  size_t allowed_target = 0, block_target = 0;
  if (filtered) {
    for (size_t i = 0; i < probes; ++i) allowed_target += ivf.size(order[i]);
    allowed_target = std::max(allowed_target, min_scanned);
    block_target = 2 * allowed_target;
    allowed_target = std::min(allowed_target, allowed_total);
  }
  // The ball of the adaptive rule (kSettleBall): squared distances to the centroids are the
  // scores plus |q|^2 (l2_scores leaves it out; the rotation keeps the norm); under cosine the
  // scores plus |q|^2 are d^2 + r^2 / 2 (cosine_scores).
  const double ball = 1.0 + (metric == Metric::cosine ? kSettleBallCosine : kSettleBall);
  double q2 = 0.0;
  if (adaptive) {
    for (size_t d = 0; d < dim; ++d) q2 += double(lane.rotated[d]) * lane.rotated[d];
  }
  const auto outside_ball = [&](size_t i) {
    if (metric == Metric::ip || i >= nlists || !coarse.trained()) return true;
    sort_through(i);
    const double first = std::max(0.0, double(score[order[0]]) + q2), next = double(score[order[i]]) + q2;
    return next > ball * first;
  };
  SettleWatch settle(s.settle, adaptive ? std::max(k, kSettleDepth) : 0, nlists);
  size_t in_allowed_blocks = 0;  // vectors in the blocks that held an allowed one
  size_t scanned = 0, allowed_scanned = 0;
  float dist[kBlockVectors];
  // Natively the scan waits on memory: each block (codes, offsets, scales, slots: one
  // allocation) is 6 KB at d = 384 in a list far from the last one, and the first loads of
  // every block stalled. So while one block is scored the next one is fetched: this list's
  // next block, else the next probed list's first. (Nothing in wasm, which has no prefetch.)
  const size_t block_span = block_scan_bytes() + kBlockVectors * sizeof(uint32_t);  // + the block's slots
  size_t lists_probed = 0, blocks_scored = 0;
  const auto fetch_block = [block_span](const uint8_t* bytes) { core::prefetch_lines(bytes, block_span); };
  for (size_t i = 0; i < nlists; ++i) {
    if (filtered ? allowed_scanned >= allowed_total ||
                       (i >= probes && top.full() &&
                        (allowed_scanned >= allowed_target ||
                         (in_allowed_blocks >= block_target && allowed_scanned >= quantized::kMinAllowedScored)))
        : adaptive ? scanned >= kAdaptiveMinScanned && top.full() && settle.settled(i) && outside_ball(i)
                   : i >= probes && scanned >= min_scanned && top.full()) {
      break;
    }
    sort_through(i);
    const uint32_t l = order[i];
    ++lists_probed;
    scanned += ivf.size(l);
    const size_t nblocks = ivf.blocks(l);
    for (size_t b = 0; b < nblocks; ++b) {
      uint32_t allowed = ~0u;
      if (filtered) {
        const size_t in_block = std::min(kBlockVectors, ivf.size(l) - b * kBlockVectors);
        allowed = listed ? s.allow_mask[s.block_base[l] + b] : bits_mask(p, ivf.slots(l, b), in_block);
        if (allowed == 0) continue;
        allowed_scanned += size_t(__builtin_popcount(allowed));
        in_allowed_blocks += in_block;
      }
      ++blocks_scored;
      if (b + 1 < nblocks) {
        fetch_block(ivf.codes(l, b + 1));
      } else if (i + 1 < sorted && (adaptive || i + 1 < probes) && ivf.blocks(order[i + 1]) > 0) {
        fetch_block(ivf.codes(order[i + 1], 0));
      }
      const float* off = ivf.offsets(l, b);
      const float* sc = ivf.scales(l, b);
      const uint32_t* slot_of = ivf.slots(l, b);
      // Padding positions score +inf and never enter, even while the heap has room.
      const quant::BlockScoring bs{t.c0, t.bias, t.step, std::min(top.threshold(), FLT_MAX)};
      uint32_t hits;
      if (p.float_tables) {
        hits = 0;
        const size_t in_block = std::min(kBlockVectors, ivf.size(l) - b * kBlockVectors);
        for (size_t v = 0; v < kBlockVectors; ++v) {
          const float score = v < in_block ? float_score(slot_of[v], lane.ftables.data()) : 0.0f;
          dist[v] = (t.c0 + off[v]) + sc[v] * score;
          hits |= uint32_t(dist[v] <= bs.threshold) << v;
        }
      } else {
        hits = fastscan.scan_block(ivf.codes(l, b), lane.tables.data(), groups, off, sc, bs, dist);
      }
      hits &= allowed;
      const uint8_t* codes_of_block = ivf.codes(l, b);
      while (hits) {
        const unsigned v = unsigned(__builtin_ctz(hits));
        hits &= hits - 1;
        if (p.predicate != nullptr && !p.predicate(p.predicate_ctx, slots.id_at(slot_of[v]))) continue;
        top.push({0, dist[v], slot_of[v], v, codes_of_block, off[v]});
        if (adaptive) settle.offer(dist[v], i);
      }
    }
  }
  if (listed) set_allow_mask(p, s, false);
  const size_t found = top.finish();
  // Centroid bytes read: the floats (and norms), or the 8-bit codes (and lo, step, sum, norm).
  const size_t coarse_bytes = !coarse.trained()      ? 0
                              : coarse.approximate() ? nlists * (dim + 4 * sizeof(float))
                                                     : nlists * (dim + 1) * sizeof(float);
  add_stats(p, lists_probed, blocks_scored * kBlockVectors,
            blocks_scored * block_scan_bytes() + coarse_bytes + rescore_bytes(found, k, p));
  return rescore(query, t, lane, found, k, p, out);
}

size_t QuantizedIndex::Impl::search_one(const float* query, size_t k, Neighbor* out, const QuantizedSearchParams& p,
                                        Scratch& s) const {
  size_t count = 0;
  search_many(&query, 1, k, &out, &count, p, s);
  return count;
}

void QuantizedIndex::Impl::check_search(size_t k, const QuantizedSearchParams& p) const {
  core::check_k(k);  // the spine's order (index/common/batch.hpp): k, parameters, empty, own rules
  index::check_search_params(p);
  if (live() == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  // A depth needs something to re-score with: the kept vectors, else the refine plane.
  const bool can_rescore = keep_vectors || refine_codec.enabled();
  index::rerank_depth(p, 0, can_rescore ? index::Rescoring::kept_vectors : index::Rescoring::impossible,
                      "the f32 vectors or a refine plane, but this index was created with keep_vectors = false "
                      "and refine_bits = 0");
}

}  // namespace quiver
