#!/bin/bash
# One sitting: main at 96bfb83 ("old": the cosine list order, 2,048 auto lists at 1M) against
# this stop's query path ("new": the probe order's 64-bit keys, the 8-bit centroid scores'
# float epilogue, the wasm gather dot's widened query, the patience in proportion to the list
# count) on the same saved index files, 2,048 and 4,096 lists. The new auto rule gives 4,096
# at 1M with 2-bit codes, so "old 2,048" is the committed default before and "new 4,096" after.
# Native: quiver_bench_ivf with QUIVER_IVF_INDEX_FILE (/work/build-base = 96bfb83, build-ci3 =
# this one); wasm simd in Node: bench/ivf/search-loop.mjs over a copy of js/ from each; Chromium
# 156: search-loop.mjs's loop in a page (a scratch harness, /work/exp/chromium-loop.mjs and a page
# beside the two package copies under bench/ivf/scratch-loop/, not committed), relaxed-simd.
# Files: 1M x 384 embedding-like (1,000 and 10,000 topics; 2 + 5 codes: Lauto.qvr / T10k.qvr with
# 2,048 lists, L4096.qvr / T10k-4096.qvr with 4,096) and 100k x 384 embedding-like and clustered
# (4 + 3 codes, 256 lists: e100k.qvr, c100k.qvr), cosine, k 10.
cd /work/exp
f() { grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*\|"vectors_per_query":[0-9]*' | paste -sd' '; }
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
for round in 1 2; do
  for side in old new; do
    bin=/work/build-ci3/native/bench/quiver_bench_ivf
    [ $side = old ] && bin=/work/build-base/bench/quiver_bench_ivf
    echo "== native round $round $side 1,000 topics 2,048: $(BIN=$bin SECS=2 ./sweep.sh emb1m Lauto.qvr '20 default' | f)"
    echo "== native round $round $side 1,000 topics 4,096: $(BIN=$bin SECS=2 ./sweep.sh emb1m L4096.qvr '32 default' | f)"
    echo "== native round $round $side 10,000 topics 2,048: $(BIN=$bin SECS=2 ./sweep.sh emb1m10k T10k.qvr '96 default' | f)"
    echo "== native round $round $side 10,000 topics 4,096: $(BIN=$bin SECS=2 ./sweep.sh emb1m10k T10k-4096.qvr '128 default' | f)"
    echo "== native round $round $side 100k embedding: $(BIN=$bin BITS=4 RBITS=3 SECS=1 ./sweep.sh e100k e100k.qvr '12 default' | f)"
    echo "== native round $round $side 100k clustered: $(BIN=$bin BITS=4 RBITS=3 SECS=1 ./sweep.sh c100k c100k.qvr '4 default' | f)"
  done
  for side in old new; do
    for w in "emb1m Lauto" "emb1m L4096" "emb1m10k T10k" "emb1m10k T10k-4096" "e100k e100k" "c100k c100k"; do
      set -- $w
      echo "== wasm simd round $round $side $2 default: $(node /work/main/bench/ivf/search-loop.mjs --package /work/main/bench/ivf/scratch-loop/pkg-$side --index $2.qvr --queries $1.queries.fbin --seconds 4 --variant simd 2>&1 | tail -1)"
    done
  done
  for side in old new; do
    for w in "emb1m Lauto" "emb1m L4096" "emb1m10k T10k" "emb1m10k T10k-4096"; do
      set -- $w
      echo "== chromium relaxed-simd round $round $side $2 default: $(timeout 300 node chromium-loop.mjs /bench/ivf/scratch-loop/pkg-$side $2.qvr $1.queries.fbin 0 4 relaxed-simd 2>&1 | grep '^{' | tail -1)"
    done
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
