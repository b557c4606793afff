// The filtered benchmark's peers: pgvector in PGlite and LanceDB on exactly the workload of
// quiver_bench_filtered (bench/filtered/filtered_bench.cpp, exported with QUIVER_BENCH_EXPORT), each
// in its own Node process (peers/child.mjs), then the report (peers-report.mjs). See PEERS.md.
//
//   node bench/filtered/peers.mjs                  full run: 100,000 x 384, 200 queries
//   QUICK=1 node bench/filtered/peers.mjs          5,000 rows, 50 queries, results in results/tmp/
//   WORKLOAD=/tmp/fw node bench/filtered/peers.mjs an exported workload directory
//   PEERS="pglite" PASSES=5 node bench/filtered/peers.mjs
//
// Knobs: PEERS (pglite lancedb), PASSES (timed passes per point, >= 3), POINT_BUDGET_S (a point
// whose first queries say it would take longer is recorded as skipped, 300 s), PEER_TIMEOUT_S (per
// peer, 3 h), QUIVER_BENCH_ROWS / _QUERIES / _DIM (the exported workload's size, when it is
// exported here), QUIVER_BENCH_BIN (the program; default build/native/bench/quiver_bench_filtered,
// under QUIVER_BUILD_ROOT when set), and the adapters' own (PG_*, LANCE_*: peers/pglite.mjs,
// peers/lancedb.mjs), all recorded in the results.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuMeter, gitCommit, machineInfo } from '../common/run-info.mjs';
import { knobs as lanceKnobs } from './peers/lancedb.mjs';
import { knobs as pgKnobs } from './peers/pglite.mjs';
import { log } from './peers/common.mjs';
import { renderReport } from './peers-report.mjs';
import { npmInstall } from '../peers/install.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));
const quick = process.env.QUICK === '1';
const peers = String(process.env.PEERS ?? 'pglite lancedb')
  .split(/[\s,]+/)
  .filter(Boolean);
const passes = Math.max(3, Number(process.env.PASSES ?? 3));
const timeoutS = Number(process.env.PEER_TIMEOUT_S ?? 3 * 3600);
const stamp = new Date()
  .toISOString()
  .replace(/[-:]/g, '')
  .replace(/\.\d+Z$/, 'Z')
  .replace(/(T\d{4})\d\dZ$/, '$1Z');
const outDir = quick ? `${here}results/tmp` : `${here}results`;
mkdirSync(`${here}results/tmp`, { recursive: true });
const loadavg = () => os.loadavg().map((x) => +x.toFixed(2));

