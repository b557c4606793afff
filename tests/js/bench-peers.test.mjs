// The peer benchmark harness's own logic (bench/peers/): recall from returned ids, the workload
// file readers, and the report — headline = first swept setting reaching recall 0.95, a failed
// peer listed with its reason, one plot per workload. No peer library is needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadWorkload, readFbin, readIbin, recallAtK } from '../../bench/peers/lib/data.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

const gtOf = (rows) => ({ rows: rows.length, k: rows[0].length, ids: Int32Array.from(rows.flat()) });

test('recall@10 counts each true id once, only in the first 10 results, whatever the id type', () => {
  const truth = Array.from({ length: 10 }, (_, i) => i);
  const gt = gtOf([[...truth, 50, 51]]);  // ground truth deeper than 10: only its first 10 count
  assert.equal(recallAtK([truth], gt), 1);
  assert.equal(recallAtK([[0, 0, 0, 1, 99, 98, 97, 96, 95, 94]], gt), 0.2);  // a repeated id counts once
  assert.equal(recallAtK([[...Array(10).fill(99), 0, 1, 2]], gt), 0);  // ids past the 10th are ignored
  assert.equal(recallAtK([BigUint64Array.from([0n, 1n, 50n])], gt), 0.2);  // BigInt keys, 50 is not top 10
  assert.equal(recallAtK([Float64Array.from([3, 4]), [5]], gtOf([truth, truth])), 0.15);  // short answers
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
    writeFileSync(`${dir}/gt5.ibin`, ibin(1, 5, [2, 1, 0, 0, 0]));  // fewer than 10 true neighbours
    assert.throws(() => loadWorkload({ name: 'w', files: { ...files, gt: `${dir}/gt5.ibin` } }), /inconsistent/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('report: headline is the first setting reaching 0.95, failures keep their reason, one plot per workload', () => {
  const dir = mkdtempSync(`${os.tmpdir()}/peers-report-`);
  try {
    const point = (value, recall, qps) => ({ config: 'hnsw', param: 'ef', value, recall, qps, mean_us: 1e6 / qps, p99_us: 2e6 / qps, batch: [] });
    const run = {
      benchmark: 'peers', quick: true, date: '2026-01-01T00:00:00Z', commit: 'abc',
      machine: { host: 'h', cpu: 'cpu', cpus: 2, memory_gib: 1, os: 'Linux', node: 'v20', native_isa: 'avx2' },
      knobs: { k: 10, M: 16, efConstruction: 200, ef_values: [16, 32, 64], metric: 'l2' },
      workloads: [{ name: 'embedding', kind: 'embedding', rows: 2000, queries: 100, dim: 384 }],
      install: { 'lib-a': 'ok', 'lib-b': 'install failed: no network' },
      results: [
        { job: 'lib-a', workload: 'embedding', status: 'ok', library: 'lib-a', version: '1.0', target: 'wasm', notes: ['a quirk'],
          seconds: 1, load_before: [0.5], load_after: [0.6],
          configs: [
            { config: 'hnsw', builds: [{ threads: 1, build_s: 1.5, rss_delta_bytes: 2 ** 20, library_bytes: 2000 * 1600 }],
              rows: [point(16, 0.90, 9000), point(32, 0.951, 7000), point(64, 0.99, 4000)] },
            { config: 'small', builds: [{ threads: 1, build_s: 1 }], rows: [point(16, 0.5, 100), point(32, 0.8, 50)] },
          ] },
        { job: 'lib-b', workload: 'embedding', status: 'failed', reason: 'install failed: no network', load_before: [0.6] },
      ],
    };
    const path = `${dir}/peers-test.json`;
    writeFileSync(path, JSON.stringify(run));
    execFileSync(process.execPath, [`${root}bench/peers/report.mjs`, path], { encoding: 'utf8' });
    const md = readFileSync(`${dir}/peers-test.md`, 'utf8');
    const row = (config) => md.split('\n').find((l) => l.startsWith(`| lib-a | wasm | ${config} |`));
    assert.match(row('hnsw'), /\| ef 32 \| 0\.951 \| 7,000 \|/);
    assert.match(row('hnsw'), /\| 1,600 \|$/);  // bytes per vector from the library's figure
    assert.match(row('small'), /not reached \(best: ef 32\) \| 0\.800 \|/);
    assert.match(md, /\| lib-b \|.*\*\*failed\*\*.*install failed: no network/);
    assert.match(md, /- \*\*lib-a wasm\*\* \(1\.0\): a quirk\./);
    const svg = readFileSync(`${dir}/peers-test-embedding.svg`, 'utf8');
    assert.match(svg, /lib-a hnsw/);
    assert.match(svg, /lib-a small/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
