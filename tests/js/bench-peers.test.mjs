// The peer benchmark harness's own logic (bench/peers/): recall from returned ids, the workload
// file readers, and the report — headline = first swept setting reaching recall 0.95, a failed
// peer listed with its reason, per workload a plot of each library's best configuration and one
// of every configuration, both legible (distinct styles, legend inside the picture); stopping and resuming a run (partial
// files, same-code check) and the full-run estimate. No peer library is needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadWorkload, readFbin, readIbin, recallAtK } from '../../bench/peers/lib/data.mjs';
import {
  codeChangesSince,
  donePairs,
  missingPairs,
  pairKey,
  recordResult,
  resumeRefusal,
  writeJsonAtomic,
} from '../../bench/peers/lib/progress.mjs';
import { estimateFullRun, estimatePairSeconds, estimateTable } from '../../bench/peers/lib/estimate.mjs';
import { bestConfig, peerPanels, renderPanel } from '../../bench/peers/lib/plot.mjs';
import { textWidth } from '../../bench/common/recall-qps-svg.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

const gtOf = (rows) => ({ rows: rows.length, k: rows[0].length, ids: Int32Array.from(rows.flat()) });

test('recall@10 counts each true id once, only in the first 10 results, whatever the id type', () => {
  const truth = Array.from({ length: 10 }, (_, i) => i);
  const gt = gtOf([[...truth, 50, 51]]); // ground truth deeper than 10: only its first 10 count
  assert.equal(recallAtK([truth], gt), 1);
  assert.equal(recallAtK([[0, 0, 0, 1, 99, 98, 97, 96, 95, 94]], gt), 0.2); // a repeated id counts once
  assert.equal(recallAtK([[...Array(10).fill(99), 0, 1, 2]], gt), 0); // ids past the 10th are ignored
  assert.equal(recallAtK([BigUint64Array.from([0n, 1n, 50n])], gt), 0.2); // BigInt keys, 50 is not top 10
  assert.equal(recallAtK([Float64Array.from([3, 4]), [5]], gtOf([truth, truth])), 0.15); // short answers
});

