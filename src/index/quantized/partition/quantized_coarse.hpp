// The coarse quantiser of the partitioned quantised index: L centroids, trained by k-means,
// that split the collection into L inverted lists. It lives in the rotated space of the codes
// and works on the vectors the codes stand for (decode_rotated: correction x centroid levels),
// so training, assignment and re-training need only the codes — never the f32 vectors, which
// an index without keep_vectors does not have.
//
// Determinism: the centroids and every assignment must be the same bits natively at every ISA
// level and in every wasm variant, so nothing here uses the dispatched distance kernels (their
// summation order differs by ISA). Scores are plain float sums over the dimension in a fixed
// order; the centroids are stored transposed in tiles of kTile centroids (each tile
// dimension-major), so a kernel vectorises *across* the centroids of a tile, which keeps every
// centroid's own sum in the same order, and a tile's running sums fit in registers. That kernel
// is simd::KernelTable::dot_f32_columns: dispatched (AVX-512 scores 16 centroids an
// instruction where the baseline build's loop scored 4), but the same bits at every level —
// a product and a sum per term, never fused, one lane per centroid (tested against the scalar
// loop at every level). The project builds with -ffp-contract=off and without -ffast-math
// (cmake/QuiverFlags.cmake), so no FMA or reassociation can change a result between targets.
// k-means sums in double.
//
// The approximate order (approx_scores): an index of kApproxFrom lists or more orders its
// lists for a search from an 8-bit copy of the centroids (a quarter of the bytes; at 2,048
// lists x 384 it is 0.8 MB, which stays in a core's L2 where the 3.1 MB of floats did not).
// Its sums are exact integers from the dispatched u8 dot kernel, which every ISA computes to
// the same bits, and the float steps around them are in a fixed order: the order is the same
// everywhere too. Training and assignment always use the float scores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "quiver/metric.hpp"
#include "simd/kernels.hpp"

namespace quiver::quantized {

class CoarseQuantizer {
 public:
  CoarseQuantizer() = default;
  // Takes lists x dim centroids, row-major, and either no spreads or one per list (the
  // inner-product list order's spread term, below). Throws std::bad_alloc.
  // `kernels`: the caller's ISA level (nullptr: scalar), for dot_f32_columns and dot_u8_gather;
  // every level gives the same bits, so it decides only the speed.
  CoarseQuantizer(size_t lists, size_t dim, std::vector<float> centroids, std::vector<float> spreads = {},
                  const simd::KernelTable* kernels = nullptr);

  size_t lists() const noexcept { return lists_; }
  bool trained() const noexcept { return lists_ > 0; }
  std::vector<float> centroids() const;                                    // lists x dim, row-major (a copy)
  const std::vector<float>& spreads() const noexcept { return spreads_; }  // empty, or one per list
  void set_spreads(std::vector<float> spreads) noexcept { spreads_ = std::move(spreads); }
  size_t memory_bytes() const noexcept;

  // Centroids per tile of the transposed storage (the last tile may be narrower).
  static constexpr size_t kTile = 32;

