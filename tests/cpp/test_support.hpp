// Helpers shared by the GoogleTest suites (both targets).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "quiver/error.hpp"
#include "quiver/neighbor.hpp"

namespace quiver::test {

// The code of the quiver::Error that f() throws (a test failure, and Internal, if it throws none).
inline ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error thrown";
  return ErrorCode::Internal;
}

// FNV-1a over raw bytes: a compact fingerprint for "same bits on every target" checks.
inline uint64_t fnv1a(const void* data, size_t bytes, uint64_t h = 1469598103934665603ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

inline std::vector<uint64_t> ids_of(const std::vector<Neighbor>& v) {
  std::vector<uint64_t> out;
  for (const auto& n : v) out.push_back(n.id);
  return out;
}

}  // namespace quiver::test
