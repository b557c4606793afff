// quiver::Error — the one exception type every public call throws.
//
// Each error carries a stable code (for programs: JS `err.code`, CLI exit paths) and a
// human message (for people). Every public call validates first and mutates second, so a
// thrown Error always means "nothing changed".
#pragma once

#include <stdexcept>
#include <string>

namespace quiver {

enum class ErrorCode {
  InvalidArgument,     // malformed argument not covered by a more specific code
  DimensionMismatch,   // vector length does not match the index dimension
  NonFinite,           // NaN or +/-Inf in a vector
  DuplicateId,         // id already present (or repeated within one call)
  UnknownId,           // id not present
  InvalidK,            // k == 0
  EmptyIndex,          // search on an index with no vectors
  OutOfMemory,         // allocation failed; the index is unchanged
  UnsupportedIsa,      // QUIVER_ISA names an unknown level or one this CPU/build lacks
  Corrupt,             // bytes that cannot be a valid index or dataset (impossible sizes, bad structure)
  Truncated,           // a file or buffer ends before the sizes it declares
  ChecksumMismatch,    // a CRC-32C in an index file does not match its bytes (flipped byte)
  BadMagic,            // not an index file (or not the dataset format claimed)
  UnsupportedVersion,  // index file format major version this reader does not know
  UnknownIndexKind,    // index kind unknown, or not available in this build
  IoError,             // a file could not be opened, read, written or renamed
  Internal,            // a broken internal invariant (a bug in Quiver, not in the caller's input)
  Aborted,             // stopped by the caller (a WorkObserver answered false); nothing was changed
};

// Stable upper-snake-case name, e.g. "DIMENSION_MISMATCH"; used as the JS `code`.
const char* error_code_name(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }
  const char* code_name() const noexcept { return error_code_name(code_); }

 private:
  ErrorCode code_;
};

}  // namespace quiver
