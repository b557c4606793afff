#!/bin/bash
# Same-sitting A/B of the re-scoring decode (score_fixed: scalar vs 16-bit-lane unpacking), 1M
# embedding-like, 2-bit codes + 5-bit plane, one saved index file, natively and in wasm simd
# (Node); old = the binaries / js/ built from the parent commit, new = this commit's.
cd /work/main
E=bench/ivf/results/tmp/embedding-1000000x384-q1000-cosine
for round in 1 2; do
  for side in old new; do
    echo "== native $side round $round load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
    QUIVER_IVF_BASE=$E.base.fbin QUIVER_IVF_QUERIES=$E.queries.fbin QUIVER_IVF_GT=$E.gt.ibin QUIVER_IVF_BITS=2 \
    QUIVER_IVF_REFINE_BITS=5 QUIVER_IVF_INDEX_FILE=/work/1m-b2r5.qvr QUIVER_IVF_PROBES="8 20 default" \
    QUIVER_IVF_BUILD_THREADS=0 QUIVER_IVF_FLAT_QUERIES=0 QUIVER_BENCH_SECONDS=2 \
    /work/build/$([ $side = old ] && echo old-native || echo native/bench)/quiver_bench_ivf 2>/dev/null |
      grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*'
  done
done
for round in 1 2; do
  for side in old new; do
    for probes in 8 20; do
      echo "== wasm simd $side round $round probes $probes load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
      node bench/ivf/search-loop.mjs --package /tmp/pkg-$side --index /work/1m-b2r5.qvr --queries $E.queries.fbin \
        --probes $probes --seconds 4 --variant simd
    done
  done
done
echo "== end load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
