// Partitions of the quantised index: when the coarse quantiser is trained, what it is trained
// on, and how adds and removes keep the inverted lists in step.
//
// Lists hold the *raw* codes (the same data-oblivious codes as the unpartitioned index), not
// codes of the residual from the list's centroid. Why: one set of query lookup tables then
// scores every probed list (residual codes need a table per probed list, i.e. `probes` table
// builds per query); a vector's codes never depend on the centroids, so re-training only moves
// codes between lists, without re-encoding — which matters because the index may not have the
// f32 vectors (keep_vectors = false). Residual codes would be more accurate per bit; the refine
// plane (src/quant) recovers accuracy instead, for all vectors alike.
//
// Training works on the vectors the codes stand for (decode_rotated), in the rotated space, so
// it needs only the codes and gives the same centroids from an index file as from the live
// index. k-means (quantized_coarse.cpp) on a seeded sample of kTrainPerList vectors per list.
//
// When — at fixed sizes, so the lists are a function of the rows in add order, never of how
// they were batched (one add, the JS binding's 4 MiB slices and the CLI's chunks give the same
// centroids, lists and file bytes for the same rows):
//   * Thresholds: T_0 = kAutoTrainAt (4096) under lists = kAutoLists, 32 * N under lists = N
//     (32 = one block per list on average); T_j = T_0 * 2^j. Below T_0 the index is one list
//     (a full scan).
//   * An add that brings the index past one or more thresholds above the last training trains
//     once, at the last threshold T it reached, on exactly the first T rows in slot order
//     (the live slots, then the batch's rows in order — for pure adds that is add order),
//     with lists = auto_lists(T, bits) (below) or N, and a sample seeded by T alone; k-means, then
//     balance_clusters (quantized_coarse.cpp: while a list of the sample holds more than
//     kBalanceCap = 2x the mean and the smallest under half of it, the smallest is dissolved
//     and its centroid splits the largest). Then every live
//     vector and every new row is assigned to its nearest centroid (each on its own, so the
//     assignment of a row does not depend on its batch either).
//   * Auto lists = min(T / 256, round(3 sqrt(T))), at least 1, at most kMaxLists: 256 lists
//     at 100,000 vectors (T = 65,536), 2,048 at 1,000,000 (T = 524,288), 3,072 from 1,048,576.
//     With 2-bit codes twice that, min(T / 128, round(6 sqrt(T))): 512 at 100,000, 4,096 at
//     1,000,000 (below).
//     The linear part keeps 256 vectors (8 blocks) per list at training time, so a list's
//     half-empty last block stays a small part of its bytes (at 1M, 4,096 lists came to 398.5
//     B/vector against 389.0 with 2,048). The sqrt part bounds the per-query coarse cost
//     (lists x dim) and the k-means cost (~lists^2) once the index is large. Measured in one
//     sitting on the embedding-like workload at 1,000,000 x 384, one query per call, at the
//     first probes with recall@10 >= 0.95: 2,048 lists answer 2.3x the QPS of 724 (the old
//     round(sqrt(T)) rule) in wasm simd-mt and 2.0x natively
//     (bench/results/ivf-1m-lists-ab-20261201T1331Z.txt). More than T / 256 lists cost bytes
//     (2,896: 393.0 B/vector at 1M, more just after a re-training) and k-means time
//     (~lists^2); in single trials natively, 1,448-4,096 lists were within 15 % of each
//     other. Imbalanced (Zipf) collections gain most: with 724 lists a query's 12 nearest
//     lists held 44,000 vectors on average, 2.6x the mean list size.
//     With 2-bit codes a block lane is 108 bytes at d = 384 instead of 204, so 128 vectors a
//     list cost in padding what 256 cost at 4 bits, and twice the lists pay under the adaptive
//     default: at 1M x 384 (2 + 5 codes) 4,096 lists read a third fewer vectors for the same
//     recall (1,000 topics: 0.961 from 7,988 vectors against 0.959 from 11,886; 10,000 topics:
//     0.956 from 29,232 against 0.958 from 49,481), for 393.9 B/vector against 386.4, and in
//     wasm they answer as fast at 1,000 topics and 1.2-1.3x faster at 10,000
//     (bench/ivf/results/lists-4096-default-ab-20261207.*).
//   * Growth factor 2, not 4: one re-assignment of every vector per doubling, at most 2x the
//     assignments the adds do anyway (4/3x with 4), and the collection never outgrows its
//     centroids by more than 2x. The new lists are filled as the old ones empty, block by
//     block (plan_partition counts the places that takes beforehand), so a re-training add
//     does not hold the codes twice; then the lists are packed (quantized_lists.hpp).
//   Removals never re-train (a later add re-trains at the next threshold above the last one).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/rng.hpp"
#include "base/work_report.hpp"
#include "index/quantized/quantized_impl.hpp"
#include "parallel/thread_pool.hpp"

