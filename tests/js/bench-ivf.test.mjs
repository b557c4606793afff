// The partitioned-index benchmark's own logic (bench/ivf/): recall@10 from returned ids, the
// slice size that makes every target build the same index, HNSW QPS interpolated at a recall,
// the report (summary, sweep, goals) from a synthetic result, and the CPU-profile summary from a
// synthetic profile. No timings are measured here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADD_SLICE_BYTES } from '../../js/core/staging.js';
import { addSliceRows, recallAt10 } from '../../bench/ivf/measure.mjs';
import { hnswQpsAt, renderIvfReport } from '../../bench/ivf/report.mjs';
import { shortName, summarizeProfile } from '../../bench/ivf/profile-summary.mjs';

test('recall@10 counts each true id once and only in the first 10 results', () => {
  const gt = Int32Array.from([...Array(12).keys()]); // 12 ids per row: only the first 10 count
  assert.equal(recallAt10([Float64Array.from([...Array(10).keys()])], gt, 12), 1);
  assert.equal(recallAt10([[0, 0, 0, 1, 10, 11, 99, 98, 97, 96]], gt, 12), 0.2);
  assert.equal(recallAt10([[...Array(10).fill(99), 0, 1]], gt, 12), 0);
  assert.equal(recallAt10([[3], [4, 5]], Int32Array.from([...gt, ...gt]), 12), 0.15);
});

test('the native benchmark adds in the slices one JS add() becomes', () => {
  assert.equal(addSliceRows(384), Math.floor(ADD_SLICE_BYTES / (384 * 4)));
  assert.equal(addSliceRows(384) * 384 * 4 <= ADD_SLICE_BYTES, true);
  assert.equal(addSliceRows(2 ** 24), 1);
});

test('HNSW QPS at a recall: linear between the swept ef around it', () => {
  const rows = [
    { recall: 0.8, qps: 9000 },
    { recall: 0.9, qps: 5000 },
    { recall: 0.96, qps: 2000 },
  ];
  assert.equal(hnswQpsAt(rows, 0.7), 9000); // the first point already reaches it
  assert.equal(hnswQpsAt(rows, 0.9), 5000);
  assert.ok(Math.abs(hnswQpsAt(rows, 0.94) - 3000) < 1e-6);
  assert.equal(hnswQpsAt(rows, 0.97), null);
});

function synthetic() {
  const ivf = (probes, recall, qps, def = false) => ({
    probes,
    recall,
    qps,
    default: def,
    lists: 1000,
    batch_qps: 2 * qps,
    batch_threads: 2,
  });
  const wasm = {
    target: 'wasm',
    variant: 'simd',
    runtime: 'node v20',
    isa: 'wasm128',
    threads: 1,
    builds: [
      { threads: 1, build_s: 200, memory_bytes: 380e6, heap_growth_bytes: 400e6, lists: 1000, default_probes: 47 },
    ],
    ivf: [ivf(16, 0.9, 3000), ivf(47, 0.955, 1500, true), ivf(48, 0.956, 1500), ivf(96, 0.98, 800)],
    flat: { qps: 10, recall: 1, bytes_per_vector: 1536 },
    hnsw: null,
  };
  wasm.builds[0].bytes_per_vector = 380;
  return {
    commit: 'abc',
    date: 'd',
    quick: false,
    machine: {
      cpu: 'cpu',
      cpus: 2,
      memory_gib: 8,
      os: 'os',
      node: 'v20',
      load_average_start: [0.1, 0.1, 0.1],
      load_average_end: [0.2, 0.2, 0.2],
    },
    knobs: {
      index: { bits: 4, refineBits: 3, lists: 'auto', metric: 'cosine' },
      hnsw: { M: 16, efConstruction: 200 },
      seconds: 1,
    },
    workloads: [{ name: 'embedding-1m', rows: 1000000, queries: 1000, dim: 384 }],
    runs: [{ workload: 'embedding-1m', target: 'wasm-simd', result: wasm }],
  };
}

test('the report: summary at the first probes reaching 0.95 and the adaptive default, the sweep, the goals', () => {
  const { markdown, svg } = renderIvfReport(synthetic(), 'ivf-test');
  assert.match(markdown, /\| wasm simd \(Node\) \| 200\.00 \(1\) \| 1000 \| 380\.0 \|/);
  assert.match(markdown, /\| 48 \/ 0\.956 \/ 1,500 \| 10\.0 \| 150\.0 \|/); // first probes >= 0.95, flat, x flat
  assert.match(markdown, /\| default \(adaptive\) \| 0\.955: 1,500; 3,000 \|/);
  assert.match(
    markdown,
    /380\.0 B\/vector \(≤ 400: met\); default recall 0\.955 \(≥ 0\.95: met\), 1\.00× slower than the best setting \(≤ 1\.3: met\); 1,500 QPS one thread at ≥ 0\.95 \(≥ 3,000: \*\*missed\*\*\); 150\.0× flat \(≥ 100: met\)/,
  );
  assert.match(svg, /^<svg/);
  const slow = synthetic();
  slow.runs[0].result.ivf[1].qps = 900;
  slow.runs[0].result.builds[0].bytes_per_vector = 425.8;
  const m2 = renderIvfReport(slow, 'ivf-test').markdown;
  assert.match(
    m2,
    /425\.8 B\/vector \(≤ 400: \*\*missed\*\*\); default recall 0\.955 \(≥ 0\.95: met\), 1\.67× slower than the best setting \(≤ 1\.3: \*\*missed\*\*\); 1,500 QPS one thread at ≥ 0\.95 \(≥ 3,000: \*\*missed\*\*\); 150\.0× flat \(≥ 100: met\)/,
  );
});

test('the profile summary: self time under the root only, by readable name, as shares of the root', () => {
  const frame = (functionName) => ({ functionName, url: '', lineNumber: 0, columnNumber: 0 });
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 5] },
      { id: 2, callFrame: frame('quiver::QuantizedIndex::Impl::search_many(float const*)'), children: [3, 4] },
      { id: 3, callFrame: frame('void quiver::quant::(anonymous namespace)::Kernel<A, true>::scan<1ul>(int)') },
      { id: 4, callFrame: frame('quiver::QuantizedIndex::Impl::rescore(float const*)'), children: [6] },
      { id: 5, callFrame: frame('load') }, // outside the root: left out
      { id: 6, callFrame: frame('void quiver::quant::(anonymous namespace)::Kernel<A, true>::scan<1ul>(int)') },
    ],
    samples: [3, 3, 4, 5, 5, 5, 6, 2],
    timeDeltas: [100, 100, 100, 100, 100, 100, 100, 100],
  };
  const s = summarizeProfile(profile, 'search_many');
  assert.equal(s.root_ms, 0.5);
  assert.equal(s.root_share_of_profile, 5 / 8);
  assert.deepEqual(
    s.rows.map((r) => [r.name, r.share]),
    [
      ['void quiver::quant::(anonymous namespace)::Kernel<A, true>::scan<1ul>', 0.6],
      ['quiver::QuantizedIndex::Impl::rescore', 0.2],
      ['quiver::QuantizedIndex::Impl::search_many', 0.2],
    ],
  );
  assert.equal(shortName(''), '(anonymous)');
  assert.equal(shortName('(garbage collector)'), '(garbage collector)');
});
