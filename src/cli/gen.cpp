// `quiver gen`: writes a workload — base vectors, queries and exact ground truth — as
// .fbin/.ibin or .fvecs/.ivecs.
//   seed       unit-length i.i.d. Gaussian vectors (the project's seed workload: 10,000 x 384,
//              seed 42; 256 queries, seed 13)
//   clustered  a Gaussian mixture with decaying per-dimension spread (100,000 x 384 by
//              default), queries held out from the same mixture
//   embedding  like sentence embeddings: shared mean direction, Zipf-sized topics, decaying
//              in-topic spectrum, noisier queries, randomly rotated (100,000 x 384, 1,000 topics)
// Ground truth is exact search (the flat index), k nearest per query, ties by id.
#include <atomic>
#include <chrono>
#include <thread>
#include <iostream>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/arguments.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_kinds.hpp"
#include "quiver/quiver.hpp"
#include "tools/workload.hpp"

namespace quiver::cli {
namespace {

struct GenOptions {
  std::string workload = "seed";
  std::string out_dir = ".";
  std::string name;  // default: the workload name
  std::string format = "fbin";
  size_t rows = 0, queries = 0, dim = 384, k = 100, clusters = 0,
         threads = 0;  // rows, queries, clusters: 0 = not given
  uint64_t seed = 42, query_seed = 13;
  std::string metric = "l2";
  bool json = false, quiet = false;
  std::set<std::string> given;  // the options on the command line (given_options)
};

Target workload_target(const std::string& workload) {
  if (workload == "seed") return Target::seed_workload;
  if (workload == "embedding") return Target::embedding_workload;
  return Target::clustered_workload;
}

int run_gen(const GenOptions& o) {
  using clock = std::chrono::steady_clock;
  check_options_apply("gen", o.given, workload_target(o.workload));
  const bool seed_workload = o.workload == "seed";
  // 0 is "not given": --rows 0, --queries 0 and --clusters 0 are refused by their validators.
  const size_t rows = o.rows ? o.rows : (seed_workload ? 10000 : 100000);
  const size_t nq = o.queries ? o.queries : (seed_workload ? 256 : 1000);
  const size_t clusters = o.clusters ? o.clusters : (o.workload == "embedding" ? 1000 : seed_workload ? 0 : 64);
  const Metric metric = parse_metric(o.metric);
  if (o.dim == 0) throw Error(ErrorCode::InvalidArgument, "--dim must be at least 1");
  if (o.k == 0 || o.k > rows) {
    throw Error(ErrorCode::InvalidArgument,
                "-k must be between 1 and the number of rows (" + std::to_string(rows) + ")");
  }
  // Every size before any allocation: the base vectors, the flat index's copy of them and the
  // bytes of the base file are alive at once.
  check_workload_size("gen", rows, nq, o.dim, o.k, clusters, 3);
  const bool fvecs = o.format == "fvecs";
  if (!fvecs && o.format != "fbin") throw Error(ErrorCode::InvalidArgument, "--format must be fbin or fvecs");
  const std::string name = o.name.empty() ? o.workload : o.name;
  const std::string stem = o.out_dir + "/" + name;
  const std::string base_path = stem + (fvecs ? ".base.fvecs" : ".base.fbin");
  const std::string query_path = stem + (fvecs ? ".queries.fvecs" : ".queries.fbin");
  const std::string gt_path = stem + (fvecs ? ".gt.ivecs" : ".gt.ibin");

  const auto t0 = clock::now();
  std::vector<float> base, queries;
  if (seed_workload) {
    base = unit_gaussian_vectors(rows, o.dim, o.seed);
    queries = unit_gaussian_vectors(nq, o.dim, o.query_seed);
  } else if (o.workload == "embedding") {
    base = embedding_like_vectors(rows, o.dim, clusters, o.seed, o.seed + 1, EmbeddingRole::base);
    queries = embedding_like_vectors(nq, o.dim, clusters, o.seed, o.query_seed, EmbeddingRole::query);
  } else {
    base = clustered_vectors(rows, o.dim, clusters, o.seed, o.seed + 1);
    queries = clustered_vectors(nq, o.dim, clusters, o.seed, o.query_seed);
  }
  FlatIndex index({o.dim, metric});
  index.reserve(rows);
  {
    Progress progress("vectors", rows, o.quiet);
    const size_t chunk = 4096;
    std::vector<uint64_t> ids;
    for (size_t at = 0; at < rows; at += chunk) {
      const size_t n = std::min(chunk, rows - at);
      ids.resize(n);
      for (size_t i = 0; i < n; ++i) ids[i] = at + i;
      index.add(ids.data(), base.data() + at * o.dim, n);
      progress.update(at + n);
    }
    progress.finish();
  }
  std::vector<int32_t> gt(nq * o.k);
  {
    const size_t threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    Progress progress("truth", nq, o.quiet);
    std::atomic<size_t> done{0};
    parallel_for(nq, threads, [&](size_t begin, size_t end) {
      std::vector<Neighbor> out(o.k);
      for (size_t q = begin; q < end; ++q) {
        index.search(queries.data() + q * o.dim, o.k, out.data());
        for (size_t j = 0; j < o.k; ++j) gt[q * o.k + j] = int32_t(out[j].id);
        const size_t d = ++done;
        if (begin == 0) progress.update(d);
      }
    });
    progress.finish();
  }
  io::write_vectors(base_path, base.data(), rows, o.dim);
  io::write_vectors(query_path, queries.data(), nq, o.dim);
  io::write_ground_truth(gt_path, gt.data(), nq, o.k);
  const double secs = std::chrono::duration<double>(clock::now() - t0).count();
  if (o.json) {
    nlohmann::json j{{"workload", o.workload},
                     {"rows", rows},
                     {"queries", nq},
                     {"dim", o.dim},
                     {"k", o.k},
                     {"metric", metric_name(metric)},
                     {"base", base_path},
                     {"query_file", query_path},
                     {"ground_truth", gt_path},
                     {"seconds", secs}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "wrote " << o.workload << " workload (" << rows << " x " << o.dim << ", " << nq << " queries, exact "
              << metric_name(metric) << " top-" << o.k << ") in " << secs << " s:\n  " << base_path << "\n  "
              << query_path << "\n  " << gt_path << "\n";
  }
  return 0;
}

}  // namespace

void register_gen(CLI::App& app, Runner& run) {
  auto o = std::make_shared<GenOptions>();
  auto* cmd = app.add_subcommand("gen", "Write a workload: base vectors, queries and exact ground truth");
  cmd->add_option("workload", o->workload,
                  "seed (unit Gaussian, 10k x 384), clustered (Gaussian mixture, 100k x 384) or embedding "
                  "(embedding-like: anisotropic, Zipf topics, 100k x 384)")
      ->check(CLI::IsMember({"seed", "clustered", "embedding"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", o->out_dir, "Output directory")->capture_default_str();
  cmd->add_option("--name", o->name,
                  "File name stem, a plain file name written inside -o (no '/', not '..'; "
                  "default: the workload name)")
      ->check(plain_file_name());
  cmd->add_option("--format", o->format, "fbin (+ibin) or fvecs (+ivecs)")
      ->check(CLI::IsMember({"fbin", "fvecs"}))
      ->capture_default_str();
  cmd->add_option("--rows", o->rows, "Base vectors, 1 to 2^31 - 1 (default 10000 seed, 100000 clustered and embedding)")
      ->check(positive());
  cmd->add_option("--queries", o->queries, "Queries, 1 to 2^31 - 1 (default 256 seed, 1000 clustered and embedding)")
      ->check(positive());
  cmd->add_option("--dim", o->dim, "Dimension")->check(non_negative())->capture_default_str();
  cmd->add_option("-k", o->k, "Ground-truth neighbours per query")->check(k_range())->capture_default_str();
  cmd->add_option("--clusters", o->clusters,
                  "Clustered and embedding: mixture components, at least 1 (default 64 "
                  "clustered, 1000 embedding)")
      ->check(positive());
  cmd->add_option("--seed", o->seed, "Base seed (clustered, embedding: also fixes the mixture)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--query-seed", o->query_seed, "Query seed")->check(non_negative())->capture_default_str();
  cmd->add_option("--metric", o->metric, "Metric of the ground truth: l2, ip, cosine")->capture_default_str();
  cmd->add_option("--threads", o->threads, "Threads for the ground truth (default: all cores)")->check(thread_count());
  cmd->add_flag("--json", o->json, "Machine-readable summary");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress bar");
  cmd->callback([o, cmd, &run] {
    o->given = given_options(*cmd);
    run = [o] { return run_gen(*o); };
  });
}

}  // namespace quiver::cli
