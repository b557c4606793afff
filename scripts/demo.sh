#!/usr/bin/env bash
# `npm run demo`: installs what is missing, builds the native CLI and the three wasm modules,
# then builds and searches the seed workload natively (every ISA level) and in wasm (every
# variant), printing the side-by-side table.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/build.sh native -- quiver
for variant in simd-mt simd baseline; do
  bash scripts/build.sh "wasm-$variant" -- quiver_wasm
done
node scripts/demo.mjs "$@"
