// The wasm side of `npm run bench:ivf`: one measurement of the partitioned quantised index (and
// the indexes it is compared with) through the npm package, the same code in Node
// (bench/ivf/node-child.mjs) and in Chromium (bench/ivf/page.html). No Node or DOM APIs here.
//
//   await measureWasm({ q, wl, knobs, log }) -> { builds, ivf: [...], flat, hnsw }
// q: a Quiver instance. wl: { name, rows, dim, nq, queries: Float32Array (nq x dim),
//   gt: Int32Array (nq x gtK), gtK, slices(): async iterator of { first, data } (consecutive
//   rows of the base; the browser fetches them one at a time, so the tab never holds the whole
//   base) }. knobs: { metric, bits, refineBits, lists, probes: [n | 'default'], seconds,
//   flatQueries (0 = no flat), hnswEfs ([] = no HNSW), M, efConstruction, threads }.
//
// Build time is the sum of the add() calls (not reading or fetching the slices). Memory: the
// index's memoryBytes, and the wasm heap's growth over the build — the heap never shrinks, and
// the partitioned index is built first, so that growth is its peak; the flat and HNSW indexes
// built after it report the heap size after their build (their peak is at most that).
import { ADD_SLICE_BYTES } from '../../js/core/staging.js';

export const K = 10;

// Rows per native add() that one large JS add() becomes (the package's staging slice). The
// lists are trained at fixed sizes (4,096 * 2^j) on the first rows, so any batching builds the
// same index; the native benchmark still adds in these slices, as the wasm runs do
// (bench/ivf/run.mjs).
export const addSliceRows = (dim) => Math.max(1, Math.floor(ADD_SLICE_BYTES / (dim * 4)));

const now = () => performance.now();

// |first 10 returned ∩ true top 10| / 10, averaged over the rows; gt holds gtK ids per row.
export function recallAt10(rows, gt, gtK) {
  let hit = 0;
  for (let q = 0; q < rows.length; q++) {
    const truth = new Set(gt.subarray(q * gtK, q * gtK + K));
    const r = rows[q];
    const seen = new Set(); // an id counts once
    for (let j = 0; j < Math.min(K, r.length); j++) {
      const id = Number(r[j]);
      if (truth.has(id) && !seen.has(id)) hit++;
      seen.add(id);
    }
  }
  return hit / (rows.length * K);
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}

// One query per call over the first nq queries, repeated until `seconds` have passed (and at
// least 3 passes when seconds > 0: bench/common/steady-state.mjs compares them); each call timed for the
// latency figures. Returns the ids of the first pass (for recall) and each pass's QPS too.
function timeOnePerCall(search, queries, dim, nq, seconds) {
  const first = new Array(nq);
  const lat = [];
  const passes = [];
  const minPasses = seconds > 0 ? 3 : 1;
  const t0 = now();
  let done = 0;
  do {
    const p0 = now();
    for (let q = 0; q < nq; q++) {
      const s = now();
      const ids = search(queries.subarray(q * dim, (q + 1) * dim));
      lat.push(now() - s);
      if (done === 0) first[q] = ids;
    }
    passes.push(nq / ((now() - p0) / 1000));
    done += nq;
  } while (passes.length < minPasses || now() - t0 < seconds * 1000);
  const wall = now() - t0;
  lat.sort((a, b) => a - b);
  return {
    ids: first,
    qps: done / (wall / 1000),
    mean_us: (lat.reduce((a, b) => a + b, 0) / lat.length) * 1000,
    p99_us: percentile(lat, 99) * 1000,
    passes_qps: passes,
  };
}

function batchRows(r, nq) {
  return Array.from({ length: nq }, (_, i) => r.ids.subarray(i * r.k, (i + 1) * r.k));
}

async function build(q, make, wl, addOptions) {
  const index = make();
  let ms = 0;
  for await (const { first, data } of wl.slices()) {
    const n = data.length / wl.dim;
    const ids = new Float64Array(n);
    for (let i = 0; i < n; i++) ids[i] = first + i;
    const t = now();
    if (addOptions) index.add(ids, data, addOptions);
    else index.add(ids, data);
    ms += now() - t;
  }
  return { index, build_s: ms / 1000 };
}

