// `npm run bench:peers`: Quiver (native through the CLI, wasm simd and simd-mt through the
// package) and the npm libraries users would pick instead, on the same workloads, each library in
// its own process. Writes bench/peers/results/peers-<stamp>.json and, through report.mjs, the Markdown
// table and one SVG recall-vs-QPS plot per workload next to it.
//   QUICK=1            2,000-row workloads, results under bench/peers/results/tmp/ (a smoke test; the
//                      numbers mean nothing)
//   PEERS="a b"        only these jobs (names below: quiver-native, quiver-wasm-simd, …)
//   WORKLOADS="a b"    only these workloads (seed, clustered, embedding)
//   QUIVER_BUILD_ROOT  where scripts/build.sh put the native build (default build/)
//   PEER_TIMEOUT_S     per library and workload (default 3 h; QUICK 10 min)
//   PEER_BUILD_BUDGET_S  for libraries whose build can take hours (EdgeVec): give up after this
//                      many seconds of building and report how far it got (default 1800)
//   RESUME=path        carry on with that results file: the job x workload pairs it holds are
//                      skipped, the others run and are added to it (same code required: see
//                      lib/progress.mjs); RETRY_FAILED=1 runs its failed pairs again
// The JSON is written after every job (and before the first), so a run stopped at any point
// keeps what it finished; `complete` says whether every job ran on every workload. A QUICK run
// ends with an estimate of each job's full-run duration (lib/estimate.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuMeter, gitCommit, machineInfo } from '../common/run-info.mjs';
import { ensureWorkload, K, workloadList } from './lib/data.mjs';
import { install } from './install.mjs';
import { EF_CONSTRUCTION, EF_VALUES, M } from './adapters/common.mjs';
import {
  codeChangesSince,
  donePairs,
  missingPairs,
  pairKey,
  recordResult,
  resumeRefusal,
  writeJsonAtomic,
} from './lib/progress.mjs';
import { estimateFullRun, estimateTable } from './lib/estimate.mjs';
import { peersSteadyState } from './lib/steady.mjs';
import { reportWarnings, WASM_EAGER_FLAGS } from '../common/steady-state.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));
const quick = !!process.env.QUICK && process.env.QUICK !== '0';
const buildRoot = process.env.QUIVER_BUILD_ROOT ?? `${root}build`;
const cli = `${buildRoot}/native/src/quiver`;
const tmpDir = `${root}bench/peers/results/tmp`;
const FULL_TIMEOUT_S = 3 * 3600;
const timeoutMs = 1000 * Number(process.env.PEER_TIMEOUT_S ?? (quick ? 600 : FULL_TIMEOUT_S));
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

const knobs = { k: K, M, efConstruction: EF_CONSTRUCTION, ef_values: EF_VALUES, metric: 'l2 (squared; unit vectors)' };
const resumePath = process.env.RESUME;
const retryFailed = !!process.env.RETRY_FAILED && process.env.RETRY_FAILED !== '0';
let previous = null;
if (resumePath) {
  previous = JSON.parse(readFileSync(resumePath, 'utf8'));
  const why = resumeRefusal(previous, { quick, knobs, codeChanges: (c) => codeChangesSince(root, c) });
  if (why) {
    log(`cannot resume ${resumePath}: ${why}`);
    process.exit(2);
  }
}

const installed = install();
const commit = gitCommit(root);
const info = JSON.parse(execFileSync(cli, ['info', '--json'], { encoding: 'utf8' }));
const machine = machineInfo({
  native_isa: info.isa,
  native_isas: info.available_isas,
});
const describeWorkload = (w) => ({ name: w.name, kind: w.kind, rows: w.rows, queries: w.queries, dim: w.dim });

