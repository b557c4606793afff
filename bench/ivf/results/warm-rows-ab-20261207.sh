#!/bin/bash
# One sitting: main at 2c1b6d6 ("base") against f1f2e67 ("touch": re-scoring loads one byte of
# each line of every candidate's refine row and scale before scoring any, in wasm, where there is
# no prefetch) on the same saved index files, default settings unless a probe count is given.
# wasm relaxed-simd in Chromium 156: search-loop.mjs's loop in a page (a scratch harness,
# /work/exp/chromium-loop.mjs and a page beside the two package copies under
# bench/ivf/scratch-loop/, not committed); wasm simd in Node: bench/ivf/search-loop.mjs over a
# copy of js/ from each commit. Files: 1M x 384 embedding-like, 1,000 and 10,000 topics, 2 + 5
# codes, 4,096 lists (L4096.qvr, T10k-4096.qvr); 100k x 384 embedding-like and clustered, 4 + 3
# codes, 256 lists (e100k.qvr, c100k.qvr); cosine, k 10. Each figure is QPS/answer hash: equal
# hashes are equal answers (ids and distance bits).
cd /work/exp
./ab-chromium.sh 3 5 pkg-base pkg-touch    # Chromium, both 1M files, three rounds
./ab.sh /tmp/pkg-base /tmp/pkg-touch 3 4 "L4096:emb1m:default" "T10k-4096:emb1m10k:default"
./ab.sh /tmp/pkg-base /tmp/pkg-touch 2 3 "e100k:e100k:default" "c100k:c100k:default" "e100k:e100k:12"
