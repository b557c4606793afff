// Which option applies to which index kind: one table (option_kinds.cpp), from which every
// subcommand checks the options it was given before it does any work. An option of another
// kind — `build --index flat --lists 16`, `search --ef` on a quantised file, `demo --index flat
// --M 8` — is refused with INVALID_ARGUMENT naming it, never silently ignored. Options the
// table does not name (--metric, --isa, -k, --rerank, ...) apply to every kind.
#pragma once

#include <set>
#include <string>

#include "quiver/any_index.hpp"

namespace CLI {
class App;
}

namespace quiver::cli {

// What an option can apply to: the index kinds, split where an option applies to part of a
// kind only, and `gen`'s workloads (its --clusters is a mixture's).
enum class Target : unsigned {
  flat,
  quantized,    // quantised, not partitioned (lists 0)
  partitioned,  // quantised with inverted lists (--lists N or auto)
  hnsw_f32,     // HNSW, f32 vectors in the graph
  hnsw_sq8,     // HNSW, sq8 codes in the graph
  seed_workload,
  clustered_workload,
  embedding_workload,
};

// The names (as in --help: "--lists", "-k") of the options given on the command line; options
// left at their defaults are not in it.
std::set<std::string> given_options(const CLI::App& command);

// Throws Error(InvalidArgument) naming the first option in `given` that the table says does
// not apply to `target` in `command` ("build", "search", "compare", "demo", "gen"). `where`
// (e.g. the index file searched) is added to the message when not empty.
void check_options_apply(const std::string& command, const std::set<std::string>& given, Target target,
                         const std::string& where = "");

// The target of an index about to be built, and of one loaded from a file.
Target index_target(IndexKind kind, bool partitioned, bool sq8);
Target index_target(const AnyIndex& index);

}  // namespace quiver::cli
