#!/usr/bin/env node
// The wasm half of `quiver compare`: in every requested variant of the npm package, builds
// the index from the same base vectors, times one search per query, and also loads the index
// file written natively, searching it with the same queries. Prints one JSON object on stdout.
//
//   node scripts/compare-wasm.mjs --base B.fbin --queries Q.fbin [--index native.qvr]
//        [-k 10] [--metric l2] [--variants simd-mt,simd,baseline]
//        [--kind flat|quantized|hnsw] [--bits 4] [--seed 42] [--rerank N] [--no-vectors]
//        [--M 16] [--ef-construction 200] [--ef 0] [--storage f32|sq8]
// An hnsw index is built with one thread, so its graph is the one a one-thread native build
// makes from the same vectors and seed.
// Vector files: .fbin or .fvecs (float32, little-endian).
import { readFileSync } from 'node:fs';
import { Quiver } from '../js/index.js';

function parseArgs(argv) {
  const args = {
    k: 10,
    metric: 'l2',
    variants: 'simd-mt,simd,baseline',
    kind: 'flat',
    bits: 4,
    seed: 42,
    rerank: undefined,
    keepVectors: true,
    M: 16,
    efConstruction: 200,
    ef: 0,
    storage: 'f32',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--base') args.base = next();
    else if (a === '--queries') args.queries = next();
    else if (a === '--index') args.index = next();
    else if (a === '-k') args.k = Number(next());
    else if (a === '--metric') args.metric = next();
    else if (a === '--variants') args.variants = next();
    else if (a === '--kind') args.kind = next();
    else if (a === '--bits') args.bits = Number(next());
    else if (a === '--seed') args.seed = Number(next());
    else if (a === '--rerank') args.rerank = Number(next());
    else if (a === '--no-vectors') args.keepVectors = false;
    else if (a === '--M') args.M = Number(next());
    else if (a === '--ef-construction') args.efConstruction = Number(next());
    else if (a === '--ef') args.ef = Number(next());
    else if (a === '--storage') args.storage = next();
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.base || !args.queries) throw new Error('--base and --queries are required');
  return args;
}

// { rows, dim, data: Float32Array } from .fbin or .fvecs, with the same checks as the C++ reader.
function readVectors(path) {
  const buf = readFileSync(path);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (path.endsWith('.fvecs')) {
    if (buf.length < 4) throw new Error(`${path}: truncated`);
    const dim = view.getInt32(0, true);
    const rowBytes = 4 + 4 * dim;
    if (dim <= 0 || buf.length % rowBytes !== 0) throw new Error(`${path}: not a whole number of rows`);
    const rows = buf.length / rowBytes;
    const data = new Float32Array(rows * dim);
    for (let r = 0; r < rows; r++) {
      if (view.getInt32(r * rowBytes, true) !== dim) throw new Error(`${path}: row ${r} has another dimension`);
      for (let j = 0; j < dim; j++) data[r * dim + j] = view.getFloat32(r * rowBytes + 4 + 4 * j, true);
    }
    return { rows, dim, data };
  }
  if (buf.length < 8) throw new Error(`${path}: truncated`);
  const rows = view.getUint32(0, true),
    dim = view.getUint32(4, true);
  if (dim === 0 || buf.length !== 8 + rows * dim * 4) throw new Error(`${path}: size does not match its header`);
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < rows * dim; i++) data[i] = view.getFloat32(8 + 4 * i, true);
  return { rows, dim, data };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

function searchAll(index, queries, k, options) {
  const { rows, dim, data } = queries;
  const ids = new Array(rows * Math.min(k, index.size));
  const lat = new Float64Array(rows);
  const t0 = performance.now();
  let w = 0;
  for (let q = 0; q < rows; q++) {
    const s = performance.now();
    const r = index.search(data.subarray(q * dim, (q + 1) * dim), k, options);
    lat[q] = (performance.now() - s) * 1000;
    for (let j = 0; j < r.ids.length; j++) ids[w++] = r.ids[j];
  }
  const wall = (performance.now() - t0) / 1000;
  const sorted = Float64Array.from(lat).sort();
  return {
    ids,
    qps: rows / wall,
    latency_us: {
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: sorted[sorted.length - 1],
    },
  };
}

function makeIndex(q, args, dim) {
  if (args.kind === 'flat') return new q.FlatIndex({ dim, metric: args.metric });
  if (args.kind === 'quantized') {
    return new q.QuantizedIndex({
      dim,
      metric: args.metric,
      bits: args.bits,
      seed: args.seed,
      keepVectors: args.keepVectors,
    });
  }
  if (args.kind === 'hnsw') {
    return new q.HnswIndex({
      dim,
      metric: args.metric,
      M: args.M,
      efConstruction: args.efConstruction,
      seed: args.seed,
      storage: args.storage,
      keepVectors: args.keepVectors,
    });
  }
  throw new Error(`unknown index kind ${args.kind}`);
}

// rerank only when given (a depth for every kind; absent: the kind's default, as natively).
function searchOptions(args) {
  const rerank = args.rerank === undefined ? {} : { rerank: args.rerank };
  if (args.kind === 'quantized') return rerank;
  if (args.kind === 'hnsw') return { ef: args.ef, ...rerank };
  return undefined;
}

function addOptions(args) {
  return args.kind === 'hnsw' ? { threads: 1 } : undefined;
}

async function runVariant(variant, args, base, queries, fileBytes) {
  const q = await Quiver.init({ variant });
  try {
    const ids = Float64Array.from({ length: base.rows }, (_, i) => i);
    const t0 = performance.now();
    const index = makeIndex(q, args, base.dim);
    index.add(ids, base.data, addOptions(args));
    const buildMs = performance.now() - t0;
    const built = searchAll(index, queries, args.k, searchOptions(args));
    const out = {
      variant,
      isa: q.isa,
      build_ms: buildMs,
      qps: built.qps,
      latency_us: built.latency_us,
      ids: built.ids,
      index_memory_bytes: index.memoryBytes,
      heap_bytes: q.heapBytes(),
    };
    index.dispose();
    if (fileBytes) {
      const t1 = performance.now();
      const loaded = q.load(fileBytes);
      out.load_ms = performance.now() - t1;
      out.loaded_ids = searchAll(loaded, queries, args.k, searchOptions(args)).ids;
      loaded.dispose();
    }
    return out;
  } finally {
    q.terminate();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const base = readVectors(args.base);
  const queries = readVectors(args.queries);
  const fileBytes = args.index ? readFileSync(args.index) : null;
  const variants = [];
  for (const v of args.variants.split(',').filter(Boolean)) {
    variants.push(await runVariant(v, args, base, queries, fileBytes));
  }
  process.stdout.write(
    JSON.stringify({ rows: base.rows, dim: base.dim, queries: queries.rows, k: args.k, variants }) + '\n',
  );
}

main().catch((e) => {
  process.stderr.write(`compare-wasm: ${e.code ? `[${e.code}] ` : ''}${e.message}\n`);
  process.exit(1);
});
