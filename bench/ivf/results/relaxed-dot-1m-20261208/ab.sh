#!/usr/bin/env bash
# One-sitting A/B at 1M in Chromium: the relaxed-simd variant before the relaxed_dot u8 gather
# (ad064ec, the parent of 8ba3ba3) and after it (this tree), on the same cached workload files,
# alternating by workload (A, B, A, B...). Each run is `npm run bench:ivf`'s harness
# (bench/ivf/run.mjs) with IVF_TARGETS=chromium-relaxed-simd, one workload at a time.
#   OLD=/path/to/worktree-at-ad064ec  (its js/wasm/relaxed-simd built with scripts/build.sh)
#   QUIVER_BUILD_ROOT=...             (this tree's build root; the native CLI, for workload files)
#   ROUNDS=1                          (each round: old, new for each workload)
# Results: ab-{old,new}-<workload>-r<round>.{json,md,svg}, moved here from each tree's bench/ivf/results.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
new="$(cd "$here/../../../.." && pwd)"
old="${OLD:?set OLD to a worktree at ad064ec}"
rounds="${ROUNDS:-1}"
for r in $(seq 1 "$rounds"); do
  for w in embedding-1m embedding-1m-t10000; do
    for side in old new; do
      tree="$old"; [ "$side" = new ] && tree="$new"
      name="ab-$side-$w-r$r"
      echo "== $(date -u +%FT%TZ) $name ($(git -C "$tree" rev-parse --short HEAD)), load $(cut -d' ' -f1-3 /proc/loadavg)"
      (cd "$tree" && IVF_PARTS=1m IVF_TARGETS=chromium-relaxed-simd IVF_WORKLOADS="$w" IVF_RESULT_NAME="$name" \
        node bench/ivf/run.mjs)
      mv "$tree/bench/ivf/results/$name".{json,md,svg} "$here/"
    done
  done
done
echo "== $(date -u +%FT%TZ) done, load $(cut -d' ' -f1-3 /proc/loadavg)"
