#!/usr/bin/env bash
# Probes the route to a relaxed-SIMD wasm build (issue 28) with this machine's toolchain and
# prints what works. Not part of npm test; changes nothing in the repository.
#
# Emscripten 3.1.6's clang 14 emits the pre-standard relaxed-SIMD opcodes that engines refuse,
# and its binaryen (Debian's 108) cannot parse the standard ones (0xfd 0x100...). The route
# probed: the kernel object compiled by Debian's clang-19 (standard opcodes), linked by
# Emscripten 3.1.6's wasm-ld, with
#   - EMCC_READ_METADATA=python and -sWASM_BIGINT: emcc reads the module's metadata itself and
#     needs no wasm-emscripten-finalize rewrite (no i64 legalization, no dyncalls), and
#   - binaryen 132 from npm first on PATH (Debian's emcc calls a bare `wasm-opt`), so the -O2
#     post-link optimisation parses relaxed opcodes.
# The result must run in Node 20 with --experimental-wasm-relaxed-simd and be refused without it.
set -euo pipefail
work="${PROBE_DIR:-/tmp/quiver-relaxed-probe}"
mkdir -p "$work/bin" "$work/binaryen"
export NODE_PATH=/usr/share/nodejs # em++ -O2 runs a Node tool that needs Debian's acorn

command -v clang-19 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang-19 lld-19 >/dev/null
[ -x "$work/binaryen/node_modules/binaryen/bin/wasm-opt" ] ||
  (cd "$work/binaryen" && npm install --silent --no-save binaryen@132 >/dev/null)
printf '#!/bin/sh\nexec node %s/binaryen/node_modules/binaryen/bin/wasm-opt "$@"\n' "$work" >"$work/bin/wasm-opt"
chmod +x "$work/bin/wasm-opt"

cat >"$work/kernel.c" <<'EOF'
#include <stdint.h>
#include <wasm_simd128.h>
// The fast-scan step: 16 four-bit codes looked up in a 16-entry table at once.
void lookup16(const uint8_t* codes, const uint8_t* table, uint8_t* out, int n) {
  const v128_t t = wasm_v128_load(table), low = wasm_i8x16_splat(15);
  for (int i = 0; i < n; i += 16)
    wasm_v128_store(out + i, wasm_i8x16_relaxed_swizzle(t, wasm_v128_and(wasm_v128_load(codes + i), low)));
}
EOF
cat >"$work/main.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
void lookup16(const uint8_t*, const uint8_t*, uint8_t*, int);
int main(void) {
  uint8_t codes[64], table[16], out[64];
  for (int i = 0; i < 64; ++i) codes[i] = (uint8_t)(i * 37 + 5);
  for (int i = 0; i < 16; ++i) table[i] = (uint8_t)(200 - 3 * i);
  lookup16(codes, table, out, 64);
  int ok = 1;
  for (int i = 0; i < 64; ++i) ok &= out[i] == table[codes[i] & 15];
  printf("relaxed swizzle: %s\n", ok ? "same as the table" : "WRONG");
  return !ok;
}
EOF
sysroot="$(em-config CACHE)/sysroot"
clang-19 --target=wasm32-unknown-emscripten --sysroot="$sysroot" -O3 -msimd128 -mrelaxed-simd -c "$work/kernel.c" -o "$work/kernel.o"
PATH="$work/bin:$PATH" EMCC_READ_METADATA=python emcc -O2 -sWASM_BIGINT -msimd128 "$work/main.c" "$work/kernel.o" \
  -o "$work/probe.js"
echo "linked: $work/probe.wasm ($(stat -c %s "$work/probe.wasm") bytes)"
node --no-experimental-fetch --experimental-wasm-relaxed-simd "$work/probe.js"
if node --no-experimental-fetch "$work/probe.js" >/dev/null 2>&1; then
  echo "unexpected: the module ran without --experimental-wasm-relaxed-simd" >&2
  exit 1
fi
echo "refused without --experimental-wasm-relaxed-simd, as it should be (Node 20 ships relaxed SIMD behind the flag)"
