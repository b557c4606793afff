// Kernel micro-benchmark across targets, in one run: the native quiver_bench_kernels (every
// ISA level of this CPU) and the same program compiled to wasm SIMD128 and wasm baseline,
// run under Node. Prints a table of GB/s at dimension 384 and writes
// bench/kernels/results/kernels-<date>.json with machine, targets, ISA levels, knobs and commit.
//   ROWS=512  MIN_SECONDS=0.2
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gitCommit, machineInfo } from '../common/run-info.mjs';
import { WASM_EAGER_FLAGS } from '../common/steady-state.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ROWS = process.env.ROWS ?? '512';
const MIN_SECONDS = process.env.MIN_SECONDS ?? '0.2';

function run(cmd, args) {
  const out = execFileSync(cmd, args, { encoding: 'utf8', cwd: root });
  return out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

const results = [
  ...run(`${root}/build/native/bench/quiver_bench_kernels`, [ROWS, MIN_SECONDS]),
  // Wasm with every function compiled by TurboFan up front: V8 does not swap a running call's
  // baseline code for optimised code, and the timing loops are long calls (bench/common/steady-state.mjs).
  ...run('node', [...WASM_EAGER_FLAGS, `${root}/build/wasm-simd/bench/quiver_bench_kernels.js`, ROWS, MIN_SECONDS]),
  ...run('node', [...WASM_EAGER_FLAGS, `${root}/build/wasm-baseline/bench/quiver_bench_kernels.js`, ROWS, MIN_SECONDS]),
];

const commit = gitCommit(root);
const machine = machineInfo();

const gb = (target, isa, kernel) =>
  results.find((r) => r.target === target && r.isa === isa && r.kernel === kernel)?.gb_per_s;
const ratios = {};
for (const kernel of ['l2sq_f32', 'dot_f32']) {
  const avx2 = gb('native', 'avx2', kernel);
  const wasm = results.find((r) => r.variant === 'simd' && r.isa === 'wasm128' && r.kernel === kernel)?.gb_per_s;
  if (avx2 && wasm) ratios[`${kernel}_wasm128_over_avx2`] = +(wasm / avx2).toFixed(3);
}

const report = {
  benchmark: 'kernels',
  timestamp: new Date().toISOString(),
  commit,
  machine,
  knobs: { dim: 384, rows: +ROWS, min_seconds: +MIN_SECONDS },
  results,
  ratios,
};
mkdirSync(`${root}/bench/kernels/results`, { recursive: true });
const file = `${root}/bench/kernels/results/kernels-${report.timestamp.slice(0, 10)}.json`;
writeFileSync(file, JSON.stringify(report, null, 2) + '\n');

console.log(`Kernel throughput, dim 384, one query against ${ROWS} rows (in cache); ${machine.cpu}`);
console.log('| target | variant  | isa     | kernel   | GB/s   | ns/row |');
console.log('|--------|----------|---------|----------|--------|--------|');
for (const r of results) {
  console.log(
    `| ${r.target.padEnd(6)} | ${r.variant.padEnd(8)} | ${r.isa.padEnd(7)} | ${r.kernel.padEnd(8)} | ` +
      `${r.gb_per_s.toFixed(2).padStart(6)} | ${r.ns_per_row.toFixed(1).padStart(6)} |`,
  );
}
for (const [k, v] of Object.entries(ratios)) console.log(`${k}: ${v}`);
console.log(`wrote ${file}`);
