#!/bin/bash
# One-sitting A/B of the 1M build (2026-12-06, AMD EPYC VM, 2 cores, nothing else running):
# old = the code before the column kernel (native binary of c6005de, package of 18dd2a4: the
# same coarse quantiser), new = a941868 (dot_f32_columns with row blocks, nearest_many, the
# branch-free codebook search). 1,000,000 x 384 embedding-like (quiver gen embedding --rows
# 1000000 --queries 1000 --dim 384 -k 10 --metric cosine), 2-bit codes + 5-bit plane, lists auto
# (2,048), codes only, adds of 2,730 rows; natively on 2 threads, alternating, two rounds; in
# wasm simd (1 thread) and simd-mt (2 threads) one round each; every index file compared with the
# first native one (cmp). Usage: build-ab-20261206.sh OLD_BENCH NEW_BENCH OLD_JS NEW_JS DATA_DIR
set -u
old_bench=$1 new_bench=$2 old_js=$3 new_js=$4 data=$5
here=$(cd "$(dirname "$0")/../../.." && pwd)
native() {
  QUIVER_IVF_BASE=$data/emb1m.base.fbin QUIVER_IVF_QUERIES=$data/emb1m.queries.fbin QUIVER_IVF_GT=$data/emb1m.gt.ibin \
  QUIVER_IVF_METRIC=cosine QUIVER_IVF_BITS=2 QUIVER_IVF_REFINE_BITS=5 QUIVER_IVF_LISTS=auto QUIVER_IVF_PROBES=20 \
  QUIVER_IVF_BUILD_THREADS=0 QUIVER_IVF_ADD_ROWS=2730 QUIVER_IVF_FLAT_QUERIES=0 QUIVER_BENCH_SECONDS=0.5 \
  QUIVER_IVF_INDEX_FILE=$2 "$1" | grep -o '"build_s":[0-9.]*\|"recall":[0-9.]*\|"qps":[0-9.]*' | paste -sd' '
}
echo "load before: $(cat /proc/loadavg)"
for round in 1 2; do
  for side in old new; do
    bench=$old_bench; [ $side = new ] && bench=$new_bench
    f=/tmp/ab-$side-$round.qvr; rm -f "$f"
    echo "native $side round $round: $(native "$bench" "$f")"
    cmp -s "$f" /tmp/ab-old-1.qvr && echo "  file = old round 1's" || echo "  file DIFFERS from old round 1's"
  done
done
for variant in simd simd-mt; do
  for side in old new; do
    js=$old_js; [ $side = new ] && js=$new_js
    f=/tmp/ab-$variant-$side.qvr
    echo "wasm $variant $side: $(node --max-old-space-size=8000 "$here/bench/ivf/build-timer.mjs" --package "$js" --variant $variant --base "$data/emb1m.base.fbin" --out "$f")"
    cmp -s "$f" /tmp/ab-old-1.qvr && echo "  file = native old round 1's" || echo "  file DIFFERS from native old round 1's"
  done
done
echo "load after: $(cat /proc/loadavg)"
rm -f /tmp/ab-*.qvr
