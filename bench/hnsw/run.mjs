// HNSW benchmark across targets, in one run: quiver_bench_hnsw natively and compiled to wasm
// simd and simd-mt under Node, on the clustered workload (100,000 × 384) and the seed workload
// (10,000 × 384), M 16, efConstruction 200, ef swept 10 … 400. Writes
// bench/hnsw/results/hnsw-<timestamp>.json (machine, load, commit, knobs, every row); then
// bench/hnsw/report.mjs renders the Markdown table and SVG plot next to it.
//   QUIVER_BUILD_ROOT=build   QUIVER_BENCH_SECONDS=1   QUIVER_HNSW_RUNS="name name …" (a subset
//   of the run names below; default all of RUNS). Each run is one process; its knobs are listed here.
// Neighbour codes (issue 15 b; HnswIndexOptions::neighbor_codes) are opt-in runs (NBR_RUNS), each
// sq8 codes only without and with them on one graph build each, side by side:
//   QUIVER_HNSW_RUNS="native-clustered-nbr native-embedding-nbr wasm-simd-clustered-nbr wasm-simd-embedding-nbr" \
//     node bench/hnsw/run.mjs
// (embedding = the embedding-like workload, 100k x 384, cosine; the summary rows give bytes per
// vector and QPS at recall 0.95 for "sq8-codes" and "sq8-codes+nbr").
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuMeter, gitCommit, machineInfo } from '../common/run-info.mjs';
import { checkPasses, checkVariants, reportWarnings, WASM_EAGER_FLAGS, warningsOf } from '../common/steady-state.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const buildRoot = process.env.QUIVER_BUILD_ROOT ?? `${root}/build`;
const native = [`${buildRoot}/native/bench/quiver_bench_hnsw`, []];
// Wasm runs with every function compiled by TurboFan up front (bench/common/steady-state.mjs: V8's tier-up
// otherwise lets a process time Liftoff code).
const wasm = (variant) => ['node', [...WASM_EAGER_FLAGS, `${buildRoot}/wasm-${variant}/bench/quiver_bench_hnsw.js`]];

// The native 1-thread and all-thread build times come from avx512 f32; the other ISA levels and
// storage kinds build with all threads. sq8's graph is the same at every ISA level (exact integer
// distances), so it runs at the best level only on the 100k workload.
const RUNS = [
  [
    'native-clustered-f32',
    native,
    {
      QUIVER_BENCH_WORKLOAD: 'clustered',
      QUIVER_BENCH_ISAS: 'avx512',
      QUIVER_BENCH_STORAGE: 'f32',
      QUIVER_BENCH_BUILD_THREADS: '1 0',
    },
  ],
  [
    'native-clustered-sq8',
    native,
    {
      QUIVER_BENCH_WORKLOAD: 'clustered',
      QUIVER_BENCH_ISAS: 'avx512',
      QUIVER_BENCH_STORAGE: 'sq8 sq8-codes',
      QUIVER_BENCH_BUILD_THREADS: '0',
    },
  ],
  [
    'native-clustered-isas',
    native,
    {
      QUIVER_BENCH_WORKLOAD: 'clustered',
      QUIVER_BENCH_ISAS: 'avx2 scalar',
      QUIVER_BENCH_STORAGE: 'f32',
      QUIVER_BENCH_BUILD_THREADS: '0',
    },
  ],
  [
    'native-seed',
    native,
    { QUIVER_BENCH_WORKLOAD: 'seed', QUIVER_BENCH_STORAGE: 'f32 sq8 sq8-codes', QUIVER_BENCH_BUILD_THREADS: '0' },
  ],
  [
    'wasm-simd-clustered',
    wasm('simd'),
    { QUIVER_BENCH_WORKLOAD: 'clustered', QUIVER_BENCH_ISAS: 'wasm128', QUIVER_BENCH_STORAGE: 'f32 sq8 sq8-codes' },
  ],
  [
    'wasm-simd-mt-clustered',
    wasm('simd-mt'),
    {
      QUIVER_BENCH_WORKLOAD: 'clustered',
      QUIVER_BENCH_ISAS: 'wasm128',
      QUIVER_BENCH_STORAGE: 'f32',
      QUIVER_BENCH_BUILD_THREADS: '0',
    },
  ],
  [
    'wasm-simd-seed',
    wasm('simd'),
    { QUIVER_BENCH_WORKLOAD: 'seed', QUIVER_BENCH_ISAS: 'wasm128', QUIVER_BENCH_STORAGE: 'f32 sq8 sq8-codes' },
  ],
];
const NBR = {
  QUIVER_BENCH_ISAS: 'avx512',
  QUIVER_BENCH_STORAGE: 'sq8-codes sq8-codes+nbr',
  QUIVER_BENCH_BUILD_THREADS: '0',
};
const NBR_WASM = { QUIVER_BENCH_ISAS: 'wasm128', QUIVER_BENCH_STORAGE: 'sq8-codes sq8-codes+nbr' };
const EMBEDDING = {
  QUIVER_BENCH_WORKLOAD: 'embedding',
  QUIVER_BENCH_METRIC: 'cosine',
  QUIVER_BENCH_EFS: '20 40 60 80 100 120 160 200 300',
};
const NBR_RUNS = [
  ['native-clustered-nbr', native, { QUIVER_BENCH_WORKLOAD: 'clustered', ...NBR }],
  ['native-embedding-nbr', native, { ...EMBEDDING, ...NBR }],
  ['wasm-simd-clustered-nbr', wasm('simd'), { QUIVER_BENCH_WORKLOAD: 'clustered', ...NBR_WASM }],
  ['wasm-simd-embedding-nbr', wasm('simd'), { ...EMBEDDING, ...NBR_WASM }],
];
const wanted = (process.env.QUIVER_HNSW_RUNS ?? '').split(/\s+/).filter(Boolean);
const runs = wanted.length ? [...RUNS, ...NBR_RUNS].filter(([name]) => wanted.includes(name)) : RUNS;

