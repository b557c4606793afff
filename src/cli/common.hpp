// Helpers shared by the CLI subcommands: progress bar, latency statistics, recall, the
// clustered workload generator and the pluggable index interface.
#pragma once

#include <chrono>
#include <functional>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/datasets.hpp"
#include "quiver/index_file.hpp"
#include "quiver/isa.hpp"
#include "quiver/metric.hpp"
#include "quiver/neighbor.hpp"

namespace quiver::cli {

// A progress bar on stderr when stderr is a terminal; silent in pipes and files.
class Progress {
 public:
  Progress(std::string label, size_t total, bool quiet = false);
  ~Progress();
  void update(size_t done);
  void finish();

 private:
  std::string label_;
  size_t total_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point last_;
};

struct LatencyStats {
  double mean_us = 0, p50_us = 0, p90_us = 0, p99_us = 0, max_us = 0;
};
LatencyStats latency_stats(std::vector<double> micros);

// Mean recall@k of results (nq rows of k, stride k) against ground truth (first k of each
// row). Throws Error(InvalidArgument) if the ground truth is shallower than k or has fewer rows.
double recall_at_k(const std::vector<Neighbor>& results, size_t nq, size_t k, const io::GroundTruth& gt);

// Peak resident memory of this process in bytes (0 where unknown).
size_t peak_rss_bytes();

// clustered_vectors() (the clustered workload) lives in quiver/workload.hpp.

// Reads vectors with an optional explicit format ("" = from the extension).
io::Vectors load_vectors(const std::string& path, const std::string& format, size_t raw_dim);

// ---- The index kinds the CLI can build, search and load. Adding a kind: implement
// CliIndex for it in index_kinds.cpp and return it from make_index / load_index. ----

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
  std::string storage = "f32";   // hnsw: f32 or sq8
  size_t threads = 1;
  std::string isa;               // "" = active ISA
};

struct SearchParams {
  size_t k = 10;
  size_t ef = 0;                 // hnsw (0 = the index default)
  std::optional<size_t> rerank;  // exact re-scoring depth, every kind (quiver/search_params.hpp); unset = the kind's default
};

class CliIndex {
 public:
  virtual ~CliIndex() = default;
  virtual IndexKind kind() const = 0;
  virtual size_t dim() const = 0;
  virtual size_t size() const = 0;
  virtual Metric metric() const = 0;
  virtual Isa isa() const = 0;
  virtual size_t memory_bytes() const = 0;
  virtual std::string params() const = 0;  // human summary of the kind's parameters
  virtual void reserve(size_t n) = 0;  // room for n vectors in total
  virtual void add(const uint64_t* ids, const float* vectors, size_t n) = 0;
  // Thread-safe; writes min(k, size) neighbours, closest first, returns how many.
  virtual size_t search(const float* query, const SearchParams& params, Neighbor* out) const = 0;
  virtual void save(const std::string& path) const = 0;
};

std::unique_ptr<CliIndex> make_index(const BuildParams& params);
std::unique_ptr<CliIndex> load_index_file(const std::string& path, const std::string& isa = "");

struct SearchRun {
  size_t k = 0;                    // min(k, index size): row stride of `results`
  std::vector<Neighbor> results;   // nq x k
  std::vector<double> latency_us;  // per query
  double wall_s = 0;
};
// Runs every query once (spread over `threads`), timing each.
SearchRun run_queries(const CliIndex& index, const float* queries, size_t nq, const SearchParams& params,
                      size_t threads, bool quiet);

// Splits [0, n) over `threads` std::threads running fn(begin, end); exceptions propagate.
void parallel_for(size_t n, size_t threads, const std::function<void(size_t, size_t)>& fn);

}  // namespace quiver::cli
