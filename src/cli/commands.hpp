// Subcommands of the `quiver` CLI, one file each. Each register_* adds its subcommand to the
// app and, when that subcommand is chosen, sets `run` to the function main() calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace CLI {
class App;
}

namespace quiver::cli {

using Runner = std::function<int()>;

struct DemoOptions {
  size_t rows = 10000;
  size_t queries = 256;
  size_t dim = 384;
  size_t k = 10;
  uint64_t base_seed = 42;
  uint64_t query_seed = 13;
  std::string isa;               // empty: the process-wide choice
  std::string index = "flat";    // flat | quantized (4 bits, seed 42) | hnsw (seed 42, one build thread)
  std::optional<size_t> rerank;  // exact rerank depth; unset: 4 for quantized, the kind's default otherwise
  size_t M = 16;                 // hnsw
  size_t ef_construction = 200;
  size_t ef = 64;  // hnsw: search beam width
  bool json = false;
  std::set<std::string> given;  // the options on the command line (main sets it: given_options)
};

void add_demo_options(CLI::App& command, DemoOptions& options);
int run_demo(const DemoOptions& options);

void register_gen(CLI::App& app, Runner& run);         // gen.cpp
void register_build(CLI::App& app, Runner& run);       // build.cpp
void register_search(CLI::App& app, Runner& run);      // search.cpp
void register_compare(CLI::App& app, Runner& run);     // compare.cpp
void register_bench(CLI::App& app, Runner& run);       // bench.cpp
void register_collection(CLI::App& app, Runner& run);  // collection.cpp

// `quiver info FILE` (inspect.cpp): describe and validate an index file.
int run_inspect(const std::string& path, bool json);

}  // namespace quiver::cli
