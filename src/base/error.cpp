#include "quiver/error.hpp"

namespace quiver {

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::InvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::DimensionMismatch: return "DIMENSION_MISMATCH";
    case ErrorCode::NonFinite: return "NON_FINITE";
    case ErrorCode::DuplicateId: return "DUPLICATE_ID";
    case ErrorCode::UnknownId: return "UNKNOWN_ID";
    case ErrorCode::InvalidK: return "INVALID_K";
    case ErrorCode::EmptyIndex: return "EMPTY_INDEX";
    case ErrorCode::OutOfMemory: return "OUT_OF_MEMORY";
    case ErrorCode::UnsupportedIsa: return "UNSUPPORTED_ISA";
    case ErrorCode::Corrupt: return "CORRUPT";
    case ErrorCode::Truncated: return "TRUNCATED";
    case ErrorCode::ChecksumMismatch: return "CHECKSUM_MISMATCH";
    case ErrorCode::BadMagic: return "BAD_MAGIC";
    case ErrorCode::UnsupportedVersion: return "UNSUPPORTED_VERSION";
    case ErrorCode::UnknownIndexKind: return "UNKNOWN_INDEX_KIND";
    case ErrorCode::IoError: return "IO_ERROR";
    case ErrorCode::Internal: return "INTERNAL";
    case ErrorCode::Aborted: return "ABORTED";
  }
  return "UNKNOWN";
}

}  // namespace quiver
