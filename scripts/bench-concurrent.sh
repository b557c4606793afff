#!/usr/bin/env bash
# `npm run bench:concurrent`: builds the concurrency benchmarks natively and for wasm simd-mt
# and runs them back to back (bench/concurrent/run.mjs: every cache mode, then batch scaling),
# writing bench/concurrent/results/concurrent-<timestamp>.{json,md,svg}. Knobs: see
# bench/concurrent/run.mjs and bench/concurrent/README.md
# (e.g. DURATION_S=2 THREADS="1 2 4" npm run bench:concurrent).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh native wasm-simd-mt -- quiver_bench_concurrent_knn quiver_bench_scaling_batch
node bench/concurrent/run.mjs
