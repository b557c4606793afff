// The `quiver` command. Subcommands live in their own files; this one wires them up and
// turns quiver::Error into a message on stderr and a non-zero exit.
//
//   quiver info [FILE]   the ISA report, or what an index file holds (validated)
//   quiver demo          flat, quantized or hnsw index over the seed workload (npm run demo)
//   quiver gen           write the seed or clustered workload with exact ground truth
//   quiver build         build an index from a vector file and write the index file
//   quiver search        search an index file; recall and latency percentiles with --gt
//   quiver compare       the same build + search natively and in wasm, side by side
//   quiver collection    build / query a collection (ids, metadata, filters)
//
// Exit codes: 0 success, 1 a quiver error (bad input, corrupt file, I/O, ...), 2 usage error
// (anything CLI11 rejects, including a count that is negative, not a number or out of range).
// SIGINT/SIGTERM/SIGHUP remove the temporary file of a save in progress, then end the process
// by the same signal (src/cli/signals.hpp).
// Errors go to stderr as "quiver: error [CODE]: message".
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_kinds.hpp"
#include "cli/signals.hpp"
#include "quiver/quiver.hpp"

namespace {

int run_info(bool as_json) {
  const quiver::Isa active = quiver::active_isa();
  std::vector<std::string> available, compiled;
  for (auto isa : quiver::available_isas()) available.push_back(quiver::isa_name(isa));
  for (auto isa : quiver::compiled_isas()) compiled.push_back(quiver::isa_name(isa));
  if (as_json) {
    nlohmann::json j{{"version", quiver::kVersion},     {"target", "native"},          {"arch", quiver::target_arch()},
                     {"isa", quiver::isa_name(active)}, {"available_isas", available}, {"compiled_isas", compiled}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
    return s;
  };
  std::cout << "quiver " << quiver::kVersion << "\n"
            << "target:         native " << quiver::target_arch() << "\n"
            << "isa:            " << quiver::isa_name(active) << "\n"
            << "available isas: " << join(available) << "\n"
            << "compiled isas:  " << join(compiled) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  quiver::cli::install_signal_cleanup();
  CLI::App app{"quiver — vector search runtime (native CLI)"};
  app.require_subcommand(1);

  app.footer("Exit codes: 0 success, 1 quiver error (message on stderr), 2 usage error.");
  bool info_json = false;
  std::string info_file;
  auto* info = app.add_subcommand(
      "info", "Print version, the chosen ISA and the available ISAs; with FILE, describe and validate an index file");
  info->add_option("file", info_file, "Index file to describe and validate");
  info->add_flag("--json", info_json, "Machine-readable output");

  quiver::cli::DemoOptions demo_options;
  auto* demo = app.add_subcommand("demo", "Build a flat, quantized or hnsw index over the seed workload and search it");
  quiver::cli::add_demo_options(*demo, demo_options);

  quiver::cli::Runner run;
  quiver::cli::register_gen(app, run);
  quiver::cli::register_build(app, run);
  quiver::cli::register_search(app, run);
  quiver::cli::register_compare(app, run);
  quiver::cli::register_bench(app, run);
  quiver::cli::register_collection(app, run);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    if (*info) return info_file.empty() ? run_info(info_json) : quiver::cli::run_inspect(info_file, info_json);
    if (*demo) {
      demo_options.given = quiver::cli::given_options(*demo);
      return quiver::cli::run_demo(demo_options);
    }
    if (run) return run();
  } catch (const quiver::Error& e) {
    std::cerr << "quiver: error [" << e.code_name() << "]: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "quiver: error [" << quiver::error_code_name(quiver::ErrorCode::OutOfMemory) << "]: out of memory\n";
    return 1;
  } catch (const std::length_error& e) {
    // A size the standard library cannot even represent (a vector beyond max_size()): the
    // commands check their sizes first, so this is a size no check caught.
    std::cerr << "quiver: error [" << quiver::error_code_name(quiver::ErrorCode::OutOfMemory)
              << "]: too large for this address space (" << e.what() << ")\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "quiver: error [" << quiver::error_code_name(quiver::ErrorCode::Internal) << "]: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
