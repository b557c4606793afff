# Compiler flags in three buckets (see README "Build configurations"):
#   1. architecture-independent: language, warnings, floating-point rules — every target
#   2. architecture-specific:    the baseline ISA of the target (x86-64-v2, armv8-a, wasm SIMD128)
#   3. CPU-specific:             opt-in only, through QUIVER_CPU_FLAGS (e.g. "-march=native")
# Per-ISA kernel files add their own flags on top (quiver_isa_sources in src/CMakeLists.txt).
# No -ffast-math anywhere: distances must compare NaN-safely and the rotation of the quantised
# index must be bit-identical on every target, so FP contraction is off outside the kernels'
# explicit FMA intrinsics.

set(QUIVER_CPU_FLAGS "" CACHE STRING "CPU-specific flags, opt-in (e.g. -march=native); empty by default")

# 1. architecture-independent
set(QUIVER_COMMON_FLAGS -Wall -Wextra -Wno-unused-parameter -ffp-contract=off)
if(EMSCRIPTEN)
  list(APPEND QUIVER_COMMON_FLAGS -fexceptions)
endif()

# 2. architecture-specific
set(QUIVER_ARCH_FLAGS "")
set(QUIVER_ARCH "unknown")
if(EMSCRIPTEN)
  set(QUIVER_ARCH "wasm32")
  if(QUIVER_WASM_VARIANT MATCHES "^(simd|simd-mt|relaxed-simd)$")
    list(APPEND QUIVER_ARCH_FLAGS -msimd128)
  endif()
  if(QUIVER_WASM_VARIANT STREQUAL "simd-mt")
    list(APPEND QUIVER_ARCH_FLAGS -pthread)
  endif()
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(QUIVER_ARCH "x86_64")
  list(APPEND QUIVER_ARCH_FLAGS -march=x86-64-v2)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(QUIVER_ARCH "aarch64")
  list(APPEND QUIVER_ARCH_FLAGS -march=armv8-a)
endif()

# 3. CPU-specific (opt-in)
separate_arguments(QUIVER_CPU_FLAGS_LIST UNIX_COMMAND "${QUIVER_CPU_FLAGS}")

set(QUIVER_ALL_FLAGS ${QUIVER_COMMON_FLAGS} ${QUIVER_ARCH_FLAGS} ${QUIVER_CPU_FLAGS_LIST})

# Sanitizers for the native test configurations: QUIVER_SANITIZE=ON (or address) is ASan +
# UBSan, QUIVER_SANITIZE=thread is ThreadSanitizer.
set(QUIVER_SANITIZE OFF CACHE STRING "Sanitizers: OFF, ON/address (ASan + UBSan) or thread (TSan)")
if(QUIVER_SANITIZE STREQUAL "thread")
  list(APPEND QUIVER_ALL_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(QUIVER_SANITIZE)
  list(APPEND QUIVER_ALL_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

add_compile_options(${QUIVER_ALL_FLAGS})
# Sanitizer builds: -O1 and line tables only (after the build type's -O2 -g, so they win). The
# sanitizers' reports need file:line, not variables; -O2 -g took twice as long to compile (the
# test sources were 80 % of a sanitizer build), for tests that run about as fast at -O1.
if(QUIVER_SANITIZE)
  add_compile_options(-O1 -g1)
endif()
# Internal invariant checks (QUIVER_DCHECK, src/base/check.hpp): on in debug and sanitizer
# builds, compiled out of release builds.
if(CMAKE_BUILD_TYPE STREQUAL "Debug" OR QUIVER_SANITIZE OR QUIVER_FUZZ)
  add_compile_definitions(QUIVER_DEBUG_CHECKS=1)
endif()
if(EMSCRIPTEN)
  add_link_options(-fexceptions)
  if(QUIVER_WASM_VARIANT STREQUAL "simd-mt")
    add_link_options(-pthread -Wno-pthreads-mem-growth)
  endif()
endif()