let path, out;
if (previous) {
  path = resumePath;
  out = previous;
  const skip = donePairs(out.results, { retryFailed });
  const planned = jobs.flatMap((j) => workloads.map((w) => pairKey(j.name, w.name)));
  // One entry per session that added to the file: when, where, at which commit, what it skipped.
  (out.resumed ??= []).push({
    date: new Date().toISOString(),
    commit,
    host: machine.host,
    load: os.loadavg(),
    skipped: planned.filter((p) => skip.has(p)).length,
    retry_failed: retryFailed,
  });
  for (const w of workloads) if (!out.workloads.some((x) => x.name === w.name)) out.workloads.push(describeWorkload(w));
  out.install = { ...out.install, ...installed.peers };
} else {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 13) + 'Z';
  const dir = quick ? `${root}bench/peers/results/tmp` : `${root}bench/peers/results`;
  mkdirSync(dir, { recursive: true });
  path = `${dir}/peers-${quick ? 'quick-' : ''}${stamp.slice(0, 8)}T${stamp.slice(9)}.json`;
  out = {
    benchmark: 'peers',
    quick,
    date: new Date().toISOString(),
    commit,
    machine,
    knobs,
    workloads: workloads.map(describeWorkload),
    install: installed.peers,
    results: [],
  };
}
const allJobs = JOBS.map((j) => j.name);
const allWorkloads = workloadList(quick).map((w) => w.name);
// Results in run order (workload, then job), also after a resumed run added pairs at the end.
const order = (name, list) => (list.includes(name) ? list.indexOf(name) : list.length);
const save = () => {
  out.results.sort(
    (a, b) =>
      order(a.workload, allWorkloads) - order(b.workload, allWorkloads) ||
      order(a.job, allJobs) - order(b.job, allJobs),
  );
  out.jobs = allJobs;
  out.complete = missingPairs(out.results, allJobs, allWorkloads).length === 0;
  Object.assign(out, peersSteadyState(out.results)); // warnings, variant_checks (bench/common/steady-state.mjs)
  writeJsonAtomic(path, out);
};
save();
log(`results go to ${path} (after every job)`);

const skip = previous ? donePairs(out.results, { retryFailed }) : new Set();
for (const w0 of workloads) {
  if (jobs.every((job) => skip.has(pairKey(job.name, w0.name)))) {
    log(`${w0.name}: every job already in ${path}`);
    continue;
  }
  const w = ensureWorkload(w0, { cli, cacheDir: tmpDir, log });
  for (const job of jobs) {
    if (skip.has(pairKey(job.name, w.name))) {
      log(`${job.name} on ${w.name}: already in ${path}, skipped`);
      continue;
    }
    const status = job.peer ? installed.peers[job.peer] : 'ok';
    const entry = { job: job.name, workload: w.name, load_before: os.loadavg() };
    if (status !== 'ok') {
      log(`${job.name} on ${w.name}: not run (${status})`);
      recordResult(out.results, { ...entry, status: 'failed', reason: status });
      save();
      continue;
    }
    log(`${job.name} on ${w.name} (${w.rows} x ${w.dim}, ${w.queries} queries) ...`);
    const start = Date.now();
    const cpu = cpuMeter();
    const payload = JSON.stringify({
      adapter: job.adapter,
      options: job.options ?? {},
      workload: w,
      cli,
      tmpDir,
      quick,
    });
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=8192', ...WASM_EAGER_FLAGS, `${here}child.mjs`, payload],
      {
        encoding: 'utf8',
        timeout: timeoutMs,
        maxBuffer: 1 << 28,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    process.stderr.write(child.stderr ?? '');
    entry.seconds = (Date.now() - start) / 1000;
    entry.load_after = os.loadavg();
    Object.assign(entry, cpu()); // busy_cores, steal_cores: the whole machine during this job
    const last = (child.stdout ?? '').trim().split('\n').pop();
    if (child.status === 0 && last?.startsWith('{')) {
      recordResult(out.results, { ...entry, status: 'ok', ...JSON.parse(last) });
    } else {
      const why =
        child.error?.code === 'ETIMEDOUT'
          ? `timed out after ${timeoutMs / 1000} s`
          : child.signal
            ? `killed by ${child.signal}`
            : `exit code ${child.status}`;
      const err = (child.stderr ?? '')
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('  '))
        .slice(-4)
        .join(' | ');
      recordResult(out.results, { ...entry, status: 'failed', reason: `${why}: ${err}`.slice(0, 800) });
      log(`${job.name} on ${w.name}: FAILED (${why})`);
    }
    save();
  }
}

// A QUICK run ends with what the full run will cost, job by job, to plan it over quiet windows.
const full = workloadList(false);
if (quick) {
  out.full_run_estimate = estimateFullRun(out.results, out.workloads, full, { limitSeconds: FULL_TIMEOUT_S });
  save();
}
const missing = missingPairs(out.results, allJobs, allWorkloads);
log(
  `wrote ${path}` +
    (missing.length ? ` (partial: ${missing.length} job x workload pairs not run yet; RESUME=${path} runs them)` : ''),
);
execFileSync(process.execPath, [`${here}report.mjs`, path], { stdio: 'inherit' });
reportWarnings(out.warnings ?? []);
if (quick) {
  log(
    `\nEstimated full-run duration per job, from this QUICK run (rough: lib/estimate.mjs; each pair capped at the full run's ` +
      `default limit, ${FULL_TIMEOUT_S / 3600} h):\n${estimateTable(
        out.full_run_estimate,
        full.map((w) => w.name),
      )}`,
  );
}
