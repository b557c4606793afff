#!/usr/bin/env bash
# `npm run bench:browser`: builds the web build of the concurrency benchmarks (wasm simd-mt,
# examples/bench/wasm/) and runs them in headless Chromium through the page examples/bench/
# (bench/browser/run.mjs: concurrent_knn for MODES, then scaling_batch), writing
# bench/browser/results/concurrent-browser-<timestamp>.{json,md,svg}. Knobs: see
# bench/browser/run.mjs and bench/browser/README.md
# (e.g. THREADS="1 2 4 8 16" DURATION_S=2 INDEX=quantised npm run bench:browser).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh wasm-simd-mt -- quiver_bench_concurrent_knn_web quiver_bench_scaling_batch_web
node bench/browser/run.mjs