test('fbin / ibin readers and a workload whose files disagree', () => {
  const dir = mkdtempSync(`${os.tmpdir()}/peers-data-`);
  try {
    const fbin = (rows, dim, values) => {
      const b = Buffer.alloc(8 + values.length * 4);
      b.writeInt32LE(rows, 0);
      b.writeInt32LE(dim, 4);
      values.forEach((v, i) => b.writeFloatLE(v, 8 + i * 4));
      return b;
    };
    const ibin = (rows, k, ids) => {
      const b = Buffer.alloc(8 + ids.length * 4);
      b.writeInt32LE(rows, 0);
      b.writeInt32LE(k, 4);
      ids.forEach((v, i) => b.writeInt32LE(v, 8 + i * 4));
      return b;
    };
    writeFileSync(`${dir}/b.fbin`, fbin(3, 2, [1, 2, 3, 4, 5, 6]));
    writeFileSync(`${dir}/q.fbin`, fbin(1, 2, [0.5, -1]));
    writeFileSync(`${dir}/gt.ibin`, ibin(1, 10, [2, 1, 0, 0, 0, 0, 0, 0, 0, 0]));
    const base = readFbin(`${dir}/b.fbin`);
    assert.deepEqual([base.rows, base.dim, [...base.data]], [3, 2, [1, 2, 3, 4, 5, 6]]);
    const gt = readIbin(`${dir}/gt.ibin`);
    assert.deepEqual([gt.rows, gt.k, [...gt.ids.subarray(0, 3)]], [1, 10, [2, 1, 0]]);
    const files = { base: `${dir}/b.fbin`, queries: `${dir}/q.fbin`, gt: `${dir}/gt.ibin` };
    assert.equal(loadWorkload({ name: 'w', files }).queries.rows, 1);
    writeFileSync(`${dir}/gt5.ibin`, ibin(1, 5, [2, 1, 0, 0, 0])); // fewer than 10 true neighbours
    assert.throws(() => loadWorkload({ name: 'w', files: { ...files, gt: `${dir}/gt5.ibin` } }), /inconsistent/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('report: headline is the first setting reaching 0.95, failures keep their reason, one plot per workload', () => {
  const dir = mkdtempSync(`${os.tmpdir()}/peers-report-`);
  try {
    const point = (value, recall, qps) => ({
      config: 'hnsw',
      param: 'ef',
      value,
      recall,
      qps,
      mean_us: 1e6 / qps,
      p99_us: 2e6 / qps,
      batch: [],
    });
    const run = {
      benchmark: 'peers',
      quick: true,
      date: '2026-01-01T00:00:00Z',
      commit: 'abc',
      machine: { host: 'h', cpu: 'cpu', cpus: 2, memory_gib: 1, os: 'Linux', node: 'v20', native_isa: 'avx2' },
      knobs: { k: 10, M: 16, efConstruction: 200, ef_values: [16, 32, 64], metric: 'l2' },
      workloads: [{ name: 'embedding', kind: 'embedding', rows: 2000, queries: 100, dim: 384 }],
      install: { 'lib-a': 'ok', 'lib-b': 'install failed: no network' },
      results: [
        {
          job: 'lib-a',
          workload: 'embedding',
          status: 'ok',
          library: 'lib-a',
          version: '1.0',
          target: 'wasm',
          notes: ['a quirk'],
          seconds: 1,
          load_before: [0.5],
          load_after: [0.6],
          configs: [
            {
              config: 'hnsw',
              builds: [{ threads: 1, build_s: 1.5, rss_delta_bytes: 2 ** 20, library_bytes: 2000 * 1600 }],
              rows: [point(16, 0.9, 9000), point(32, 0.951, 7000), point(64, 0.99, 4000)],
            },
            { config: 'small', builds: [{ threads: 1, build_s: 1 }], rows: [point(16, 0.5, 100), point(32, 0.8, 50)] },
          ],
        },
        {
          job: 'lib-b',
          workload: 'embedding',
          status: 'failed',
          reason: 'install failed: no network',
          load_before: [0.6],
        },
      ],
    };
    const path = `${dir}/peers-test.json`;
    writeFileSync(path, JSON.stringify(run));
    execFileSync(process.execPath, [`${root}bench/peers/report.mjs`, path], { encoding: 'utf8' });
    const md = readFileSync(`${dir}/peers-test.md`, 'utf8');
    const row = (config) => md.split('\n').find((l) => l.startsWith(`| lib-a | wasm | ${config} |`));
    assert.match(row('hnsw'), /\| ef 32 \| 0\.951 \| 7,000 \|/);
    assert.match(row('hnsw'), /\| 1,600 \|$/); // bytes per vector from the library's figure
    assert.match(row('small'), /not reached \(best: ef 32\) \| 0\.800 \|/);
    assert.match(md, /\| lib-b \|.*\*\*failed\*\*.*install failed: no network/);
    assert.match(md, /- \*\*lib-a wasm\*\* \(1\.0\): a quirk\./);
    // Main plot: lib-a's best configuration only (hnsw: 7,000 QPS at 0.951); the other plot: both.
    assert.deepEqual(
      seriesOf(readFileSync(`${dir}/peers-test-embedding.svg`, 'utf8')).map((s) => s.name),
      ['lib-a: hnsw (7,000 QPS at 0.951)'],
    );
    assert.deepEqual(
      seriesOf(readFileSync(`${dir}/peers-test-embedding-all.svg`, 'utf8')).map((s) => s.name),
      ['hnsw', 'small'],
    );
    assert.match(
      md,
      /Plots: \[peers-test-embedding\.svg\]\(peers-test-embedding\.svg\) — one line per library.*\[peers-test-embedding-all\.svg\]/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- Plots (lib/plot.mjs, recall-qps-svg.mjs) ----

// The series of a rendered plot, as its <g class="series"> elements name them.
const seriesOf = (svg) =>
  [
    ...svg.matchAll(
      /<g class="series" data-name="([^"]*)" data-color="([^"]*)" data-marker="([^"]*)">([\s\S]*?)<\/g>/g,
    ),
  ].map(([, name, color, marker, body]) => ({ name: name.replace(/&amp;/g, '&'), color, marker, body }));
const num = (s, attr) => Number(s.match(new RegExp(`\\b${attr}="([-\\d.]+)"`))[1]);

test('best configuration: the fastest point at recall ≥ 0.95 over all configurations, else the highest recall', () => {
  const rows = (...pts) => pts.map(([recall, qps]) => ({ recall, qps }));
  const a = { config: 'a', rows: rows([0.9, 9000], [0.96, 3000], [0.99, 1000]) };
  const b = { config: 'b', rows: rows([0.95, 2000], [0.97, 2500]) }; // its fastest hit is not its first
  const fast = { config: 'fast', rows: rows([0.94, 50000]) }; // never reaches 0.95
  assert.deepEqual([bestConfig([b, a, fast]).config.config, bestConfig([b, a, fast]).point.qps], ['a', 3000]);
  assert.deepEqual([bestConfig([b, fast]).config.config, bestConfig([b, fast]).point.qps], ['b', 2500]);
  const low = { config: 'low', rows: rows([0.5, 900], [0.8, 100]) };
  const best = bestConfig([fast, low]);
  assert.deepEqual([best.config.config, best.reached, best.point.recall], ['fast', false, 0.94]);
  assert.equal(
    bestConfig([
      { config: 'x', rows: rows([0.8, 10]) },
      { config: 'y', rows: rows([0.8, 20]) },
    ]).config.config,
    'y',
  );
});

test('plots of the committed peers run: one line per library, none alike, Quiver apart, everything inside the picture', () => {
  const report = JSON.parse(readFileSync(`${root}bench/peers/results/peers-20261201T0556Z.json`, 'utf8'));
  for (const w of report.workloads) {
    const runs = report.results.filter((r) => r.workload === w.name);
    const ok = runs.filter((r) => r.status === 'ok');
    const { main, all } = peerPanels(report, w, runs);
    // One series per library that ran, Quiver's first; every configuration in the other plot.
    assert.deepEqual(main.series.map((s) => s.library).sort(), ok.map((r) => r.job).sort());
    assert.deepEqual(
      main.series.slice(0, 3).map((s) => s.library),
      ['quiver-native', 'quiver-wasm-simd', 'quiver-wasm-simd-mt'],
    );
    assert.equal(
      all.series.length,
      ok.reduce((n, r) => n + r.configs.length, 0),
    );
    for (const [p, distinctEach] of [
      [main, true],
      [all, false],
    ]) {
      const svg = renderPanel(p);
      const drawn = seriesOf(svg);
      assert.deepEqual(drawn.map((s) => s.name).sort(), p.series.map((s) => s.name).sort());
      if (distinctEach) {
        // Main plot: every line its own colour and its own marker.
        assert.equal(new Set(drawn.map((s) => s.color)).size, drawn.length, `${w.name}: colours repeat`);
        assert.equal(new Set(drawn.map((s) => s.marker)).size, drawn.length, `${w.name}: markers repeat`);
        // Quiver bold and solid, the peers thinner and dashed.
        for (const s of drawn) {
          const quiver = s.name.startsWith('quiver ');
          const width = num(s.body, 'stroke-width');
          if (s.body.includes('<polyline')) {
            assert.equal(/<polyline[^>]*stroke-dasharray/.test(s.body), !quiver, s.name);
            assert.ok(quiver ? width >= 2.4 : width < 2, s.name);
          }
        }
      } else {
        assert.equal(
          new Set(drawn.map((s) => `${s.color} ${s.marker}`)).size,
          drawn.length,
          `${w.name}: a colour + marker pair repeats`,
        );
      }
      // The legend box, its labels (at the estimated text width), the caption and every point lie
      // inside the picture.
      const [, width, height] = svg.match(/viewBox="0 0 ([\d.]+) ([\d.]+)"/).map(Number);
      const legend = svg.match(/<g class="legend">\n<rect ([^>]*)\/>([\s\S]*?)\n<\/g>/);
      const box = {
        x: num(legend[1], 'x'),
        y: num(legend[1], 'y'),
        w: num(legend[1], 'width'),
        h: num(legend[1], 'height'),
      };
      assert.ok(
        box.x >= 0 && box.y >= 0 && box.x + box.w <= width && box.y + box.h <= height,
        `${w.name}: legend outside the picture`,
      );
      for (const [, x, text] of legend[2].matchAll(/<text x="([\d.]+)"[^>]*>([^<]*)<\/text>/g)) {
        assert.ok(Number(x) + textWidth(text) <= box.x + box.w, `${w.name}: "${text}" runs out of the legend box`);
      }
      for (const [, text] of svg.matchAll(/<text class="caption" x="12"[^>]*>([^<]*)<\/text>/g)) {
        assert.ok(12 + textWidth(text, 10.5) <= width, `${w.name}: caption line too long`);
      }
      for (const s of drawn) {
        for (const [, x, y] of s.body.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)) {
          assert.ok(+x >= 0 && +x <= width && +y >= 0 && +y <= height, `${w.name}: ${s.name} point outside`);
        }
      }
    }
  }
});

// ---- Stopping and resuming (lib/progress.mjs), the full-run estimate (lib/estimate.mjs) ----

const okEntry = (job, workload, extra = {}) => ({
  job,
  workload,
  status: 'ok',
  seconds: 1,
  load_before: [0.1],
  ...extra,
});

test('resume bookkeeping: done pairs, missing pairs in run order, a rerun replaces its entry', () => {
  const results = [okEntry('a', 'seed'), { job: 'b', workload: 'seed', status: 'failed', reason: 'exit code 1' }];
  assert.deepEqual([...donePairs(results)], [pairKey('a', 'seed'), pairKey('b', 'seed')]);
  assert.deepEqual([...donePairs(results, { retryFailed: true })], [pairKey('a', 'seed')]);
  assert.deepEqual(missingPairs(results, ['a', 'b'], ['seed', 'embedding']), [
    { job: 'a', workload: 'embedding' },
    { job: 'b', workload: 'embedding' },
  ]);
  recordResult(results, okEntry('b', 'seed', { seconds: 7 }));
  recordResult(results, okEntry('a', 'embedding'));
  assert.deepEqual(
    results.map((r) => [r.job, r.workload, r.status, r.seconds]),
    [
      ['a', 'seed', 'ok', 1],
      ['b', 'seed', 'ok', 7],
      ['a', 'embedding', 'ok', 1],
    ],
  );
});

test('resume is refused unless it is the same kind of run on the same code', () => {
  const knobs = { k: 10, M: 16 };
  const file = { benchmark: 'peers', quick: false, commit: 'abc1234', knobs, results: [] };
  const none = () => [];
  const ok = { quick: false, knobs, codeChanges: none };
  assert.equal(resumeRefusal(file, ok), null);
  assert.match(resumeRefusal({ ...file, benchmark: 'hnsw' }, ok), /not a peers results file/);
  assert.match(resumeRefusal(file, { ...ok, quick: true }), /full run and this one is not/);
  assert.match(resumeRefusal(file, { ...ok, knobs: { k: 10, M: 32 } }), /knobs differ/);
  assert.match(
    resumeRefusal({ ...file, commit: 'abc1234 (with uncommitted changes)' }, ok),
    /does not name the exact code/,
  );
  assert.match(
    resumeRefusal(file, { ...ok, codeChanges: () => ['src/index/hnsw/hnsw_build.cpp'] }),
    /code changed since its commit abc1234 \(src\/index\/hnsw\/hnsw_build\.cpp\)/,
  );
  assert.match(
    resumeRefusal(file, {
      ...ok,
      codeChanges: () => {
        throw new Error('bad revision');
      },
    }),
    /cannot be compared.*bad revision/,
  );
});

test('code changes since a commit: committed partial results do not count, code and uncommitted edits do', () => {
  const dir = mkdtempSync(`${os.tmpdir()}/peers-git-`);
  try {
    const git = (...args) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    mkdirSync(`${dir}/src`);
    mkdirSync(`${dir}/bench/peers/results`, { recursive: true });
    writeFileSync(`${dir}/src/a.cpp`, 'int a;\n');
    git('add', '.');
    git('commit', '-q', '-m', 'code');
    const start = git('rev-parse', '--short', 'HEAD').trim();
    writeFileSync(`${dir}/bench/peers/results/peers-x.json`, '{}\n');
    git('add', '.');
    git('commit', '-q', '-m', 'partial results');
    assert.deepEqual(codeChangesSince(dir, start), []);
    writeFileSync(`${dir}/src/a.cpp`, 'int b;\n');
    assert.deepEqual(codeChangesSince(dir, start), ['src/a.cpp']); // not committed yet
    git('commit', '-q', '-am', 'more code');
    assert.deepEqual(codeChangesSince(dir, start), ['src/a.cpp']);
    assert.throws(() => codeChangesSince(dir, 'fffffff'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run.mjs refuses to resume a file from another kind of run before doing anything', () => {
  const dir = mkdtempSync(`${os.tmpdir()}/peers-resume-`);
  try {
    const path = `${dir}/peers-x.json`;
    writeFileSync(
      path,
      JSON.stringify({ benchmark: 'peers', quick: false, commit: 'abc1234', knobs: {}, results: [] }),
    );
    const r = spawnSync(process.execPath, [`${root}bench/peers/run.mjs`], {
      encoding: 'utf8',
      env: { ...process.env, RESUME: path, QUICK: '1' },
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /cannot resume .*peers-x\.json: it is a full run and this one is not/);
    assert.equal(readFileSync(path, 'utf8').includes('resumed'), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the results file is replaced whole: no temporary file stays', () => {
  const dir = mkdtempSync(`${os.tmpdir()}/peers-write-`);
  try {
    writeJsonAtomic(`${dir}/r.json`, { a: 1 });
    writeJsonAtomic(`${dir}/r.json`, { a: 2 });
    assert.deepEqual(JSON.parse(readFileSync(`${dir}/r.json`, 'utf8')), { a: 2 });
    assert.deepEqual(readdirSync(dir), ['r.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('full-run estimate: builds n log n for graphs and n for scans, searches by queries and per-query cost, the rest by n', () => {
  const small = { rows: 2000, queries: 100 },
    full = { rows: 100000, queries: 1000 };
  const n = 50,
    q = 10,
    logN = Math.log2(100000) / Math.log2(2000);
  const row = (qps, batchQps) => ({ qps, batch: batchQps ? [{ threads: 2, qps: batchQps }] : [] });
  // flat: build 1 s, search 100 / 100 = 1 s; hnsw: build 2 s, search 100 / 1000 + 2 x 100 / 500 = 0.5 s; rest 1.5 s
  const quickRun = {
    seconds: 6,
    configs: [
      { config: 'flat', builds: [{ build_s: 1 }], rows: [row(100)] },
      { config: 'hnsw f32', builds: [{ build_s: 2 }], rows: [row(1000, 500)] },
    ],
  };
  const expected = 1 * n + 1 * q * n + 2 * n * logN + 0.5 * q * logN + 1.5 * n;
  assert.ok(Math.abs(estimatePairSeconds(quickRun, small, full) - expected) < 1e-9);
  assert.equal(estimatePairSeconds(quickRun, small, full, { limitSeconds: 60 }), 60);
  const [e] = estimateFullRun(
    [
      { job: 'j', workload: 'w', status: 'ok', ...quickRun },
      { job: 'j', workload: 'v', status: 'failed', reason: 'timed out after 600 s: …', seconds: 600 },
      { job: 'j', workload: 'u', status: 'failed', reason: 'exit code 1', seconds: 2 },
    ],
    [
      { name: 'w', ...small },
      { name: 'v', ...small },
      { name: 'u', ...small },
    ],
    [
      { name: 'w', ...full },
      { name: 'v', ...full },
      { name: 'u', ...full },
    ],
    { limitSeconds: 10800 },
  );
  assert.equal(e.quickSeconds, 608);
  assert.equal(e.perWorkload.v, 10800); // a timed-out pair will time out again
  assert.equal(e.perWorkload.u, null); // a crash says nothing about duration
  assert.deepEqual(e.unknown, ['u']);
  assert.ok(Math.abs(e.totalSeconds - (expected + 10800)) < 1e-6);
  assert.match(estimateTable([e], ['w', 'v', 'u']), /\| j \| 608\.0 \| .* \| 3\.0 h \| \? \| .*\+ \? \(failed: u\)/);
});

test('report of a partial file: what it holds, the pairs not run yet, and the resumed sessions', () => {
  const dir = mkdtempSync(`${os.tmpdir()}/peers-partial-`);
  try {
    const point = {
      config: 'hnsw',
      param: 'ef',
      value: 16,
      recall: 0.97,
      qps: 900,
      mean_us: 1000,
      p99_us: 2000,
      batch: [],
    };
    const run = {
      benchmark: 'peers',
      quick: false,
      date: '2026-01-01T00:00:00Z',
      commit: 'abc1234',
      complete: false,
      machine: { host: 'h', cpu: 'cpu', cpus: 2, memory_gib: 1, os: 'Linux', node: 'v20', native_isa: 'avx2' },
      knobs: { k: 10, M: 16, efConstruction: 200, ef_values: [16], metric: 'l2' },
      jobs: ['lib-a', 'lib-b'],
      workloads: [
        { name: 'seed', kind: 'seed', rows: 10000, queries: 256, dim: 384 },
        { name: 'embedding', kind: 'embedding', rows: 100000, queries: 1000, dim: 384 },
      ],
      install: { 'lib-a': 'ok', 'lib-b': 'ok' },
      resumed: [
        { date: '2026-01-02T00:00:00Z', commit: 'def5678', host: 'h', load: [0.1], skipped: 1, retry_failed: false },
      ],
      results: [
        {
          job: 'lib-a',
          workload: 'seed',
          status: 'ok',
          library: 'lib-a',
          version: '1',
          target: 'native',
          notes: [],
          seconds: 10,
          load_before: [0.2],
          configs: [{ config: 'hnsw', builds: [{ threads: 1, build_s: 2 }], rows: [point] }],
        },
      ],
    };
    const path = `${dir}/peers-partial.json`;
    writeFileSync(path, JSON.stringify(run));
    execFileSync(process.execPath, [`${root}bench/peers/report.mjs`, path], { encoding: 'utf8' });
    const md = readFileSync(`${dir}/peers-partial.md`, 'utf8');
    assert.match(md, /Partial run: 1 of 4 job × workload pairs done/);
    assert.match(md, /Not run yet: lib-b on seed, lib-a on embedding, lib-b on embedding/);
    assert.match(md, /Resumed 2026-01-02T00:00:00Z on `h` at commit `def5678` \(1 pairs already done\)/);
    assert.match(md, /\| lib-a \| native \| hnsw \| ef 16 \| 0\.970 \|/);
    assert.match(md, /\| lib-b \| — \| — \| not run yet \|/);
    assert.match(md, /\| lib-a \| seed \| ok \| 10\.0 \| 0\.2 → — \|/);
    assert.ok(readFileSync(`${dir}/peers-partial-seed.svg`, 'utf8').includes('lib-a: hnsw'));
    assert.ok(readFileSync(`${dir}/peers-partial-seed-all.svg`, 'utf8').includes('data-name="hnsw"'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
