#!/bin/bash
# Quiet interleaved A/B of the kernels-once rewrite: main before it (49eb58e) against its merge
# (7d2dab0), each built with scripts/build.sh into /work/ab/{before,after} (native: the kernel and
# quantised benchmarks; wasm-simd: the kernel benchmark), three rounds, nothing else running.
# Output: <side>-*.jsonl and <side>-load.txt in the folder given (default: this script's).
set -euo pipefail
out="${1:-$(cd "$(dirname "$0")" && pwd)}"
for round in 1 2 3; do
  for side in before after; do
    d=/work/ab/$side
    echo "round $round kernels load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/$side-load.txt"
    "$d/native/bench/quiver_bench_kernels" 512 0.2 >> "$out/$side-kernels-native.jsonl"
    node --no-liftoff --no-wasm-lazy-compilation "$d/wasm-simd/bench/quiver_bench_kernels.js" 512 0.2 \
      >> "$out/$side-kernels-wasm.jsonl" 2>/dev/null
  done
done
for round in 1 2 3; do
  for side in before after; do
    d=/work/ab/$side
    echo "round $round quantized load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/$side-load.txt"
    QUIVER_BENCH_WORKLOAD=seed QUIVER_BENCH_BITS="2 4" QUIVER_BENCH_RERANKS="0" QUIVER_BENCH_SECONDS=0.5 \
      "$d/native/bench/quiver_bench_quantized" >> "$out/$side-quantized-native.jsonl" 2>/dev/null
  done
done
