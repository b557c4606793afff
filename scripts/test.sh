#!/usr/bin/env bash
# `npm test`: every test, in every configuration.
#   native GoogleTest at each ISA level this CPU has (scalar, avx2, avx512)
#   the same suites under ASan + UBSan
#   the same suites under ThreadSanitizer
#   aarch64 (NEON) under qemu-user
#   the same suites compiled to wasm, in all four variants, under Node (relaxed-simd with
#     --experimental-wasm-relaxed-simd, and its kernel suites once per V8 tier)
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

# The profile of the run: each step's wall time and CPU time (user + system of every process it
# ran, from the cutime/cstime fields of /proc/<shell>/stat, which count a shell's children once
# they have been waited for), printed after the step and again as a table at the end, so that
# a CI log shows where the time went and how busy the cores were (CPU / wall: 2.0 is both cores).
clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
# Sets cpu_ticks to the CPU time of this shell's waited-for children. A function, not $(...):
# a command substitution is a subshell of its own, with no children.
read_cpu() {
  local stat
  cpu_ticks=0
  read -r stat <"/proc/$BASHPID/stat" 2>/dev/null || return 0
  stat=${stat##*) }                     # the fields after "pid (comm) ": $1 is field 3 (state)
  set -- $stat
  cpu_ticks=$((${14} + ${15}))          # fields 16 (cutime) and 17 (cstime)
}
fmt_cpu() { printf '%d.%d' $(($1 / clk_tck)) $((($1 % clk_tck) * 10 / clk_tck)); }
# One line per step: status, wall s, CPU s, name. A file, so that steps run in a background
# subshell add their line too.
summary_file=$(mktemp)
trap 'rm -f "$summary_file"' EXIT
record() { printf '%-7s %6d %9s  %s\n' "$1" "$2" "$(fmt_cpu "$3")" "$4" >>"$summary_file"; }
read_cpu
run_start=$SECONDS run_cpu0=$cpu_ticks
step() {
  local name="$1"; shift
  echo
  echo "===== $name"
  local start=$SECONDS cpu0 status
  read_cpu; cpu0=$cpu_ticks
  if "$@"; then status=ok; else status=FAILED; fi
  read_cpu
  local wall=$((SECONDS - start)) cpu=$((cpu_ticks - cpu0))
  echo "===== $name: $status ($wall s, CPU $(fmt_cpu "$cpu") s)"
  record "$status" "$wall" "$cpu" "$name"
}
# Dependencies first (apt packages, npm dev dependencies): not a step, but timed like one.
bash scripts/ensure-deps.sh || exit 1
read_cpu
record deps $((SECONDS - run_start)) $((cpu_ticks - run_cpu0)) "ensure-deps (apt, npm install)"
ctest_in() { (cd "${QUIVER_BUILD_ROOT:-$root/build}/$1" && ctest --output-on-failure -j2); }

step "C++ format (clang-format, .clang-format)" bash scripts/check-format.sh
# In wasm only what the tests run: the JS module and the test programs, and in simd-mt the two
# programs of the browser benchmark page. The other benchmark programs are the same C++ as
# natively (built there); `bash scripts/build.sh wasm-simd` still builds everything.
wasm_test_targets=(quiver_wasm quiver_tests quiver_alloc_tests quiver_parallel_alloc_tests example_flat_search)
for config in native native-asan native-tsan aarch64 wasm-simd-mt wasm-simd wasm-relaxed-simd wasm-baseline; do
  targets=()
  [[ "$config" == wasm-simd || "$config" == wasm-relaxed-simd || "$config" == wasm-baseline ]] &&
    targets=(-- "${wasm_test_targets[@]}")
  # simd-mt: also the two programs of the browser benchmark page (tests/browser/bench-page).
  [[ "$config" == wasm-simd-mt ]] &&
    targets=(-- "${wasm_test_targets[@]}" quiver_bench_concurrent_knn_web quiver_bench_scaling_batch_web)
  step "build $config" bash scripts/build.sh "$config" "${targets[@]}"
  step "ctest $config" ctest_in "$config"
done
# Two files at a time (Node's default is one less than the CPUs: one file at a time on 2 cores,
# 1.2 cores busy; two at a time took 132 s instead of 228 s on this 2-core machine).
step "node --test" node --test --test-concurrency=2 tests/js/
# relaxed-simd's answers against simd's need the flag Node 20 keeps relaxed SIMD behind.
step "node --test relaxed-simd (--experimental-wasm-relaxed-simd)" \
  node --experimental-wasm-relaxed-simd --test tests/js/relaxed-simd.test.mjs
step "browser tests (chromium)" node --test --test-concurrency=1 tests/browser/
step "edge runtimes (node, workerd, deno, bun, bundlers)" node --test --test-concurrency=1 tests/edge/
step "build fuzz" bash scripts/build.sh fuzz
step "fuzz (bounded, 20 s per target)" bash scripts/fuzz.sh 20

echo
read_cpu
echo "===== profile (wall s, CPU s = user + system of all its processes; $(nproc) CPUs, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-7s %6s %9s  %s\n' status wall CPU step
cat "$summary_file"
printf '%-7s %6d %9s  %s\n' total $((SECONDS - run_start)) "$(fmt_cpu $((cpu_ticks - run_cpu0)))" "npm test"
passed=$(grep -c '^ok ' "$summary_file")
failed=$(grep -c '^FAILED ' "$summary_file")
echo
[ "$failed" -gt 0 ] && echo "failed steps: $(grep '^FAILED ' "$summary_file" | sed -E 's/^FAILED +[0-9]+ +[0-9.]+  //' | paste -sd, -)"
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
