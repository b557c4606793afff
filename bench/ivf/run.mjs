// `npm run bench:ivf` (scripts/bench-ivf.sh): the partitioned quantised index of issue 14 —
// codes only (4-bit fast-scan codes + 3-bit refine plane at 100k, 2 + 5 at 1M; lists 'auto', no
// f32 vectors) —
// natively (bench/ivf/ivf_bench.cpp), in wasm simd and simd-mt under Node and in Chromium (through
// the npm package: bench/ivf/measure.mjs), beside the exact flat index and, at 100k, the HNSW
// index. For each probes value: recall@10, QPS one query per call (mean / p99 latency) and
// batch; build time, bytes per vector, peak memory. Writes bench/ivf/results/ivf-<parts>-<day>.json
// and renders the Markdown table and SVG plot next to it (bench/ivf/report.mjs).
//
// Parts (each can run alone; a run writes its own result file):
//   100k   clustered and embedding-like, 100,000 × 384, 1,000 queries; flat (200 queries timed)
//          in every target, HNSW (M 16, efConstruction 200, f32, ef swept) in wasm simd-mt
//   1m     embedding-like, 1,000,000 × 384, 1,000 queries; flat (20 queries timed) natively and in
//          wasm under Node (Chromium: none — 1.5 GB of floats in a tab is what the index avoids)
// Workloads come from `quiver gen` (the project's deterministic generators) with exact top-10
// ground truth, cached in bench/ivf/results/tmp/ (git-ignored); the first run writes them.
//
// Environment:
//   IVF_PARTS        "100k 1m" (default "100k")
//   IVF_TARGETS      any of native wasm-simd wasm-simd-mt chromium-simd-mt chromium-simd
//                    chromium-relaxed-simd (default the first five; relaxed-simd runs only in
//                    Chromium, which ships relaxed SIMD — Node 20 has it behind a flag)
//   IVF_WORKLOADS    names to keep, e.g. "embedding-100k" (default every workload of the parts)
//   IVF_BITS, IVF_REFINE_BITS   fast-scan bits and refine-plane bits for every part (default 4 + 3
//                    at 100k, 2 + 5 at 1M: see CODES below)
//   IVF_HNSW         targets that also build and sweep HNSW in the 100k part (default "wasm-simd-mt")
//   QUIVER_BENCH_SECONDS   minimum time per one-query-per-call figure (default 1)
//   IVF_TARGET_TIMEOUT_S   a target that takes longer is stopped and reported failed (default 2400)
//   IVF_RESULT_NAME  file name stem of the result (default ivf-<parts>-<YYYYMMDD>)
//   QUICK=1          the whole path at 5,000 (100k part) and 20,000 rows (1m part), 100 queries,
//                    0.1 s per figure; results in bench/ivf/results/tmp/ (not kept)
//   QUIVER_BUILD_ROOT     where scripts/build.sh put the native build (default build/)
// Every target builds the same index: the native program adds in the slices one large JS add()
// becomes (bench/ivf/measure.mjs, addSliceRows), the wasm runs add a multiple of it at a time.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuMeter, gitCommit, machineInfo } from '../common/run-info.mjs';
import { checkPasses, checkVariants, reportWarnings, WASM_EAGER_FLAGS, warningsOf } from '../common/steady-state.mjs';
import { addSliceRows } from './measure.mjs';
import { renderIvfReport } from './report.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const buildRoot = process.env.QUIVER_BUILD_ROOT ?? `${root}/build`;
const cli = `${buildRoot}/native/src/quiver`;
const nativeBench = `${buildRoot}/native/bench/quiver_bench_ivf`;
const quick = process.env.QUICK === '1';
const cacheDir = `${root}/bench/ivf/results/tmp`;
const words = (s) => (s ?? '').split(/[\s,]+/).filter(Boolean);
const log = (line) => process.stderr.write(`${line}\n`);

