// The wasm heap of one Quiver HNSW (sq8 codes only, M 16, efConstruction 200) built alone in a
// fresh process on the peers' embedding-like 100k x 384 workload, added 10,000 rows at a time —
// the figure to set beside hnswlib-wasm's heap in the peers run (its process holds one index;
// Quiver's peers job holds several, so its heap column there is not this). Needs the workload
// cached by `npm run bench:peers`. Usage: node bench/peers/heap-quiver-hnsw.mjs [simd|simd-mt]
// Writes bench/peers/results/heap-quiver-hnsw-<stamp>.json.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Quiver } from '../../js/index.js';
import { gitCommit, machineInfo } from '../common/run-info.mjs';
import { readFbin } from './lib/data.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const variant = process.argv[2] ?? 'simd';
const base = readFbin(`${root}bench/peers/results/tmp/embedding-100000x384-q1000.base.fbin`);
const q = await Quiver.init({ variant });
const heapStart = q.heapBytes();
const index = new q.HnswIndex({
  dim: base.dim,
  metric: 'l2',
  M: 16,
  efConstruction: 200,
  storage: 'sq8',
  keepVectors: false,
});
const steps = [];
for (let i = 0; i < base.rows; i += 10000) {
  const m = Math.min(10000, base.rows - i);
  const ids = new BigUint64Array(m);
  for (let j = 0; j < m; ++j) ids[j] = BigInt(i + j);
  index.add(ids, base.data.subarray(i * base.dim, (i + m) * base.dim));
  steps.push({ rows: i + m, heapBytes: q.heapBytes(), memoryBytes: index.memoryBytes });
}
const out = {
  benchmark: 'heap-quiver-hnsw',
  date: new Date().toISOString(),
  commit: gitCommit(root),
  machine: machineInfo(),
  variant,
  workload: 'embedding 100000 x 384',
  knobs: { M: 16, efConstruction: 200, storage: 'sq8', keepVectors: false, batch: 10000 },
  heapStart,
  steps,
};
index.dispose();
q.terminate?.();
const last = steps[steps.length - 1];
console.log(
  `wasm ${variant}: heap ${(last.heapBytes / 2 ** 20).toFixed(1)} MiB (start ${(heapStart / 2 ** 20).toFixed(1)}), memoryBytes ${(last.memoryBytes / 2 ** 20).toFixed(1)} MiB`,
);
const path = `${root}bench/peers/results/heap-quiver-hnsw-${out.date.slice(0, 16).replace(/[-:]/g, '')}Z.json`;
writeFileSync(path, JSON.stringify(out, null, 1) + '\n');
console.log(`wrote ${path}`);
