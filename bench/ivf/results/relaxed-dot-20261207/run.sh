#!/bin/bash
# Scratch loop behind the relaxed_dot figure of stop 52 (indicative: a kernel alone, not a query).
# 4,096 rows x 384 bytes against one query, 300 passes a round, four rounds, in Chromium 156.
# plain: the simd variant's dot_u8_gather4 form; relaxed2: the relaxed-simd form that landed
# (src/simd/kernels_wasm128.cpp); relaxed1: one dot on a 7-bit query (not exact, for scale only).
set -euo pipefail
cd "$(dirname "$0")"
clang-19 --target=wasm32 -O2 -msimd128 -mrelaxed-simd -c -o /tmp/dot.o dot.c
wasm-ld-14 --no-entry -z stack-size=1048576 --initial-memory=16777216 -o dot.wasm /tmp/dot.o
uptime; node chrome.mjs; uptime