const common = {
  QUIVER_BENCH_M: '16',
  QUIVER_BENCH_EFC: '200',
  QUIVER_BENCH_SECONDS: process.env.QUIVER_BENCH_SECONDS ?? '1',
};
const rows = [];
const runLog = [];
for (const [name, [cmd, args], knobs] of runs) {
  const env = { ...process.env, ...common, ...knobs };
  const start = Date.now();
  const load = os.loadavg()[0];
  const cpu = cpuMeter();
  process.stderr.write(
    `running ${name} (${Object.entries(knobs)
      .map(([k, v]) => `${k}="${v}"`)
      .join(' ')}) ...\n`,
  );
  const out = execFileSync(cmd, args, {
    encoding: 'utf8',
    env,
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => ({ run: name, ...JSON.parse(l) }));
  for (const r of lines)
    if (r.kind === 'hnsw_summary')
      process.stderr.write(
        `  ${r.target} ${r.variant} ${r.isa} ${r.workload} ${r.storage}: QPS at recall 0.95 ≈ ${r.qps_at_recall_95_interpolated}\n`,
      );
  rows.push(...lines);
  const machineCpu = cpu(); // the whole machine's busy (and stolen) cores over this run
  if (machineCpu)
    process.stderr.write(
      `  machine: ${machineCpu.busy_cores} cores busy on average, ${machineCpu.steal_cores} stolen\n`,
    );
  runLog.push({
    name,
    knobs: { ...common, ...knobs },
    seconds: (Date.now() - start) / 1000,
    load_before: load,
    load_after: os.loadavg()[0],
    ...machineCpu,
  });
}

// Steady state (bench/common/steady-state.mjs): each point's passes agree, and wasm simd and simd-mt
// (the same single-threaded search) agree on every point both measured.
const searches = rows.filter((r) => r.kind === 'hnsw_search');
for (const r of searches)
  r.pass_check = checkPasses(r.passes_qps, { label: `${r.run} ${r.isa} ${r.storage} ef ${r.ef}`, code: r.target });
const variantChecks = checkVariants(
  searches
    .filter((r) => r.target === 'wasm')
    .map((r) => ({ variant: r.variant, key: `${r.workload} ${r.storage} ef ${r.ef}`, qps: r.qps })),
);
const warnings = reportWarnings([...warningsOf(searches.map((r) => r.pass_check)), ...warningsOf(variantChecks)]);

const commit = gitCommit(root);
const machine = machineInfo();
const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 13) + 'Z';
const out = {
  benchmark: 'hnsw',
  date: new Date().toISOString(),
  commit,
  machine,
  wasm_node_flags: WASM_EAGER_FLAGS,
  runs: runLog,
  warnings,
  variant_checks: variantChecks,
  rows,
};
mkdirSync(`${root}/bench/hnsw/results`, { recursive: true });
const path = `${root}/bench/hnsw/results/hnsw-${stamp.slice(0, 8)}T${stamp.slice(9)}.json`;
writeFileSync(path, JSON.stringify(out, null, 1) + '\n');
process.stderr.write(`wrote ${path}\n`);
execFileSync('node', [`${root}/bench/hnsw/report.mjs`, path], { stdio: 'inherit' });
