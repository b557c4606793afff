// The coarse quantiser (quantized_coarse.hpp): centroid scores in a fixed summation order, and
// deterministic k-means. Compiled at the baseline like all non-kernel code.
#include "index/quantized/partition/quantized_coarse.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/rng.hpp"
#include "base/work_report.hpp"
#include "parallel/thread_pool.hpp"

namespace quiver::quantized {

CoarseQuantizer::CoarseQuantizer(size_t lists, size_t dim, std::vector<float> centroids, std::vector<float> spreads,
                                 const simd::KernelTable* kernels)
    : lists_(lists),
      dim_(dim),
      dots_((kernels != nullptr ? *kernels : simd::scalar_kernels()).dot_f32_columns),
      gather_((kernels != nullptr ? *kernels : simd::scalar_kernels()).dot_u8_gather),
      isa_(kernels != nullptr ? kernels->isa : Isa::scalar),
      spreads_(std::move(spreads)) {
  cols_.resize(lists * dim);
  norms_.resize(lists);
  if (approximate()) {
    codes_.resize(lists * dim);
    code_lo_.resize(lists);
    code_step_.resize(lists);
    code_sum_.resize(lists);
    code_total_.resize(lists);
    norm_.resize(lists);
    norm2_.resize(lists);
    code_err_.resize(lists);
  }
  for (size_t c = 0; c < lists; ++c) store_row(c, centroids.data() + c * dim);
}

namespace {

// 8 bits per coordinate over the row's own range: lo + step * u, u = round((x - lo) / step).
// Plain IEEE operations in a fixed order (the same codes on every target). Returns the sum of
// the codes.
uint32_t encode_u8(const float* x, size_t dim, uint8_t* out, float& lo, float& step) noexcept {
  float mn = dim > 0 ? x[0] : 0.0f, mx = mn;
  for (size_t d = 1; d < dim; ++d) {
    mn = std::min(mn, x[d]);
    mx = std::max(mx, x[d]);
  }
  lo = mn;
  step = (mx - mn) / 255.0f;
  uint32_t sum = 0;
  for (size_t d = 0; d < dim; ++d) {
    float u = step > 0.0f ? std::floor((x[d] - mn) / step + 0.5f) : 0.0f;
    u = std::min(255.0f, std::max(0.0f, u));
    out[d] = uint8_t(u);
    sum += out[d];
  }
  return sum;
}

}  // namespace

// |x - x'| for the 8-bit x' of `codes` (lo + step * u, in real arithmetic), and |x'|; in double,
// then widened by a relative 1e-9 so that their own rounding cannot make the filter's bound short.
static void code_error(const float* x, const uint8_t* codes, float lo, float step, size_t dim, double& err,
                       double& norm) noexcept {
  double e2 = 0.0, n2 = 0.0;
  for (size_t d = 0; d < dim; ++d) {
    const double v = double(lo) + double(step) * double(codes[d]);
    e2 += (double(x[d]) - v) * (double(x[d]) - v);
    n2 += v * v;
  }
  err = std::sqrt(e2) * (1.0 + 1e-9);
  norm = std::sqrt(n2) * (1.0 + 1e-9);
}

void CoarseQuantizer::store_row(size_t c, const float* row) noexcept {
  double n2 = 0.0;
  for (size_t d = 0; d < dim_; ++d) {
    cols_[column_at(c, d)] = row[d];
    n2 += double(row[d]) * row[d];
  }
  norms_[c] = static_cast<float>(n2);
  if (!approximate()) return;
  uint8_t* codes = codes_.data() + c * dim_;
  code_sum_[c] = encode_u8(row, dim_, codes, code_lo_[c], code_step_[c]);
  code_total_[c] = static_cast<float>(double(dim_) * code_lo_[c] + double(code_step_[c]) * double(code_sum_[c]));
  double unused;
  code_error(row, codes, code_lo_[c], code_step_[c], dim_, code_err_[c], unused);
  norm2_[c] = n2;
  norm_[c] = std::sqrt(n2) * (1.0 + 1e-9);
}

void CoarseQuantizer::reserve(NearestScratch& s) const {
  s.codes.resize(dim_);
  s.bound.resize(lists_);
}

CoarseQuantizer::NearestScratch* CoarseQuantizer::filter_scratch(NearestScratch& s) const {
  if (!filter_pays()) return nullptr;
  reserve(s);
  return &s;
}

uint32_t CoarseQuantizer::nearest_filtered(const float* x, NearestScratch& s) const noexcept {
  float xlo, xstep;
  const uint32_t xsum = encode_u8(x, dim_, s.codes.data(), xlo, xstep);
  double x_err, x_code_norm, x2 = 0.0;
  code_error(x, s.codes.data(), xlo, xstep, dim_, x_err, x_code_norm);
  for (size_t d = 0; d < dim_; ++d) x2 += double(x[d]) * x[d];
  const double x_norm = std::sqrt(x2) * (1.0 + 1e-9);
  // The exact score is a float sum of dim products and two more roundings: within
  // gamma * (|c|^2 + 2 |x| |c|) of the real |c|^2 - 2 <x, c> (gamma twice the textbook
  // (dim + 2) * 2^-24 of a recursive sum, for safety).
  const double gamma = 2.0 * double(dim_ + 4) * std::ldexp(1.0, -24);
  constexpr size_t kRows = 64;  // rows per gather call
  const uint8_t* rows[kRows];
  uint32_t sums[kRows];
  const double dim = double(dim_);
  size_t first_best = 0;
  for (size_t first = 0; first < lists_; first += kRows) {
    const size_t n = std::min(kRows, lists_ - first);
    for (size_t j = 0; j < n; ++j) rows[j] = codes_.data() + (first + j) * dim_;
    gather_(s.codes.data(), rows, n, dim_, sums);
    for (size_t j = 0; j < n; ++j) {
      const size_t c = first + j;
      const double lo = code_lo_[c], step = code_step_[c];
      const double t0 = dim * double(xlo) * lo, t1 = double(xlo) * step * double(code_sum_[c]);
      const double t2 = lo * double(xstep) * double(xsum), t3 = double(xstep) * step * double(sums[j]);
      const double approx = ((t0 + t1) + t2) + t3;  // <x', c'>, up to double rounding
      const double slack = 1e-12 * (std::fabs(t0) + std::fabs(t1) + std::fabs(t2) + std::fabs(t3));
      const double dot_err = x_err * norm_[c] + x_code_norm * code_err_[c] + slack;
      const double c2 = norm2_[c];  // |c|^2 from a double sum: within 1e-12 of it
      s.bound[c] = (c2 - 2.0 * approx) - 2.0 * dot_err - gamma * (c2 + 2.0 * x_norm * norm_[c]) - 1e-12 * c2;
      if (s.bound[c] < s.bound[first_best]) first_best = c;
    }
  }
  // The most promising centroid first, so that the cut starts low; then every centroid whose
  // bound does not exceed the best exact score so far, in ascending order (ties to the lower).
  uint32_t best = uint32_t(first_best);
  float best_score = l2_score(x, first_best);
  for (size_t c = 0; c < lists_; ++c) {
    if (c == first_best || s.bound[c] > double(best_score)) continue;
    const float score = l2_score(x, c);
    if (score < best_score || (score == best_score && c < best)) {
      best_score = score;
      best = uint32_t(c);
    }
  }
  return best;
}

std::vector<float> CoarseQuantizer::centroids() const {
  std::vector<float> rows(lists_ * dim_);
  for (size_t c = 0; c < lists_; ++c) {
    for (size_t d = 0; d < dim_; ++d) rows[c * dim_ + d] = cols_[column_at(c, d)];
  }
  return rows;
}

size_t CoarseQuantizer::memory_bytes() const noexcept {
  return (cols_.capacity() + norms_.capacity() + spreads_.capacity() + code_lo_.capacity() + code_step_.capacity() +
          code_total_.capacity()) *
             sizeof(float) +
         codes_.capacity() + code_sum_.capacity() * sizeof(uint32_t) +
         (norm2_.capacity() + norm_.capacity() + code_err_.capacity()) * sizeof(double);
}

// out[c] = sum over d of x[d] * c[d], d ascending: the same order for every c (dot_f32_columns
// vectorises across the centroids of a tile). A full tile's sums stay in registers for the whole
// pass over the dimension (one load, multiply and add per centroid and coordinate, reading the
// tile's columns in address order), where a pass per coordinate over all the centroids would
// load and store every running sum once per coordinate.
void CoarseQuantizer::dots(const float* x, float* out) const noexcept {
  for (size_t c0 = 0; c0 < lists_; c0 += kTile) {
    dots_(x, 1, dim_, cols_.data() + c0 * dim_, std::min(kTile, lists_ - c0), dim_, out + c0);
  }
}

void CoarseQuantizer::l2_scores(const float* x, float* out) const noexcept {
  dots(x, out);
  for (size_t c = 0; c < lists_; ++c) out[c] = norms_[c] - 2.0f * out[c];
}

float CoarseQuantizer::inv_norm(const float* x) const noexcept {
  double n2 = 0.0;
  for (size_t d = 0; d < dim_; ++d) n2 += double(x[d]) * x[d];
  return n2 > 0.0 ? static_cast<float>(1.0 / std::sqrt(n2)) : 0.0f;
}

void CoarseQuantizer::approx_scores(const float* x, Metric metric, simd::DistanceU8GatherFn dot, uint8_t* x_codes,
                                    float* out) const noexcept {
  float xlo, xstep;
  const uint32_t xsum = encode_u8(x, dim_, x_codes, xlo, xstep);
  const float inv = metric == Metric::ip ? inv_norm(x) : 0.0f;
  // <x', c'> = sum (xlo + xstep u_x)(lo + step u_c) = xlo T_c + xstep (S_x lo + step <u_x, u_c>),
  // T_c = D lo + step S_c the sum of the 8-bit centroid's coordinates (code_total_). In float,
  // one lane per centroid, so the loops below vectorise and every target gets the same bits:
  // at d = 384 the terms are about 10 and their sum about 1, so float's rounding (~1e-6) is far below the
  // 8-bit codes' own error. (In double, one centroid at a time, this was a tenth of a wasm
  // query at 4,096 lists.)
  const float xsum_f = static_cast<float>(xsum);  // < 2^24: exact
  // Rows per kernel call (the gather kernel overlaps their loads).
  constexpr size_t kRows = 64;
  const uint8_t* rows[kRows];
  uint32_t sums[kRows];
  for (size_t first = 0; first < lists_; first += kRows) {
    const size_t n = std::min(kRows, lists_ - first);
    for (size_t j = 0; j < n; ++j) rows[j] = codes_.data() + (first + j) * dim_;
    dot(x_codes, rows, n, dim_, sums);
    float* o = out + first;
    const float *total = code_total_.data() + first, *lo = code_lo_.data() + first;
    const float *step = code_step_.data() + first, *norm2 = norms_.data() + first;
    for (size_t j = 0; j < n; ++j) {
      o[j] = xlo * total[j] + xstep * (xsum_f * lo[j] + step[j] * static_cast<float>(sums[j]));
    }
    if (metric == Metric::cosine) {
      for (size_t j = 0; j < n; ++j) o[j] = cosine_score(norm2[j], o[j]);
    } else if (metric == Metric::l2) {
      for (size_t j = 0; j < n; ++j) o[j] = norm2[j] - 2.0f * o[j];
    } else if (spreads_.empty()) {
      for (size_t j = 0; j < n; ++j) o[j] = -o[j] * inv;
    } else {
      const float* spread = spreads_.data() + first;
      for (size_t j = 0; j < n; ++j) o[j] = -o[j] * inv - kSpreadCredit * spread[j];
    }
  }
}

void CoarseQuantizer::order_scores(const float* x, Metric metric, simd::DistanceU8GatherFn dot, uint8_t* x_codes,
                                   float* out) const noexcept {
  if (approximate()) {
    approx_scores(x, metric, dot, x_codes, out);
  } else if (metric == Metric::ip) {
    ip_scores(x, out);
  } else if (metric == Metric::cosine) {
    cosine_scores(x, out);
  } else {
    l2_scores(x, out);
  }
}

void CoarseQuantizer::cosine_scores(const float* x, float* out) const noexcept {
  dots(x, out);
  for (size_t c = 0; c < lists_; ++c) out[c] = cosine_score(norms_[c], out[c]);
}

void CoarseQuantizer::ip_scores(const float* x, float* out) const noexcept {
  dots(x, out);
  const float inv = inv_norm(x);
  if (spreads_.empty()) {
    for (size_t c = 0; c < lists_; ++c) out[c] = -out[c] * inv;
  } else {
    for (size_t c = 0; c < lists_; ++c) out[c] = -out[c] * inv - kSpreadCredit * spreads_[c];
  }
}

float CoarseQuantizer::l2_score(const float* x, size_t c) const noexcept {
  float acc = 0.0f;  // tile_dots' order: d ascending from 0
  for (size_t d = 0; d < dim_; ++d) acc += x[d] * cols_[column_at(c, d)];
  return norms_[c] - 2.0f * acc;
}

uint32_t CoarseQuantizer::nearest(const float* x, float* scores) const noexcept {
  l2_scores(x, scores);
  uint32_t best = 0;
  for (size_t c = 1; c < lists_; ++c) {
    if (scores[c] < scores[best]) best = uint32_t(c);  // NaN cannot arise: inputs are finite
  }
  return best;
}

void CoarseQuantizer::nearest_many(const float* rows, size_t n, uint32_t* out, NearestScratch* scratch) const noexcept {
  if (scratch != nullptr && approximate()) {
    for (size_t r = 0; r < n; ++r) out[r] = nearest_filtered(rows + r * dim_, *scratch);
    return;
  }
  float best[kNearestRows], dot[kNearestRows * kTile];
  for (size_t r = 0; r < n; ++r) {
    best[r] = INFINITY;  // the first centroid's finite score replaces it: nearest() starts there
    out[r] = 0;
  }
  for (size_t c0 = 0; c0 < lists_; c0 += kTile) {
    const size_t w = std::min(kTile, lists_ - c0);
    dots_(rows, n, dim_, cols_.data() + c0 * dim_, w, dim_, dot);
    for (size_t r = 0; r < n; ++r) {
      for (size_t j = 0; j < w; ++j) {
        const float score = norms_[c0 + j] - 2.0f * dot[r * w + j];  // l2_scores' value, bit for bit
        if (score < best[r]) {  // strict, centroids ascending: ties to the lower list
          best[r] = score;
          out[r] = uint32_t(c0 + j);
        }
      }
    }
  }
}

void CoarseQuantizer::set_centroid(size_t c, const float* row) noexcept { store_row(c, row); }

// assign[i] = q.nearest(row i) for i in [first, end), kNearestRows rows to a call of
// nearest_many (`rows`: kNearestRows x dim floats of scratch).
static void assign_range(const CoarseQuantizer& q, size_t dim, const std::function<void(size_t, float*)>& get,
                         size_t first, size_t end, float* rows, uint32_t* assign) {
  constexpr size_t kRows = CoarseQuantizer::kNearestRows;
  CoarseQuantizer::NearestScratch scratch;
  CoarseQuantizer::NearestScratch* filter = q.filter_scratch(scratch);
  for (size_t i = first; i < end; i += kRows) {
    const size_t n = std::min(kRows, end - i);
    for (size_t r = 0; r < n; ++r) get(i + r, rows + r * dim);
    q.nearest_many(rows, n, assign + i, filter);
  }
}

// Pieces per k-means round when a WorkObserver listens (base/work_report.hpp).
constexpr size_t kPieces = 8;

std::vector<float> train_kmeans(size_t dim, size_t lists, size_t n, const std::function<void(size_t, float*)>& get,
                                uint64_t seed, int iterations, const simd::KernelTable* kernels) {
  // Initial centroids: `lists` distinct training vectors, by a seeded partial Fisher–Yates.
  std::vector<uint32_t> pick(n);
  for (size_t i = 0; i < n; ++i) pick[i] = uint32_t(i);
  core::Rng rng(seed ^ 0x1f0c0a5e5eedULL);
  for (size_t i = 0; i < lists; ++i) {
    const size_t j = i + size_t(rng.next() % uint64_t(n - i));
    std::swap(pick[i], pick[j]);
  }
  std::vector<float> centroids(lists * dim);
  for (size_t c = 0; c < lists; ++c) get(pick[c], centroids.data() + c * dim);
  pick = {};

  std::vector<uint32_t> assign(n);
  std::vector<double> sums(lists * dim);
  std::vector<size_t> counts(lists);
  std::vector<float> x(dim);
  constexpr size_t kChunk = 256;  // rows per task; results do not depend on the thread count
  const size_t chunks = (n + kChunk - 1) / kChunk;
  // With an observer, each round's assignment goes in kPieces parts (each a parallel_for of its
  // chunks) and the observer hears after each: a round of a large training takes a second or
  // more in wasm, too long for a progress bar to stand still or a cancel to wait.
  const size_t pieces = core::work_observed() ? std::min<size_t>(kPieces, chunks) : 1;
  const size_t steps = size_t(iterations) * pieces;
  for (int it = 0; it < iterations; ++it) {
    const CoarseQuantizer q(lists, dim, centroids, {}, kernels);
    // Assignment: each row on its own, so any split over threads gives the same answer.
    for (size_t piece = 0; piece < pieces; ++piece) {
      const size_t first = chunks * piece / pieces, last = chunks * (piece + 1) / pieces;
      parallel::process_pool().parallel_for(last - first, [&](size_t task, size_t) {
        std::vector<float> rows(CoarseQuantizer::kNearestRows * dim);
        const size_t chunk = first + task;
        assign_range(q, dim, get, chunk * kChunk, std::min(n, (chunk + 1) * kChunk), rows.data(), assign.data());
      });
      core::report_work("training", size_t(it) * pieces + piece + 1, steps);
    }
    // Update, in row order (double sums: the same bits everywhere).
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), size_t(0));
    for (size_t i = 0; i < n; ++i) {
      get(i, x.data());
      double* s = sums.data() + size_t(assign[i]) * dim;
      for (size_t d = 0; d < dim; ++d) s[d] += x[d];
      ++counts[assign[i]];
    }
    for (size_t c = 0; c < lists; ++c) {
      if (counts[c] == 0) continue;
      for (size_t d = 0; d < dim; ++d)
        centroids[c * dim + d] = static_cast<float>(sums[c * dim + d] / double(counts[c]));
    }
    // An empty cluster takes half of the largest: both centroids move a little apart from
    // the large one's position (alternating signs per coordinate), so the next round splits it.
    for (size_t c = 0; c < lists; ++c) {
      if (counts[c] != 0) continue;
      size_t big = 0;
      for (size_t j = 1; j < lists; ++j) {
        if (counts[j] > counts[big]) big = j;
      }
      constexpr float kSplit = 1.0f / 1024.0f;
      for (size_t d = 0; d < dim; ++d) {
        const float v = centroids[big * dim + d];
        const float e = (d % 2 == 0) ? kSplit : -kSplit;
        centroids[c * dim + d] = v * (1.0f + e);
        centroids[big * dim + d] = v * (1.0f - e);
      }
      counts[c] = counts[big] / 2;
      counts[big] -= counts[c];
    }
  }
  return centroids;
}

