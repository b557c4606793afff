#!/usr/bin/env bash
# `npm run bench:quantized`: builds the quantised index benchmark natively and for wasm (simd,
# baseline) and runs them back to back (bench/quantized/run.mjs), writing bench/quantized/results/.
# Takes several minutes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh native wasm-simd wasm-baseline -- quiver_bench_quantized
node bench/quantized/run.mjs
