#!/usr/bin/env bash
# `npm test`: every test, in every configuration.
#   native GoogleTest at each ISA level this CPU has (scalar, avx2, avx512)
#   the same suites under ASan + UBSan
#   the same suites under ThreadSanitizer
#   aarch64 (NEON) under qemu-user
#   the same suites compiled to wasm, in all three variants, under Node
#   node:test suites for the npm package (every variant)
#   browser tests: node:test files in tests/browser/ driving Debian's Chromium (playwright-core)
#   edge runtimes: tests/edge/ runs the package in Node (code generation disallowed, CommonJS,
#     exit without terminate), workerd, Deno, Bun, and esbuild/Vite bundles in Chromium
#   libFuzzer targets (index loader, dataset readers, collection sections / filters / records) for 20 s
#     each from tests/fuzz/corpus
#   first, the C++ format check (scripts/check-format.sh); the JS lint and format check and the
#     import-cycle check are node:test files (tests/js/style.test.mjs, module-graph.test.mjs)
# Each step runs even if an earlier one failed; the exit code is non-zero if any failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh || exit 1

passed=0
failed=0
failures=()
step() {
  local name="$1"; shift
  echo
  echo "===== $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1)); echo "===== $name: ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "===== $name: FAILED ($((SECONDS - start)) s)"
  fi
}
ctest_in() { (cd "${QUIVER_BUILD_ROOT:-$root/build}/$1" && ctest --output-on-failure -j2); }

step "C++ format (clang-format, .clang-format)" bash scripts/check-format.sh
for config in native native-asan native-tsan aarch64 wasm-simd-mt wasm-simd wasm-baseline; do
  step "build $config" bash scripts/build.sh "$config"
  step "ctest $config" ctest_in "$config"
done
step "node --test" node --test tests/js/
step "browser tests (chromium)" node --test --test-concurrency=1 tests/browser/
step "edge runtimes (node, workerd, deno, bun, bundlers)" node --test --test-concurrency=1 tests/edge/
step "build fuzz" bash scripts/build.sh fuzz
step "fuzz (bounded, 20 s per target)" bash scripts/fuzz.sh 20

echo
[ "$failed" -gt 0 ] && echo "failed steps: ${failures[*]}"
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
