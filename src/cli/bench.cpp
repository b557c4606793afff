// `quiver bench NAME`: runs one of the project's native benchmark programs by name. They are
// built next to the CLI (build/<config>/bench/quiver_bench_<name>), take their knobs from the
// environment and print JSON lines; the npm scripts (bench:kernels, bench:quantized,
// bench:concurrent) run the same programs natively and in wasm and keep the results.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "quiver/error.hpp"

namespace quiver::cli {
namespace {

struct BenchOptions {
  std::string name;
  std::vector<std::string> args;
};

// Directory of the running quiver executable.
std::string executable_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw Error(ErrorCode::IoError, "cannot find the quiver executable's directory");
  std::string path(buf, size_t(n));
  return path.substr(0, path.rfind('/'));
}

// Short names used in the docs map to the program names.
std::string program_name(const std::string& name) {
  if (name == "concurrent") return "concurrent_knn";
  if (name == "scaling") return "scaling_batch";
  return name;
}

int run_bench(const BenchOptions& o) {
  const std::string name = program_name(o.name);
  const std::string program = executable_dir() + "/../bench/quiver_bench_" + name;
  if (access(program.c_str(), X_OK) != 0) {
    throw Error(ErrorCode::InvalidArgument, "benchmark '" + o.name + "' is not built (" + program +
                                                "); build it with scripts/build.sh native -- quiver_bench_" + name);
  }
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : o.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execv(program.c_str(), argv.data());
  throw Error(ErrorCode::IoError, "could not start " + program);
}

}  // namespace

void register_bench(CLI::App& app, Runner& run) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd =
      app.add_subcommand("bench",
                         "Run a benchmark program by name: kernels, quantized, hnsw, concurrent (concurrent_knn),\n"
                         "scaling (scaling_batch).\n"
                         "Knobs come from the environment (see each program's header, e.g. THREADS, DURATION_S, "
                         "MODE, INDEX for concurrent_knn; QUIVER_BENCH_* for the others). Output: JSON lines.");
  cmd->add_option("name", o->name, "Benchmark name")
      ->required()
      ->check(
          CLI::IsMember({"kernels", "quantized", "hnsw", "concurrent", "concurrent_knn", "scaling", "scaling_batch"}));
  cmd->add_option("args", o->args, "Arguments passed to the program");
  cmd->callback([o, &run] { run = [o] { return run_bench(*o); }; });
}

}  // namespace quiver::cli
