// Subcommands of the `quiver` CLI, one file each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace quiver::cli {

struct DemoOptions {
  size_t rows = 10000;
  size_t queries = 256;
  size_t dim = 384;
  size_t k = 10;
  uint64_t base_seed = 42;
  uint64_t query_seed = 13;
  std::string isa;  // empty: the process-wide choice
  bool json = false;
};

void add_demo_options(CLI::App& command, DemoOptions& options);
int run_demo(const DemoOptions& options);

}  // namespace quiver::cli
