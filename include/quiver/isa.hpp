// Instruction-set levels and the run-time choice between them.
//
// The level is chosen once per process (CPU detection, or the QUIVER_ISA environment
// variable to force one) and copied into each index when it is created; nothing is looked
// up again in a query loop.
#pragma once

#include <string>
#include <vector>

namespace quiver {

enum class Isa { scalar, avx2, avx512, neon, wasm128 };

const char* isa_name(Isa isa) noexcept;

// Parses "scalar", "avx2", "avx512", "neon" or "wasm128"; throws Error(UnsupportedIsa) otherwise.
Isa parse_isa(const std::string& name);

// Levels compiled into this build, whether or not this CPU can run them.
std::vector<Isa> compiled_isas();

// Levels this build has and this CPU can run, scalar first, best last.
std::vector<Isa> available_isas();

bool isa_available(Isa isa);

// The best available level.
Isa best_isa();

// The process-wide level: QUIVER_ISA if set (throws Error(UnsupportedIsa) for an unknown or
// unavailable level), else best_isa(). Read once and cached.
Isa active_isa();

// "x86_64", "aarch64", "wasm32".
const char* target_arch() noexcept;

// "simd-mt", "simd", "baseline" for wasm builds, "native" otherwise.
const char* build_variant() noexcept;

}  // namespace quiver
