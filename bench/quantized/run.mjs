// Quantised index benchmark across targets, in one run: quiver_bench_quantized natively (every
// ISA level of this CPU) and compiled to wasm simd and wasm baseline under Node. Writes
// bench/quantized/results/quantized-<timestamp>.json (machine, load, commit, knobs, every row) and a
// Markdown summary next to it, and prints the summary.
//   QUIVER_BENCH_WORKLOAD=seed|clustered|both  QUIVER_BENCH_BITS="2 4"  QUIVER_BENCH_RERANKS="0 2 4 8"
//   QUIVER_BENCH_SECONDS=1  QUIVER_BUILD_ROOT=build
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { gitCommit, machineInfo } from '../common/run-info.mjs';
import { WASM_EAGER_FLAGS } from '../common/steady-state.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const buildRoot = process.env.QUIVER_BUILD_ROOT ?? `${root}/build`;
const env = { ...process.env };
for (const [k, v] of Object.entries({
  QUIVER_BENCH_WORKLOAD: 'both',
  QUIVER_BENCH_BITS: '2 4',
  QUIVER_BENCH_RERANKS: '0 2 4 8',
  QUIVER_BENCH_SECONDS: '1',
}))
  env[k] ??= v;

function run(label, cmd, args, extraEnv = {}) {
  process.stderr.write(`running ${label} ...\n`);
  const out = execFileSync(cmd, args, { encoding: 'utf8', env: { ...env, ...extraEnv }, maxBuffer: 1 << 26 });
  return out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

const loadBefore = os.loadavg();
const rows = [
  ...run('native', `${buildRoot}/native/bench/quiver_bench_quantized`, []),
  // The simd build's scalar level is the baseline build's; run each level once.
  // Wasm with every function compiled by TurboFan up front (bench/common/steady-state.mjs).
  ...run('wasm simd', 'node', [...WASM_EAGER_FLAGS, `${buildRoot}/wasm-simd/bench/quiver_bench_quantized.js`], {
    QUIVER_BENCH_ISAS: 'wasm128',
  }),
  ...run('wasm baseline', 'node', [...WASM_EAGER_FLAGS, `${buildRoot}/wasm-baseline/bench/quiver_bench_quantized.js`]),
];
const loadAfter = os.loadavg();

const commit = gitCommit(root);
const machine = machineInfo({
  loadavg_before: loadBefore.map((x) => +x.toFixed(2)),
  loadavg_after: loadAfter.map((x) => +x.toFixed(2)),
});
const knobs = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('QUIVER_BENCH_')));

// Summary: per workload, target/variant/isa and bits: recall by rerank depth, QPS (rerank 0),
// batch QPS on one thread, speed-up over the same run's flat index at the same ISA level and
// over the best native flat, latency, encode rate, bytes per vector.
const lines = [];
const fmt = (x, d = 0) =>
  x === undefined ? '' : Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
for (const workload of [...new Set(rows.map((r) => r.workload))]) {
  const flat = rows.filter((r) => r.kind === 'flat' && r.workload === workload);
  const bestNativeFlat = Math.max(...flat.filter((r) => r.target === 'native').map((r) => r.qps));
  const q = rows.filter((r) => r.kind === 'quantized' && r.workload === workload);
  const first = q[0] ?? flat[0];
  lines.push(
    `\n### ${workload} workload (${fmt(first.rows)} x ${first.dim}, ${first.queries} queries, k = ${first.k})\n`,
  );
  lines.push(
    '| target | variant | isa | bits | recall@10 (rerank 0 / 2 / 4 / 8) | QPS | batch QPS (1 thread) | × flat same ISA | × best native flat | mean / p99 µs | encode vec/s | bytes/vec |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const keys = [...new Set(q.map((r) => `${r.target}|${r.variant}|${r.isa}|${r.bits}`))];
  for (const key of keys) {
    const group = q.filter((r) => `${r.target}|${r.variant}|${r.isa}|${r.bits}` === key);
    const base = group.find((r) => r.rerank === 0) ?? group[0];
    const recalls = [0, 2, 4, 8]
      .map((d) => group.find((r) => r.rerank === d)?.recall)
      .map((x) => (x === undefined ? '–' : x.toFixed(4)))
      .join(' / ');
    lines.push(
      `| ${base.target} | ${base.variant} | ${base.isa} | ${base.bits} | ${recalls} | ${fmt(base.qps)} | ${fmt(base.batch_qps_1thread)} | ` +
        `${base.speedup_vs_flat.toFixed(2)} | ${(base.qps / bestNativeFlat).toFixed(2)} | ${fmt(base.mean_us, 1)} / ${fmt(base.p99_us, 1)} | ` +
        `${fmt(base.encode_vectors_per_s)} | ${base.code_bytes_per_vector} |`,
    );
  }
  lines.push('\nExact f32 flat index, same run:\n');
  lines.push('| target | variant | isa | QPS | mean / p99 µs | bytes/vec |');
  lines.push('|---|---|---|---|---|---|');
  for (const r of flat)
    lines.push(
      `| ${r.target} | ${r.variant} | ${r.isa} | ${fmt(r.qps)} | ${fmt(r.mean_us, 1)} / ${fmt(r.p99_us, 1)} | ${r.bytes_per_vector} |`,
    );
}
const stamp = new Date().toISOString().replace(/[:]/g, '').slice(0, 15) + 'Z';
const report = { benchmark: 'quantized', timestamp: new Date().toISOString(), commit, machine, knobs, rows };
mkdirSync(`${root}/bench/quantized/results`, { recursive: true });
writeFileSync(`${root}/bench/quantized/results/quantized-${stamp}.json`, JSON.stringify(report, null, 2) + '\n');
const md =
  `# Quantised index benchmark\n\n${machine.cpu}, ${machine.cpus} cores; load average before ${machine.loadavg_before.join(' ')}, after ${machine.loadavg_after.join(' ')}; commit ${commit}\n` +
  lines.join('\n') +
  '\n';
writeFileSync(`${root}/bench/quantized/results/quantized-${stamp}.md`, md);
console.log(md);
console.log(`wrote bench/quantized/results/quantized-${stamp}.json and .md`);
