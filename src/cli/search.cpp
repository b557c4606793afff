// `quiver search`: loads an index file, runs queries (.fvecs, .fbin, .npy, raw) and prints
// the results, or with --gt the recall@k and latency percentiles. --json for machines.
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/arguments.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_kinds.hpp"
#include "quiver/quiver.hpp"

namespace quiver::cli {
namespace {

struct SearchOptions {
  std::string index, queries, format, gt, isa;
  size_t dim = 0, k = 10, ef = 0, probes = 0, threads = 1, limit = SIZE_MAX;
  std::optional<size_t> rerank;  // unset: the kind's default
  bool json = false, quiet = false;
  std::set<std::string> given;  // the options on the command line (given_options)
};

int run_search(const SearchOptions& o) {
  auto index = load_index_file(o.index, o.isa);
  // The file decides the kind: an option of another kind (--ef on a quantized file, --probes on
  // an unpartitioned one) is refused before the queries are read.
  check_options_apply("search", o.given, index_target(*index), o.index);
  io::Vectors q = load_vectors(o.queries, o.format, o.dim ? o.dim : index->dim());
  if (q.dim != index->dim()) {
    throw Error(ErrorCode::DimensionMismatch, o.queries + ": queries have dimension " + std::to_string(q.dim) +
                                                  ", the index " + std::to_string(index->dim()));
  }
  const size_t nq = std::min(q.rows, o.limit);
  if (index->kind() == IndexKind::flat && o.rerank.value_or(0) && !o.json) {
    std::cerr << "quiver: note: --rerank has no effect on an exact flat index\n";
  }
  // The ground truth is read and checked before the search runs (its shape, and that it has a
  // valid id to measure against).
  std::optional<io::GroundTruth> gt;
  if (!o.gt.empty()) {
    gt = io::read_ground_truth(o.gt);
    check_ground_truth(*gt, nq, std::min(o.k, index->size()), o.gt);
  }
  AnySearchParams p;
  p.ef = o.ef;
  p.rerank = o.rerank;
  p.probes = o.probes;
  const SearchRun run = run_queries(*index, q.data.data(), nq, o.k, p, o.threads, o.quiet || o.json);
  const LatencyStats lat = latency_stats(run.latency_us);
  const double qps = run.wall_s > 0 ? double(nq) / run.wall_s : 0;
  double recall = -1;
  size_t recall_queries = 0;
  if (gt) {
    const Recall r = recall_at_k(run.results, nq, run.k, *gt);
    recall = r.recall;
    recall_queries = r.queries;
    if (r.queries < nq) {
      std::cerr << "quiver: note: " << nq - r.queries << " of " << nq << " queries have no valid id (only negative "
                << "ids) in the first " << run.k << " of their ground-truth row; recall is over the other " << r.queries
                << "\n";
    }
  }

  if (o.json) {
    nlohmann::json j{
        {"index", index_kind_name(index->kind())},
        {"metric", metric_name(index->metric())},
        {"isa", isa_name(index->isa())},
        {"rows", index->size()},
        {"dim", index->dim()},
        {"queries", nq},
        {"k", run.k},
        {"threads", o.threads},
        {"qps", qps},
        {"latency_us",
         {{"mean", lat.mean_us}, {"p50", lat.p50_us}, {"p90", lat.p90_us}, {"p99", lat.p99_us}, {"max", lat.max_us}}}};
    if (recall >= 0) {
      j["recall"] = recall;
      j["recall_queries"] = recall_queries;  // the queries whose ground truth has a valid id
    }
    auto ids = nlohmann::json::array(), dists = nlohmann::json::array();
    for (size_t i = 0; i < nq; ++i) {
      auto row = nlohmann::json::array(), drow = nlohmann::json::array();
      for (size_t r = 0; r < run.k; ++r) {
        row.push_back(run.results[i * run.k + r].id);
        drow.push_back(run.results[i * run.k + r].distance);
      }
      ids.push_back(row);
      dists.push_back(drow);
    }
    j["ids"] = ids;
    j["distances"] = dists;
    std::cout << j.dump() << "\n";
    return 0;
  }
  if (recall < 0) {
    for (size_t i = 0; i < nq; ++i) {
      std::cout << i << ":";
      for (size_t r = 0; r < run.k; ++r) {
        const Neighbor& n = run.results[i * run.k + r];
        std::cout << " " << n.id << "(" << std::setprecision(6) << n.distance << ")";
      }
      std::cout << "\n";
    }
    std::cerr << nq << " queries, k=" << run.k << ", " << std::fixed << std::setprecision(0) << qps
              << " queries/s, p50 " << std::setprecision(1) << lat.p50_us << " us\n";
  } else {
    std::cout << std::fixed << index_kind_name(index->kind()) << " index, " << index->size() << " x " << index->dim()
              << " (" << metric_name(index->metric()) << ", isa " << isa_name(index->isa()) << "), " << nq
              << " queries, k=" << run.k << ", threads " << o.threads << "\n"
              << "recall@" << run.k << "   " << std::setprecision(4) << recall << "\n"
              << "QPS         " << std::setprecision(0) << qps << "\n"
              << std::setprecision(1) << "latency us  mean " << lat.mean_us << "  p50 " << lat.p50_us << "  p90 "
              << lat.p90_us << "  p99 " << lat.p99_us << "  max " << lat.max_us << "\n";
  }
  return 0;
}

}  // namespace

void register_search(CLI::App& app, Runner& run) {
  auto o = std::make_shared<SearchOptions>();
  auto* cmd = app.add_subcommand("search", "Search an index file with a query file; recall and latency with --gt");
  cmd->add_option("index", o->index, "Index file (written by quiver build or serialize())")->required();
  cmd->add_option("queries", o->queries, "Queries: .fvecs, .fbin, .npy or raw float32 (.f32)")->required();
  cmd->add_option("-k", o->k, "Neighbours per query (more than the index holds: all of it)")
      ->check(k_range())
      ->capture_default_str();
  cmd->add_option("--ef", o->ef,
                  "Hnsw: search beam width (0 = the efSearch stored in the file); raised to k if smaller")
      ->check(non_negative());
  add_rerank_option(*cmd, o->rerank);
  cmd->add_option("--probes", o->probes, "Quantized, partitioned: lists to scan, nearest first (0 = the index default)")
      ->check(non_negative());
  cmd->add_option(
      "--gt", o->gt,
      "Ground truth (.ivecs or .ibin): print recall@k and latency percentiles. Negative ids "
      "are padding; a query whose first k ids are all negative is left out of the recall (with a note), and "
      "a ground truth with no valid id at all is an error");
  cmd->add_option("--format", o->format, "Query format if the extension does not say: fvecs, fbin, npy, raw");
  cmd->add_option("--dim", o->dim, "Dimension of raw float32 queries (default: the index dimension)")
      ->check(non_negative());
  cmd->add_option("--limit", o->limit, "Use only the first N queries")->check(non_negative());
  cmd->add_option("--threads", o->threads, "Query threads")->check(thread_count())->capture_default_str();
  cmd->add_option("--isa", o->isa, "Force an ISA level (default: QUIVER_ISA or the best)");
  cmd->add_flag("--json", o->json, "Machine-readable output, including every result id and distance");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress bar");
  cmd->footer(
      "An option of another index kind than the file's (--ef on a quantized index, --probes on flat, hnsw "
      "or an unpartitioned quantized index) is an error.");
  cmd->callback([o, cmd, &run] {
    o->given = given_options(*cmd);
    run = [o] { return run_search(*o); };
  });
}

}  // namespace quiver::cli
