// checkVectors: the validation an add() runs on its vectors (core::check_vectors: NaN/Inf, the
// squared-norm bound under l2/ip, a zero vector under cosine), on its own. js/staging.js feeds a
// large add() to wasm in bounded slices and checks every slice with it before the first slice
// is added, so a bad row anywhere still adds nothing. Never throws (errors.hpp).
#include <emscripten/bind.h>

#include <cstdint>
#include <string>

#include "base/validate.hpp"
#include "errors.hpp"
#include "quiver/metric.hpp"

namespace quiver::bindings {
namespace {

// n rows of `dim` floats at `vectors`, which are rows first .. first + n - 1 of the caller's batch.
bool check_vectors(uintptr_t vectors, size_t n, size_t dim, const std::string& metric, double first) {
  return guarded_call([&] {
    try {
      core::check_vectors(reinterpret_cast<const float*>(vectors), n, dim, parse_metric(metric), "vector");
    } catch (const Error& e) {
      // The row numbers in the message count from the slice; say where the slice starts.
      throw Error(e.code(),
                  std::string(e.what()) + " (counting from batch row " + std::to_string(uint64_t(first)) + ")");
    }
  });
}

}  // namespace
}  // namespace quiver::bindings

EMSCRIPTEN_BINDINGS(quiver_batch_checks) { emscripten::function("checkVectors", &quiver::bindings::check_vectors); }