export async function measureWasm({ q, wl, knobs, log = () => {} }) {
  const { dim, nq, queries, gt, gtK, rows } = wl;
  const heap0 = q.heapBytes();
  // kernelFeatures: the kernel forms the engine runs (e.g. ['relaxed-dot']), so that a figure
  // says which gather it timed.
  const result = {
    kernelFeatures: q.kernelFeatures,
    heap_before_bytes: heap0,
    builds: [],
    ivf: [],
    flat: null,
    hnsw: null,
  };

  // The partitioned codes-only index.
  const options = {
    dim,
    metric: knobs.metric,
    bits: knobs.bits,
    keepVectors: false,
    refineBits: knobs.refineBits,
    lists: knobs.lists,
  };
  const { index, build_s } = await build(q, () => new q.QuantizedIndex(options), wl);
  const b = {
    index: 'ivf',
    options,
    isa: index.isa,
    threads: knobs.threads,
    build_s,
    memory_bytes: index.memoryBytes,
    bytes_per_vector: index.memoryBytes / rows,
    heap_growth_bytes: q.heapBytes() - heap0,
    heap_after_bytes: q.heapBytes(),
    lists: index.lists,
    default_probes: index.defaultProbes,
  };
  result.builds.push(b);
  log(
    `  ivf: ${rows} rows built in ${build_s.toFixed(2)} s, ${b.lists} lists, default probes ${b.default_probes}, ` +
      `${b.bytes_per_vector.toFixed(1)} B/vector, heap +${(b.heap_growth_bytes / 2 ** 20).toFixed(1)} MiB`,
  );
  // The sweep in ascending probes. 'default' searches without the option (probes 0: the index's
  // defaultProbes lists, and more until 8,192 vectors were scanned); it replaces an explicit
  // value equal to defaultProbes.
  const wantsDefault = knobs.probes.includes('default');
  const probes = [...new Set(knobs.probes.filter((p) => p !== 'default'))].filter(
    (p) => p >= 1 && p <= index.lists && !(wantsDefault && p === index.defaultProbes),
  );
  if (wantsDefault) probes.push(index.defaultProbes);
  probes.sort((x, y) => x - y);
  for (const p of probes) {
    const isDefault = wantsDefault && p === index.defaultProbes;
    const opts = isDefault ? {} : { probes: p };
    for (let i = 0; i < Math.min(nq, 50); i++) index.search(queries.subarray(i * dim, (i + 1) * dim), K, opts);
    const one = timeOnePerCall((x) => index.search(x, K, opts).ids, queries, dim, nq, knobs.seconds);
    index.searchBatch(queries, K, opts); // warm-up
    const t = now();
    const r = index.searchBatch(queries, K, opts);
    const batchS = (now() - t) / 1000;
    const row = {
      probes: p,
      default: isDefault,
      lists: index.lists,
      recall: recallAt10(one.ids, gt, gtK),
      qps: one.qps,
      mean_us: one.mean_us,
      p99_us: one.p99_us,
      passes_qps: one.passes_qps,
      batch_threads: knobs.threads,
      batch_qps: nq / batchS,
      batch_recall: recallAt10(batchRows(r, nq), gt, gtK),
    };
    log(
      `  ivf probes ${p}: recall ${row.recall.toFixed(3)}, ${row.qps.toFixed(0)} QPS, batch ${row.batch_qps.toFixed(0)} QPS`,
    );
    result.ivf.push(row);
  }
  index.dispose();

  // The exact flat index: QPS on the first flatQueries queries (a scan of every vector).
  if (knobs.flatQueries > 0) {
    const f = await build(q, () => new q.FlatIndex({ dim, metric: knobs.metric }), wl);
    const n = Math.min(nq, knobs.flatQueries);
    f.index.search(queries.subarray(0, dim), K);
    const one = timeOnePerCall((x) => f.index.search(x, K).ids, queries, dim, n, 0);
    result.flat = {
      build_s: f.build_s,
      memory_bytes: f.index.memoryBytes,
      bytes_per_vector: f.index.memoryBytes / rows,
      heap_after_bytes: q.heapBytes(),
      queries: n,
      recall: recallAt10(one.ids, gt, gtK),
      qps: one.qps,
      mean_us: one.mean_us,
      p99_us: one.p99_us,
    };
    log(
      `  flat: ${result.flat.qps.toFixed(1)} QPS (${n} queries), ${result.flat.bytes_per_vector.toFixed(0)} B/vector`,
    );
    f.index.dispose();
  }

  // HNSW (f32, M / efConstruction as the HNSW benchmark), ef swept.
  if (knobs.hnswEfs.length > 0) {
    const h = await build(
      q,
      () => new q.HnswIndex({ dim, metric: knobs.metric, M: knobs.M, efConstruction: knobs.efConstruction }),
      wl,
      { threads: 0 },
    );
    result.hnsw = {
      M: knobs.M,
      ef_construction: knobs.efConstruction,
      threads: knobs.threads,
      build_s: h.build_s,
      memory_bytes: h.index.memoryBytes,
      bytes_per_vector: h.index.memoryBytes / rows,
      heap_after_bytes: q.heapBytes(),
      rows: [],
    };
    log(`  hnsw: built in ${h.build_s.toFixed(1)} s, ${result.hnsw.bytes_per_vector.toFixed(0)} B/vector`);
    for (const ef of knobs.hnswEfs) {
      for (let i = 0; i < Math.min(nq, 50); i++) h.index.search(queries.subarray(i * dim, (i + 1) * dim), K, { ef });
      const one = timeOnePerCall((x) => h.index.search(x, K, { ef }).ids, queries, dim, nq, knobs.seconds);
      const row = {
        ef,
        recall: recallAt10(one.ids, gt, gtK),
        qps: one.qps,
        mean_us: one.mean_us,
        p99_us: one.p99_us,
        passes_qps: one.passes_qps,
      };
      log(`  hnsw ef ${ef}: recall ${row.recall.toFixed(3)}, ${row.qps.toFixed(0)} QPS`);
      result.hnsw.rows.push(row);
    }
    h.index.dispose();
  }
  result.heap_end_bytes = q.heapBytes();
  return result;
}
