#!/usr/bin/env bash
# `npm run bench:ivf`: the partitioned quantised index (issue 14) natively, in wasm simd and
# simd-mt under Node and in Chromium (bench/ivf/run.mjs). Builds what it needs first.
#   IVF_PARTS="100k"   (default; about 10 minutes on 2 cores)   IVF_PARTS="1m" (about 20 minutes)
#   IVF_TARGETS, IVF_WORKLOADS, IVF_HNSW, QUIVER_BENCH_SECONDS, QUICK=1: see bench/ivf/run.mjs
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh native -- quiver quiver_bench_ivf
bash scripts/build.sh wasm-simd wasm-simd-mt -- quiver_wasm
node bench/ivf/run.mjs
