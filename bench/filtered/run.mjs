// The filtered collection benchmark across targets, in one sitting: quiver_bench_filtered
// natively and compiled to wasm simd under Node (bench/filtered/filtered_bench.cpp has the
// workload, the filters and the kinds). Writes bench/filtered/results/filtered-<stamp>.json
// (machine, load, commit, knobs, every point), then report.mjs renders the Markdown table and
// the SVG plots next to it.
//   QUIVER_BUILD_ROOT=build  QUIVER_BENCH_SECONDS=1  QUIVER_BENCH_ROWS / _QUERIES / _DIM
//   QUIVER_FILTERED_TARGETS="native wasm-simd"  QUIVER_BENCH_KINDS="flat hnsw ..."
// Build first: scripts/build.sh native wasm-simd -- quiver_bench_filtered
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuMeter, gitCommit, machineInfo } from '../common/run-info.mjs';
import { checkPasses, reportWarnings, WASM_EAGER_FLAGS, warningsOf } from '../common/steady-state.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const buildRoot = process.env.QUIVER_BUILD_ROOT ?? `${root}/build`;
const TARGETS = {
  native: [`${buildRoot}/native/bench/quiver_bench_filtered`, []],
  'wasm-simd': ['node', [...WASM_EAGER_FLAGS, `${buildRoot}/wasm-simd/bench/quiver_bench_filtered.js`]],
  'wasm-simd-mt': ['node', [...WASM_EAGER_FLAGS, `${buildRoot}/wasm-simd-mt/bench/quiver_bench_filtered.js`]],
};
const wanted = (process.env.QUIVER_FILTERED_TARGETS ?? 'native wasm-simd').split(/\s+/).filter(Boolean);
const knobs = Object.fromEntries(
  ['QUIVER_BENCH_SECONDS', 'QUIVER_BENCH_ROWS', 'QUIVER_BENCH_QUERIES', 'QUIVER_BENCH_DIM', 'QUIVER_BENCH_KINDS']
    .filter((k) => process.env[k])
    .map((k) => [k, process.env[k]]),
);

const rows = [];
const runLog = [];
for (const name of wanted) {
  if (!TARGETS[name]) throw new Error(`unknown target ${name} (targets: ${Object.keys(TARGETS).join(', ')})`);
  const [cmd, args] = TARGETS[name];
  const start = Date.now();
  const load = os.loadavg()[0];
  const cpu = cpuMeter();
  process.stderr.write(`running ${name} ...\n`);
  const out = execFileSync(cmd, args, {
    encoding: 'utf8',
    env: { ...process.env },
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for (const line of out.split('\n')) {
    if (line.startsWith('json ')) rows.push({ run: name, ...JSON.parse(line.slice(5)) });
    else if (line.startsWith('| ')) process.stderr.write(line + '\n');
  }
  runLog.push({
    name,
    seconds: (Date.now() - start) / 1000,
    load_before: load,
    load_after: os.loadavg()[0],
    ...cpu(),
  });
}
for (const r of rows)
  r.pass_check = checkPasses(r.passes_qps, { label: `${r.run} ${r.kind} ${r.filter_kind} ${r.selectivity}` });
const warnings = reportWarnings(warningsOf(rows.map((r) => r.pass_check)));

const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 13) + 'Z';
const result = {
  benchmark: 'filtered',
  date: new Date().toISOString(),
  commit: gitCommit(root),
  machine: machineInfo(),
  wasm_node_flags: WASM_EAGER_FLAGS,
  knobs,
  runs: runLog,
  warnings,
  rows,
};
mkdirSync(`${root}/bench/filtered/results`, { recursive: true });
const path = `${root}/bench/filtered/results/filtered-${stamp.slice(0, 8)}T${stamp.slice(9)}.json`;
writeFileSync(path, JSON.stringify(result, null, 1) + '\n');
process.stderr.write(`wrote ${path}\n`);
execFileSync('node', [`${root}/bench/filtered/report.mjs`, path], { stdio: 'inherit' });
