#!/bin/bash
# One sitting: three coarse-step prototypes at 4,096 lists (1M x 384, 1,000 topics, 2 + 5 codes,
# the saved L4096.qvr), each against the full 8-bit scan in the same binary (env knob 0 = off).
# Temporary builds of 13c7227's tree with an edited CoarseQuantizer::approx_scores, never
# committed: bin-pre / pkg-pre = 96-dim partial scores of every centroid, full scores for the best
# 512 (nth_element); bin-thr = full scores only where the 96-dim partial distance is within
# T_TAU of the smallest; bin-sup / pkg-sup = 64 super-centroids (12 Lloyd rounds over the
# centroids at the first query), the members of the nearest 12 scored. pkg-new = the committed
# package. Also the Node bounds-check check (the committed package, with and without
# --wasm-enforce-bounds-checks).
cd /work/exp
f() { grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*\|"vectors_per_query":[0-9]*' | paste -sd' ' | sed 's/ "probes/\n"probes/g'; }
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"; }
load
for round in 1 2; do
  echo "== native round $round off: $(BIN=./bin-pre T_PART=0 LISTS=4096 SECS=2 ./sweep.sh emb1m L4096.qvr "32 default" | f)"
  echo "== native round $round two-stage 96/512: $(BIN=./bin-pre T_PART=96 LISTS=4096 SECS=2 ./sweep.sh emb1m L4096.qvr "32 default" | f)"
  for T in 0.08 0.12; do
    echo "== native round $round threshold tau $T: $(BIN=./bin-thr T_PART=96 T_TAU=$T LISTS=4096 SECS=2 ./sweep.sh emb1m L4096.qvr "32 default" | f)"
  done
  echo "== native round $round second level 64/12: $(BIN=./bin-sup T_SUPER=64 T_NEAR=12 LISTS=4096 SECS=2 ./sweep.sh emb1m L4096.qvr "32 default" | f)"
  load
  for side in new pre sup; do
    echo "== wasm simd round $round pkg-$side: $(node /work/main/bench/ivf/search-loop.mjs --package /tmp/pkg-$side --index L4096.qvr --queries emb1m.queries.fbin --probes 0 --seconds 4 --variant simd 2>&1 | tail -1)"
  done
  for flags in "" "--wasm-enforce-bounds-checks"; do
    echo "== node bounds round $round flags '$flags': $(node $flags /work/main/bench/ivf/search-loop.mjs --package /tmp/pkg-new --index Lauto.qvr --queries emb1m.queries.fbin --probes 20 --seconds 4 --variant simd 2>&1 | tail -1)"
  done
  load
done
