// A profiling harness for the partitioned quantised index's query path in wasm (issue 14): loads
// an index file (`quiver build ... --index quantized --lists auto --refine-bits 3 --no-vectors`
// writes one; native files load in wasm with identical answers), then searches one query per
// call for a while and prints one JSON line (QPS, and a hash of every answer so that two builds
// can be checked to answer the same). Not a benchmark of record (bench/ivf/run.mjs is): a
// loop to run under `node --cpu-prof` or `perf record`, or to compare two builds of the package
// in one sitting.
//
//   node bench/ivf/search-loop.mjs --index F --queries Q.fbin [--probes P] [--seconds S]
//        [--variant simd|simd-mt|baseline] [--package DIR (the js/ folder to load; default ours)]
//        [--limit N (queries used)]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => {
    if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1]]);
    return pairs;
  }, []),
);
if (!args.index || !args.queries) {
  process.stderr.write(
    'usage: search-loop.mjs --index F --queries Q.fbin [--probes P] [--seconds S] [--variant V] [--package DIR]\n',
  );
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(args.package ?? path.join(here, '../../js'));
const { Quiver } = await import(pathToFileURL(path.join(pkg, 'index.js')).href);
const q = await Quiver.init({ variant: args.variant ?? 'simd' });

const buf = readFileSync(args.queries); // .fbin: int32 rows, int32 dim, rows x dim float32
const rows = Math.min(buf.readInt32LE(0), Number(args.limit ?? Infinity)),
  dim = buf.readInt32LE(4);
const queries = new Float32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + rows * dim * 4));
const index = q.QuantizedIndex.load(readFileSync(args.index));
const opts = args.probes ? { probes: Number(args.probes) } : {};
const seconds = Number(args.seconds ?? 3);

// FNV-1a over the ids and distance bits of the first pass: equal builds give equal hashes.
let hash = 0x811c9dc5;
const mix = (x) => {
  hash = Math.imul(hash ^ (x >>> 0), 0x01000193) >>> 0;
};
for (let i = 0; i < rows; i++) {
  const r = index.search(queries.subarray(i * dim, (i + 1) * dim), 10, opts);
  const bits = new Uint32Array(r.distances.buffer, r.distances.byteOffset, r.distances.length);
  for (let j = 0; j < r.ids.length; j++) {
    mix(r.ids[j]);
    mix(bits[j]);
  }
}
let done = 0;
const t0 = performance.now();
while (performance.now() - t0 < seconds * 1000) {
  for (let i = 0; i < rows; i++) index.search(queries.subarray(i * dim, (i + 1) * dim), 10, opts);
  done += rows;
}
const elapsed = (performance.now() - t0) / 1000;
process.stdout.write(
  `${JSON.stringify({
    package: pkg,
    variant: q.variant,
    isa: q.isa,
    lists: index.lists,
    probes: opts.probes ?? 0,
    queries: done,
    qps: Math.round(done / elapsed),
    answers: hash.toString(16),
  })}\n`,
);
index.dispose();
q.terminate();
