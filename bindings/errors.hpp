// How a binding entry point reports failure: it never throws across the wasm boundary.
//
// A JS exception thrown from inside a C++ catch block (as this file used to do) unwinds the
// wasm frames without running their epilogues or __cxa_end_catch: every failed call leaked
// its stack frame (16 bytes of the 5 MiB wasm stack, so the module broke after ~327,000
// failures) and the caught exception object. Instead, guarded() catches, records the code
// and message in a per-thread slot, leaves the catch block normally and returns a sentinel
// the JS wrapper recognises (js/errors.js: checked()), which then throws QuiverError.
#pragma once

#include <cstddef>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "quiver/error.hpp"

namespace quiver::bindings {

// The last failure of this thread. Fixed-size storage, so recording an error cannot itself
// fail for lack of memory (out-of-memory is one of the errors it records).
struct LastError {
  char code[32] = "";
  char message[1024] = "";
};
inline thread_local LastError last_error;

inline void record_error(const char* code, const char* message) noexcept {
  std::strncpy(last_error.code, code, sizeof last_error.code - 1);
  last_error.code[sizeof last_error.code - 1] = '\0';
  std::strncpy(last_error.message, message, sizeof last_error.message - 1);
  last_error.message[sizeof last_error.message - 1] = '\0';
}

inline std::string last_error_code() { return last_error.code; }
inline std::string last_error_message() { return last_error.message; }

// Returns fn(), or `failed` after recording the error of any exception fn() threw.
template <typename T, typename Fn>
T guarded(T failed, Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const Error& e) {
    record_error(e.code_name(), e.what());
  } catch (const std::bad_alloc&) {
    record_error("OUT_OF_MEMORY", "out of memory");
  } catch (const std::exception& e) {
    record_error("INTERNAL", e.what());
  } catch (...) {
    record_error("INTERNAL", "unknown C++ exception");
  }
  return failed;
}

// For calls with no result: true on success, false (error recorded) on failure.
template <typename Fn>
bool guarded_call(Fn&& fn) noexcept {
  return guarded(false, [&] {
    fn();
    return true;
  });
}

// Sentinel of calls that return a count or a size: any real value is >= 0.
constexpr double kFailed = -1.0;

}  // namespace quiver::bindings
