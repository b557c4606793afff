// The measurement loop every in-process adapter goes through, so each library is timed the same
// way: build (1 thread, then all threads where the library can), memory, then for each value of
// its search-time parameter a warm-up, one query per call in PASSES passes over the queries (QPS
// over all passes, each pass's QPS and whether they agree — bench/common/steady-state.mjs —, mean / p99
// latency, recall@10 from the ids of the first pass) and, where it has one, a batch call (QPS and
// recall again).
import { checkPasses } from '../../common/steady-state.mjs';
import { K, recallAtK } from './data.mjs';

// Passes of one-query-per-call timing over the whole query set (PEERS_PASSES overrides).
export const PASSES = Math.max(1, Number(process.env.PEERS_PASSES ?? 3) || 3);

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms
const gc = () => globalThis.gc?.();
const rss = () => process.memoryUsage().rss;

export function percentile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// One index configuration of one library: { name, param, values, buildThreads, build(threads),
// batchThreads? } -> rows. build() returns { memoryBytes?(), heapBytes?(), set?(value),
// search(query, k), batch?(queries, nq, k, threads), dispose() }.
export async function measureConfig(cfg, wl, { log }) {
  const { base, queries, gt } = wl;
  const dim = base.dim,
    nq = queries.rows;
  const rows = [];
  const builds = [];
  let index = null;
  gc();
  const rssBefore = rss();
  for (let i = 0; i < cfg.buildThreads.length; i++) {
    const threads = cfg.buildThreads[i];
    if (index) {
      index.dispose();
      // Dropped before gc(), so the collector can free the old index's memory (ESLint sees only
      // that the value is overwritten below).
      // eslint-disable-next-line no-useless-assignment
      index = null;
      gc();
    }
    const t0 = now();
    index = await cfg.build(threads);
    const ms = now() - t0;
    const b = { threads, build_s: ms / 1000 };
    if (i === 0) {
      gc();
      b.rss_delta_bytes = rss() - rssBefore;
      b.library_bytes = index.memoryBytes?.() ?? null;
      if (index.heapBytes) b.wasm_heap_bytes = index.heapBytes(); // wasm memory size after the build
    }
    builds.push(b);
    log(`  ${cfg.name}: built with ${threads} thread(s) in ${b.build_s.toFixed(2)} s`);
  }
  const query = (q) => queries.data.subarray(q * dim, (q + 1) * dim);
  for (const value of cfg.values) {
    await index.set?.(value);
    const warm = Math.min(nq, 50);
    for (let q = 0; q < warm; q++) index.search(query(q), K);
    const lat = new Float64Array(nq * PASSES);
    const results = new Array(nq);
    const passesQps = [];
    let wall = 0;
    for (let p = 0; p < PASSES; p++) {
      const t0 = now();
      for (let q = 0; q < nq; q++) {
        const s = now();
        const ids = index.search(query(q), K);
        lat[p * nq + q] = now() - s;
        if (p === 0) results[q] = ids;
      }
      const ms = now() - t0;
      wall += ms;
      passesQps.push(nq / (ms / 1000));
    }
    const sorted = Array.from(lat).sort((a, b) => a - b);
    const label = `${cfg.name}${cfg.param ? ` ${cfg.param} ${value}` : ''}`;
    const row = {
      config: cfg.name,
      param: cfg.param,
      value,
      recall: recallAtK(results, gt),
      qps: (nq * PASSES) / (wall / 1000),
      passes_qps: passesQps,
      pass_check: checkPasses(passesQps, { label }),
      mean_us: (sorted.reduce((a, b) => a + b, 0) / sorted.length) * 1000,
      p99_us: percentile(sorted, 99) * 1000,
      batch: [],
    };
    if (row.pass_check.warning) log(`  WARNING ${row.pass_check.warning}`);
    if (index.batch) {
      for (const threads of cfg.batchThreads ?? [1]) {
        index.batch(queries.data, nq, K, threads); // warm-up
        const b0 = now();
        const res = index.batch(queries.data, nq, K, threads);
        const bms = now() - b0;
        row.batch.push({ threads, qps: nq / (bms / 1000), recall: recallAtK(res, gt) });
      }
    }
    log(
      `  ${cfg.name} ${cfg.param ?? ''} ${value ?? ''}: recall ${row.recall.toFixed(3)}, ${row.qps.toFixed(0)} QPS` +
        row.batch.map((b) => `, batch(${b.threads}) ${b.qps.toFixed(0)} QPS`).join(''),
    );
    rows.push(row);
  }
  index.dispose();
  return { config: cfg.name, builds, rows, notes: cfg.notes ?? [] };
}
