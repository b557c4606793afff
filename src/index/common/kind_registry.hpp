// The index kind registry: what every generic part of quiver knows about a kind — its number in
// the file header and its name, how to load a whole file of it, how to decode one section by
// section as it streams in, and how to make an empty one from generic options. The loaders
// (load_any_index, the stream loader), the container's kind check, the CLI and the bindings
// read this table; none of them names a kind. A kind is one folder (src/index/<kind>/) plus
// one registration line: built-in kinds in src/index/kinds.cpp, any other kind — a test's toy
// kind, a user's — with QUIVER_REGISTER_INDEX_KIND in its own file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "quiver/any_index.hpp"
#include "quiver/index_file.hpp"
#include "quiver/isa.hpp"
#include "quiver/metric.hpp"

namespace quiver::io {
struct Head;
class Reader;
}  // namespace quiver::io

namespace quiver {

// The one decoder shape every kind implements: opened on a head that passed the container's
// checks, fed each section's payload in file order in pieces of any size (the whole payload
// at once for a file in memory), finished into the index. A kind's decoder runs its own checks
// in its whole-file loader's order, so a damaged file reports the same first fault however
// its bytes arrive.
class SectionDecoder {
 public:
  virtual ~SectionDecoder() = default;
  // Throws Error(Corrupt, OutOfMemory, ...) for what the bytes so far prove wrong.
  virtual void feed(uint32_t tag, const uint8_t* data, size_t n) = 0;
  // Throws the first fault of the contents; otherwise the index.
  virtual std::unique_ptr<AnyIndex> finish() = 0;
};

// What the stream loader knows about the length of the stream when it opens a decoder.
struct StreamHints {
  bool exact_size = false;    // the length is certain and matches the head (bytes in memory)
  bool length_known = false;  // the length, certain or expected (Content-Length), matches the head
};

// An empty index's generic options: the shared ones, and the kind's own knobs by name, as
// text ("bits" -> "4"). A kind refuses a knob it does not have (Error(InvalidArgument)), so
// nothing given is silently ignored; a knob not given takes the kind's default.
struct KindOptions {
  size_t dim = 0;
  Metric metric = Metric::l2;
  Isa isa = Isa::scalar;
  std::map<std::string, std::string> knobs;
};

struct IndexKindEntry {
  IndexKind id;      // the number in the file header (1 flat, 2 quantized, 3 hnsw, ...)
  const char* name;  // "flat": the CLI's --index, the bindings' and JS kind names, messages
  // The knob names create() takes, null-terminated (what the CLI passes on to it).
  const char* const* knobs;
  // A whole file, already validated as a container: the index, or the kind's Error.
  std::unique_ptr<AnyIndex> (*load)(const io::Reader& reader, Isa isa);
  // A streamed file's decoder for a head that passed the container's checks, or nullptr when
  // this file must be gathered whole and given to load() (a kind may not stream every file).
  std::unique_ptr<SectionDecoder> (*open)(const io::Head& head, Isa isa, const StreamHints& hints);
  // An empty index.
  std::unique_ptr<AnyIndex> (*create)(const KindOptions& options);
};

// Every kind this program has: the built-in ones (src/index/kinds.cpp) in id order, then the
// registered ones in registration order.
std::vector<const IndexKindEntry*> index_kinds();
// The kind with this number or name, or nullptr.
const IndexKindEntry* find_index_kind(IndexKind id) noexcept;
const IndexKindEntry* find_index_kind(const std::string& name) noexcept;
// The kind, or Error(UnknownIndexKind) naming it.
const IndexKindEntry& index_kind(IndexKind id);

// Adds a kind (before any thread uses the registry: from a static initialiser, or at the start
// of main). Throws Error(InvalidArgument) if its number or name is taken, or an entry is
// incomplete. The entry must outlive every use of the registry (a static object).
void register_index_kind(const IndexKindEntry& entry);

// Checks a knob's value and parses it, for create(): Error(InvalidArgument) naming the knob.
uint64_t knob_uint(const KindOptions& options, const char* name, uint64_t fallback);
bool knob_bool(const KindOptions& options, const char* name, bool fallback);
std::string knob_text(const KindOptions& options, const char* name, const std::string& fallback);
// Throws Error(InvalidArgument) for a knob of options.knobs that `entry` does not take.
void check_knobs(const IndexKindEntry& entry, const KindOptions& options);

}  // namespace quiver

// One line in a kind's own file registers it with every generic part of quiver:
//   QUIVER_REGISTER_INDEX_KIND(toy_kind_entry);
// (a static object: link the file into the program, not through a static library that could
// drop it — the built-in kinds are listed in src/index/kinds.cpp for that reason).
#define QUIVER_REGISTER_INDEX_KIND(entry)            \
  static const bool quiver_registered_##entry = [] { \
    ::quiver::register_index_kind(entry);            \
    return true;                                     \
  }()
