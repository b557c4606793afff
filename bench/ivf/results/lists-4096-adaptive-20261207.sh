#!/bin/bash
# One sitting: 2,048 (auto) against 4,096 lists at 1M x 384, 2 + 5 codes, under the adaptive
# default; natively with the ball at 0.16 (committed) and 0.2 (a tuning build, bin-tune: the
# kSettle* constants from the environment, not committed), and wasm simd in Node (committed
# package) at 0.16. Files: Lauto.qvr / L4096.qvr (1,000 topics), T10k.qvr / T10k-4096.qvr
# (10,000 topics), built by quiver_bench_ivf (QUIVER_IVF_LISTS auto | 4096).
cd /work/exp
f() { grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*\|"lists_per_query":[0-9.]*\|"vectors_per_query":[0-9]*' | paste -sd' ' | sed 's/ "probes/\n"probes/g'; }
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
for round in 1 2; do
  for w in "emb1m Lauto auto" "emb1m L4096 4096" "emb1m10k T10k auto" "emb1m10k T10k-4096 4096"; do
    set -- $w
    for B in 0.16 0.2; do
      echo "== native round $round $2 ball $B: $(BIN=./bin-tune T_SBALL=$B LISTS=$3 SECS=2 ./sweep.sh $1 $2.qvr default | f)"
    done
  done
  for w in "emb1m Lauto" "emb1m L4096" "emb1m10k T10k" "emb1m10k T10k-4096"; do
    set -- $w
    echo "== wasm simd round $round $2 ball 0.16: $(node /work/main/bench/ivf/search-loop.mjs --package /tmp/pkg-new --index $2.qvr --queries $1.queries.fbin --probes 0 --seconds 4 --variant simd 2>&1 | tail -1)"
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
