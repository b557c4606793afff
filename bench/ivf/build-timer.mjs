// Times one build of the codes-only partitioned index in wasm through the npm package, as
// bench/ivf does it (ids 0..n-1, one add per 2,730-row slice, the JS binding's 4 MiB), and can
// write the index file so that two builds — two commits, or wasm and native — can be compared
// byte for byte with cmp. Not a benchmark of record: a helper for one-sitting A/Bs of the build
// (bench/ivf/results/build-ab-*.sh). Prints one JSON line.
//
//   node bench/ivf/build-timer.mjs --base B.fbin [--package DIR (the js/ folder; default ours)]
//        [--variant simd|simd-mt|relaxed-simd|baseline] [--bits 2] [--refine-bits 5]
//        [--lists auto|N] [--out F.qvr]
import { openSync, readSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => {
    if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1]]);
    return pairs;
  }, []),
);
if (!args.base) {
  process.stderr.write('usage: build-timer.mjs --base B.fbin [--package DIR] [--variant V] [--out F.qvr]\n');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(args.package ?? path.join(here, '../../js'));
const { Quiver } = await import(pathToFileURL(path.join(pkg, 'index.js')).href);
const variant = args.variant ?? 'simd';
const q = await Quiver.init({ variant });

const fd = openSync(args.base, 'r'); // .fbin: int32 rows, int32 dim, rows x dim float32
const head = Buffer.alloc(8);
readSync(fd, head, 0, 8, 0);
const rows = head.readInt32LE(0),
  dim = head.readInt32LE(4);
const lists = args.lists === undefined || args.lists === 'auto' ? 'auto' : Number(args.lists);
const index = new q.QuantizedIndex({
  dim,
  metric: 'cosine',
  bits: Number(args.bits ?? 2),
  refineBits: Number(args['refine-bits'] ?? 5),
  keepVectors: false,
  lists,
});
const slice = 2730;
const buf = Buffer.alloc(slice * dim * 4);
let ms = 0;
for (let first = 0; first < rows; first += slice) {
  const n = Math.min(slice, rows - first);
  readSync(fd, buf, 0, n * dim * 4, 8 + first * dim * 4);
  const data = new Float32Array(buf.buffer, buf.byteOffset, n * dim).slice();
  const ids = new Float64Array(n);
  for (let i = 0; i < n; i++) ids[i] = first + i;
  const t = performance.now();
  index.add(ids, data);
  ms += performance.now() - t;
}
if (args.out) writeFileSync(args.out, index.serialize());
console.log(JSON.stringify({ package: pkg, variant, rows, dim, lists: index.lists, build_s: +(ms / 1000).toFixed(2) }));
index.dispose?.();
