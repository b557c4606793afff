// The main job, side by side: an exact flat index over the seed workload (10,000 x 384 unit
// vectors, seed 42; 256 queries, seed 13; k = 10), built and searched natively at every ISA
// level (through the quiver CLI) and in every wasm variant (through the npm package in this
// process). Prints build time, queries per second and agreement of the result ids with the
// native scalar run.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Quiver, VARIANTS } from '../js/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}/build/native/src/quiver`;
const ROWS = 10000, QUERIES = 256, DIM = 384, K = 10;

function nativeRun(isa) {
  const out = execFileSync(cli, ['demo', '--json', '--isa', isa, '--rows', `${ROWS}`,
    '--queries', `${QUERIES}`, '--dim', `${DIM}`, '-k', `${K}`], { encoding: 'utf8' });
  const r = JSON.parse(out);
  return { target: 'native', variant: 'native', isa: r.isa, buildMs: r.build_ms, qps: r.qps, ids: r.ids };
}

async function wasmRun(variant) {
  const q = await Quiver.init({ variant });
  try {
    const base = q.unitGaussianVectors(ROWS, DIM, 42);
    const queries = q.unitGaussianVectors(QUERIES, DIM, 13);
    const ids = Float64Array.from({ length: ROWS }, (_, i) => i);
    const t0 = performance.now();
    const index = new q.FlatIndex({ dim: DIM, metric: 'l2' });
    index.add(ids, base);
    const t1 = performance.now();
    const found = new Array(QUERIES * K);
    let passes = 0;
    let elapsed = 0;
    // One pass for the answers, then repeat until 0.5 s has been measured (as the CLI does).
    do {
      for (let i = 0; i < QUERIES; i++) {
        const r = index.search(queries.subarray(i * DIM, (i + 1) * DIM), K);
        if (passes === 0) for (let j = 0; j < K; j++) found[i * K + j] = r.ids[j];
      }
      passes++;
      elapsed = performance.now() - t1;
    } while (elapsed < 500);
    const result = { target: 'wasm', variant, isa: index.isa, buildMs: t1 - t0,
      qps: (passes * QUERIES) / (elapsed / 1000), ids: found };
    index.dispose();
    return result;
  } finally {
    q.terminate();
  }
}

function agreement(ids, reference) {
  let same = 0;
  for (let q = 0; q < QUERIES; q++) {
    const want = new Set(reference.slice(q * K, (q + 1) * K));
    for (let j = 0; j < K; j++) if (want.has(ids[q * K + j])) same++;
  }
  const exactOrder = ids.every((v, i) => v === reference[i]);
  return { fraction: same / (QUERIES * K), exactOrder };
}

const info = JSON.parse(execFileSync(cli, ['info', '--json'], { encoding: 'utf8' }));
console.log(`Quiver ${info.version} demo — exact flat index, ${ROWS} x ${DIM} unit vectors (seed 42), ` +
  `${QUERIES} queries (seed 13), k = ${K}`);
// Progress on a terminal only; pipes get just the table.
const progress = (text) => { if (process.stdout.isTTY) process.stdout.write(`\r${text.padEnd(40)}`); };
const runs = [];
for (const isa of info.available_isas) {
  progress(`  running native ${isa} ...`);
  runs.push(nativeRun(isa));
}
for (const variant of VARIANTS) {
  progress(`  running wasm ${variant} ...`);
  runs.push(await wasmRun(variant));
}
progress('');
if (process.stdout.isTTY) process.stdout.write('\r');
const reference = runs[0].ids;
const rows = runs.map((r) => {
  const a = agreement(r.ids, reference);
  return [r.target, r.variant, r.isa, r.buildMs.toFixed(1), Math.round(r.qps).toLocaleString('en-US'),
    `${(a.fraction * 100).toFixed(2)}%${a.exactOrder ? ' (identical)' : ''}`];
});
const header = ['target', 'variant', 'isa', 'build ms', 'queries/s', 'ids agree with native scalar'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
console.log(line(header));
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
for (const r of rows) console.log(line(r));
const best = (t) => Math.max(...runs.filter((r) => r.target === t).map((r) => r.qps));
console.log(`\nbest wasm / best native queries/s: ${(best('wasm') / best('native')).toFixed(2)}`);
const allSame = runs.every((r) => agreement(r.ids, reference).exactOrder);
console.log(allSame ? 'every ISA level and every wasm variant returned identical ids'
  : 'WARNING: result ids differ between targets');
process.exitCode = allSame ? 0 : 1;
