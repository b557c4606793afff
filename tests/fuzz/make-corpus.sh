#!/usr/bin/env bash
# Regenerates the committed seed corpus with the native CLI (scripts/build.sh native first).
# index_loader: small index files of every metric, an empty-ish one and a wider one.
# datasets: one small file per format, prefixed with the fuzzer's 2 selector bytes
#           (format number: 0 fvecs, 1 fbin, 2 npy, 3 raw, 4 ivecs, 5 ibin; raw dimension).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
cli="${QUIVER_BUILD_ROOT:-$root/build}/native/src/quiver"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
c="$here/corpus"
# The other files in corpus/ (named by their SHA-1) are units the long fuzz runs found,
# minimised with -merge=1; they are kept.
# collection: units of fuzz_collection.cpp (first byte 0: a COLL section payload, 1: a filter,
# 2: a record's metadata), written once from its small_collection() and kept.
mkdir -p "$c/index_loader" "$c/datasets"
"$cli" gen seed -q -o "$tmp" --name a --rows 6 --queries 2 --dim 4 -k 3 >/dev/null
"$cli" gen clustered -q -o "$tmp" --name b --rows 20 --queries 3 --dim 16 -k 5 --clusters 3 --format fvecs >/dev/null
for metric in l2 ip cosine; do
  "$cli" build -q "$tmp/a.base.fbin" -o "$c/index_loader/flat-$metric.qvr" --metric "$metric" >/dev/null
done
"$cli" gen seed -q -o "$tmp" --name one --rows 1 --queries 1 --dim 1 -k 1 >/dev/null
"$cli" build -q "$tmp/one.base.fbin" -o "$c/index_loader/flat-one.qvr" >/dev/null
"$cli" build -q "$tmp/b.base.fvecs" -o "$c/index_loader/flat-16.qvr" >/dev/null
# quantized: both bit widths, with and without kept vectors, an odd dimension
"$cli" build -q "$tmp/a.base.fbin" -o "$c/index_loader/quantized-4-l2.qvr" --index quantized --bits 4 >/dev/null
"$cli" build -q "$tmp/a.base.fbin" -o "$c/index_loader/quantized-2-cosine.qvr" --index quantized --bits 2 --metric cosine --no-vectors >/dev/null
"$cli" gen seed -q -o "$tmp" --name odd --rows 9 --queries 1 --dim 5 -k 1 >/dev/null
"$cli" build -q "$tmp/odd.base.fbin" -o "$c/index_loader/quantized-2-ip-odd.qvr" --index quantized --bits 2 --metric ip --seed 3 >/dev/null
# hnsw: f32 and sq8 (current format: SQ8S + rotated codes) with and without kept vectors, one
# node, every metric. hnsw-sq8-old-*.qvr are files of the older sq8 format (SQ8Q: per-dimension
# minimums, one scale), which the loader transcodes; this script cannot write them, they are kept.
"$cli" build -q "$tmp/b.base.fvecs" -o "$c/index_loader/hnsw-sq8-l2-codes.qvr" --index hnsw --M 4 --ef-construction 16 --storage sq8 --no-vectors >/dev/null
"$cli" build -q "$tmp/a.base.fbin" -o "$c/index_loader/hnsw-sq8-ip-kept.qvr" --index hnsw --M 4 --ef-construction 8 --storage sq8 --metric ip >/dev/null
"$cli" build -q "$tmp/b.base.fvecs" -o "$c/index_loader/hnsw-sq8-cosine-codes.qvr" --index hnsw --M 4 --ef-construction 16 --storage sq8 --metric cosine --no-vectors >/dev/null
"$cli" build -q "$tmp/one.base.fbin" -o "$c/index_loader/hnsw-sq8-l2-one.qvr" --index hnsw --M 2 --storage sq8 --no-vectors >/dev/null
# quantized with a refine plane (RFIN section): quantized-*-refine*.qvr were written through the
# C++ API (QuantizedIndexOptions::refine_bits; the CLI has no flag for it yet) and are kept:
# l2 4+3 bits with a zero vector and free slots, cosine 2+4 bits at dim 12, ip 4+1 with kept vectors.
# partitioned quantized (PART, CENT, LIST sections): quantized-*-lists*.qvr and
# quantized-2-cosine-auto-untrained.qvr were written through the C++ API
# (QuantizedIndexOptions::lists; the CLI has no flag for it yet) and are kept: l2 4 bits in 3
# trained lists with free slots, cosine 2 bits partitioned but not yet trained (one list, no
# CENT), ip 4 bits in 2 lists with a 3-bit refine plane. Those three store the partition after
# the codes (the older order, which the stream loader gathers whole); *-partition-first.qvr are
# the same indexes saved again by the current writer (partition before the codes, streamed into
# the lists): loaded and re-serialised through the npm package (wasm simd), and kept.
# quantized with free slots and a free list (the CLI cannot remove: written through the npm
# package, so the wasm-simd build must exist)
node --input-type=module -e "
import { writeFileSync } from 'node:fs';
import { Quiver } from '$root/js/index.js';
const q = await Quiver.init({ variant: 'simd' });
const index = new q.QuantizedIndex({ dim: 6, metric: 'ip', bits: 4, seed: 5, keepVectors: true });
index.add(Float64Array.from({ length: 10 }, (_, i) => 100 + i), q.unitGaussianVectors(10, 6, 1));
index.remove([102, 107, 100]);
writeFileSync('$c/index_loader/quantized-4-ip-free.qvr', index.serialize());
index.dispose();
// an empty index with kept vectors (its VECS section is empty), and a zero vector (scale 0)
const empty = new q.QuantizedIndex({ dim: 5, metric: 'l2', bits: 4, seed: 2, keepVectors: true });
writeFileSync('$c/index_loader/quantized-4-l2-empty-kept.qvr', empty.serialize());
empty.add([1, 2], Float32Array.from([0, 0, 0, 0, 0, 0.5, -1, 2, 0.25, 1]));
writeFileSync('$c/index_loader/quantized-4-l2-zero-vector.qvr', empty.serialize());
empty.dispose();
q.terminate();
"
prefix() { printf "\\x$(printf %02x "$1")\\x$(printf %02x "$2")"; }
{ prefix 0 0; cat "$tmp/b.base.fvecs"; } >"$c/datasets/fvecs"
{ prefix 1 0; cat "$tmp/a.base.fbin"; } >"$c/datasets/fbin"
{ prefix 4 0; cat "$tmp/b.gt.ivecs"; } >"$c/datasets/ivecs"
{ prefix 5 0; cat "$tmp/a.gt.ibin"; } >"$c/datasets/ibin"
{ prefix 3 4; tail -c +9 "$tmp/a.base.fbin"; } >"$c/datasets/raw"
# .npy v1.0 as numpy writes it: 10-byte preamble, header padded so the data starts at 64k
header="{'descr': '<f4', 'fortran_order': False, 'shape': (6, 4), }"
pad=$(( (64 - (10 + ${#header} + 1) % 64) % 64 ))
hlen=$(( ${#header} + pad + 1 ))
{
  prefix 2 0
  printf '\x93NUMPY\x01\x00'
  prefix $((hlen % 256)) $((hlen / 256))
  printf '%s%*s\n' "$header" "$pad" ''
  tail -c +9 "$tmp/a.base.fbin"
} >"$c/datasets/npy"
ls -l "$c"/*