const parts = words(process.env.IVF_PARTS ?? '100k');
const targets = words(process.env.IVF_TARGETS ?? 'native wasm-simd wasm-simd-mt chromium-simd-mt chromium-simd');
const onlyWorkloads = words(process.env.IVF_WORKLOADS);
const hnswTargets = words(process.env.IVF_HNSW ?? 'wasm-simd-mt');
const seconds = Number(process.env.QUIVER_BENCH_SECONDS ?? (quick ? '0.1' : '1'));
const targetTimeoutMs = Number(process.env.IVF_TARGET_TIMEOUT_S ?? '2400') * 1000;
for (const p of parts) if (!['100k', '1m'].includes(p)) throw new Error(`IVF_PARTS: unknown part '${p}' (100k, 1m)`);
for (const t of targets) {
  if (
    !['native', 'wasm-simd', 'wasm-simd-mt', 'chromium-simd-mt', 'chromium-simd', 'chromium-relaxed-simd'].includes(t)
  )
    throw new Error(`IVF_TARGETS: unknown target '${t}'`);
}

// The index and sweep, the same in every target. The codes differ by part: at 1M (embedding-like)
// 2-bit fast-scan codes + a 5-bit refine plane — the same 7 bits per coordinate and bytes per
// vector as 4 + 3, with half the bytes scanned; at 100k 4 + 3, since on the clustered set the
// 2-bit scan's candidates hold fewer of the neighbours (recall 0.92 at any probes against 0.96;
// docs/quantized.md, "A cheaper first stage"). IVF_BITS / IVF_REFINE_BITS set both parts.
const INDEX = { metric: 'cosine', lists: 'auto' };
const CODES = {
  '100k': { bits: 4, refineBits: 3 },
  '1m': { bits: 2, refineBits: 5 },
};
for (const part of Object.keys(CODES)) {
  if (process.env.IVF_BITS) CODES[part].bits = Number(process.env.IVF_BITS);
  if (process.env.IVF_REFINE_BITS) CODES[part].refineBits = Number(process.env.IVF_REFINE_BITS);
}
const indexFor = (w) => ({ ...INDEX, ...CODES[w.part] });
const HNSW = { M: 16, efConstruction: 200, efs: quick ? [10, 40] : [10, 20, 40, 60, 80, 120, 160, 200] };
const WORKLOADS = [
  {
    part: '100k',
    name: 'clustered-100k',
    kind: 'clustered',
    rows: quick ? 5000 : 100000,
    queries: quick ? 100 : 1000,
    probes: [4, 8, 12, 16, 24, 32, 48, 64, 96, 'default'],
    flatQueries: quick ? 20 : 200,
    chromiumFlat: true,
  },
  {
    part: '100k',
    name: 'embedding-100k',
    kind: 'embedding',
    rows: quick ? 5000 : 100000,
    queries: quick ? 100 : 1000,
    probes: [4, 8, 12, 16, 24, 32, 48, 64, 96, 'default'],
    flatQueries: quick ? 20 : 200,
    chromiumFlat: true,
  },
  {
    part: '1m',
    name: 'embedding-1m',
    kind: 'embedding',
    rows: quick ? 20000 : 1000000,
    queries: quick ? 100 : 1000,
    probes: [8, 12, 16, 20, 24, 32, 48, 64, 96, 'default'],
    flatQueries: 20,
    chromiumFlat: false,
  },
  {
    // The same law with 10,000 Zipf-sized topics instead of 1,000: big topics make big lists
    // and a query's neighbours straddle many of them (issue 28's hard set).
    part: '1m',
    name: 'embedding-1m-t10000',
    kind: 'embedding',
    clusters: 10000,
    rows: quick ? 20000 : 1000000,
    queries: quick ? 100 : 1000,
    probes: [16, 24, 32, 48, 64, 96, 128, 'default'],
    flatQueries: 20,
    chromiumFlat: false,
  },
].filter((w) => parts.includes(w.part) && (!onlyWorkloads.length || onlyWorkloads.includes(w.name)));

