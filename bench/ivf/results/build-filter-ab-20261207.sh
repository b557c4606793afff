#!/bin/bash
# Same-sitting A/B of the wasm 1M build with and without the 8-bit assignment filter: old = the
# package built from a941868 (before 8baee8a's filter), new = HEAD's package. 1,000,000 x 384
# embedding-like, 2 + 5 codes, lists auto, one build a figure (bench/ivf/build-timer.mjs); the
# files are compared with cmp at the end. /tmp/pkg-old: js/ of a worktree at a941868 after
# `QUIVER_BUILD_ROOT=/work/build-a941 bash scripts/build.sh wasm-simd wasm-simd-mt -- quiver_wasm`;
# /tmp/pkg-new: js/ at b99953a after the same (build root /work/build-ci3). 2026-12-07, AMD EPYC, 2
# cores, nothing else running. The one native file it matched (cmp, run after): the 1M 2 + 5 file
# of the other 2026-12-07 A/Bs, built by quiver_bench_ivf.
cd /work/main
B=/work/exp/emb1m.base.fbin
for round in 1 2; do
  for side in old new; do
    for variant in simd simd-mt; do
      echo "== $side $variant round $round load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
      node bench/ivf/build-timer.mjs --base $B --package /tmp/pkg-$side --variant $variant --bits 2 --refine-bits 5 \
        --out /work/exp/fab-$side-$variant-$round.qvr
    done
  done
done
echo "== end load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
for f in /work/exp/fab-*.qvr; do cmp $f /work/exp/fab-new-simd-1.qvr && echo "same: $(basename $f)"; done
