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
#     each from tests/fuzz/corpus, two at a time
#   first, the C++ format check (scripts/check-format.sh); the JS lint and format check and the
#     import-cycle check are node:test files (tests/js/style.test.mjs, module-graph.test.mjs)
# Each configuration's ctest runs beside the next configuration's build, and the apt packages and
# npm dev dependencies that the native configurations do not need install in the background.
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
# The temporary files (this summary, the logs of the steps in the background), removed at exit.
summary_file=$(mktemp)
temp_files=("$summary_file")
trap 'rm -f "${temp_files[@]}"' EXIT
record() { printf '%-7s %6d %9s  %s\n' "$1" "$2" "$(fmt_cpu "$3")" "$4" >>"$summary_file"; }
read_cpu
run_start=$SECONDS run_cpu0=$cpu_ticks
# A step runs in a subshell of its own, so that its CPU time is its own processes' only: the main
# shell also reaps the steps that run in the background (a ctest beside the next build), and
# their time would be counted twice. Returns non-zero if the step failed.
step() (
  name="$1"; shift
  echo
  echo "===== $name"
  start=$SECONDS
  read_cpu; cpu0=$cpu_ticks
  if "$@"; then status=ok; else status=FAILED; fi
  read_cpu
  wall=$((SECONDS - start)) cpu=$((cpu_ticks - cpu0))
  echo "===== $name: $status ($wall s, CPU $(fmt_cpu "$cpu") s)"
  record "$status" "$wall" "$cpu" "$name"
  [ "$status" = ok ]
)
# Dependencies first: what the native configurations need (not a step, but timed like one),
# then the rest (the cross and wasm toolchains, Chromium, npm's) as a step in the background
# while they build and run (on a fresh machine the downloads take minutes and hardly any CPU),
# waited for before the first build that needs it.
bash scripts/ensure-deps.sh --native || exit 1
read_cpu
record deps $((SECONDS - run_start)) $((cpu_ticks - run_cpu0)) "ensure-deps --native (apt)"
rest_deps_log=$(mktemp)
temp_files+=("$rest_deps_log")
step "ensure-deps --rest (apt, npm install; in the background)" bash scripts/ensure-deps.sh --rest \
  >"$rest_deps_log" 2>&1 &
rest_deps_pid=$!
# Waits for the background install (once) and prints its output; exits if it failed, as a failed
# install in the foreground would have.
wait_rest_deps() {
  [ -n "$rest_deps_pid" ] || return 0
  local status=0
  wait "$rest_deps_pid" || status=$?
  rest_deps_pid=""
  cat "$rest_deps_log"
  if [ "$status" -ne 0 ]; then
    echo "ensure-deps --rest failed" >&2
    exit 1
  fi
}

step "C++ format (clang-format, .clang-format)" bash scripts/check-format.sh
# In wasm only what the tests run: the JS module and the test programs, and in simd-mt the two
# programs of the browser benchmark page. The other benchmark programs are the same C++ as
# natively (built there); `bash scripts/build.sh wasm-simd` still builds everything.
wasm_test_targets=(quiver_wasm quiver_tests quiver_alloc_tests quiver_parallel_alloc_tests example_flat_search)
# Each configuration's tests run beside the next configuration's build: a build's tail is its
# serial links (the wasm builds kept 1.6 of the 2 cores busy) and a ctest's is its longest test,
# so side by side each fills the other's idle core (the builds and tests up to the fuzz build took
# 1,664 s side by side on 2026-12-06, against about 1,714 s one after the other, summed from
# separate runs of the same steps). The tests write to a log of their own, printed (and their
# step recorded) when they end.
ctest_in() { (cd "${QUIVER_BUILD_ROOT:-$root/build}/$1" && ctest --output-on-failure -j2); }
ctest_pid="" ctest_log=$(mktemp)
temp_files+=("$ctest_log")
finish_ctest() {
  [ -n "$ctest_pid" ] || return 0
  wait "$ctest_pid"
  cat "$ctest_log"
  ctest_pid=""
}
# fuzz: the libFuzzer targets (clang, ASan + UBSan), built beside the last tests; run below.
for config in native native-asan native-tsan aarch64 wasm-simd-mt wasm-simd wasm-relaxed-simd wasm-baseline fuzz; do
  targets=()
  [[ "$config" == wasm-simd || "$config" == wasm-relaxed-simd || "$config" == wasm-baseline ]] &&
    targets=(-- "${wasm_test_targets[@]}")
  # simd-mt: also the two programs of the browser benchmark page (tests/browser/bench-page).
  [[ "$config" == wasm-simd-mt ]] &&
    targets=(-- "${wasm_test_targets[@]}" quiver_bench_concurrent_knn_web quiver_bench_scaling_batch_web)
  [[ "$config" == native* ]] || wait_rest_deps
  step "build $config" bash scripts/build.sh "$config" "${targets[@]}"
  finish_ctest
  if [ "$config" != fuzz ]; then
    step "ctest $config" ctest_in "$config" >"$ctest_log" 2>&1 &
    ctest_pid=$!
  fi
done
finish_ctest
# Two files at a time (Node's default is one less than the CPUs: one file at a time on 2 cores,
# 1.2 cores busy; two at a time took 132 s instead of 228 s on this 2-core machine).
# Each node:test step has a time limit (a test whose server outlives it keeps its file's process
# alive, and the run would wait for CI's own limit): 10 times what it takes on the 2-core machine
# (node --test 74-163 s, the browser tests 25 s, the edge runtimes 33-60 s), killed 10 s later.
limited() { timeout --kill-after=10 "$@"; }
step "node --test" limited 1800 node --test --test-concurrency=2 tests/js/
# relaxed-simd's answers against simd's need the flag Node 20 keeps relaxed SIMD behind.
step "node --test relaxed-simd (--experimental-wasm-relaxed-simd)" \
  limited 300 node --experimental-wasm-relaxed-simd --test tests/js/relaxed-simd.test.mjs
step "browser tests (chromium)" limited 600 node --test --test-concurrency=1 tests/browser/
step "edge runtimes (node, workerd, deno, bun, bundlers)" limited 600 node --test --test-concurrency=1 tests/edge/
step "fuzz (bounded, 20 s per target, two at a time)" bash scripts/fuzz.sh 20

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
