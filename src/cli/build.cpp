// `quiver build`: reads base vectors (.fvecs, .fbin, .npy, raw float32 with --dim), builds
// an index (ids are row numbers) and writes the index file atomically.
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/arguments.hpp"
#include "quiver/work_observer.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_kinds.hpp"
#include "quiver/quiver.hpp"

namespace quiver::cli {
namespace {

struct BuildOptions {
  std::string input, output, format, index = "flat", metric = "l2", isa, storage = "f32", lists = "0";
  unsigned refine_bits = 0;
  size_t dim = 0, threads = 1, M = 16, ef_construction = 200, ef_search = 64;
  int bits = 4;
  uint64_t seed = 42;
  bool json = false, quiet = false, no_vectors = false, neighbor_codes = false;
  std::set<std::string> given;  // the options on the command line (given_options)
};

// --lists: "auto" or a count in [0, kMaxLists] (0 = not partitioned), checked by its validator
// first. The count is never the kAutoLists sentinel (2^64 - 1 once read as auto).
size_t parse_lists(const std::string& text) {
  if (text == "auto") return QuantizedIndexOptions::kAutoLists;
  const std::optional<uint64_t> n = parse_count(text);
  if (!n || *n > QuantizedIndexOptions::kMaxLists) {
    throw Error(ErrorCode::InvalidArgument, "--lists must be auto or a count from 0 to " +
                                                std::to_string(QuantizedIndexOptions::kMaxLists) + ", got '" + text +
                                                "'");
  }
  return size_t(*n);
}

int run_build(const BuildOptions& o) {
  using clock = std::chrono::steady_clock;
  BuildParams p;
  p.kind = parse_index_kind(o.index);
  // Before anything else: an option of another kind is refused, not ignored.
  check_options_apply("build", o.given, index_target(p.kind, parse_lists(o.lists) != 0, o.storage == "sq8"));
  p.metric = parse_metric(o.metric);
  p.bits = o.bits;
  p.M = o.M;
  p.ef_construction = o.ef_construction;
  p.ef_search = o.ef_search;
  p.seed = o.seed;
  p.keep_vectors = !o.no_vectors;
  p.refine_bits = o.refine_bits;
  p.lists = parse_lists(o.lists);
  p.storage = o.storage;
  p.neighbor_codes = o.neighbor_codes;
  p.threads = o.threads;
  p.isa = o.isa;
  if (p.kind != IndexKind::flat) make_index(p);  // fails early, before reading the data
  const auto t_read = clock::now();
  const io::Vectors data = load_vectors(o.input, o.format, o.dim);
  if (data.rows == 0) throw Error(ErrorCode::InvalidArgument, o.input + ": no vectors");
  p.dim = data.dim;
  const auto t0 = clock::now();
  auto index = make_index(p);
  index->reserve(data.rows);
  {
    Progress progress("build", data.rows, o.quiet);
    // Chunks let the progress bar move. Flat and quantised indexes come out the same in any
    // batching (codes are per vector; partitions train at fixed sizes on the first rows).
    const size_t chunk = std::max<size_t>(1024, data.rows / 100);
    // A chunk that trains a partitioned index runs k-means inside one add: the bar says so.
    WorkObserverScope observe([&](const char* step, size_t done, size_t total) {
      progress.note(std::string(step) + " " + std::to_string(done) + "/" + std::to_string(total));
      return true;
    });
    std::vector<uint64_t> ids;
    for (size_t at = 0; at < data.rows; at += chunk) {
      const size_t n = std::min(chunk, data.rows - at);
      ids.resize(n);
      for (size_t i = 0; i < n; ++i) ids[i] = at + i;
      add_vectors(*index, ids.data(), data.data.data() + at * data.dim, n, p.threads);
      progress.note("");
      progress.update(at + n);
    }
    progress.finish();
  }
  const auto t1 = clock::now();
  index->save(o.output);
  const auto t2 = clock::now();
  const double read_ms = std::chrono::duration<double, std::milli>(t0 - t_read).count();
  const double build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double write_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  const uint64_t file_bytes = inspect_index_file(o.output).file_bytes;
  if (o.json) {
    nlohmann::json j{{"index", index_kind_name(index->kind())},
                     {"metric", metric_name(index->metric())},
                     {"isa", isa_name(index->isa())},
                     {"rows", index->size()},
                     {"dim", index->dim()},
                     {"read_ms", read_ms},
                     {"build_ms", build_ms},
                     {"write_ms", write_ms},
                     {"memory_bytes", index->memory_bytes()},
                     {"file_bytes", file_bytes},
                     {"params", index->describe()},
                     {"output", o.output}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "built " << index_kind_name(index->kind()) << " index (" << index->describe() << ", "
              << metric_name(index->metric()) << ", isa " << isa_name(index->isa()) << "): " << index->size() << " x "
              << index->dim() << " in " << build_ms << " ms\nwrote " << o.output << " (" << file_bytes << " bytes) in "
              << write_ms << " ms\n";
  }
  return 0;
}

}  // namespace

void register_build(CLI::App& app, Runner& run) {
  auto o = std::make_shared<BuildOptions>();
  auto* cmd = app.add_subcommand("build", "Build an index from a vector file and write the index file");
  cmd->add_option("input", o->input,
                  "Base vectors: .fvecs, .fbin, .npy (float32, C order) or raw float32 (.f32, needs --dim)")
      ->required();
  cmd->add_option("-o,--output", o->output, "Index file to write")->required();
  cmd->add_option("--format", o->format, "Input format if the extension does not say: fvecs, fbin, npy, raw");
  cmd->add_option("--dim", o->dim, "Dimension of raw float32 input")->check(non_negative());
  cmd->add_option("--index", o->index, "Index kind: flat, quantized, hnsw")
      ->check(CLI::IsMember({"flat", "quantized", "hnsw"}))
      ->capture_default_str();
  cmd->add_option("--metric", o->metric, "l2, ip or cosine")->capture_default_str();
  cmd->add_option("--bits", o->bits, "Code bits per dimension (quantized: 2 or 4)")->capture_default_str();
  cmd->add_option("--M", o->M, "Hnsw: links per node on the upper levels (2M on level 0), 2..128")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--ef-construction", o->ef_construction, "Hnsw: build beam width (raised to M if smaller)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--ef-search", o->ef_search,
                  "Hnsw: default search beam width, stored in the file (search --ef overrides)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed (quantized rotation, hnsw levels)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--storage", o->storage,
                  "Hnsw: vectors in the graph as f32, or sq8 (8-bit codes of the rotated vectors, one scale "
                  "per vector: about 1/4 of the bytes)")
      ->check(CLI::IsMember({"f32", "sq8"}))
      ->capture_default_str();
  cmd->add_option(
         "--lists", o->lists,
         "Quantized: partition into N inverted lists (N <= " + std::to_string(QuantizedIndexOptions::kMaxLists) +
             "), or auto (min(n/256, round(3 sqrt(n))) for the n trained at); "
             "0 = scan every code")
      ->check(auto_or_count_in(0, QuantizedIndexOptions::kMaxLists))
      ->capture_default_str();
  cmd->add_option("--refine-bits", o->refine_bits,
                  "Quantized: refine plane bits per coordinate (0 = none, 1.." +
                      std::to_string(QuantizedIndexOptions::kMaxRefineBits) +
                      "; codes-only re-scoring without the f32 vectors)")
      ->check(count_in(0, QuantizedIndexOptions::kMaxRefineBits))
      ->capture_default_str();
  cmd->add_flag("--no-vectors", o->no_vectors,
                "Quantized and hnsw sq8: keep only the codes, not the f32 vectors (smaller; no exact rerank)");
  cmd->add_flag("--neighbor-codes", o->neighbor_codes,
                "Hnsw sq8: store each node's neighbours' 1-bit codes beside its links (32 x (dim / 8 + 8) more bytes "
                "per node); searches then read and score only the neighbours that could enter the beam");
  cmd->add_option("--threads", o->threads,
                  "Hnsw: build threads (0 = all cores; 1 builds the same graph on every run and target)")
      ->check(thread_count())
      ->capture_default_str();
  cmd->add_option("--isa", o->isa, "Force an ISA level (default: QUIVER_ISA or the best)");
  cmd->add_flag("--json", o->json, "Machine-readable summary");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress bar");
  cmd->footer(
      "An option of another index kind (--lists on flat, --M on quantized, ...) is an error "
      "(src/cli/option_kinds.cpp has the table).");
  cmd->callback([o, cmd, &run] {
    o->given = given_options(*cmd);
    run = [o] { return run_build(*o); };
  });
}

}  // namespace quiver::cli
