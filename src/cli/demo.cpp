// `quiver demo`: the native half of `npm run demo`. Builds an exact flat index, a 4-bit
// quantised one or an HNSW graph (one build thread, so the graph is the same on every run)
// over the seed workload, searches every query, and reports timings and the result ids (so the
// demo script can compute recall and check that every ISA and every wasm variant agree).
#include <chrono>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/arguments.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_kinds.hpp"
#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver::cli {

void add_demo_options(CLI::App& command, DemoOptions& o) {
  command.add_option("--rows", o.rows, "Base vectors")->check(non_negative())->capture_default_str();
  command.add_option("--queries", o.queries, "Query vectors")->check(non_negative())->capture_default_str();
  command.add_option("--dim", o.dim, "Dimension")->check(non_negative())->capture_default_str();
  command.add_option("-k", o.k, "Neighbours per query")->check(k_range())->capture_default_str();
  command.add_option("--isa", o.isa, "Force an ISA level (default: QUIVER_ISA or the best)");
  command.add_option("--index", o.index, "flat, quantized (4 bits, seed 42) or hnsw (seed 42, one build thread)")
      ->check(CLI::IsMember({"flat", "quantized", "hnsw"}))
      ->capture_default_str();
  add_rerank_option(command, o.rerank);
  command.add_option("--M", o.M, "Hnsw: links per node")->check(non_negative())->capture_default_str();
  command.add_option("--ef-construction", o.ef_construction, "Hnsw: build beam width")
      ->check(non_negative())
      ->capture_default_str();
  command.add_option("--ef", o.ef, "Hnsw: search beam width")->check(non_negative())->capture_default_str();
  command.add_flag("--json", o.json, "Print JSON including every result id");
}

int run_demo(const DemoOptions& o) {
  using clock = std::chrono::steady_clock;
  BuildParams bp;
  bp.kind = parse_index_kind(o.index);
  check_options_apply("demo", o.given, index_target(bp.kind, false, false));
  // The base vectors and the index's copy of them, checked before either is allocated.
  check_workload_size("demo", o.rows, o.queries, o.dim, o.k, 0, 2);
  bp.dim = o.dim;
  bp.bits = 4;
  bp.seed = 42;
  bp.M = o.M;
  bp.ef_construction = o.ef_construction;
  bp.threads = 1;
  bp.isa = o.isa;
  const auto base = unit_gaussian_vectors(o.rows, o.dim, o.base_seed);
  const auto queries = unit_gaussian_vectors(o.queries, o.dim, o.query_seed);
  std::vector<uint64_t> ids(o.rows);
  for (size_t i = 0; i < o.rows; ++i) ids[i] = i;

  const auto t0 = clock::now();
  auto index = make_index(bp);
  add_vectors(*index, ids.data(), base.data(), o.rows, bp.threads);
  const auto t1 = clock::now();

  std::vector<Neighbor> results(o.queries * o.k);
  AnySearchParams sp;
  sp.ef = o.ef;
  sp.rerank = o.rerank;
  if (!sp.rerank && bp.kind == IndexKind::quantized) sp.rerank = 4;  // the demo's quantised row
  auto search_all = [&] {
    for (size_t q = 0; q < o.queries; ++q) index->search(queries.data() + q * o.dim, o.k, results.data() + q * o.k, sp);
  };
  search_all();
  const auto t2 = clock::now();
  // Repeat the search pass until ~0.5 s has been measured, for a steadier QPS.
  size_t passes = 1;
  auto t3 = t2;
  while (std::chrono::duration<double>(t3 - t1).count() < 0.5) {
    search_all();
    ++passes;
    t3 = clock::now();
  }
  const double build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double search_s = std::chrono::duration<double>(t3 - t1).count();
  const double qps = double(passes * o.queries) / search_s;

  if (o.json) {
    nlohmann::json j{{"target", "native"}, {"index", o.index}, {"isa", isa_name(index->isa())}, {"rows", o.rows},
                     {"dim", o.dim},       {"k", o.k},         {"build_ms", build_ms},          {"qps", qps}};
    std::vector<uint64_t> flat;
    flat.reserve(results.size());
    for (const auto& n : results) flat.push_back(n.id);
    j["ids"] = flat;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "isa " << isa_name(index->isa()) << ": build " << build_ms << " ms, " << qps << " queries/s ("
              << o.index << ": " << index->describe() << ", " << o.rows << " x " << o.dim << ", k=" << o.k << ")\n";
  }
  return 0;
}

}  // namespace quiver::cli