  // out[c] = |c|^2 - 2 <x, c>: the order of squared l2 distance from x (|x|^2 left out).
  void l2_scores(const float* x, float* out) const noexcept;
  // The inner-product list order: out[c] = -<x, c> / |x| - (1 - kSpreadCharge) spread[c] (no
  // spreads: 0; x = 0: every list 0). -<x, c> alone ranks by the mean inner product of a list
  // and so favours centroids of large norm — tight lists — over spread-out ones that hold the
  // best vectors (issue 23: recall 0.49 against cosine's 0.74 at 4 probes on the same unit
  // vectors). The spread term is the optimism a list deserves for its spread: spread =
  // r^2 / (2 m), m the root mean square norm of its vectors and r^2 = m^2 - |c|^2 their mean
  // squared distance to their mean (quantized_partition.cpp measures m when it trains). With
  // the whole spread (charge 0) this is, on vectors of one length m = |x|, the l2 order of the
  // query put on their sphere: for unit vectors -<q, c> - (1 - |c|^2) / 2 =
  // (|c|^2 - 2 <q, c> - 1) / 2. Charging part of the spread back, as the cosine order below
  // does, keeps the two orders one on unit vectors: -<q, c> - (1 - w) r^2 / 2 =
  // (d^2 + w r^2) / 2 - 1 with w = kSpreadCharge. Dividing by |x| keeps the order the same for
  // every length of query, as the answer is.
  void ip_scores(const float* x, float* out) const noexcept;
  // The cosine list order: out[c] = d^2 + kSpreadCharge * r^2 - |x|^2, d the distance from x to
  // centroid c and r^2 = 1 - |c|^2 the mean squared distance of the list's unit vectors to
  // their mean, so (1 - kSpreadCharge) |c|^2 - 2 <x, c> + kSpreadCharge. The mean squared
  // distance from x to a list's vectors is d^2 + r^2: a spread-out list whose centroid is near
  // holds fewer near vectors than a tight one at the same d. The l2 order (charge 0) ranks by d
  // alone, the mean distance (charge 1) over-charges the spread; measured on the 1M
  // embedding-like sets (the share of the true top 10 in the lists probed against the vectors
  // scanned; charges 0, 0.3, 0.4, 0.5, 1), half the spread needs the fewest vectors: 16 % fewer
  // than the l2 order at 1,000 topics and 42 % fewer at 10,000 for 95 % of the top 10
  // (docs/quantized.md, "The cosine list order").
  void cosine_scores(const float* x, float* out) const noexcept;
  static constexpr float kSpreadCharge = 0.5f;
  static constexpr float kSpreadCredit = 1.0f - kSpreadCharge;  // the inner-product order's share
  static float cosine_score(float norm2, float dot) noexcept {
    return ((1.0f - kSpreadCharge) * norm2 - 2.0f * dot) + kSpreadCharge;
  }
  // l2_scores' value for one centroid, in the same summation order (the same bits).
  float l2_score(const float* x, size_t c) const noexcept;
  // The list x belongs to: the smallest l2 score, ties to the lower list. `scores` holds lists().
  uint32_t nearest(const float* x, float* scores) const noexcept;
  // nearest() of n <= kNearestRows rows (n x dim, contiguous) at once: out[r] is exactly
  // nearest(rows + r * dim). Tile by tile, every row against a tile before the next, so a tile
  // is read from memory once for n rows instead of once a row (at 2,048 lists x 384 the
  // centroids are 3.1 MB; a tile is 48 KB and stays in L2 across the rows).
  //
  // With a scratch and the 8-bit copy (approximate()), each row is assigned through a filter
  // instead, with the same answer: the 8-bit scores (exact integer sums, a quarter of the bytes
  // and several times the multiply-adds an instruction) less a proven bound on their error —
  // |x - x'| |c| + |x'| |c - c'| for the 8-bit x', c', plus the float rounding of the exact score —
  // say which centroids could still be nearest, and only those get the exact float score. Every
  // centroid left out has an exact score above the best one found, so the nearest, ties and all,
  // is what the full scan finds.
  static constexpr size_t kNearestRows = 16;
  struct NearestScratch {
    std::vector<uint8_t> codes;  // dim: a row's 8-bit codes
    std::vector<double> bound;   // lists: each centroid's lowest possible exact score
  };
  void nearest_many(const float* rows, size_t n, uint32_t* out, NearestScratch* scratch = nullptr) const noexcept;
  // Sizes a scratch for nearest_many (throws std::bad_alloc).
  void reserve(NearestScratch& s) const;
  // What a caller passes to nearest_many: `s`, sized, where the filter pays (filter_pays()),
  // else nullptr (the tile scan; `s` stays empty). Throws std::bad_alloc.
  NearestScratch* filter_scratch(NearestScratch& s) const;
  // Whether the filter is faster than the tile scan at this quantiser's ISA level, so callers
  // pass a scratch: in wasm SIMD128 (four float lanes, and an 8-bit dot product that does 8
  // multiply-adds an instruction), a 1M build 125 -> 97 s; natively at AVX-512 the float tiles
  // (16 lanes, 16 rows a tile) win, 26 s against 41 s with the filter. The filter kept 0.18
  // exact scores a row beyond the first there (3.1 million rows assigned in the build).
  bool filter_pays() const noexcept { return approximate() && isa_ == Isa::wasm128; }
  // Replaces centroid c (dim floats): the balancing step moves one centroid at a time.
  void set_centroid(size_t c, const float* row) noexcept;

