#!/usr/bin/env bash
# Runs the libFuzzer targets (build them first: scripts/build.sh fuzz) from the committed
# seed corpus, for a bounded time each:
#   scripts/fuzz.sh SECONDS [TARGET...]      targets: index_loader datasets collection (default: all)
# New inputs go to a scratch corpus under $QUIVER_BUILD_ROOT/fuzz-work/, crashes to
# $QUIVER_BUILD_ROOT/fuzz-artifacts/; tests/fuzz/corpus/ is only read. Exit status non-zero
# if any target finds a crash, a leak, a timeout or undefined behaviour.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${QUIVER_BUILD_ROOT:-$root/build}"
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(index_loader datasets collection)
# The targets run two at a time (QUIVER_FUZZ_JOBS, default the CPU count): each is one process
# on one core, and the time bound is each target's own.
jobs="${QUIVER_FUZZ_JOBS:-$(nproc)}"
fuzz_bin() { echo "$build_root/fuzz/tests/fuzz/fuzz_$1"; }
for t in "${targets[@]}"; do
  if [ ! -x "$(fuzz_bin "$t")" ]; then
    echo "fuzz.sh: $(fuzz_bin "$t") is missing; run scripts/build.sh fuzz" >&2
    exit 1
  fi
done
# One target, for the bounded time; its log in $build_root/fuzz-$t.log; non-zero if it failed.
fuzz_one() {
  local t="$1"
  local bin
  bin="$(fuzz_bin "$t")"
  local work="$build_root/fuzz-work/$t"
  local artifacts="$build_root/fuzz-artifacts/$t/"
  mkdir -p "$work" "$artifacts"
  echo "== fuzz_$t for ${seconds}s"
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$artifacts" "$work" "$root/tests/fuzz/corpus/$t" \
      >"$build_root/fuzz-$t.log" 2>&1; then
    tail -40 "$build_root/fuzz-$t.log" >&2
    echo "fuzz.sh: fuzz_$t FAILED (log: $build_root/fuzz-$t.log, artifacts: $artifacts)" >&2
    return 1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "$build_root/fuzz-$t.log" | sed "s/^/fuzz_$t: /"
}
status=0
pids=()
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  pids+=($!)
  if ((${#pids[@]} >= jobs)); then
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    pids=()
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
