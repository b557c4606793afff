#!/bin/bash
# Same-sitting A/B: 724 vs 2048 lists (both given explicitly, so trained the same way), 1M embedding-like.
cd /work/main/bench/results/tmp/ivf
E=embedding-1000000x384-q1000-cosine
for L in 724 2048; do
  echo "== native lists $L load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
  QUIVER_IVF_BASE=$E.base.fbin QUIVER_IVF_QUERIES=$E.queries.fbin QUIVER_IVF_GT=$E.gt.ibin QUIVER_IVF_LISTS=$L \
  QUIVER_IVF_PROBES="8 12 16 20 24" QUIVER_IVF_BUILD_THREADS=0 QUIVER_IVF_FLAT_QUERIES=0 QUIVER_BENCH_SECONDS=1 \
  /work/build-main/native/bench/quiver_bench_ivf 2>/dev/null | grep -o '"probes":[0-9]*,"default":false,"recall":[0-9.]*,"qps":[0-9.]*\|"build_s":[0-9.]*'
done
cd /work/main
D=/work/main/bench/results/tmp/ivf/$E
for L in 724 2048; do
  echo "== wasm simd-mt lists $L load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
  node --no-liftoff --no-wasm-lazy-compilation bench/ivf/node-child.mjs "{\"variant\":\"simd-mt\",\"workload\":{\"name\":\"e1m\",\"files\":{\"base\":\"$D.base.fbin\",\"queries\":\"$D.queries.fbin\",\"gt\":\"$D.gt.ibin\"}},\"knobs\":{\"metric\":\"cosine\",\"bits\":4,\"refineBits\":3,\"lists\":$L,\"probes\":[8,12,16,20,24],\"seconds\":1,\"flatQueries\":0,\"hnswEfs\":[],\"M\":16,\"efConstruction\":200}}" 2>&1 >/dev/null | grep -v WARN
done
echo "== end load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
