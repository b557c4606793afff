#include "cli/option_kinds.hpp"

#include <CLI/CLI.hpp>

#include "quiver/error.hpp"

namespace quiver::cli {
namespace {

constexpr unsigned bit(Target t) { return 1u << unsigned(t); }
constexpr unsigned kQuantized = bit(Target::quantized) | bit(Target::partitioned);
constexpr unsigned kHnsw = bit(Target::hnsw_f32) | bit(Target::hnsw_sq8);
constexpr unsigned kSeeded = kQuantized | kHnsw;                     // a rotation or level seed
constexpr unsigned kCodesOnly = kQuantized | bit(Target::hnsw_sq8);  // f32 vectors optional
constexpr unsigned kMixture = bit(Target::clustered_workload) | bit(Target::embedding_workload);

struct Row {
  const char* command;
  const char* option;
  unsigned targets;  // bit(Target) of every target the option applies to
};

// THE table. An option a subcommand has that is not listed here applies to every target of
// that subcommand: --metric, --isa, -k, --format, --dim, --json, -q, the file arguments; search's
// --threads (query threads), --limit and --gt; and --rerank / --no-rerank, the exact re-scoring
// depth every kind takes (the flat index's search is exact already, so any depth gives its
// answer; `search` says so in a note).
constexpr Row kTable[] = {
    // quiver build: the kind is --index (and --lists, --storage)
    {"build", "--bits", kQuantized},
    {"build", "--lists", kQuantized},
    {"build", "--refine-bits", kQuantized},
    {"build", "--seed", kSeeded},
    {"build", "--no-vectors", kCodesOnly},
    {"build", "--M", kHnsw},
    {"build", "--ef-construction", kHnsw},
    {"build", "--ef-search", kHnsw},
    {"build", "--storage", kHnsw},
    {"build", "--neighbor-codes", bit(Target::hnsw_sq8)},
    {"build", "--threads", kHnsw},  // only HNSW builds use threads; flat and quantised add on one
    // quiver search: the kind is the index file's
    {"search", "--ef", kHnsw},
    {"search", "--probes", bit(Target::partitioned)},
    // quiver compare: --index, --storage
    {"compare", "--bits", kQuantized},
    {"compare", "--seed", kSeeded},
    {"compare", "--no-vectors", kCodesOnly},
    {"compare", "--M", kHnsw},
    {"compare", "--ef-construction", kHnsw},
    {"compare", "--ef", kHnsw},
    {"compare", "--storage", kHnsw},
    // quiver demo: --index (its HNSW stores f32)
    {"demo", "--M", kHnsw},
    {"demo", "--ef-construction", kHnsw},
    {"demo", "--ef", kHnsw},
    // quiver gen: the workload
    {"gen", "--clusters", kMixture},
};

// "a flat index", "the seed workload", ... Only as precise as `row` needs: "an hnsw index"
// for an option of no HNSW index, "an hnsw index with f32 storage" for one of sq8 only.
std::string target_phrase(Target t, unsigned row) {
  if ((bit(t) & kQuantized) != 0 && (row & kQuantized) == 0) return "a quantized index";
  if ((bit(t) & kHnsw) != 0 && (row & kHnsw) == 0) return "an hnsw index";
  switch (t) {
    case Target::flat: return "a flat index";
    case Target::quantized: return "a quantized index that is not partitioned (built with --lists 0)";
    case Target::partitioned: return "a partitioned quantized index";
    case Target::hnsw_f32: return "an hnsw index with f32 storage";
    case Target::hnsw_sq8: return "an hnsw index with sq8 storage";
    case Target::seed_workload: return "the seed workload";
    case Target::clustered_workload: return "the clustered workload";
    case Target::embedding_workload: return "the embedding workload";
  }
  return "this target";
}

// What a set of targets is called: "quantized, hnsw", "partitioned quantized (--lists N or
// auto)", "hnsw with --storage sq8", "clustered, embedding".
std::string targets_phrase(unsigned mask) {
  std::string out;
  auto add = [&out](const char* name) { out += (out.empty() ? "" : ", ") + std::string(name); };
  if ((mask & bit(Target::flat)) != 0) add("flat");
  if ((mask & kQuantized) == kQuantized) {
    add("quantized");
  } else if ((mask & bit(Target::partitioned)) != 0) {
    add("partitioned quantized (built with --lists N or auto)");
  } else if ((mask & bit(Target::quantized)) != 0) {
    add("quantized without lists");
  }
  if ((mask & kHnsw) == kHnsw) {
    add("hnsw");
  } else if ((mask & bit(Target::hnsw_sq8)) != 0) {
    add("hnsw with --storage sq8");
  } else if ((mask & bit(Target::hnsw_f32)) != 0) {
    add("hnsw with f32 storage");
  }
  if ((mask & bit(Target::seed_workload)) != 0) add("seed");
  if ((mask & bit(Target::clustered_workload)) != 0) add("clustered");
  if ((mask & bit(Target::embedding_workload)) != 0) add("embedding");
  return out;
}

}  // namespace

std::set<std::string> given_options(const CLI::App& command) {
  std::set<std::string> given;
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() > 0) given.insert(option->get_name());
  }
  return given;
}

void check_options_apply(const std::string& command, const std::set<std::string>& given, Target target,
                         const std::string& where) {
  for (const Row& row : kTable) {
    if (command != row.command || given.count(row.option) == 0 || (row.targets & bit(target)) != 0) continue;
    const bool workload = (row.targets & kMixture) != 0;
    throw Error(ErrorCode::InvalidArgument,
                std::string(row.option) + " does not apply to " + target_phrase(target, row.targets) +
                    (where.empty() ? "" : " (" + where + ")") + "; it applies to " +
                    (workload ? "the workloads: " : "these index kinds only: ") + targets_phrase(row.targets));
  }
}

Target index_target(IndexKind kind, bool partitioned, bool sq8) {
  switch (kind) {
    case IndexKind::flat: return Target::flat;
    case IndexKind::quantized: return partitioned ? Target::partitioned : Target::quantized;
    case IndexKind::hnsw: return sq8 ? Target::hnsw_sq8 : Target::hnsw_f32;
  }
  throw Error(ErrorCode::UnknownIndexKind, std::string("no option table for the ") + index_kind_name(kind) + " index");
}

Target index_target(const AnyIndex& index) {
  if (const auto* q = dynamic_cast<const IndexAdapter<QuantizedIndex>*>(&index)) {
    return index_target(IndexKind::quantized, q->index().lists_option() != 0, false);
  }
  if (const auto* h = dynamic_cast<const IndexAdapter<HnswIndex>*>(&index)) {
    return index_target(IndexKind::hnsw, false, h->index().storage() == HnswStorage::sq8);
  }
  return index_target(index.kind(), false, false);
}

}  // namespace quiver::cli
