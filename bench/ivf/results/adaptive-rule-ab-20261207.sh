#!/bin/bash
# Same-sitting native A/B of the adaptive rule's constants (quantized_search.cpp: kSettleGrowth,
# kSettleBall), 2026-12-07, AMD EPYC 2 cores, nothing else running (load in the output).
# The binary: quiver_bench_ivf built from f4e03e3 with a temporary edit (not committed) that read
# the four kSettle* constants from T_SDEPTH / T_SLISTS / T_SGROWTH / T_SBALL, so both sides ran
# in one binary on one saved index file per workload: old = growth 1.5, ball 0.1 (f4e03e3's),
# new = growth 1.0, ball 0.16 (this commit's). Workloads (quiver gen embedding/clustered,
# --metric cosine -k 10, 1,000 queries): emb1m = 1,000,000 x 384 (1,000 topics), emb1m10k the
# same with --clusters 10000, emb100k / clu100k = 100,000 x 384. Codes: 2 + 5 at 1M, 4 + 3 at
# 100k, lists auto. sweep.sh runs quiver_bench_ivf with QUIVER_IVF_INDEX_FILE on the saved file
# (QUIVER_IVF_BITS=$3, QUIVER_IVF_REFINE_BITS=$4, QUIVER_IVF_PROBES="<fixed> default",
# QUIVER_BENCH_SECONDS=2, QUIVER_IVF_FLAT_QUERIES=0). In the output a default row says
# "probes":68 (1M) or 24 (100k): that is default_probes(), the budget of a filtered search; what
# the adaptive default probed is lists_per_query.
cd /work/exp
fields() { grep -o '"probes":[0-9]*,"default":[a-z]*,"recall":[0-9.]*,"qps":[0-9.]*\|"lists_per_query":[0-9.]*\|"vectors_per_query":[0-9]*' | paste -sd' ' | sed 's/ "probes/\n"probes/g'; }
for round in 1 2; do
  for side in old new; do
    if [ $side = old ]; then G=1.5 B=0.1; else G=1.0 B=0.16; fi
    for w in "emb1m Lauto.qvr 2 5 20" "emb1m10k T10k.qvr 2 5 128" "w100k/emb100k w100k/emb100k.qvr 4 3 16" "w100k/clu100k w100k/clu100k.qvr 4 3 4"; do
      set -- $w
      echo "== $side round $round $1 load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
      T_SGROWTH=$G T_SBALL=$B BITS=$3 RBITS=$4 SECS=2 ./sweep.sh $1 $2 "$5 default" | fields
    done
  done
done
echo "== end load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