namespace quiver {

using quant::kBlockVectors;
using quantized::CoarseQuantizer;
using quantized::InvertedLists;

namespace {

constexpr size_t kAutoTrainAt = 4096;
constexpr size_t kMinPerList = 32;
constexpr uint64_t kRetrainGrowth = 2;
constexpr size_t kTrainPerList = 40;
constexpr int kIterations = 8;
constexpr size_t kAssignChunk = 256;     // rows per task of a parallel assignment
constexpr size_t kAssignPieces = 16;     // reports over a re-assignment when an observer listens
constexpr size_t kAutoPerList = 256;     // auto lists: at least this many vectors per list at T
constexpr double kAutoSqrtFactor = 3.0;  // auto lists: at most this times sqrt(T)
constexpr size_t kAutoFactor2Bit = 2;    // with 2-bit codes: this times as many lists
constexpr double kBalanceCap = 2.0;      // balanced lists: none above this times the mean (sample)

// The last training threshold that `live_after` vectors reach above the last training
// (`trained_on`, 0 = never), or 0 when none is due. 64-bit: wasm32's size_t would overflow.
uint64_t training_threshold(uint64_t first, uint64_t trained_on, uint64_t live_after) {
  uint64_t t = first;
  while (t <= trained_on) t *= kRetrainGrowth;
  if (t > live_after) return 0;
  while (t * kRetrainGrowth <= live_after) t *= kRetrainGrowth;
  return t;
}

}  // namespace

size_t quantized::auto_lists(size_t t, unsigned bits) {
  const size_t factor = bits == 2 ? kAutoFactor2Bit : 1;
  const uint64_t by_size = uint64_t(t) * factor / kAutoPerList;  // 64-bit: wasm32's size_t would overflow
  const size_t by_sqrt = size_t(std::llround(double(factor) * kAutoSqrtFactor * std::sqrt(double(t))));
  return size_t(std::clamp<uint64_t>(std::min<uint64_t>(by_size, by_sqrt), 1, kMaxLists));
}

// Probes when a call does not say: round(1.5 sqrt(lists)), at least 8 (or every list), and
// the search then scans at least kDefaultMinScanned vectors (quantized_search.cpp). The
// lists a query's neighbours fall into grow more slowly than the list count, so a fixed
// fraction of the lists would over-scan large indexes. Measured on the embedding-like
// workload at 100,000 x 384 (200 lists: 21 probes, about 10% of the codes): recall@10 0.98
// with rerank 4, 0.91 from the codes alone (whose limit, at every probe count, is ~0.93 there).
size_t QuantizedIndex::Impl::default_probes() const {
  const size_t l = ivf.lists();
  const size_t p = size_t(std::llround(1.5 * std::sqrt(double(l))));
  return std::min(l, std::max<size_t>(8, p));
}

void QuantizedIndex::Impl::decode_rotated(const uint8_t* unpacked, float scale, float* out) const {
  // scale = -m * correction (m = 2 under l2, else 1); the estimate of <q, x> is
  // correction * <R q, reconstruction>, so correction * reconstruction is the vector the codes
  // stand for.
  const float correction = -scale / (metric == Metric::l2 ? 2.0f : 1.0f);
  const float* cent = codebook.centroids.data();
  if (bits == 4) {
    for (size_t d = 0; d < dim; ++d) out[d] = correction * cent[unpacked[d]];
  } else {
    for (size_t d = 0; d < dim; ++d) out[d] = correction * cent[(unpacked[d / 2] >> (2 * (d % 2))) & 3];
  }
}

void QuantizedIndex::Impl::decode_slot(uint32_t slot, float* out) const {
  const float correction = -scale_of(slot) / (metric == Metric::l2 ? 2.0f : 1.0f);
  const float* cent = codebook.centroids.data();
  for (size_t d = 0; d < dim; ++d) {
    const unsigned level = bits == 4 ? read_code(slot, d) : (read_code(slot, d / 2) >> (2 * (d % 2))) & 3;
    out[d] = correction * cent[level];
  }
}

// Every live vector is in the list of its nearest centroid (ties to the lower list): training
// assigns every vector so, adds assign each new one so, removals move none between lists. A
// file's CRCs say its bytes are the ones written, not that they were written by this code, so
// a loader checks the invariant on a seeded sample — one vector of every non-empty list,
// against its own centroid and kAssignmentRivals other lists' — at about 10 x lists x dim
// multiply-adds (8 M at 2,048 lists x 384: milliseconds). It refuses every list re-numbered
// (l -> l + 1 mod lists), and two swapped centroid rows with all but certainty (each sampled
// vector of the two lists has its own centroid replaced by an unrelated one; 8 random rivals
// find a nearer one with probability ~1 - 2^-8 each). What it cannot refuse: a few vectors
// moved to a wrong list, or a file crafted to pass (whoever can fix a CRC can write any
// well-formed index — the check is against damage and careless tools, not against a forger).
// Returns an empty string, or what is wrong.
std::string QuantizedIndex::Impl::partition_fault() const {
  if (!coarse.trained()) return {};
  constexpr size_t kAssignmentRivals = 8;
  const size_t lists = ivf.lists();
  core::Rng rng(seed ^ (uint64_t(trained_on) << 24) ^ 0xa55e55ULL);
  std::vector<float> x(dim);
  for (size_t l = 0; l < lists; ++l) {
    const size_t size = ivf.size(l);
    if (size == 0) continue;
    const size_t pos = size_t(rng.next() % uint64_t(size));
    const uint32_t slot = ivf.slots(l, pos / kBlockVectors)[pos % kBlockVectors];
    decode_slot(slot, x.data());
    const float own = coarse.l2_score(x.data(), l);
    for (size_t r = 0; r < kAssignmentRivals && lists > 1; ++r) {
      size_t m = size_t(rng.next() % uint64_t(lists - 1));
      if (m >= l) ++m;  // any list but l
      const float rival = coarse.l2_score(x.data(), m);
      if (rival < own || (rival == own && m < l)) {
        return "slot " + std::to_string(slot) + " is in list " + std::to_string(l) +
               " but nearer the centroid of list " + std::to_string(m) +
               " (lists or centroids do not match the vectors)";
      }
    }
  }
  return {};
}

QuantizedIndex::Impl::PartitionPlan QuantizedIndex::Impl::plan_partition(const Encoded& rows, size_t n) {
  PartitionPlan plan;
  plan.row_list.assign(n, 0);
  const size_t old_used = slots.used();
  const size_t live_after = live() + n;
  const bool auto_count = lists_option == QuantizedIndexOptions::kAutoLists;
  const uint64_t first = auto_count ? kAutoTrainAt : uint64_t(kMinPerList) * lists_option;
  const size_t threshold = size_t(training_threshold(first, coarse.trained() ? trained_on : 0, live_after));
  const bool due = threshold > 0;
  const size_t want = auto_count ? quantized::auto_lists(threshold, bits) : lists_option;

  // The training and assignment input: live slots in slot order, then the new rows.
  std::vector<uint32_t> live_slots;
  if (due) {
    live_slots.reserve(live());
    for (size_t s = 0; s < old_used; ++s) {
      if (slots.id_at(uint32_t(s)) != kNoId) live_slots.push_back(uint32_t(s));
    }
  }
  const size_t olds = live_slots.size();
  auto get = [&](size_t i, float* out) {
    if (i >= olds) {
      const size_t r = i - olds;
      decode_rotated(rows.codes.data() + r * subq, rows.scale[r], out);
      return;
    }
    decode_slot(live_slots[i], out);
  };

  const CoarseQuantizer* assign_with = &coarse;
  const size_t total = olds + n;
  std::vector<uint32_t> assignment;
  if (due) {
    plan.retrain = true;
    // Trained on the first `threshold` inputs only (input order = slot order, then the batch),
    // with a sample seeded by the threshold: nothing here depends on how the rows were batched.
    const size_t trained = std::min(threshold, total);
    const size_t lists = std::min(want, trained);
    plan.trained_on = threshold;
    // A seeded sample of the training rows, in input order.
    const size_t sample_n = std::min(trained, kTrainPerList * lists);
    std::vector<uint32_t> sample(trained);
    for (size_t i = 0; i < trained; ++i) sample[i] = uint32_t(i);
    core::Rng rng(seed ^ (uint64_t(threshold) << 20) ^ 0x5a3c1e);
    for (size_t i = 0; i < sample_n; ++i) {
      std::swap(sample[i], sample[i + size_t(rng.next() % uint64_t(trained - i))]);
    }
    sample.resize(sample_n);
    std::sort(sample.begin(), sample.end());
    const auto get_sample = [&](size_t i, float* out) { get(sample[i], out); };
    // The index's ISA level for the centroid scores: the same bits as any other, faster.
    std::vector<float> centroids =
        quantized::train_kmeans(dim, lists, sample_n, get_sample, seed, kIterations, &kernels);
    quantized::balance_clusters(dim, lists, sample_n, get_sample, centroids, kBalanceCap, &kernels);
    plan.coarse = CoarseQuantizer(lists, dim, std::move(centroids), {}, &kernels);
    plan.ivf = InvertedLists(lists, block_bytes());
    assign_with = &plan.coarse;
    assignment.resize(total);
  } else if (coarse.trained()) {
    assignment.resize(total);
  }

  // Nearest centroid of every input (each on its own: any thread split gives the same lists).
  // A training under inner product also measures each input's squared norm, for the lists'
  // spread terms (quantized_coarse.hpp).
  const bool spreads = plan.retrain && metric == Metric::ip;
  std::vector<float> norm2(spreads ? total : 0);
  if (!assignment.empty()) {
    const size_t chunks = (total + kAssignChunk - 1) / kAssignChunk;
    // A re-training re-assigns every vector: with an observer, in kAssignPieces parts, with a
    // report after each (base/work_report.hpp); an add that only assigns its own rows reports
    // nothing (it is as quick as encoding them).
    const size_t pieces = plan.retrain && core::work_observed() ? std::min(kAssignPieces, chunks) : 1;
    for (size_t piece = 0; piece < pieces; ++piece) {
      const size_t first = chunks * piece / pieces, last = chunks * (piece + 1) / pieces;
      parallel::process_pool().parallel_for(last - first, [&](size_t task, size_t) {
        constexpr size_t kRows = CoarseQuantizer::kNearestRows;  // rows to a nearest_many call
        std::vector<float> x(kRows * dim);
        CoarseQuantizer::NearestScratch scratch;
        CoarseQuantizer::NearestScratch* filter = assign_with->filter_scratch(scratch);
        const size_t chunk = first + task;
        const size_t end = std::min(total, (chunk + 1) * kAssignChunk);
        for (size_t i = chunk * kAssignChunk; i < end; i += kRows) {
          const size_t rows = std::min(kRows, end - i);
          for (size_t r = 0; r < rows; ++r) get(i + r, x.data() + r * dim);
          assign_with->nearest_many(x.data(), rows, assignment.data() + i, filter);
          for (size_t r = 0; spreads && r < rows; ++r) {
            double n2 = 0.0;
            for (size_t d = 0; d < dim; ++d) n2 += double(x[r * dim + d]) * x[r * dim + d];
            norm2[i + r] = float(n2);
          }
        }
      });
      if (plan.retrain) core::report_work("assigning", piece + 1, pieces);
    }
    for (size_t r = 0; r < n; ++r) plan.row_list[r] = assignment[olds + r];
  }
  if (spreads) {
    // spread = r^2 / (2 m) with m^2 the list's mean squared norm and r^2 = m^2 - |c|^2 (the
    // spread about the mean, which the centroid stands for: it is the mean of the list's part
    // of the k-means sample). Measuring r^2 about the centroid itself instead adds the
    // sample's own error |mean - c|^2, noise that cost recall against cosine. Sums in input
    // order: the same bits for any split of the work.
    const size_t lists = plan.coarse.lists();
    std::vector<double> sum_n2(lists, 0.0);
    std::vector<size_t> members(lists, 0);
    for (size_t i = 0; i < total; ++i) {
      sum_n2[assignment[i]] += norm2[i];
      ++members[assignment[i]];
    }
    std::vector<float> spread(lists, 0.0f);
    const std::vector<float> centroids = plan.coarse.centroids();
    for (size_t l = 0; l < lists; ++l) {
      if (members[l] == 0 || sum_n2[l] <= 0.0) continue;
      double c2 = 0.0;
      for (size_t d = 0; d < dim; ++d) c2 += double(centroids[l * dim + d]) * centroids[l * dim + d];
      const double m2 = sum_n2[l] / double(members[l]);
      spread[l] = float(std::max(0.0, m2 - c2) / (2.0 * std::sqrt(m2)));
    }
    plan.coarse.set_spreads(std::move(spread));
  }

  // Room for everything, before anything is committed.
  InvertedLists& target = plan.retrain ? plan.ivf : ivf;
  std::vector<size_t> count(target.lists(), 0);
  for (size_t i = 0; i < total; ++i) ++count[assignment.empty() ? 0 : assignment[i]];
  if (!plan.retrain) {
    // (Reserving room in the live lists changes only their capacity, never what they hold.)
    for (size_t l = 0; l < target.lists(); ++l) {
      if (count[l] > 0) target.reserve(l, count[l]);
    }
    return plan;
  }
  // Re-training: apply moves the old vectors into the new lists in slot order, then appends the
  // rows, and each old block's place goes back to the arena as soon as its last vector has
  // moved, for the new lists to take. So the codes are never all held twice: the plan grows the
  // arena only by the places it lacks at the fullest point of that sequence, found here by
  // running it on counts (new blocks in use + old blocks not yet emptied).
  for (size_t l = 0; l < plan.ivf.lists(); ++l)
    plan.ivf.reserve_block_table(l, (count[l] + kBlockVectors - 1) / kBlockVectors);
  plan.block_base.resize(ivf.lists() + 1);
  size_t old_blocks = 0;
  for (size_t l = 0; l < ivf.lists(); ++l) {
    plan.block_base[l] = uint32_t(old_blocks);
    old_blocks += ivf.blocks(l);
  }
  plan.block_base[ivf.lists()] = uint32_t(old_blocks);
  plan.remaining.assign(old_blocks, uint8_t(kBlockVectors));
  for (size_t l = 0; l < ivf.lists(); ++l) {
    if (ivf.size(l) % kBlockVectors != 0)
      plan.remaining[plan.block_base[l] + ivf.blocks(l) - 1] = uint8_t(ivf.size(l) % kBlockVectors);
  }
  std::vector<uint8_t> left = plan.remaining;
  std::vector<size_t> filled(plan.ivf.lists(), 0);
  size_t old_in_use = old_blocks, new_in_use = 0, peak = old_blocks;
  for (size_t i = 0; i < total; ++i) {
    if (filled[assignment[i]]++ % kBlockVectors == 0) ++new_in_use;  // a new block, taken before
    peak = std::max(peak, new_in_use + old_in_use);                  // the old one is given back
    if (i < olds) {
      const uint32_t slot = live_slots[i], pos = *slot_pos.row(slot);
      if (--left[plan.block_base[*slot_list.row(slot)] + pos / kBlockVectors] == 0) --old_in_use;
    }
  }
  // Every place of the old arena serves: its blocks in use as they empty, its spare and free
  // places at once.
  plan.live_list.assign(assignment.begin(), assignment.begin() + ptrdiff_t(olds));
  plan.live_slots = std::move(live_slots);
  if (peak > ivf.places_in_use()) ivf.reserve_places(peak - ivf.places_in_use());  // last: may throw
  return plan;
}

void QuantizedIndex::Impl::apply_partition(PartitionPlan& plan, const Encoded& rows, const uint32_t* row_slots,
                                           size_t n) noexcept {
  if (plan.retrain) {
    // The sequence plan_partition counted: each old vector, in slot order, to its new list;
    // each old block's place back to the arena once emptied. (A slot's own list and position
    // are read before they are overwritten, and no other slot's are touched.)
    plan.ivf.adopt_arena(ivf);
    for (size_t i = 0; i < plan.live_slots.size(); ++i) {
      const uint32_t slot = plan.live_slots[i], from_list = *slot_list.row(slot), from_pos = *slot_pos.row(slot);
      const uint32_t l = plan.live_list[i];
      const uint32_t pos = plan.ivf.append_moved(l, slot, ivf, from_list, from_pos);
      if (--plan.remaining[plan.block_base[from_list] + from_pos / kBlockVectors] == 0) {
        plan.ivf.release_block(ivf, from_list, from_pos / kBlockVectors);
      }
      *slot_list.row(slot) = l;
      *slot_pos.row(slot) = pos;
    }
    coarse = std::move(plan.coarse);
    ivf = std::move(plan.ivf);
    trained_on = plan.trained_on;
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = row_slots[i], l = plan.row_list[i];
    *slot_list.row(slot) = l;
    *slot_pos.row(slot) =
        ivf.append_planned(l, slot, rows.codes.data() + i * subq, subq, rows.offset[i], rows.scale[i]);
  }
  // Blocks taken one at a time land wherever a place was free: put each list's blocks side by
  // side again once enough are out of place (quantized_lists.hpp), always after a re-training.
  ivf.pack_if_scattered();
}

void QuantizedIndex::Impl::remove_from_partition(uint32_t slot) noexcept {
  const uint32_t l = *slot_list.row(slot), pos = *slot_pos.row(slot);
  const uint32_t moved = ivf.remove(l, pos);
  if (moved != InvertedLists::kNone) *slot_pos.row(moved) = pos;
}

}  // namespace quiver
