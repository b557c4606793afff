// Memory of the package at the edge (issue 12): how much wasm heap an index needs beside what
// it reports (memoryBytes), while it is built and when it is loaded, and the largest index of
// each kind and storage that loads and serves inside a 128 MB Workers isolate.
//
//   node bench/edge-memory/measure.mjs build  KIND N STEP [OUT [FROM]]
//                                                               build in chunks of STEP rows; after each
//                                                               chunk record heap and memoryBytes, and
//                                                               (with OUT) save the index as OUT/<n>.qvr
//                                                               once it has FROM rows or more (default 0):
//                                                               serialize() holds the file in the heap, so
//                                                               the build figures after the first save
//                                                               measure it too
//   node bench/edge-memory/measure.mjs load   FILE [bytes]      a fresh simd module loads FILE (from a
//                                                               stream, or from bytes) and searches it;
//                                                               prints heap after (= the peak: wasm memory
//                                                               never shrinks) and memoryBytes
// KIND: flat | quantized4 | quantized4-codes | quantized4r3-codes | ivf4r3-codes | hnsw-f32 | hnsw-sq8 |
//       hnsw-sq8-codes   (r3: a 3-bit refine plane; ivf: partitioned, lists chosen from n)
// Vectors: dimension 384, i.i.d. Gaussian normalised to unit length, generated in JS (so no
// staging buffer of the generator sits in the heap). Prints JSON lines.
import { createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { Quiver } from '../../js/index.js';

const DIM = 384;
const KINDS = {
  flat: (q) => new q.FlatIndex({ dim: DIM, metric: 'cosine' }),
  quantized4: (q) => new q.QuantizedIndex({ dim: DIM, metric: 'cosine', bits: 4, keepVectors: true }),
  'quantized4-codes': (q) => new q.QuantizedIndex({ dim: DIM, metric: 'cosine', bits: 4, keepVectors: false }),
  // Codes-only accuracy (issue 14): 4-bit fast-scan codes + 3-bit refine plane, no f32 copy.
  'quantized4r3-codes': (q) =>
    new q.QuantizedIndex({ dim: DIM, metric: 'cosine', bits: 4, refineBits: 3, keepVectors: false }),
  'ivf4r3-codes': (q) =>
    new q.QuantizedIndex({ dim: DIM, metric: 'cosine', bits: 4, refineBits: 3, keepVectors: false, lists: 'auto' }),
  'hnsw-f32': (q) => new q.HnswIndex({ dim: DIM, metric: 'cosine', M: 16, efConstruction: 100 }),
  'hnsw-sq8': (q) =>
    new q.HnswIndex({ dim: DIM, metric: 'cosine', M: 16, efConstruction: 100, storage: 'sq8', keepVectors: true }),
  'hnsw-sq8-codes': (q) =>
    new q.HnswIndex({ dim: DIM, metric: 'cosine', M: 16, efConstruction: 100, storage: 'sq8', keepVectors: false }),
};

// mulberry32 → Box–Muller; rows normalised to unit length.
function gaussianRows(n, seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float32Array(n * DIM);
  for (let r = 0; r < n; r++) {
    let norm = 0;
    for (let d = 0; d < DIM; d++) {
      const v = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      out[r * DIM + d] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < DIM; d++) out[r * DIM + d] /= norm;
  }
  return out;
}

const MB = (b) => Math.round(b / 1e4) / 100;

async function build(kind, n, step, out, from = 0) {
  const variant = process.env.VARIANT ?? 'simd-mt'; // VARIANT=simd: no pthread stacks in the heap
  const q = await Quiver.init(variant === 'simd-mt' ? { variant, threads: 2 } : { variant });
  const index = KINDS[kind](q);
  if (out) mkdirSync(out, { recursive: true });
  const start = q.heapBytes();
  console.log(JSON.stringify({ phase: 'start', kind, heapMB: MB(start) }));
  for (let done = 0; done < n; done += step) {
    const rows = Math.min(step, n - done);
    index.add(
      Float64Array.from({ length: rows }, (_, i) => done + i + 1),
      gaussianRows(rows, 1000 + done),
    );
    const heap = q.heapBytes();
    const reported = index.memoryBytes;
    // ratio: the whole wasm memory (module included) / memoryBytes; growthRatio: what the
    // heap grew by since the module started / memoryBytes (the 1.2x goal).
    console.log(
      JSON.stringify({
        phase: 'build',
        kind,
        n: done + rows,
        heapMB: MB(heap),
        reportedMB: MB(reported),
        ratio: Math.round((heap / reported) * 100) / 100,
        growthRatio: Math.round(((heap - start) / reported) * 100) / 100,
      }),
    );
    if (out && done + rows >= from) writeFileSync(join(out, `${done + rows}.qvr`), index.serialize());
  }
  index.dispose();
  q.terminate();
}

async function load(file, how = 'stream') {
  const q = await Quiver.init({ variant: 'simd' });
  const before = q.heapBytes();
  const fileBytes = readFileSync(file).length;
  const index =
    how === 'bytes'
      ? q.load(readFileSync(file))
      : await q.loadFrom(Readable.toWeb(createReadStream(file)), { size: fileBytes });
  const query = gaussianRows(1, 7);
  for (let i = 0; i < 10; i++) index.search(query, 10);
  const heap = q.heapBytes();
  const reported = index.memoryBytes;
  console.log(
    JSON.stringify({
      phase: 'load',
      how,
      file,
      size: index.size,
      fileMB: MB(fileBytes),
      startMB: MB(before),
      heapMB: MB(heap),
      reportedMB: MB(reported),
      ratio: Math.round((heap / reported) * 100) / 100,
      growthRatio: Math.round(((heap - before) / reported) * 100) / 100,
    }),
  );
  index.dispose();
  q.terminate();
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'build') await build(args[0], Number(args[1]), Number(args[2]), args[3], Number(args[4] ?? 0));
else if (mode === 'load') await load(args[0], args[1]);
else {
  console.error('usage: measure.mjs build KIND N STEP [OUT [FROM]] | load FILE [bytes]');
  process.exit(2);
}
