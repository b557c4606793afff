// `quiver compare`: the same build + search natively (this process) and in wasm (Node
// running scripts/compare-wasm.mjs through the npm package, once per variant), on the same
// files, printed as one side-by-side table. The wasm side also loads the index file written
// natively here, so the table shows whether that file gives the same answers in wasm.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/arguments.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_kinds.hpp"
#include "quiver/quiver.hpp"

#ifndef QUIVER_SOURCE_DIR
#define QUIVER_SOURCE_DIR "."
#endif

namespace quiver::cli {
namespace {

struct CompareOptions {
  std::string base, queries, gt, format, index = "flat", metric = "l2", variants = "simd-mt,simd,baseline";
  std::string storage = "f32";
  std::string node = "node", script = std::string(QUIVER_SOURCE_DIR) + "/scripts/compare-wasm.mjs", isa;
  size_t dim = 0, k = 10, ef = 0, M = 16, ef_construction = 200;
  std::optional<size_t> rerank;  // unset: the kind's default
  int bits = 4;
  uint64_t seed = 42;
  bool json = false, quiet = false, no_vectors = false;
  std::set<std::string> given;  // the options on the command line (given_options)
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Column {
  std::string name;
  double build_ms = 0, qps = 0, p50 = 0, p99 = 0, recall = -1, agree = -1, agree_loaded = -1;
  double index_mb = 0, process_mb = 0;
  std::string isa;
};

double agreement(const std::vector<uint64_t>& a, const nlohmann::json& b) {
  if (!b.is_array() || b.size() != a.size() || a.empty()) return 0;
  size_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += b[i].get<double>() == double(a[i]);
  return double(same) / double(a.size());
}

int run_compare(const CompareOptions& o) {
  BuildParams p;
  p.kind = parse_index_kind(o.index);
  check_options_apply("compare", o.given, index_target(p.kind, false, o.storage == "sq8"));
  p.metric = parse_metric(o.metric);
  p.isa = o.isa;
  p.bits = o.bits;
  p.seed = o.seed;
  p.keep_vectors = !o.no_vectors;
  p.M = o.M;
  p.ef_construction = o.ef_construction;
  p.storage = o.storage;
  p.threads = 1;                                 // both sides build with one thread: same graph natively and in wasm
  if (p.kind != IndexKind::flat) make_index(p);  // 'not available yet' before any work
  const io::Vectors base = load_vectors(o.base, o.format, o.dim);
  const io::Vectors queries = load_vectors(o.queries, o.format, o.dim ? o.dim : base.dim);
  if (queries.dim != base.dim) {
    throw Error(ErrorCode::DimensionMismatch, "queries have dimension " + std::to_string(queries.dim) +
                                                  ", the base vectors " + std::to_string(base.dim));
  }
  std::optional<io::GroundTruth> gt;
  if (!o.gt.empty()) {
    gt = io::read_ground_truth(o.gt);
    check_ground_truth(*gt, queries.rows, std::min(o.k, base.rows), o.gt);
  }

  // Native: build, search once per query, write the index file for the wasm side.
  char tmpl[] = "/tmp/quiver-compare-XXXXXX";
  if (!::mkdtemp(tmpl)) throw Error(ErrorCode::IoError, "cannot create a temporary directory");
  const std::string dir = tmpl;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
  p.dim = base.dim;
  std::vector<uint64_t> ids(base.rows);
  for (size_t i = 0; i < base.rows; ++i) ids[i] = i;
  const auto t0 = std::chrono::steady_clock::now();
  auto index = make_index(p);
  index->reserve(base.rows);
  add_vectors(*index, ids.data(), base.data.data(), base.rows, p.threads);
  const auto t1 = std::chrono::steady_clock::now();
  AnySearchParams sp;
  sp.ef = o.ef;
  sp.rerank = o.rerank;
  const SearchRun run = run_queries(*index, queries.data.data(), queries.rows, o.k, sp, 1, true);
  const std::string index_path = dir + "/native.qvr";
  index->save(index_path);
  io::write_vectors(dir + "/base.fbin", base.data.data(), base.rows, base.dim);
  io::write_vectors(dir + "/queries.fbin", queries.data.data(), queries.rows, queries.dim);

  Column native;
  native.name = "native";
  native.isa = isa_name(index->isa());
  native.build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  native.qps = double(queries.rows) / run.wall_s;
  const LatencyStats lat = latency_stats(run.latency_us);
  native.p50 = lat.p50_us;
  native.p99 = lat.p99_us;
  if (gt) {
    const Recall r = recall_at_k(run.results, queries.rows, run.k, *gt);
    native.recall = r.recall;
    if (r.queries < queries.rows && !o.json) {
      std::cerr << "quiver: note: " << queries.rows - r.queries << " of " << queries.rows
                << " queries have no valid ground-truth id; recall is over the other " << r.queries << "\n";
    }
  }
  native.agree = native.agree_loaded = 1;
  native.index_mb = double(index->memory_bytes()) / 1e6;
  native.process_mb = double(peak_rss_bytes()) / 1e6;
  std::vector<uint64_t> native_ids;
  for (const auto& n : run.results) native_ids.push_back(n.id);

  // Wasm: one Node process runs every variant.
  std::string cmd = shell_quote(o.node) + " " + shell_quote(o.script) + " --base " + shell_quote(dir + "/base.fbin") +
                    " --queries " + shell_quote(dir + "/queries.fbin") + " --index " + shell_quote(index_path) +
                    " -k " + std::to_string(o.k) + " --metric " + shell_quote(metric_name(p.metric)) + " --variants " +
                    shell_quote(o.variants) + " --kind " + shell_quote(index_kind_name(p.kind)) + " --bits " +
                    std::to_string(p.bits) + " --seed " + std::to_string(p.seed) +
                    (o.rerank ? " --rerank " + std::to_string(*o.rerank) : "") + " --M " + std::to_string(p.M) +
                    " --ef-construction " + std::to_string(p.ef_construction) + " --ef " + std::to_string(o.ef) +
                    " --storage " + shell_quote(p.storage) + (p.keep_vectors ? "" : " --no-vectors");
  if (!o.quiet && !o.json) std::cerr << "quiver compare: running the wasm side: " << o.script << "\n";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw Error(ErrorCode::IoError, "cannot run " + o.node);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  if (status != 0) {
    throw Error(ErrorCode::IoError, "the wasm side failed (" + o.node + " " + o.script + " exited with status " +
                                        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                        "); is the npm package built (scripts/build.sh wasm-simd ...)?");
  }
  nlohmann::json wasm;
  try {
    wasm = nlohmann::json::parse(out);
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Corrupt, std::string("the wasm side printed something that is not JSON: ") + e.what());
  }
  std::vector<Column> cols = {native};
  for (const auto& v : wasm.at("variants")) {
    Column c;
    c.name = "wasm " + v.at("variant").get<std::string>();
    c.isa = v.at("isa").get<std::string>();
    c.build_ms = v.at("build_ms").get<double>();
    c.qps = v.at("qps").get<double>();
    c.p50 = v.at("latency_us").at("p50").get<double>();
    c.p99 = v.at("latency_us").at("p99").get<double>();
    c.agree = agreement(native_ids, v.at("ids"));
    c.agree_loaded = agreement(native_ids, v.at("loaded_ids"));
    if (gt) {
      std::vector<Neighbor> res(native_ids.size());
      const auto& wids = v.at("ids");
      for (size_t i = 0; i < res.size() && i < wids.size(); ++i) res[i] = {uint64_t(wids[i].get<double>()), 0.f};
      c.recall = recall_at_k(res, queries.rows, run.k, *gt).recall;
    }
    c.index_mb = v.at("index_memory_bytes").get<double>() / 1e6;
    c.process_mb = v.at("heap_bytes").get<double>() / 1e6;
    cols.push_back(c);
  }

  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& c : cols) {
      j.push_back({{"target", c.name},
                   {"isa", c.isa},
                   {"build_ms", c.build_ms},
                   {"qps", c.qps},
                   {"latency_p50_us", c.p50},
                   {"latency_p99_us", c.p99},
                   {"recall", c.recall},
                   {"ids_agree_with_native", c.agree},
                   {"native_file_ids_agree", c.agree_loaded},
                   {"index_mb", c.index_mb},
                   {"process_mb", c.process_mb}});
    }
    std::cout << nlohmann::json{{"rows", base.rows},
                                {"dim", base.dim},
                                {"queries", queries.rows},
                                {"k", run.k},
                                {"index", index_kind_name(p.kind)},
                                {"metric", metric_name(p.metric)},
                                {"targets", j}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << index_kind_name(p.kind) << " index, " << base.rows << " x " << base.dim << " (" << metric_name(p.metric)
            << "), " << queries.rows << " queries, k=" << run.k << ", one thread\n\n";
  auto row = [&](const std::string& label, auto cell) {
    std::cout << std::left << std::setw(26) << label << std::right;
    for (const auto& c : cols) std::cout << std::setw(16) << cell(c);
    std::cout << "\n";
  };
  auto fmt = [](double v, int prec) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(prec) << v;
    return s.str();
  };
  row("", [](const Column& c) { return c.name; });
  row("isa", [](const Column& c) { return c.isa; });
  row("build (ms)", [&](const Column& c) { return fmt(c.build_ms, 1); });
  row("QPS", [&](const Column& c) { return fmt(c.qps, 0); });
  row("latency p50 (us)", [&](const Column& c) { return fmt(c.p50, 1); });
  row("latency p99 (us)", [&](const Column& c) { return fmt(c.p99, 1); });
  if (gt) row("recall@" + std::to_string(run.k), [&](const Column& c) { return fmt(c.recall, 4); });
  row("ids = native", [&](const Column& c) { return fmt(100 * c.agree, 2) + "%"; });
  row("native file: ids = native", [&](const Column& c) { return fmt(100 * c.agree_loaded, 2) + "%"; });
  row("index memory (MB)", [&](const Column& c) { return fmt(c.index_mb, 1); });
  row("peak RSS / wasm heap (MB)", [&](const Column& c) { return fmt(c.process_mb, 1); });
  return 0;
}

}  // namespace

