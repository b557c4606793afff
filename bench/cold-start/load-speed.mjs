// Warm load speed of each kind's file in wasm simd, beside the plain copy speed of the same bytes
// (TypedArray.set, the ceiling): in one process, best of 5 q.load(bytes) (the stream loader) and
// the time to the first answer after it.
//   node bench/cold-start/load-speed.mjs [--module PATH] [--label NAME] FILE...
// --module: the package entry to measure (default this repository's js/simd.js; an older
// checkout's js/index.js for an A/B in one sitting). Appends one JSON line per file to
// results/load-speed-<date>.jsonl and prints a Markdown row each.
import { appendFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gitCommit } from '../common/run-info.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const modulePath = resolve(option('module', join(root, 'js', 'simd.js')));
const label = option('label', gitCommit(root));
const { Quiver } = await import(pathToFileURL(modulePath).href);
const q = await Quiver.init({ variant: 'simd' });
const out = join(root, 'bench', 'cold-start', 'results', `load-speed-${new Date().toISOString().slice(0, 10)}.jsonl`);
for (const file of args) {
  const bytes = readFileSync(file);
  let load = Infinity;
  let first = Infinity;
  let copy = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    const index = q.load(bytes);
    const t1 = performance.now();
    index.search(
      new Float32Array(index.dim).map((_, i) => Math.sin(i + 1)),
      10,
    );
    const t2 = performance.now();
    load = Math.min(load, t1 - t0);
    first = Math.min(first, t2 - t0);
    index.dispose();
    const c0 = performance.now();
    new Uint8Array(bytes.length).set(bytes);
    copy = Math.min(copy, performance.now() - c0);
  }
  const mb = bytes.length / 1e6;
  const row = {
    label,
    module: modulePath,
    file: basename(file),
    file_mb: +mb.toFixed(2),
    load_ms: +load.toFixed(1),
    load_mb_per_s: Math.round((mb * 1e3) / load),
    first_answer_ms: +first.toFixed(1),
    copy_mb_per_s: Math.round((mb * 1e3) / copy),
    load_average: os.loadavg(),
    cpu: os.cpus()[0]?.model,
    node: process.version,
    date: new Date().toISOString(),
  };
  appendFileSync(out, `${JSON.stringify(row)}\n`);
  console.log(
    `| ${label} | ${row.file} | ${row.file_mb} | ${row.load_ms} | ${row.load_mb_per_s} | ${row.first_answer_ms} | ${row.copy_mb_per_s} |`,
  );
}
q.terminate();