// The workload: a given directory, or exported here by the C++ program (cached by size).
function workloadDir() {
  if (process.env.WORKLOAD) return { dir: process.env.WORKLOAD, source: 'WORKLOAD (given)' };
  const size = {
    QUIVER_BENCH_ROWS: process.env.QUIVER_BENCH_ROWS ?? (quick ? '5000' : '100000'),
    QUIVER_BENCH_QUERIES: process.env.QUIVER_BENCH_QUERIES ?? (quick ? '50' : '200'),
    QUIVER_BENCH_DIM: process.env.QUIVER_BENCH_DIM ?? '384',
  };
  const dir = `${here}results/tmp/workload-${size.QUIVER_BENCH_ROWS}x${size.QUIVER_BENCH_DIM}-${size.QUIVER_BENCH_QUERIES}q`;
  const bin =
    process.env.QUIVER_BENCH_BIN ??
    `${process.env.QUIVER_BUILD_ROOT ?? `${root}build`}/native/bench/quiver_bench_filtered`;
  if (!existsSync(`${dir}/workload.json`)) {
    if (!existsSync(bin))
      throw new Error(
        `${bin} not found: build it (scripts/build.sh native -- quiver_bench_filtered) or give WORKLOAD=DIR`,
      );
    mkdirSync(dir, { recursive: true });
    log(`exporting the workload with ${bin} to ${dir} ...`);
    execFileSync(bin, [], {
      env: { ...process.env, ...size, QUIVER_BENCH_EXPORT: dir },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  return {
    dir,
    source: `exported by ${bin.replace(root, '')} (${Object.entries(size)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')})`,
  };
}

// One peer in a child process -> { info, points } or { error }.
function runChild(peer, dir) {
  const out = `${here}results/tmp/peer-${peer}-${process.pid}.json`;
  rmSync(out, { force: true });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${here}peers/child.mjs`, peer, dir, out, String(passes)], {
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    // LanceDB's Rust logger writes a line per query for some settings: keep stderr but drop those.
    let rest = '';
    child.stderr.on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop();
      for (const l of lines) if (!/^\[\S+ WARN {2}lance/.test(l)) process.stderr.write(`${l}\n`);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutS * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      let result;
      try {
        result = JSON.parse(readFileSync(out, 'utf8'));
      } catch {
        result = {
          error: signal
            ? `killed by ${signal}${timedOut ? ` at the time limit (${timeoutS} s)` : ''}`
            : `exited ${code} without a result`,
        };
      }
      rmSync(out, { force: true });
      resolve(result);
    });
  });
}

// The peers are bench/peers' dependencies (not the Quiver package's): installed on first use.
const needed = ['@electric-sql/pglite', '@electric-sql/pglite-pgvector', '@lancedb/lancedb', 'apache-arrow'];
if (needed.some((name) => !existsSync(`${root}bench/peers/node_modules/${name}/package.json`))) npmInstall();

const { dir, source } = workloadDir();
const w = JSON.parse(readFileSync(`${dir}/workload.json`, 'utf8'));
const file = `${outDir}/peers-${stamp}.json`;
const results = {
  suite: 'filtered-peers',
  format: 1,
  stamp,
  date: new Date().toISOString(),
  quick,
  commit: gitCommit(root),
  machine: machineInfo({ load_before: loadavg() }),
  workload: {
    source,
    dir: dir.replace(root, ''),
    rows: w.rows,
    dim: w.dim,
    queries: w.queries,
    metric: w.metric,
    k: 10,
    filters: w.filters.map(({ kind, selectivity, filter, matching }) => ({
      kind,
      selectivity,
      filter: filter || null,
      matching,
    })),
  },
  knobs: {
    peers,
    passes,
    point_budget_s: Number(process.env.POINT_BUDGET_S ?? 300),
    peer_timeout_s: timeoutS,
    pglite: pgKnobs(),
    lancedb: lanceKnobs(),
  },
  jobs: [],
  peers: {},
  points: [],
  complete: false,
};
const save = () => writeFileSync(file, JSON.stringify(results, null, 1) + '\n');
save();
for (const peer of peers) {
  const job = { peer, started: new Date().toISOString(), load_before: loadavg() };
  log(`${peer}: starting (load ${job.load_before.join(' ')})`);
  const meter = cpuMeter();
  const t0 = performance.now();
  const r = await runChild(peer, dir);
  Object.assign(job, {
    seconds: +((performance.now() - t0) / 1000).toFixed(1),
    load_after: loadavg(),
    cpu: meter(),
    status: r.error ? 'failed' : 'ok',
  });
  if (r.error) job.error = r.error;
  else {
    results.peers[peer] = r.info;
    results.points.push(...r.points);
  }
  results.jobs.push(job);
  log(
    `${peer}: ${job.status} in ${job.seconds} s (load ${job.load_after.join(' ')})${r.error ? `: ${r.error.split('\n')[0]}` : ''}`,
  );
  save();
}
results.machine.load_after = loadavg();
results.complete = results.jobs.every((j) => j.status === 'ok');
save();
const { markdown } = renderReport(results, file);
process.stdout.write(markdown);
log(`wrote ${file.replace(root, '')} and its .md and .svg`);
