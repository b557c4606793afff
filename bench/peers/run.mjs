// `npm run bench:peers`: Quiver (native through the CLI, wasm simd and simd-mt through the
// package) and the npm libraries users would pick instead, on the same workloads, each library in
// its own process. Writes bench/results/peers-<stamp>.json and, through report.mjs, the Markdown
// table and one SVG recall-vs-QPS plot per workload next to it.
//   QUICK=1            2,000-row workloads, results under bench/results/tmp/ (a smoke test; the
//                      numbers mean nothing)
//   PEERS="a b"        only these jobs (names below: quiver-native, quiver-wasm-simd, …)
//   WORKLOADS="a b"    only these workloads (seed, clustered, embedding)
//   QUIVER_BUILD_ROOT  where scripts/build.sh put the native build (default build/)
//   PEER_TIMEOUT_S     per library and workload (default 3 h; QUICK 10 min)
//   PEER_BUILD_BUDGET_S  for libraries whose build can take hours (EdgeVec): give up after this
//                      many seconds of building and report how far it got (default 1800)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { gitCommit, machineInfo } from '../run-info.mjs';
import { ensureWorkload, K, workloadList } from './lib/data.mjs';
import { install } from './install.mjs';
import { EF_CONSTRUCTION, EF_VALUES, M } from './adapters/common.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));
const quick = !!process.env.QUICK && process.env.QUICK !== '0';
const buildRoot = process.env.QUIVER_BUILD_ROOT ?? `${root}build`;
const cli = `${buildRoot}/native/src/quiver`;
const tmpDir = `${root}bench/results/tmp/peers`;
const timeoutMs = 1000 * Number(process.env.PEER_TIMEOUT_S ?? (quick ? 600 : 3 * 3600));
const log = (s) => process.stderr.write(s + '\n');
const words = (s) => (s ?? '').split(/\s+/).filter(Boolean);

// Each job: one library (or one Quiver target) in its own process. `peer`: the npm package
// whose install status decides whether it can run.
const JOBS = [
  { name: 'quiver-native', adapter: 'quiver-native' },
  { name: 'quiver-wasm-simd', adapter: 'quiver-wasm', options: { variant: 'simd' } },
  { name: 'quiver-wasm-simd-mt', adapter: 'quiver-wasm', options: { variant: 'simd-mt' } },
  { name: 'hnswlib-node', adapter: 'hnswlib-node', peer: 'hnswlib-node' },
  { name: 'usearch', adapter: 'usearch', peer: 'usearch' },
  { name: 'faiss-node', adapter: 'faiss-node', peer: 'faiss-node' },
  { name: 'hnswlib-wasm', adapter: 'hnswlib-wasm', peer: 'hnswlib-wasm' },
  { name: 'edgevec', adapter: 'edgevec', peer: 'edgevec' },
  { name: 'voy-search', adapter: 'voy-search', peer: 'voy-search' },
];
const wantedJobs = words(process.env.PEERS);
const jobs = wantedJobs.length ? JOBS.filter((j) => wantedJobs.includes(j.name)) : JOBS;
const wantedWl = words(process.env.WORKLOADS);
const workloads = workloadList(quick).filter((w) => !wantedWl.length || wantedWl.includes(w.name));

const installed = install();
const commit = gitCommit(root);
const info = JSON.parse(execFileSync(cli, ['info', '--json'], { encoding: 'utf8' }));
const machine = machineInfo({
  native_isa: info.isa, native_isas: info.available_isas });

const results = [];
for (const w0 of workloads) {
  const w = ensureWorkload(w0, { cli, cacheDir: tmpDir, log });
  for (const job of jobs) {
    const status = job.peer ? installed.peers[job.peer] : 'ok';
    const entry = { job: job.name, workload: w.name, load_before: os.loadavg() };
    if (status !== 'ok') {
      log(`${job.name} on ${w.name}: not run (${status})`);
      results.push({ ...entry, status: 'failed', reason: status });
      continue;
    }
    log(`${job.name} on ${w.name} (${w.rows} x ${w.dim}, ${w.queries} queries) ...`);
    const start = Date.now();
    const payload = JSON.stringify({ adapter: job.adapter, options: job.options ?? {}, workload: w, cli, tmpDir, quick });
    const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', `${here}child.mjs`, payload], {
      encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
    process.stderr.write(child.stderr ?? '');
    entry.seconds = (Date.now() - start) / 1000;
    entry.load_after = os.loadavg();
    const last = (child.stdout ?? '').trim().split('\n').pop();
    if (child.status === 0 && last?.startsWith('{')) {
      results.push({ ...entry, status: 'ok', ...JSON.parse(last) });
    } else {
      const why = child.error?.code === 'ETIMEDOUT' ? `timed out after ${timeoutMs / 1000} s`
        : child.signal ? `killed by ${child.signal}` : `exit code ${child.status}`;
      const err = (child.stderr ?? '').trim().split('\n').filter((l) => !l.startsWith('  ')).slice(-4).join(' | ');
      results.push({ ...entry, status: 'failed', reason: `${why}: ${err}`.slice(0, 800) });
      log(`${job.name} on ${w.name}: FAILED (${why})`);
    }
  }
}

const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 13) + 'Z';
const dir = quick ? `${root}bench/results/tmp` : `${root}bench/results`;
mkdirSync(dir, { recursive: true });
const path = `${dir}/peers-${quick ? 'quick-' : ''}${stamp.slice(0, 8)}T${stamp.slice(9)}.json`;
const out = { benchmark: 'peers', quick, date: new Date().toISOString(), commit, machine,
  knobs: { k: K, M, efConstruction: EF_CONSTRUCTION, ef_values: EF_VALUES, metric: 'l2 (squared; unit vectors)' },
  workloads: workloads.map((w) => ({ name: w.name, kind: w.kind, rows: w.rows, queries: w.queries, dim: w.dim })),
  install: installed.peers, results };
writeFileSync(path, JSON.stringify(out, null, 1) + '\n');
log(`wrote ${path}`);
execFileSync(process.execPath, [`${here}report.mjs`, path], { stdio: 'inherit' });
