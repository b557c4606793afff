// Shared by the concurrency benchmarks (bench/concurrent/: concurrent_knn.cpp, scaling_batch.cpp): environment
// knobs, the seed workload, the index factory (INDEX=flat|quantised|hnsw), a clock, and JSON
// string escaping. Header-only; both targets.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "quiver/any_index.hpp"
#include "quiver/flat_index.hpp"
#include "quiver/isa.hpp"
#include "tools/workload.hpp"

#if defined(QUIVER_BENCH_QUANTISED) && __has_include("quiver/quantized_index.hpp")
#include "quiver/quantized_index.hpp"
#define QUIVER_BENCH_HAVE_QUANTISED 1
#endif

namespace quiver::bench {

inline std::string env_str(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : std::string(fallback);
}

[[noreturn]] inline void die(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(2);
}

inline double env_num(const char* name, double fallback) {
  const std::string v = env_str(name, "");
  if (v.empty()) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (*end != '\0' || !(x >= 0)) die(std::string(name) + " must be a non-negative number, got '" + v + "'");
  return x;
}

inline size_t env_size(const char* name, size_t fallback) {
  const double x = env_num(name, double(fallback));
  if (x != double(size_t(x)) || x < 1) die(std::string(name) + " must be a positive integer");
  return size_t(x);
}

// "1 2 4 8 16" (spaces or commas).
inline std::vector<size_t> env_list(const char* name, const char* fallback) {
  const std::string v = env_str(name, fallback);
  std::vector<size_t> out;
  size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == ',')) ++i;
    if (i == v.size()) break;
    char* end = nullptr;
    const unsigned long n = std::strtoul(v.c_str() + i, &end, 10);
    if (end == v.c_str() + i || n == 0 || n > 1024) die(std::string(name) + ": bad list '" + v + "'");
    out.push_back(n);
    i = size_t(end - v.c_str());
  }
  if (out.empty()) die(std::string(name) + " is empty");
  return out;
}

inline double now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

inline const char* target_name() { return build_variant()[0] == 'n' ? "native" : "wasm"; }

struct Workload {
  size_t rows, dim, queries, k, bit_width;
  std::string index;
  std::vector<float> base, query_pool;
};

// The seed workload: unit Gaussian rows (seed 42) and queries (seed 13).
inline Workload make_workload() {
  Workload w;
  w.rows = env_size("CORPUS_ROWS", 10000);
  w.dim = env_size("DIM", 384);
  w.queries = env_size("QUERY_POOL", 256);
  w.k = env_size("K", 10);
  w.bit_width = env_size("BIT_WIDTH", 4);
  w.index = env_str("INDEX", "flat");
  if (w.index == "quantized") w.index = "quantised";
  w.base = unit_gaussian_vectors(w.rows, w.dim, 42);
  w.query_pool = unit_gaussian_vectors(w.queries, w.dim, 13);
  return w;
}

// Builds the INDEX the knobs ask for (inner product on unit vectors, ids 0..rows-1).
// Exits with a message for an index kind this build does not have yet.
inline std::shared_ptr<const AnyIndex> build_index(const Workload& w) {
  std::vector<uint64_t> ids(w.rows);
  for (size_t i = 0; i < w.rows; ++i) ids[i] = i;
  if (w.index == "flat") {
    FlatIndex index({w.dim, Metric::ip});
    index.add(ids.data(), w.base.data(), w.rows);
    return make_any_index(std::move(index));
  }
  if (w.index == "quantised") {
#if defined(QUIVER_BENCH_HAVE_QUANTISED)
    QuantizedIndexOptions options;
    options.dim = w.dim;
    options.metric = Metric::ip;
    options.bits = unsigned(w.bit_width);
    options.keep_vectors = false;
    QuantizedIndex index(options);
    index.add(ids.data(), w.base.data(), w.rows);
    return make_any_index(std::move(index));
#else
    die("INDEX=quantised: the quantised index is not in this build yet; use INDEX=flat");
#endif
  }
  if (w.index == "hnsw") die("INDEX=hnsw: the HNSW index is not in this build yet; use INDEX=flat");
  die("INDEX must be flat, quantised or hnsw, got '" + w.index + "'");
}

}  // namespace quiver::bench
