#!/usr/bin/env bash
# Configures (once) and builds one or more configurations into build/<config>:
#   native         Release, host CPU with runtime dispatch: library, quiver CLI, tests, benchmarks
#   native-asan    RelWithDebInfo with AddressSanitizer + UndefinedBehaviorSanitizer: tests
#   native-tsan    RelWithDebInfo with ThreadSanitizer: tests (the thread pool and index cache)
#   aarch64        cross-compiled with g++-aarch64-linux-gnu: tests (run under qemu-aarch64)
#   wasm-simd-mt   wasm SIMD128 + pthreads: JS module in js/wasm/simd-mt, tests, benchmarks
#   wasm-simd      wasm SIMD128: js/wasm/simd, tests, benchmarks
#   wasm-relaxed-simd  wasm SIMD128 + relaxed SIMD in the kernels (clang-19): js/wasm/relaxed-simd, tests
#   wasm-baseline  wasm without SIMD: js/wasm/baseline, tests, benchmarks
#   fuzz           clang libFuzzer targets with ASan + UBSan (tests/fuzz; not part of `all`)
#   all            every configuration above
# Usage: scripts/build.sh CONFIG [CONFIG...] [-- ninja targets]
# QUIVER_BUILD_ROOT (default: build/) puts the build trees elsewhere, e.g. for parallel work.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export NODE_PATH=/usr/share/nodejs  # em++ -O2 runs a Node tool that needs Debian's acorn

configs=()
targets=()
while (($#)); do
  if [ "$1" = "--" ]; then shift; targets=("$@"); break; fi
  configs+=("$1"); shift
done
if [ "${configs[*]}" = "all" ]; then
  configs=(native native-asan native-tsan aarch64 wasm-simd-mt wasm-simd wasm-relaxed-simd wasm-baseline)
fi

for config in "${configs[@]}"; do
  build_root="${QUIVER_BUILD_ROOT:-$root/build}"
  dir="$build_root/$config"
  args=(-S "$root" -B "$dir" -G Ninja)
  case "$config" in
    native) args+=(-DCMAKE_BUILD_TYPE=Release) ;;
    native-asan) args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DQUIVER_SANITIZE=ON -DQUIVER_BUILD_BENCH=OFF -DQUIVER_BUILD_CLI=OFF) ;;
    native-tsan) args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DQUIVER_SANITIZE=thread -DQUIVER_BUILD_BENCH=OFF -DQUIVER_BUILD_CLI=OFF) ;;
    aarch64) args+=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake"
                    -DQUIVER_BUILD_BENCH=OFF) ;;
    fuzz) args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
                 -DQUIVER_FUZZ=ON -DQUIVER_BUILD_TESTS=OFF -DQUIVER_BUILD_BENCH=OFF -DQUIVER_BUILD_CLI=OFF) ;;
    wasm-simd-mt|wasm-simd|wasm-baseline)
      args+=(-DCMAKE_BUILD_TYPE=Release -DQUIVER_WASM_VARIANT="${config#wasm-}") ;;
    wasm-relaxed-simd)
      # clang-19 and binaryen 132 (cmake/QuiverRelaxedSimd.cmake), installed where missing.
      tools_bin="$(bash "$root/scripts/ensure-relaxed-toolchain.sh" "${QUIVER_BUILD_ROOT:-$root/build}/tools")"
      args+=(-DCMAKE_BUILD_TYPE=Release -DQUIVER_WASM_VARIANT=relaxed-simd -DQUIVER_RELAXED_TOOLS_BIN="$tools_bin") ;;
    *) echo "build.sh: unknown configuration '$config'" >&2; exit 2 ;;
  esac
  mkdir -p "$build_root"
  log="$build_root/$config.log"
  start=$SECONDS
  if [ ! -f "$dir/build.ninja" ]; then
    configure=(cmake)
    [[ "$config" == wasm-* ]] && configure=(emcmake cmake)
    "${configure[@]}" "${args[@]}" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
  fi
  ninja -C "$dir" -j2 "${targets[@]}" >"$log" 2>&1 || { tail -60 "$log" >&2; echo "build.sh: $config failed (log: $log)" >&2; exit 1; }
  echo "== built $config in $((SECONDS - start)) s"
done
