// Runs a binding body and turns any C++ exception into a real JS Error carrying the C++
// message and a `code` (an uncaught C++ exception would reach JS as a bare pointer number).
#pragma once

#include <emscripten/val.h>

#include <new>
#include <string>

#include "quiver/error.hpp"

namespace quiver::bindings {

[[noreturn]] inline void throw_js_error(const char* code, const std::string& message) {
  emscripten::val error = emscripten::val::global("Error").new_(emscripten::val(message));
  error.set("code", emscripten::val(code));
  error.throw_();
  __builtin_unreachable();
}

template <typename Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    throw_js_error(e.code_name(), e.what());
  } catch (const std::bad_alloc&) {
    throw_js_error("OUT_OF_MEMORY", "out of memory");
  } catch (const std::exception& e) {
    throw_js_error("INTERNAL", e.what());
  }
}

}  // namespace quiver::bindings
