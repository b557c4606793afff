// Helpers shared by the CLI subcommands: progress bar, latency statistics, recall, and making,
// loading and searching an index of any kind.
#pragma once

#include <chrono>
#include <functional>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/datasets.hpp"
#include "quiver/any_index.hpp"
#include "quiver/index_file.hpp"
#include "quiver/isa.hpp"
#include "quiver/metric.hpp"
#include "quiver/neighbor.hpp"
#include "tools/workload.hpp"

namespace quiver::cli {

// A progress bar on stderr when stderr is a terminal; silent in pipes and files.
class Progress {
 public:
  Progress(std::string label, size_t total, bool quiet = false);
  ~Progress();
  void update(size_t done);
  // A note after the count, e.g. the step a long add is in ("training 12/64"); "" clears it.
  void note(const std::string& text);
  void finish();

 private:
  void draw();
  std::string label_;
  std::string note_;
  size_t done_ = 0;
  size_t total_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point last_;
};

struct LatencyStats {
  double mean_us = 0, p50_us = 0, p90_us = 0, p99_us = 0, max_us = 0;
};
LatencyStats latency_stats(std::vector<double> micros);

// Checks that `gt` can measure recall@k of nq queries: at least nq rows, at least k ids a row,
// and a valid (non-negative) id in the first k of some row — a ground truth of nothing but
// padding would otherwise score a perfect recall for nothing. Throws Error(InvalidArgument)
// naming `path`.
void check_ground_truth(const io::GroundTruth& gt, size_t nq, size_t k, const std::string& path);

// Mean recall@k of results (nq rows of k, stride k) against ground truth (first k of each
// row), over the queries whose ground truth has a valid id (negative ids are padding: a row's
// recall is the share of its valid ids found). Checks the ground truth first (as above).
struct Recall {
  double recall = 0;
  size_t queries = 0;  // the queries measured: those with a valid ground-truth id
};
Recall recall_at_k(const std::vector<Neighbor>& results, size_t nq, size_t k, const io::GroundTruth& gt);

// Checks, before anything is allocated, that a generated workload of `rows` base vectors and
// `queries` queries of `dim` (with k ground-truth ids each, `clusters` mixture components)
// fits the file formats (rows, queries <= 2^31 - 1: the ground truth stores ids as int32;
// 1 <= dim <= 2^24) and, with `copies` copies of the base vectors alive at once, this
// machine's memory. Throws Error(InvalidArgument) or Error(OutOfMemory) naming the sizes.
void check_workload_size(const char* command, size_t rows, size_t queries, size_t dim, size_t k, size_t clusters,
                         unsigned copies);

// Peak resident memory of this process in bytes (0 where unknown).
size_t peak_rss_bytes();

// clustered_vectors() (the clustered workload) lives in tools/workload.hpp.

// Reads vectors with an optional explicit format ("" = from the extension).
io::Vectors load_vectors(const std::string& path, const std::string& format, size_t raw_dim);

// ---- The index kinds the CLI builds, searches and loads, all through quiver::AnyIndex
// (quiver/any_index.hpp): a new kind needs a case in make_index and nothing else here. ----

struct BuildParams {
  IndexKind kind = IndexKind::flat;
  Metric metric = Metric::l2;
  size_t dim = 0;
  int bits = 4;                  // quantized
  size_t M = 16;                 // hnsw
  size_t ef_construction = 200;  // hnsw
  size_t ef_search = 64;         // hnsw: default search beam width, stored in the file
  uint64_t seed = 42;            // quantized rotation, hnsw levels
  bool keep_vectors = true;      // quantized, hnsw sq8: keep the f32 vectors (for rerank)
  size_t lists = 0;              // quantized: inverted lists (QuantizedIndexOptions::lists)
  unsigned refine_bits = 0;      // quantized: refine plane bits (0 = none)
  std::string storage = "f32";   // hnsw: f32 or sq8
  bool neighbor_codes = false;   // hnsw sq8: neighbours' codes beside the level-0 links
  size_t threads = 1;            // hnsw: pool workers add() may use (add_vectors)
  std::string isa;               // "" = active ISA
};

// An empty index of the kind and options asked for (dim 0: options checked, dimension later).
std::unique_ptr<AnyIndex> make_index(const BuildParams& params);
// Any index file; errors name the path.
std::unique_ptr<AnyIndex> load_index_file(const std::string& path, const std::string& isa = "");
// index.add() with `threads` pool workers for an HNSW build (0 = all; one worker links the
// nodes in batch order, so the graph depends only on the seed and the data). The other kinds'
// answers do not depend on the thread count, so they add as they always do.
void add_vectors(AnyIndex& index, const uint64_t* ids, const float* vectors, size_t n, size_t threads);

struct SearchRun {
  size_t k = 0;                    // min(k, index size): row stride of `results`
  std::vector<Neighbor> results;   // nq x k
  std::vector<double> latency_us;  // per query
  double wall_s = 0;
};
// Runs every query once (spread over `threads`), timing each.
SearchRun run_queries(const AnyIndex& index, const float* queries, size_t nq, size_t k, const AnySearchParams& params,
                      size_t threads, bool quiet);

// Splits [0, n) over `threads` std::threads running fn(begin, end); exceptions propagate.
void parallel_for(size_t n, size_t threads, const std::function<void(size_t, size_t)>& fn);

}  // namespace quiver::cli
