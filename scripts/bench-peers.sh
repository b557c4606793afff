#!/usr/bin/env bash
# `npm run bench:peers`: builds the native CLI and the wasm simd / simd-mt modules, installs the
# peer libraries into bench/peers/node_modules on first run (bench/peers/install.mjs), then runs
# every library on every workload (bench/peers/run.mjs). QUICK=1 runs it all at 2,000 rows as a
# smoke test (results under bench/peers/results/tmp/); the full run takes hours on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh native -- quiver
bash scripts/build.sh wasm-simd -- quiver_wasm
bash scripts/build.sh wasm-simd-mt -- quiver_wasm
node bench/peers/run.mjs