void register_compare(CLI::App& app, Runner& run) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Run the same build + search natively and in wasm (Node, every variant) and print a side-by-side table");
  cmd->add_option("base", o->base, "Base vectors: .fvecs, .fbin, .npy or raw float32 (.f32, needs --dim)")->required();
  cmd->add_option("queries", o->queries, "Queries, same formats")->required();
  cmd->add_option("--gt", o->gt, "Ground truth (.ivecs or .ibin) for recall");
  cmd->add_option("-k", o->k, "Neighbours per query")->check(k_range())->capture_default_str();
  cmd->add_option("--index", o->index, "Index kind: flat, quantized, hnsw")
      ->check(CLI::IsMember({"flat", "quantized", "hnsw"}))
      ->capture_default_str();
  cmd->add_option("--metric", o->metric, "l2, ip or cosine")->capture_default_str();
  cmd->add_option("--M", o->M, "Hnsw: links per node (2M on level 0)")->check(non_negative())->capture_default_str();
  cmd->add_option("--ef-construction", o->ef_construction, "Hnsw: build beam width")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--ef", o->ef, "Hnsw: search beam width (0 = efSearch, 64); raised to k if smaller")
      ->check(non_negative());
  add_rerank_option(*cmd, o->rerank);
  cmd->add_option("--bits", o->bits, "Code bits per dimension (quantized: 2 or 4)")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed (quantized rotation, hnsw levels)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--storage", o->storage, "Hnsw: f32 or sq8 (8-bit codes; exact rerank unless --no-vectors)")
      ->check(CLI::IsMember({"f32", "sq8"}))
      ->capture_default_str();
  cmd->add_flag("--no-vectors", o->no_vectors, "Quantized and hnsw sq8: keep only the codes (no exact rerank)");
  cmd->add_option("--format", o->format, "Input format if the extension does not say");
  cmd->add_option("--dim", o->dim, "Dimension of raw float32 input")->check(non_negative());
  cmd->add_option("--variants", o->variants, "Wasm variants, comma-separated")->capture_default_str();
  cmd->add_option("--isa", o->isa, "Force the native ISA level");
  cmd->add_option("--node", o->node, "Node executable")->capture_default_str();
  cmd->add_option("--script", o->script, "The wasm-side script")->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress messages");
  cmd->footer("An option of another index kind (--M on flat, --bits on hnsw, ...) is an error.");
  cmd->callback([o, cmd, &run] {
    o->given = given_options(*cmd);
    run = [o] { return run_compare(*o); };
  });
}

}  // namespace quiver::cli
