#!/usr/bin/env bash
# `npm run bench:kernels`: builds the kernel benchmark natively and for wasm (simd, baseline)
# and runs them back to back (bench/kernels/run.mjs), writing bench/kernels/results/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh native wasm-simd wasm-baseline -- quiver_bench_kernels
node bench/kernels/run.mjs
