// The index kinds behind `quiver build`, `search`, `info` and `compare`: making an empty index
// of the kind asked for (through the kind registry), loading any file, and the one build knob
// that is not an index option (HNSW's build threads). Everything else goes through
// quiver::AnyIndex.
#include <map>
#include <string>

#include "cli/common.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/any_index.hpp"
#include "index/common/kind_registry.hpp"
#include "quiver/error.hpp"

namespace quiver::cli {
namespace {

Isa choose_isa(const std::string& isa) { return isa.empty() ? active_isa() : parse_isa(isa); }

// Every build knob of the command line, by the name the kinds' create() knows it by; the
// kind's entry says which of them it takes (the option table has already refused any other
// option given for this kind, see option_kinds.hpp).
std::map<std::string, std::string> build_knobs(const BuildParams& p) {
  return {{"bits", std::to_string(p.bits)},
          {"seed", std::to_string(p.seed)},
          {"keep_vectors", p.keep_vectors ? "true" : "false"},
          {"refine_bits", std::to_string(p.refine_bits)},
          {"lists", p.lists == QuantizedIndexOptions::kAutoLists ? "auto" : std::to_string(p.lists)},
          {"M", std::to_string(p.M)},
          {"ef_construction", std::to_string(p.ef_construction)},
          {"ef_search", std::to_string(p.ef_search)},
          {"storage", p.storage},
          {"neighbor_codes", p.neighbor_codes ? "true" : "false"}};
}

}  // namespace

std::unique_ptr<AnyIndex> make_index(const BuildParams& p) {
  if (p.bits < 0) throw Error(ErrorCode::InvalidArgument, "bits must be 2 or 4, got " + std::to_string(p.bits));
  // Enough pool workers for --threads (the pool is created on first use, after this).
  if (p.threads > parallel::thread_count()) parallel::set_thread_count(p.threads);
  const IndexKindEntry& kind = index_kind(p.kind);
  KindOptions o;
  o.dim = p.dim ? p.dim : 1;  // dim 0 means "not read yet": check the other options with a placeholder
  o.metric = p.metric;
  o.isa = choose_isa(p.isa);
  const std::map<std::string, std::string> knobs = build_knobs(p);
  for (const char* const* name = kind.knobs; *name != nullptr; ++name) {
    const auto it = knobs.find(*name);
    if (it != knobs.end()) o.knobs.insert(*it);
  }
  return kind.create(o);
}

std::unique_ptr<AnyIndex> load_index_file(const std::string& path, const std::string& isa) {
  return load_any_index_file(path, choose_isa(isa));
}

void add_vectors(AnyIndex& index, const uint64_t* ids, const float* vectors, size_t n, size_t threads) {
  if (index.kind() == IndexKind::hnsw) {
    const parallel::WorkerLimit limit(threads);
    index.add(ids, vectors, n);
  } else {
    index.add(ids, vectors, n);
  }
}

}  // namespace quiver::cli
