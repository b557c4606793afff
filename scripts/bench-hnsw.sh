#!/usr/bin/env bash
# `npm run bench:hnsw`: builds the HNSW benchmark natively and for wasm (simd, simd-mt) and runs
# the sweep of bench/hnsw/run.mjs (100,000 × 384 clustered and 10,000 × 384 seed workloads, every
# storage kind, ef 10 … 400). Takes about half an hour on 2 cores; QUIVER_HNSW_RUNS picks a subset.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh native wasm-simd wasm-simd-mt -- quiver_bench_hnsw
node bench/hnsw/run.mjs