// Why balance: k-means on data whose topics differ in size by orders of magnitude (Zipf) leaves
// some lists many times the mean, and queries come from where the data is, so the lists a query
// probes are the large ones: on 1,000,000 x 384 embedding-like vectors with 10,000 topics the
// list a random vector is in held 2.0x the mean (1.4x with 1,000 topics), up to 7.9x, while a
// tenth of the lists held under 65 vectors (2 blocks, partly empty). A large list costs a query
// every vector in it; splitting it lets the query scan the half its neighbours are in. The
// smallest lists pay for the split: their few vectors join their next-nearest lists, which
// costs little, and the list count (the coarse step's cost) stays the same.
//
// On the k-means sample only (the assignment of every vector comes after, by nearest centroid,
// so the lists are the Voronoi cells of the balanced centroids). Deterministic: the assignment
// is per row, the 2-means sums are in member order in double, ties go to the lower index.
size_t balance_clusters(size_t dim, size_t lists, size_t n, const std::function<void(size_t, float*)>& get,
                        std::vector<float>& centroids, double cap, const simd::KernelTable* kernels) {
  if (lists < 2 || n < lists) return 0;
  CoarseQuantizer q(lists, dim, centroids, {}, kernels);
  std::vector<uint32_t> assign(n);
  constexpr size_t kChunk = 256;
  parallel::process_pool().parallel_for((n + kChunk - 1) / kChunk, [&](size_t chunk, size_t) {
    std::vector<float> rows(CoarseQuantizer::kNearestRows * dim);
    assign_range(q, dim, get, chunk * kChunk, std::min(n, (chunk + 1) * kChunk), rows.data(), assign.data());
  });
  std::vector<std::vector<uint32_t>> members(lists);
  for (size_t i = 0; i < n; ++i) members[assign[i]].push_back(uint32_t(i));

  const double mean = double(n) / double(lists);
  const size_t limit = size_t(std::ceil(cap * mean));
  const size_t few = size_t(mean / 2.0);
  std::vector<float> rows, scores(lists), a(dim), b(dim), x(dim);
  std::vector<double> sa(dim), sb(dim);
  std::vector<uint8_t> side;
  size_t moves = 0;
  for (; moves < lists / 4; ++moves) {
    size_t big = 0, small = lists;
    for (size_t c = 1; c < lists; ++c) {
      if (members[c].size() > members[big].size()) big = c;
    }
    for (size_t c = 0; c < lists; ++c) {
      if (c != big && (small == lists || members[c].size() < members[small].size())) small = c;
    }
    if (members[big].size() <= limit || members[small].size() > few || members[big].size() < 4) break;

    // Dissolve the smallest: each member to its nearest other centroid.
    for (const uint32_t i : members[small]) {
      get(i, x.data());
      q.l2_scores(x.data(), scores.data());
      size_t best = small == 0 ? 1 : 0;
      for (size_t c = 0; c < lists; ++c) {
        if (c != small && scores[c] < scores[best]) best = c;
      }
      members[best].push_back(i);
    }
    members[small].clear();

    // Split the largest by 2-means over its members: seeds are the member furthest from the
    // centroid and the member furthest from that one.
    std::vector<uint32_t>& m = members[big];
    const size_t cnt = m.size();
    rows.resize(cnt * dim);
    for (size_t j = 0; j < cnt; ++j) get(m[j], rows.data() + j * dim);
    auto far_from = [&](const float* p) {
      size_t best = 0;
      double best_d = -1.0;
      for (size_t j = 0; j < cnt; ++j) {
        double d2 = 0.0;
        for (size_t d = 0; d < dim; ++d) {
          const double e = double(rows[j * dim + d]) - p[d];
          d2 += e * e;
        }
        if (d2 > best_d) best_d = d2, best = j;
      }
      return best;
    };
    const size_t ja = far_from(centroids.data() + big * dim);
    std::copy_n(rows.data() + ja * dim, dim, a.data());
    const size_t jb = far_from(a.data());
    std::copy_n(rows.data() + jb * dim, dim, b.data());
    side.assign(cnt, 0);
    constexpr int kSplitRounds = 6;
    for (int round = 0; round < kSplitRounds; ++round) {
      std::fill(sa.begin(), sa.end(), 0.0);
      std::fill(sb.begin(), sb.end(), 0.0);
      size_t na = 0, nb = 0;
      for (size_t j = 0; j < cnt; ++j) {
        double da = 0.0, db = 0.0;
        const float* r = rows.data() + j * dim;
        for (size_t d = 0; d < dim; ++d) {
          const double ea = double(r[d]) - a[d], eb = double(r[d]) - b[d];
          da += ea * ea;
          db += eb * eb;
        }
        side[j] = db < da;
        double* s = side[j] ? sb.data() : sa.data();
        for (size_t d = 0; d < dim; ++d) s[d] += r[d];
        ++(side[j] ? nb : na);
      }
      if (na == 0 || nb == 0) break;  // identical members: nothing to split
      for (size_t d = 0; d < dim; ++d) {
        a[d] = static_cast<float>(sa[d] / double(na));
        b[d] = static_cast<float>(sb[d] / double(nb));
      }
    }
    std::vector<uint32_t> to_a, to_b;
    for (size_t j = 0; j < cnt; ++j) (side[j] ? to_b : to_a).push_back(m[j]);
    if (to_a.empty() || to_b.empty()) break;
    std::copy_n(a.data(), dim, centroids.data() + big * dim);
    std::copy_n(b.data(), dim, centroids.data() + small * dim);
    q.set_centroid(big, a.data());
    q.set_centroid(small, b.data());
    members[big] = std::move(to_a);
    members[small] = std::move(to_b);
  }
  return moves;
}

}  // namespace quiver::quantized
