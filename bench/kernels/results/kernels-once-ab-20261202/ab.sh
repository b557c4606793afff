#!/bin/bash
# Interleaved A/B: main before the kernel rewrite (49eb58e, /work/bench-before) against the rewrite (h24-kernels, /work/build-kernels).
out=/tmp/ab; mkdir -p $out
for round in 1 2; do
  for side in before after; do
    if [ $side = before ]; then d=/work/bench-before; nat=$d/native; ws=$d/wasm-simd; else d=/work/build-kernels; nat=$d/native/bench; ws=$d/wasm-simd/bench; fi
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out/$side-load.txt
    $nat/quiver_bench_kernels 512 0.2 >> $out/$side-kernels-native.jsonl
    node --no-liftoff --no-wasm-lazy-compilation $ws/quiver_bench_kernels.js 512 0.2 >> $out/$side-kernels-wasm.jsonl 2>/dev/null
  done
done
for round in 1 2; do
  for side in before after; do
    if [ $side = before ]; then nat=/work/bench-before/native; else nat=/work/build-kernels/native/bench; fi
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out/$side-load.txt
    QUIVER_BENCH_WORKLOAD=seed QUIVER_BENCH_BITS="2 4" QUIVER_BENCH_RERANKS="0" QUIVER_BENCH_SECONDS=0.5 $nat/quiver_bench_quantized >> $out/$side-quantized-native.jsonl 2>/dev/null
  done
done
