#!/usr/bin/env bash
# The toolchain of the wasm relaxed-simd variant (docs/isa-and-builds.md), installed only where
# missing, like scripts/ensure-deps.sh: Debian's clang-19 (Emscripten 3.1.6's clang 14 emits the
# pre-standard relaxed opcodes that engines refuse) and binaryen 132 from npm (Debian's
# binaryen 108 cannot parse the standard opcodes, and emcc runs its post-link wasm-opt by bare
# name). Usage: scripts/ensure-relaxed-toolchain.sh DIR; prints the folder holding the `wasm-opt`
# that must come first on PATH when emcc links that variant.
set -euo pipefail
dir="$1"
binaryen_version=132.0.0  # the version scripts/probe-relaxed-simd.sh verified

if ! command -v clang++-19 >/dev/null; then
  echo "ensure-relaxed-toolchain: installing clang-19" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends clang-19 >/dev/null
fi

pkg="$dir/binaryen/node_modules/binaryen"
if [ ! -f "$pkg/package.json" ] || ! grep -q "\"version\": \"$binaryen_version\"" "$pkg/package.json"; then
  echo "ensure-relaxed-toolchain: installing binaryen@$binaryen_version (npm)" >&2
  mkdir -p "$dir/binaryen"
  # A package of its own: else npm installs into the first parent that has one (the repository).
  [ -f "$dir/binaryen/package.json" ] || echo '{"private": true}' >"$dir/binaryen/package.json"
  (cd "$dir/binaryen" && npm install --no-save --no-audit --no-fund --loglevel=error "binaryen@$binaryen_version" >&2)
fi
mkdir -p "$dir/bin"
# binaryen's npm build is wasm run by Node: wrappers with the names emcc runs (wasm-opt after
# the link, wasm-metadce at -O3 for the module's JS/wasm dead-code pass), through
# binaryen-shim.mjs (which translates one output format for emcc 3.1.6).
shim="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/binaryen-shim.mjs"
for tool in wasm-opt wasm-metadce; do
  printf '#!/bin/sh\nexec node %s %s %s "$@"\n' "$shim" "$pkg" "$tool" >"$dir/bin/$tool.new"
  chmod +x "$dir/bin/$tool.new"
  mv "$dir/bin/$tool.new" "$dir/bin/$tool"
done
echo "$dir/bin"
