// QUIVER_DCHECK(condition, message): an internal invariant, checked in debug and sanitizer
// builds (QUIVER_DEBUG_CHECKS, set by cmake/QuiverFlags.cmake) and compiled out of release
// builds — there the condition is not even evaluated, so a check may sit in a hot loop.
// A failed check throws Error(ErrorCode::Internal): it means a bug in Quiver, never bad input
// (bad input gets its own code before anything is touched). Inside a noexcept function the
// throw ends the program, which is what a broken invariant deserves.
#pragma once

#include <string>

#include "quiver/error.hpp"

namespace quiver::core {

[[noreturn]] inline void debug_check_failed(const char* condition, const char* message, const char* file, int line) {
  throw Error(ErrorCode::Internal, std::string("internal check failed: ") + message + " (" + condition + " at " + file +
                                       ":" + std::to_string(line) + ")");
}

}  // namespace quiver::core

#if defined(QUIVER_DEBUG_CHECKS) && QUIVER_DEBUG_CHECKS
#define QUIVER_DCHECK(condition, message)                                                          \
  do {                                                                                             \
    if (!(condition)) ::quiver::core::debug_check_failed(#condition, message, __FILE__, __LINE__); \
  } while (false)
#else
// sizeof keeps the condition compiled (so it cannot rot) without evaluating it.
#define QUIVER_DCHECK(condition, message) \
  do {                                    \
    (void)sizeof((condition) ? 1 : 0);    \
  } while (false)
#endif
