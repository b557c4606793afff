// ISA detection, the once-per-process choice of kernel level, and the distance-kernel registry.
#include <cstdlib>
#include <string>

#include "quiver/error.hpp"
#include "simd/kernels.hpp"

namespace quiver {
namespace {

bool cpu_supports(Isa isa) {
  switch (isa) {
    case Isa::scalar: return true;
#if defined(QUIVER_HAVE_AVX2)
    case Isa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#if defined(QUIVER_HAVE_AVX512)
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
#endif
#if defined(QUIVER_HAVE_NEON)
    case Isa::neon: return true;  // mandatory on AArch64
#endif
#if defined(QUIVER_HAVE_WASM128)
    case Isa::wasm128: return true;  // the loader only runs this variant on SIMD engines
#endif
    default: return false;
  }
}

std::string join_names(const std::vector<Isa>& isas) {
  std::string out;
  for (Isa isa : isas) {
    if (!out.empty()) out += ", ";
    out += isa_name(isa);
  }
  return out;
}

}  // namespace

const char* isa_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    case Isa::neon: return "neon";
    case Isa::wasm128: return "wasm128";
  }
  return "unknown";
}

Isa parse_isa(const std::string& name) {
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::neon, Isa::wasm128}) {
    if (name == isa_name(isa)) return isa;
  }
  throw Error(ErrorCode::UnsupportedIsa,
              "unknown ISA level '" + name + "' (known: scalar, avx2, avx512, neon, wasm128)");
}

std::vector<Isa> compiled_isas() {
  std::vector<Isa> out{Isa::scalar};
#if defined(QUIVER_HAVE_AVX2)
  out.push_back(Isa::avx2);
#endif
#if defined(QUIVER_HAVE_AVX512)
  out.push_back(Isa::avx512);
#endif
#if defined(QUIVER_HAVE_NEON)
  out.push_back(Isa::neon);
#endif
#if defined(QUIVER_HAVE_WASM128)
  out.push_back(Isa::wasm128);
#endif
  return out;
}

std::vector<Isa> available_isas() {
  std::vector<Isa> out;
  for (Isa isa : compiled_isas()) {
    if (cpu_supports(isa)) out.push_back(isa);
  }
  return out;
}

bool isa_available(Isa isa) {
  for (Isa have : available_isas()) {
    if (have == isa) return true;
  }
  return false;
}

Isa best_isa() { return available_isas().back(); }

namespace {

Isa choose_active_isa() {
  const char* forced = std::getenv("QUIVER_ISA");
  if (forced == nullptr || *forced == '\0') return best_isa();
  const Isa isa = parse_isa(forced);
  if (!isa_available(isa)) {
    throw Error(ErrorCode::UnsupportedIsa, std::string("QUIVER_ISA=") + forced + " is not supported by this " +
                                               (cpu_supports(isa) ? "build" : "CPU or build") +
                                               " (available: " + join_names(available_isas()) + ")");
  }
  return isa;
}

}  // namespace

Isa active_isa() {
  static const Isa chosen = choose_active_isa();  // a throw leaves it unset; the next call retries
  return chosen;
}

const char* target_arch() noexcept {
#if defined(__EMSCRIPTEN__)
  return "wasm32";
#elif defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

const char* build_variant() noexcept {
#if defined(QUIVER_WASM_VARIANT)
  return QUIVER_WASM_VARIANT;
#else
  return "native";
#endif
}

void simd::require_isa(Isa isa) {
  if (isa_available(isa)) return;
  throw Error(ErrorCode::UnsupportedIsa, std::string("ISA level '") + isa_name(isa) +
                                             "' is not available here (available: " + join_names(available_isas()) +
                                             ")");
}

// The distance-kernel registry: maps an ISA level to its table, defined in the level's own
// file (simd/kernels_<isa>.cpp); no SIMD type crosses into this file. The fast-scan tables,
// a layer up, have their own registry (quant/fastscan_dispatch.cpp).
simd::KernelTable simd::kernel_table(Isa isa) {
  require_isa(isa);
  switch (isa) {
#if defined(QUIVER_HAVE_AVX2)
    case Isa::avx2: return avx2_kernels();
#endif
#if defined(QUIVER_HAVE_AVX512)
    case Isa::avx512: return avx512_kernels();
#endif
#if defined(QUIVER_HAVE_NEON)
    case Isa::neon: return neon_kernels();
#endif
#if defined(QUIVER_HAVE_WASM128)
    case Isa::wasm128: return wasm128_kernels();
#endif
    default: return scalar_kernels();
  }
}

}  // namespace quiver