// Writes the workload files once (quiver gen: base, queries, exact top-10 under the index's
// metric — the clustered rows are not unit length, so l2 and cosine neighbours differ); returns
// their paths.
function ensureWorkload(w) {
  const stem = `${w.kind}-${w.rows}x384-q${w.queries}-${INDEX.metric}${w.clusters ? `-t${w.clusters}` : ''}`;
  const files = {
    base: `${cacheDir}/${stem}.base.fbin`,
    queries: `${cacheDir}/${stem}.queries.fbin`,
    gt: `${cacheDir}/${stem}.gt.ibin`,
  };
  const done = `${cacheDir}/${stem}.json`; // written last: the three files are whole
  if (!existsSync(done)) {
    mkdirSync(cacheDir, { recursive: true });
    log(`generating ${stem} (quiver gen ${w.kind}, exact top-10) ...`);
    const out = execFileSync(
      cli,
      [
        'gen',
        w.kind,
        '-o',
        cacheDir,
        '--name',
        stem,
        '--rows',
        String(w.rows),
        '--queries',
        String(w.queries),
        '--dim',
        '384',
        '-k',
        '10',
        '--metric',
        INDEX.metric,
        ...(w.clusters ? ['--clusters', String(w.clusters)] : []),
        '--json',
        '-q',
      ],
      { encoding: 'utf8' },
    );
    writeFileSync(done, out);
  }
  return {
    name: w.name,
    kind: w.kind,
    rows: w.rows,
    dim: 384,
    queries: w.queries,
    files,
    generator: JSON.parse(readFileSync(done, 'utf8')),
  };
}

function runNative(w, wl) {
  const env = {
    ...process.env,
    QUIVER_IVF_BASE: wl.files.base,
    QUIVER_IVF_QUERIES: wl.files.queries,
    QUIVER_IVF_GT: wl.files.gt,
    QUIVER_IVF_WORKLOAD: w.name,
    QUIVER_IVF_METRIC: INDEX.metric,
    QUIVER_IVF_BITS: String(indexFor(w).bits),
    QUIVER_IVF_REFINE_BITS: String(indexFor(w).refineBits),
    QUIVER_IVF_LISTS: INDEX.lists,
    QUIVER_IVF_PROBES: w.probes.join(' '),
    QUIVER_IVF_BUILD_THREADS: '1 0',
    QUIVER_IVF_ADD_ROWS: String(addSliceRows(384)),
    QUIVER_IVF_FLAT_QUERIES: String(w.flatQueries),
    QUIVER_BENCH_SECONDS: String(seconds),
  };
  const out = execFileSync(nativeBench, [], {
    encoding: 'utf8',
    env,
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: targetTimeoutMs,
  });
  const lines = out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  for (const l of lines) {
    if (l.kind === 'ivf_build')
      log(
        `  native ${l.isa}: built with ${l.build_threads} thread(s) in ${l.build_s} s, ${l.bytes_per_vector} B/vector`,
      );
    if (l.kind === 'ivf_search')
      log(`  native probes ${l.probes}: recall ${l.recall}, ${l.qps} QPS, batch ${l.batch_qps}`);
    if (l.kind === 'flat_search') log(`  native flat: ${l.qps} QPS`);
  }
  return { target: 'native', variant: 'native', runtime: 'native', isa: lines[0]?.isa, lines };
}

function knobsFor(w, target) {
  const browser = target.startsWith('chromium');
  return {
    ...indexFor(w),
    probes: w.probes,
    seconds,
    flatQueries: browser && !w.chromiumFlat ? 0 : w.flatQueries,
    hnswEfs: w.part === '100k' && hnswTargets.includes(target) ? HNSW.efs : [],
    M: HNSW.M,
    efConstruction: HNSW.efConstruction,
  };
}

function runNode(w, wl, variant) {
  const config = { variant, workload: wl, knobs: knobsFor(w, `wasm-${variant}`) };
  // Every function compiled by TurboFan up front (bench/common/steady-state.mjs: no Liftoff code timed).
  const r = spawnSync('node', [...WASM_EAGER_FLAGS, `${root}/bench/ivf/node-child.mjs`, JSON.stringify(config)], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: targetTimeoutMs,
  });
  if (r.status !== 0)
    throw new Error(
      `wasm ${variant} on ${w.name} failed (${r.signal ? `${r.signal}: over ${targetTimeoutMs / 1000} s` : `exit ${r.status}`})`,
    );
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

let browser = null;
async function runChromium(w, wl, variant) {
  if (!browser) {
    const { startBrowserBench } = await import('./browser.mjs');
    browser = await startBrowserBench(cacheDir, log);
  }
  return browser.run({ variant, workload: wl, knobs: knobsFor(w, `chromium-${variant}`) }, targetTimeoutMs);
}

