#!/bin/bash
# One sitting: the lists' blocks scattered over the heap (HEAD before the change, 615ce94)
# against packed side by side (InvertedLists::pack), same index files, same answers.
# Native: quiver_bench_ivf with QUIVER_IVF_INDEX_FILE (/work/build-base = 615ce94, build-ci3 =
# the change); wasm simd in Node: bench/ivf/search-loop.mjs over a copy of js/ from each
# (/tmp/pkg-base, /tmp/pkg-packed). Files: the 1M x 384 embedding-like sets (1,000 and 10,000
# topics), 2 + 5 codes, 2,048 auto lists (Lauto.qvr, T10k.qvr), cosine, k 10.
cd /work/exp
f() { grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*' | paste -sd' '; }
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
for round in 1 2; do
  for side in base packed; do
    bin=/work/build-ci3/native/bench/quiver_bench_ivf
    [ $side = base ] && bin=/work/build-base/bench/quiver_bench_ivf
    echo "== native round $round $side 1,000 topics: $(BIN=$bin SECS=2 ./sweep.sh emb1m Lauto.qvr '20 default' | f)"
    echo "== native round $round $side 10,000 topics: $(BIN=$bin SECS=2 ./sweep.sh emb1m10k T10k.qvr 'default' | f)"
  done
  for side in base packed; do
    for w in "emb1m Lauto 20" "emb1m Lauto 0" "emb1m10k T10k 0"; do
      set -- $w
      echo "== wasm simd round $round $side $2 probes $3: $(node /work/main/bench/ivf/search-loop.mjs --package /tmp/pkg-$side --index $2.qvr --queries $1.queries.fbin --probes $3 --seconds 4 --variant simd 2>&1 | tail -1)"
    done
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
