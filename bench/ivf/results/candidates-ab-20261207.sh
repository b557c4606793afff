#!/bin/bash
# Same-sitting A/B of the partitioned scan's candidate buffer (PartitionCandidates: a heap of
# depth 80 before, a buffer of twice the depth cut back by nth_element after), 2026-12-07, AMD
# EPYC 2 cores, nothing else running (load printed). old = c520d04, new = the commit after it.
# Native: quiver_bench_ivf of each side (copied to /work/exp/bin-c520 and bin-reservoir) on the
# saved 1M (2 + 5 codes) and 100k (4 + 3) index files through /work/exp/sweep.sh
# (QUIVER_IVF_INDEX_FILE, QUIVER_BENCH_SECONDS=2, QUIVER_IVF_FLAT_QUERIES=0). wasm: the js/
# package of each side (scripts/build.sh wasm-simd -- quiver_wasm, copied to /tmp/pkg-old and
# /tmp/pkg-new), bench/ivf/search-loop.mjs on the 1M file, 4 s a figure; the answers' hash is
# printed, and is the same on both sides.
cd /work/exp
cat /proc/loadavg
for r in 1 2; do for b in c520 reservoir; do
  echo "1m $b $(BIN=./bin-$b SECS=2 ./sweep.sh emb1m Lauto.qvr "8 20 default" | grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*' | paste -sd' ')"
done; done
for r in 1 2; do for b in c520 reservoir; do
  echo "100k $b $(BIN=./bin-$b BITS=4 RBITS=3 SECS=2 ./sweep.sh w100k/emb100k w100k/emb100k.qvr "8 16 default" | grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*' | paste -sd' ')"
done; done
cat /proc/loadavg
cd /work/main
for r in 1 2; do for side in old new; do for probes in 20 0; do
  echo "wasm simd $side r$r probes $probes $(node bench/ivf/search-loop.mjs --package /tmp/pkg-$side --index /work/exp/Lauto.qvr --queries /work/exp/emb1m.queries.fbin --probes $probes --seconds 4 --variant simd 2>&1 | tail -1)"
done; done; done
cat /proc/loadavg
