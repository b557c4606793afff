#include "cli/common.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <sys/resource.h>
#include <unordered_set>

#include "base/rng.hpp"
#include "quiver/error.hpp"

namespace quiver::cli {

Progress::Progress(std::string label, size_t total, bool quiet)
    : label_(std::move(label)), total_(total), enabled_(!quiet && ::isatty(STDERR_FILENO) == 1) {
  last_ = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  update(0);
}

Progress::~Progress() {
  if (enabled_ && !finished_) std::fputs("\n", stderr);
}

void Progress::update(size_t done) {
  if (!enabled_ || finished_) return;
  done_ = done;
  const auto now = std::chrono::steady_clock::now();
  if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  draw();
}

void Progress::note(const std::string& text) {
  if (!enabled_ || finished_ || text == note_) return;
  const size_t was = note_.size();
  note_ = text;
  const auto now = std::chrono::steady_clock::now();
  if (!text.empty() && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  draw();
  if (was > note_.size()) std::fprintf(stderr, "%*s", int(was - note_.size()), "");  // erase the longer note
  std::fflush(stderr);
}

void Progress::draw() {
  const int width = 30;
  const double frac = total_ == 0 ? 1.0 : double(std::min(done_, total_)) / double(total_);
  const int fill = int(frac * width);
  std::string bar(size_t(fill), '#');
  bar.resize(width, '.');
  std::fprintf(stderr, "\r%-10s [%s] %3d%% (%zu/%zu)%s%s", label_.c_str(), bar.c_str(), int(frac * 100), done_, total_,
               note_.empty() ? "" : "  ", note_.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_ || finished_) return;
  update(total_);
  finished_ = true;
  std::fputs("\n", stderr);
}

LatencyStats latency_stats(std::vector<double> us) {
  LatencyStats s;
  if (us.empty()) return s;
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (double x : us) sum += x;
  auto pct = [&](double p) {
    const size_t i = std::min(us.size() - 1, size_t(std::ceil(p * double(us.size()))) - (p > 0 ? 1 : 0));
    return us[i];
  };
  s.mean_us = sum / double(us.size());
  s.p50_us = pct(0.50);
  s.p90_us = pct(0.90);
  s.p99_us = pct(0.99);
  s.max_us = us.back();
  return s;
}

void check_ground_truth(const io::GroundTruth& gt, size_t nq, size_t k, const std::string& path) {
  if (gt.rows < nq) {
    throw Error(ErrorCode::InvalidArgument, path + ": the ground truth has " + std::to_string(gt.rows) +
                                                " rows, fewer than the " + std::to_string(nq) + " queries");
  }
  if (gt.k < k) {
    throw Error(ErrorCode::InvalidArgument, path + ": the ground truth holds " + std::to_string(gt.k) +
                                                " neighbours per query, fewer than k = " + std::to_string(k));
  }
  for (size_t q = 0; q < nq; ++q) {
    for (size_t j = 0; j < k; ++j) {
      if (gt.ids[q * gt.k + j] >= 0) return;
    }
  }
  throw Error(ErrorCode::InvalidArgument, path + ": the ground truth has no valid id (every id in the first " +
                                              std::to_string(k) + " of its " + std::to_string(nq) +
                                              " rows is negative): there is nothing to measure recall against");
}

Recall recall_at_k(const std::vector<Neighbor>& results, size_t nq, size_t k, const io::GroundTruth& gt) {
  check_ground_truth(gt, nq, k, "--gt");
  double total = 0;
  Recall r;
  for (size_t q = 0; q < nq; ++q) {
    std::unordered_set<int64_t> truth;
    size_t expected = 0;
    for (size_t j = 0; j < k; ++j) {
      const int32_t id = gt.ids[q * gt.k + j];
      if (id >= 0) {
        truth.insert(id);
        ++expected;
      }
    }
    if (expected == 0) continue;  // nothing to find: not measured (check_ground_truth: some row has an id)
    size_t hit = 0;
    for (size_t j = 0; j < k; ++j) hit += truth.count(int64_t(results[q * k + j].id));
    total += double(hit) / double(expected);
    ++r.queries;
  }
  r.recall = r.queries == 0 ? 0 : total / double(r.queries);
  return r;
}

namespace {

uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

}  // namespace

void check_workload_size(const char* command, size_t rows, size_t queries, size_t dim, size_t k, size_t clusters,
                         unsigned copies) {
  const std::string cmd = command;
  constexpr uint64_t kMaxRows = INT32_MAX;  // ground-truth ids are int32 (.ibin, .ivecs)
  constexpr uint64_t kMaxDim = 1u << 24;    // the dataset formats' and the flat index's limit
  if (rows > kMaxRows) {
    throw Error(ErrorCode::InvalidArgument, cmd + ": --rows " + std::to_string(rows) + " is more than the " +
                                                std::to_string(kMaxRows) +
                                                " rows a workload can have (ground-truth ids are int32)");
  }
  if (queries > kMaxRows) {
    throw Error(ErrorCode::InvalidArgument, cmd + ": --queries " + std::to_string(queries) + " is more than the " +
                                                std::to_string(kMaxRows) + " a workload can have");
  }
  if (dim == 0 || dim > kMaxDim) {
    throw Error(ErrorCode::InvalidArgument,
                cmd + ": --dim must be 1 to " + std::to_string(kMaxDim) + ", got " + std::to_string(dim));
  }
  // In doubles: exact enough for a limit, and no product can wrap around.
  const double vector_bytes = 4.0 * double(dim);
  const double need = vector_bytes * (double(copies) * double(rows) + 2.0 * double(queries) + 2.0 * double(clusters)) +
                      16.0 * double(queries) * double(k);
  const uint64_t have = physical_memory_bytes();
  const bool too_big = need > double(SIZE_MAX) / 2 || (have != 0 && need > double(have));
  if (too_big) {
    auto gb = [](double bytes) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g GB", bytes / 1e9);
      return std::string(buf);
    };
    throw Error(ErrorCode::OutOfMemory,
                cmd + ": " + std::to_string(rows) + " x " + std::to_string(dim) + " vectors (and " +
                    std::to_string(queries) + " queries) need about " + gb(need) + " of memory" +
                    (have != 0 ? ", more than this machine's " + gb(double(have)) : std::string()));
  }
}

size_t peak_rss_bytes() {
  struct rusage ru;
  if (::getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return size_t(ru.ru_maxrss) * 1024;  // Linux reports kilobytes
}

io::Vectors load_vectors(const std::string& path, const std::string& format, size_t raw_dim) {
  std::optional<io::DatasetFormat> f;
  if (!format.empty()) f = io::parse_dataset_format(format);
  return io::read_vectors(path, f, raw_dim);
}

void parallel_for(size_t n, size_t threads, const std::function<void(size_t, size_t)>& fn) {
  threads = std::max<size_t>(1, std::min(threads, n));
  if (threads == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  std::exception_ptr error;
  std::mutex mu;
  for (size_t t = 0; t < threads; ++t) {
    const size_t begin = n * t / threads, end = n * (t + 1) / threads;
    pool.emplace_back([&, begin, end] {
      try {
        fn(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

SearchRun run_queries(const AnyIndex& index, const float* queries, size_t nq, size_t k, const AnySearchParams& params,
                      size_t threads, bool quiet) {
  if (k == 0) throw Error(ErrorCode::InvalidK, "k must be at least 1");
  if (index.size() == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
  SearchRun run;
  // Clamp first: every buffer below is sized by what the index can return, never by the k
  // asked for (k = 10^9 on 200 vectors once allocated 16 GB before the search clamped it).
  run.k = std::min(k, index.size());
  if (nq != 0 && run.k > SIZE_MAX / sizeof(Neighbor) / nq) {
    throw Error(ErrorCode::OutOfMemory, std::to_string(nq) + " queries x " + std::to_string(run.k) +
                                            " results do not fit in this address space");
  }
  try {
    run.results.resize(nq * run.k);
    run.latency_us.resize(nq);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory,
                "out of memory for " + std::to_string(nq) + " queries x " + std::to_string(run.k) + " results");
  }
  const size_t dim = index.dim();
  Progress progress("search", nq, quiet);
  std::atomic<size_t> done{0};
  const auto t0 = std::chrono::steady_clock::now();
  parallel_for(nq, threads, [&](size_t begin, size_t end) {
    std::vector<Neighbor> out(run.k);
    for (size_t q = begin; q < end; ++q) {
      const auto s = std::chrono::steady_clock::now();
      index.search(queries + q * dim, run.k, out.data(), params);
      const auto e = std::chrono::steady_clock::now();
      run.latency_us[q] = std::chrono::duration<double, std::micro>(e - s).count();
      std::copy(out.begin(), out.begin() + run.k, run.results.begin() + q * run.k);
      const size_t d = ++done;
      if (begin == 0) progress.update(d);
    }
  });
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.finish();
  return run;
}

}  // namespace quiver::cli
