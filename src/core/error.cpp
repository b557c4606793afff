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
  }
  return "UNKNOWN";
}

}  // namespace quiver