  // From this many lists on the quantiser keeps the 8-bit copy and approximate() is true.
  static constexpr size_t kApproxFrom = 512;
  bool approximate() const noexcept { return lists_ >= kApproxFrom; }
  // Approximate l2_scores, ip_scores or cosine_scores (by metric) of every centroid, from the
  // 8-bit codes of x (written to x_codes, dim bytes) and of the centroids: each code is
  // lo + step * u with u in 0..255 per row, so <x, c> = lo_x T_c + step_x (U_x lo_c +
  // step_c <u_x, u_c>) with T_c = D lo_c + step_c U_c (U: a row's code sum), the last sum from
  // `dot` (exact integers), the rest in float, one lane per centroid. Only when approximate().
  void approx_scores(const float* x, Metric metric, simd::DistanceU8GatherFn dot, uint8_t* x_codes,
                     float* out) const noexcept;
  // The probe order's scores of every centroid for a search under `metric`: approx_scores from
  // kApproxFrom lists on, else l2_scores, ip_scores or cosine_scores. `x_codes` (dim bytes) is
  // used only by approx_scores.
  void order_scores(const float* x, Metric metric, simd::DistanceU8GatherFn dot, uint8_t* x_codes,
                    float* out) const noexcept;

 private:
  size_t lists_ = 0;
  size_t dim_ = 0;
  // Where coordinate d of centroid c is stored: tiles of kTile centroids, tile t at
  // t * kTile * dim, dimension-major inside (width = the tile's centroids).
  size_t column_at(size_t c, size_t d) const noexcept {
    const size_t first = c - c % kTile;
    const size_t width = lists_ - first < kTile ? lists_ - first : kTile;
    return first * dim_ + d * width + c % kTile;
  }

  simd::DotColumnsFn dots_ = nullptr;          // a tile's scores (dot_f32_columns of some ISA level)
  simd::DistanceU8GatherFn gather_ = nullptr;  // 8-bit scores (dot_u8_gather of the same level)
  Isa isa_ = Isa::scalar;                      // the level they are from
  uint32_t nearest_filtered(const float* x, NearestScratch& s) const noexcept;
  void dots(const float* x, float* out) const noexcept;  // every tile: out[c] = <x, c>
  std::vector<float> cols_;     // lists x dim in tiles (column_at), for the scans; the only copy
  std::vector<float> norms_;    // |c|^2, from a double sum
  std::vector<float> spreads_;  // per list (inner product only), or empty
  // The 8-bit copy (approx_scores): lists x dim codes, row-major, and per row its lo, step
  // and the sum of its codes.
  std::vector<uint8_t> codes_;
  std::vector<float> code_lo_, code_step_;
  std::vector<uint32_t> code_sum_;
  std::vector<float> code_total_;  // D lo + step * code sum: the sum of the 8-bit row's coordinates
  // Per row, for the filter's bound: |c|^2 (double sum), and |c| and |c - c'| rounded up.
  std::vector<double> norm2_, norm_, code_err_;
  // Row c of every copy from `row`: the tiled floats and |c|^2, and with the 8-bit copy its
  // codes and the filter's terms (one double sum of |c|^2 for both).
  void store_row(size_t c, const float* row) noexcept;
  float inv_norm(const float* x) const noexcept;  // 1 / |x| (0 for x = 0), as ip_scores uses it
};

// k-means (Lloyd) with `lists` centroids over n >= lists training vectors of `dim` floats;
// get(i, out) writes vector i. Seeded initialisation (lists distinct vectors picked with
// core::Rng), `iterations` rounds; a cluster left empty takes half of the largest one (its
// centroid split by a small deterministic perturbation). Returns lists x dim centroids.
// Throws std::bad_alloc.
// `kernels` as CoarseQuantizer's (nullptr: scalar; the same centroids either way).
std::vector<float> train_kmeans(size_t dim, size_t lists, size_t n, const std::function<void(size_t, float*)>& get,
                                uint64_t seed, int iterations, const simd::KernelTable* kernels = nullptr);

// Evens out the clusters k-means left (quantized_coarse.cpp, above balance_clusters): while the
// largest cluster of the n training vectors holds more than `cap` x the mean and the smallest
// fewer than half of it, the smallest is dissolved into its members' nearest other clusters
// and its centroid re-used to split the largest in two (2-means over its members). The number
// of lists stays the same. At most lists / 4 such moves. Changes `centroids` (lists x dim) in
// place; returns the moves made. Throws std::bad_alloc.
size_t balance_clusters(size_t dim, size_t lists, size_t n, const std::function<void(size_t, float*)>& get,
                        std::vector<float>& centroids, double cap, const simd::KernelTable* kernels = nullptr);

}  // namespace quiver::quantized
