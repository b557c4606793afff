// The main job, side by side: an exact flat index and a 4-bit quantised index (exact rerank of
// the best 40) over the seed workload (10,000 x 384 unit vectors, seed 42; 256 queries, seed
// 13; k = 10), built and searched natively at every ISA level (through the quiver CLI) and in
// every wasm variant (through the npm package in this process). Prints build time, queries per
// second, recall@10 against exact search, and whether the ids equal the native scalar run of
// the same index. Then scripts/demo-partitioned.mjs puts the partitioned quantised index (inverted
// lists, codes only) beside the flat index on the embedding-like workload, the same way.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Quiver, VARIANTS } from '../js/index.js';
import { partitionedDemo } from './demo-partitioned.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${process.env.QUIVER_BUILD_ROOT ?? `${root}/build`}/native/src/quiver`;
const ROWS = 10000,
  QUERIES = 256,
  DIM = 384,
  K = 10,
  RERANK = 4;
const INDEXES = ['flat', 'quantized'];

function nativeRun(isa, kind) {
  const out = execFileSync(
    cli,
    [
      'demo',
      '--json',
      '--isa',
      isa,
      '--index',
      kind,
      '--rerank',
      `${RERANK}`,
      '--rows',
      `${ROWS}`,
      '--queries',
      `${QUERIES}`,
      '--dim',
      `${DIM}`,
      '-k',
      `${K}`,
    ],
    { encoding: 'utf8' },
  );
  const r = JSON.parse(out);
  return { kind, target: 'native', variant: 'native', isa: r.isa, buildMs: r.build_ms, qps: r.qps, ids: r.ids };
}

async function wasmRun(variant, kind) {
  const q = await Quiver.init({ variant });
  try {
    const base = q.unitGaussianVectors(ROWS, DIM, 42);
    const queries = q.unitGaussianVectors(QUERIES, DIM, 13);
    const ids = Float64Array.from({ length: ROWS }, (_, i) => i);
    const t0 = performance.now();
    const index =
      kind === 'flat'
        ? new q.FlatIndex({ dim: DIM, metric: 'l2' })
        : new q.QuantizedIndex({ dim: DIM, metric: 'l2', bits: 4, seed: 42, keepVectors: true });
    const options = kind === 'flat' ? undefined : { rerank: RERANK };
    index.add(ids, base);
    const t1 = performance.now();
    const found = new Array(QUERIES * K);
    let passes = 0;
    let elapsed = 0;
    // One pass for the answers, then repeat until 0.5 s has been measured (as the CLI does).
    do {
      for (let i = 0; i < QUERIES; i++) {
        const r = index.search(queries.subarray(i * DIM, (i + 1) * DIM), K, options);
        if (passes === 0) for (let j = 0; j < K; j++) found[i * K + j] = r.ids[j];
      }
      passes++;
      elapsed = performance.now() - t1;
    } while (elapsed < 500);
    const result = {
      kind,
      target: 'wasm',
      variant,
      isa: index.isa,
      buildMs: t1 - t0,
      qps: (passes * QUERIES) / (elapsed / 1000),
      ids: found,
    };
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
console.log(
  `Quiver ${info.version} demo — ${ROWS} x ${DIM} unit vectors (seed 42), ` +
    `${QUERIES} queries (seed 13), k = ${K}, one query per call, one thread`,
);
// Progress on a terminal only; pipes get just the table.
const progress = (text) => {
  if (process.stdout.isTTY) process.stdout.write(`\r${text.padEnd(40)}`);
};
const runs = [];
for (const kind of INDEXES) {
  for (const isa of info.available_isas) {
    progress(`  running native ${kind} ${isa} ...`);
    runs.push(nativeRun(isa, kind));
  }
  for (const variant of VARIANTS) {
    progress(`  running wasm ${kind} ${variant} ...`);
    runs.push(await wasmRun(variant, kind));
  }
}
progress('');
if (process.stdout.isTTY) process.stdout.write('\r');
// Exact answers: the native scalar flat run. Agreement: the native scalar run of the same index.
const exact = runs.find((r) => r.kind === 'flat' && r.target === 'native' && r.isa === 'scalar').ids;
const referenceOf = (kind) => runs.find((r) => r.kind === kind && r.target === 'native' && r.isa === 'scalar').ids;
const rows = runs.map((r) => {
  const recall = agreement(r.ids, exact).fraction;
  const same = agreement(r.ids, referenceOf(r.kind)).exactOrder;
  return [
    r.kind === 'flat' ? 'flat f32' : `quantized 4-bit, rerank ${RERANK}`,
    r.target,
    r.variant,
    r.isa,
    r.buildMs.toFixed(1),
    Math.round(r.qps).toLocaleString('en-US'),
    recall.toFixed(4),
    same ? 'yes' : 'NO',
  ];
});
const header = ['index', 'target', 'variant', 'isa', 'build ms', 'queries/s', 'recall@10', 'ids = native scalar'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
console.log(line(header));
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
for (const r of rows) console.log(line(r));
const best = (t, kind) => Math.max(...runs.filter((r) => r.target === t && r.kind === kind).map((r) => r.qps));
console.log('');
for (const kind of INDEXES) {
  console.log(`${kind}: best wasm / best native queries/s = ${(best('wasm', kind) / best('native', kind)).toFixed(2)}`);
}
console.log(
  `quantized / flat queries/s: native ${(best('native', 'quantized') / best('native', 'flat')).toFixed(2)}, ` +
    `wasm ${(best('wasm', 'quantized') / best('wasm', 'flat')).toFixed(2)}`,
);
const allSame = runs.every((r) => agreement(r.ids, referenceOf(r.kind)).exactOrder);
console.log(
  allSame
    ? 'every ISA level and every wasm variant returned identical ids, for each index'
    : 'WARNING: result ids differ between targets',
);
const partitionedSame = await partitionedDemo({ cli, isas: info.available_isas, progress });
if (process.stdout.isTTY) process.stdout.write('\r');
process.exitCode = allSame && partitionedSame ? 0 : 1;
