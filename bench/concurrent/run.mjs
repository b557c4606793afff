// `npm run bench:concurrent`: the cache-contention benchmark (concurrent_knn) and the batch
// search scaling benchmark (scaling_batch), natively and in wasm simd-mt under Node, back to
// back, for every cache mode. Writes bench/concurrent/results/concurrent-<timestamp>.json
// (machine, commit, knobs, every run's JSON) and renders the .md table and .svg plot next to it
// (bench/concurrent/report.mjs).
//
// Environment (defaults in brackets; the benchmark knobs keep the reference's names):
//   THREADS ["1 2 4 8 16"]  DURATION_S [5]  CORPUS_ROWS [10000]  DIM [384]  QUERY_POOL [256]
//   K [10]  BIT_WIDTH [4]  INDEX [flat]  WARMUP_S [0.2]  LOOKUP_ONLY_S [0.5]
//   MODES ["mutex nolock direct"]  TARGETS ["native wasm"]  MIN_SECONDS [1] (scaling)
//   SCALING [1] (0 skips scaling_batch)  QUIVER_BUILD_ROOT [build/]
//   BROWSER [1]: the report also shows the newest browser runs of the same workload
//   (bench/browser/results/concurrent-browser-*.json from bench/browser/run.mjs); 0 leaves them out
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineInfo } from '../common/run-info.mjs';
import { renderReport, findBrowserReport, mergeBrowserReport } from './report.mjs';
import { concurrentKnobs } from './knobs.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const buildRoot = process.env.QUIVER_BUILD_ROOT ?? path.join(root, 'build');
const env = (name, fallback) => process.env[name] ?? fallback;
const knobs = concurrentKnobs();
const modes = env('MODES', 'mutex nolock direct')
  .split(/[\s,]+/)
  .filter(Boolean);
const targets = env('TARGETS', 'native wasm')
  .split(/[\s,]+/)
  .filter(Boolean);
const scaling = env('SCALING', '1') !== '0';

function command(target, program) {
  if (target === 'native') return [path.join(buildRoot, 'native', 'bench', `quiver_bench_${program}`), []];
  if (target === 'wasm') return ['node', [path.join(buildRoot, 'wasm-simd-mt', 'bench', `quiver_bench_${program}.js`)]];
  throw new Error(`unknown target ${target} (native or wasm)`);
}

// Runs one benchmark, echoing its table, and returns the JSON object it prints last.
function run(target, program, extra) {
  const [cmd, args] = command(target, program);
  const file = cmd === 'node' ? args[0] : cmd;
  if (!existsSync(file)) throw new Error(`${file} is missing: build it first (scripts/bench-concurrent.sh does)`);
  console.log(
    `\n### ${program} ${target} ${Object.entries(extra)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  const r = spawnSync(cmd, args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...knobs, ...extra },
    maxBuffer: 64 << 20,
  });
  process.stdout.write(
    r.stdout
      .split('\n')
      .filter((l) => !l.startsWith('{'))
      .join('\n'),
  );
  if (r.status !== 0) throw new Error(`${program} (${target}) failed with ${r.status}: ${r.stderr}`);
  const json = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  return JSON.parse(json);
}

const git = (...a) => {
  try {
    return execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};
const timestamp = new Date().toISOString();
const report = {
  benchmark: 'concurrent',
  timestamp,
  commit: git('rev-parse', '--short', 'HEAD'),
  dirty: git('status', '--porcelain', '--untracked-files=no', '--', 'src', 'bench') !== '',
  // Other work on the machine skews a scaling benchmark: the 1-minute load before and after.
  machine: machineInfo({ loadavg_before: +os.loadavg()[0].toFixed(2) }),
  knobs: { ...knobs, MODES: modes.join(' '), TARGETS: targets.join(' ') },
  concurrent: [],
  scaling: [],
};
for (const target of targets) {
  for (const mode of modes) report.concurrent.push(run(target, 'concurrent_knn', { MODE: mode }));
  if (scaling) report.scaling.push(run(target, 'scaling_batch', {}));
}

report.machine.loadavg_after = +os.loadavg()[0].toFixed(2);
const dir = path.join(root, 'bench', 'concurrent', 'results');
mkdirSync(dir, { recursive: true });
const base = path.join(dir, `concurrent-${timestamp.replace(/[:.]/g, '').slice(0, 15)}Z`);
writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
const browser = env('BROWSER', '1') !== '0' ? findBrowserReport(report) : null;
if (browser) console.log(`\nwith the browser runs of ${browser.file}`);
const shown = browser ? mergeBrowserReport(report, browser.browser, browser.file) : report;
const { markdown, svg } = renderReport(shown, path.basename(base));
writeFileSync(`${base}.md`, markdown);
writeFileSync(`${base}.svg`, svg);
console.log(`\n${markdown}`);
console.log(`wrote ${base}.json, .md and .svg`);
