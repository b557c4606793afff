#!/bin/bash
# One sitting: the cosine list order (d^2 + r^2/2, ball 0.09; CoarseQuantizer::cosine_scores)
# against the l2 order (d^2, ball 0.16) of the commit before, on the same saved index files.
# Native: quiver_bench_ivf with QUIVER_IVF_INDEX_FILE (/work/build-old = the parent commit,
# build-ci3 = this one); wasm simd in Node: bench/ivf/search-loop.mjs over a copy of js/ from
# each (/tmp/pkg-cur, /tmp/pkg-order); Chromium: search-loop.mjs's loop in a page (a scratch
# harness, /work/exp/chromium-loop.mjs and a page beside the two package copies under
# bench/ivf/scratch-loop/, not committed), relaxed-simd, Chromium 156. Files: 1M x 384 embedding-like
# (1,000 and 10,000 topics; 2 + 5 codes, 2,048 auto lists: Lauto.qvr, T10k.qvr) and 100k x 384
# embedding-like and clustered (4 + 3 codes, 256 lists: e100k.qvr, c100k.qvr), cosine, k 10.
cd /work/exp
f() { grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*\|"vectors_per_query":[0-9]*' | paste -sd' '; }
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
for round in 1 2; do
  for side in old new; do
    bin=/work/build-ci3/native/bench/quiver_bench_ivf
    [ $side = old ] && bin=/work/build-old/bench/quiver_bench_ivf
    echo "== native round $round $side 1,000 topics: $(BIN=$bin SECS=2 ./sweep.sh emb1m Lauto.qvr '16 20 24 default' | f)"
    echo "== native round $round $side 10,000 topics: $(BIN=$bin SECS=2 ./sweep.sh emb1m10k T10k.qvr '96 128 default' | f)"
    echo "== native round $round $side 100k embedding: $(BIN=$bin BITS=4 RBITS=3 SECS=1 ./sweep.sh e100k e100k.qvr '8 12 16 default' | f)"
    echo "== native round $round $side 100k clustered: $(BIN=$bin BITS=4 RBITS=3 SECS=1 ./sweep.sh c100k c100k.qvr '4 8 default' | f)"
  done
  for side in old new; do
    pkg=/tmp/pkg-cur; [ $side = new ] && pkg=/tmp/pkg-order
    for w in "emb1m Lauto 20" "emb1m Lauto 0" "emb1m10k T10k 0"; do
      set -- $w
      echo "== wasm simd round $round $side $2 probes $3: $(node /work/main/bench/ivf/search-loop.mjs --package $pkg --index $2.qvr --queries $1.queries.fbin --probes $3 --seconds 4 --variant simd 2>&1 | tail -1)"
    done
  done
  for side in old new; do
    for w in "emb1m Lauto 20" "emb1m Lauto 0" "emb1m10k T10k 0"; do
      set -- $w
      echo "== chromium relaxed-simd round $round $side $2 probes $3: $(timeout 300 node chromium-loop.mjs /bench/ivf/scratch-loop/pkg-$side $2.qvr $1.queries.fbin $3 4 relaxed-simd 2>&1 | grep '^{' | tail -1)"
    done
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