// Steady state (bench/common/steady-state.mjs): each wasm figure's passes agree, and simd and simd-mt
// of one runtime agree on every point of a workload both measured.
function steadyState(runs) {
  const points = [],
    passChecks = [];
  for (const run of runs) {
    const r = run.result;
    if (!r || run.target === 'native') continue;
    const [runtime, variant] = run.target.startsWith('chromium-')
      ? ['chromium', run.target.slice(9)]
      : ['node', run.target.slice(5)];
    for (const [name, rows, param] of [
      ['ivf', r.ivf ?? [], 'probes'],
      ['hnsw', r.hnsw?.rows ?? [], 'ef'],
    ]) {
      for (const row of rows) {
        const key = `${run.workload} ${runtime} ${name} ${param} ${row[param]}`;
        passChecks.push(checkPasses(row.passes_qps, { label: `${key} ${variant}`, code: 'wasm' }));
        points.push({ variant, key, qps: row.qps });
      }
    }
  }
  const variantChecks = checkVariants(points);
  return { warnings: [...warningsOf(passChecks), ...warningsOf(variantChecks)], variant_checks: variantChecks };
}

// One result per part and day (the README links these names); IVF_RESULT_NAME overrides it.
// The files are rewritten after every target, so a run stopped half-way keeps what it measured;
// a target that fails is recorded with its error and the run goes on.
const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
const dir = quick ? `${root}/bench/ivf/results/tmp` : `${root}/bench/ivf/results`;
mkdirSync(dir, { recursive: true });
const name = process.env.IVF_RESULT_NAME ?? `ivf-${parts.join('-')}-${day}`;
const runs = [];
const loadAtStart = os.loadavg();
function save() {
  const report = {
    benchmark: 'ivf',
    date: new Date().toISOString(),
    commit: gitCommit(root),
    quick,
    machine: machineInfo({
      load_average_start: loadAtStart,
      load_average_end: os.loadavg(),
      chromium: browser?.version ?? null,
    }),
    knobs: {
      index: INDEX,
      codes: CODES,
      hnsw: HNSW,
      seconds,
      parts,
      targets,
      hnsw_targets: hnswTargets,
      k: 10,
      wasm_node_flags: WASM_EAGER_FLAGS,
    },
    workloads: WORKLOADS.map((w) => ({
      name: w.name,
      kind: w.kind,
      rows: w.rows,
      queries: w.queries,
      dim: 384,
      probes: w.probes,
      flat_queries: w.flatQueries,
      bits: indexFor(w).bits,
      refine_bits: indexFor(w).refineBits,
    })),
    ...steadyState(runs),
    runs,
  };
  writeFileSync(`${dir}/${name}.json`, JSON.stringify(report, null, 1) + '\n');
  const { markdown, svg } = renderIvfReport(report, name);
  writeFileSync(`${dir}/${name}.md`, markdown);
  writeFileSync(`${dir}/${name}.svg`, svg);
  return markdown;
}

let failed = 0;
try {
  for (const w of WORKLOADS) {
    const wl = ensureWorkload(w);
    for (const target of targets) {
      log(`${w.name}: ${target} ...`);
      const start = Date.now(),
        loadBefore = os.loadavg(),
        cpu = cpuMeter();
      const run = { part: w.part, workload: w.name, kind: w.kind, rows: w.rows, queries: w.queries, target };
      try {
        if (target === 'native') run.result = runNative(w, wl);
        else if (target.startsWith('wasm-')) run.result = runNode(w, wl, target.slice(5));
        else run.result = await runChromium(w, wl, target.slice('chromium-'.length));
      } catch (e) {
        failed++;
        run.error = String(e?.message ?? e).split('\n')[0];
        log(`  FAILED: ${run.error}`);
      }
      // busy_cores, steal_cores: the whole machine during this target (run-info.mjs cpuMeter)
      Object.assign(run, {
        seconds: (Date.now() - start) / 1000,
        load_before: loadBefore,
        load_after: os.loadavg(),
        ...cpu(),
      });
      runs.push(run);
      save();
      log(`  (${run.seconds.toFixed(0)} s, load average ${os.loadavg()[0].toFixed(2)})`);
    }
  }
} finally {
  await browser?.close();
}
process.stdout.write(`${save()}\n`);
reportWarnings(steadyState(runs).warnings);
log(`wrote ${dir}/${name}.json, .md, .svg${failed ? ` — ${failed} target(s) failed (see the report)` : ''}`);
process.exitCode = failed ? 1 : 0;
