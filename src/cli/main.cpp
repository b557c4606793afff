// The `quiver` command. Subcommands live in their own files; this one wires them up and
// turns quiver::Error into a message on stderr and a non-zero exit.
//
// Exit codes: 0 success, 1 a quiver error (bad input, unsupported ISA, ...), 2 usage error.
#include <cstdio>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "quiver/quiver.hpp"

namespace {

int run_info(bool as_json) {
  const quiver::Isa active = quiver::active_isa();
  std::vector<std::string> available, compiled;
  for (auto isa : quiver::available_isas()) available.push_back(quiver::isa_name(isa));
  for (auto isa : quiver::compiled_isas()) compiled.push_back(quiver::isa_name(isa));
  if (as_json) {
    nlohmann::json j{{"version", quiver::kVersion},       {"target", "native"},
                     {"arch", quiver::target_arch()},     {"isa", quiver::isa_name(active)},
                     {"available_isas", available},       {"compiled_isas", compiled}};
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
  CLI::App app{"quiver — vector search runtime (native CLI)"};
  app.require_subcommand(1);

  bool info_json = false;
  auto* info = app.add_subcommand("info", "Print version, the chosen ISA and the available ISAs");
  info->add_flag("--json", info_json, "Machine-readable output");

  quiver::cli::DemoOptions demo_options;
  auto* demo = app.add_subcommand("demo", "Build a flat index over the seed workload and search it");
  quiver::cli::add_demo_options(*demo, demo_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    if (*info) return run_info(info_json);
    if (*demo) return quiver::cli::run_demo(demo_options);
  } catch (const quiver::Error& e) {
    std::cerr << "quiver: error [" << e.code_name() << "]: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "quiver: error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
