// What the filtered peers share (bench/filtered/peers.mjs and its adapters): the exported workload,
// Quiver's JSON filters translated to SQL, recall against the exported exact answers, and the timed
// query loop.
import { readFileSync } from 'node:fs';
import { cpuMeter } from '../../common/run-info.mjs';

export const K = 10;

// The workload written by `QUIVER_BENCH_EXPORT=DIR quiver_bench_filtered`: base.f32 and
// queries.f32 (little-endian float32, rows x dim) and workload.json (attributes, filters, exact
// filtered top 10 per query as row numbers).
export function loadWorkload(dir) {
  const w = JSON.parse(readFileSync(`${dir}/workload.json`, 'utf8'));
  const floats = (name, rows) => {
    const buf = readFileSync(`${dir}/${name}`);
    if (buf.length !== rows * w.dim * 4)
      throw new Error(`${dir}/${name}: ${buf.length} bytes, expected ${rows} x ${w.dim} float32`);
    // Copy into an aligned buffer of its own (a Buffer may be a view into a shared pool).
    const out = new Float32Array(rows * w.dim);
    new Uint8Array(out.buffer).set(buf);
    return out;
  };
  w.base = floats('base.f32', w.rows);
  w.queryVectors = floats('queries.f32', w.queries);
  for (const name of ['r', 'c', 'tenant'])
    if (w[name].length !== w.rows)
      throw new Error(`workload.json: ${name} has ${w[name].length} values, rows ${w.rows}`);
  for (const f of w.filters)
    if (f.truth.length !== w.queries)
      throw new Error(`workload.json: filter ${f.filter} has ${f.truth.length} answers`);
  return w;
}

// Row i's query vector (a view).
export const queryOf = (w, q) => w.queryVectors.subarray(q * w.dim, (q + 1) * w.dim);

// A Quiver filter (JSON text; '' = none) as a SQL boolean expression for PostgreSQL and for
// LanceDB (DataFusion) alike, or '' for none. Handles what the filtered workload uses and a little
// more: {"field": value} ($eq), {"field": {"$eq|$ne|$lt|$lte|$gt|$gte": value, ...}},
// {"field": {"$in"|"$nin": [...]}}, $and / $or / $not; anything else throws (never ignored).
const OPS = { $eq: '=', $ne: '<>', $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' };
export function filterToSql(text) {
  if (!text) return '';
  const lit = (v) => {
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    throw new Error(`filter: unsupported value ${JSON.stringify(v)}`);
  };
  const field = (name) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`filter: unsupported field name ${name}`);
    return name;
  };
  const expr = (node) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node))
      throw new Error(`filter: expected an object, got ${JSON.stringify(node)}`);
    const parts = [];
    for (const [key, value] of Object.entries(node)) {
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(value) || !value.length) throw new Error(`filter: ${key} needs a non-empty array`);
        parts.push(`(${value.map(expr).join(key === '$and' ? ' AND ' : ' OR ')})`);
      } else if (key === '$not') {
        parts.push(`(NOT ${expr(value)})`);
      } else if (key.startsWith('$')) {
        throw new Error(`filter: unsupported operator ${key}`);
      } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [op, v] of Object.entries(value)) {
          if (OPS[op]) parts.push(`${field(key)} ${OPS[op]} ${lit(v)}`);
          else if (op === '$in' || op === '$nin') {
            if (!Array.isArray(v) || !v.length) throw new Error(`filter: ${op} needs a non-empty array`);
            parts.push(`${field(key)} ${op === '$in' ? 'IN' : 'NOT IN'} (${v.map(lit).join(', ')})`);
          } else throw new Error(`filter: unsupported operator ${op}`);
        }
      } else {
        parts.push(`${field(key)} = ${lit(value)}`);
      }
    }
    if (!parts.length) throw new Error('filter: empty object');
    return parts.length === 1 ? parts[0] : parts.join(' AND ');
  };
  return expr(JSON.parse(text));
}

// recall@10 (hits over the exact answers' total, as filtered_bench.cpp counts it) and the number
// of short results (fewer than min(10, matching) ids) for one filter's results: results[q] = ids.
export function score(results, filter) {
  let hits = 0,
    wanted = 0,
    short = 0;
  const want = Math.min(K, filter.matching);
  results.forEach((ids, q) => {
    const truth = new Set(filter.truth[q]);
    for (const id of ids) if (truth.has(Number(id))) hits++;
    wanted += truth.size;
    if (ids.length < want) short++;
  });
  return { recall: wanted ? +(hits / wanted).toFixed(5) : 1, short_results: short };
}

// One point: a probe (the first 3 queries, timed), a pass that collects the ids (scored; its QPS
// kept as the warm-up), then `passes` timed passes over all the queries, one query at a time
// (`run(q)` -> ids, awaited in turn). Returns recall, short results, QPS over the timed passes,
// each pass's QPS, mean and p99 latency and the machine's busy cores during the timed passes.
// When the probe says the point would take longer than `budgetS`, it is not run: { skipped,
// probe_ms, estimated_s } instead (a peer whose exact scan takes seconds a query would otherwise
// hold the run for hours).
export async function measure(w, filter, run, { passes = 3, budgetS = Infinity } = {}) {
  const probeN = Math.min(3, w.queries);
  const tp = performance.now();
  for (let q = 0; q < probeN; q++) await run(q);
  const probeMs = (performance.now() - tp) / probeN;
  const estimatedS = (probeMs / 1000) * w.queries * (1 + passes);
  if (estimatedS > budgetS)
    return {
      skipped: `over the point budget: ${probeN} queries took ${probeMs.toFixed(0)} ms each, so ${w.queries} x ${1 + passes} passes would take ~${Math.round(estimatedS)} s (POINT_BUDGET_S ${budgetS})`,
      probe_ms: +probeMs.toFixed(1),
      estimated_s: Math.round(estimatedS),
      recall: null,
      short_results: null,
      qps: null,
    };
  const results = new Array(w.queries);
  let t0 = performance.now();
  for (let q = 0; q < w.queries; q++) results[q] = await run(q);
  const warmupQps = w.queries / ((performance.now() - t0) / 1000);
  const lat = [];
  const passQps = [];
  const meter = cpuMeter();
  const start = performance.now();
  for (let p = 0; p < passes; p++) {
    t0 = performance.now();
    for (let q = 0; q < w.queries; q++) {
      const t = performance.now();
      await run(q);
      lat.push(performance.now() - t);
    }
    passQps.push(+(w.queries / ((performance.now() - t0) / 1000)).toFixed(2));
  }
  const total = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  return {
    ...score(results, filter),
    returned_mean: +(results.reduce((a, ids) => a + ids.length, 0) / w.queries).toFixed(2),
    qps: +((passes * w.queries) / total).toFixed(2),
    passes_qps: passQps,
    warmup_qps: +warmupQps.toFixed(2),
    mean_ms: +(lat.reduce((a, x) => a + x, 0) / lat.length).toFixed(3),
    p99_ms: +lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))].toFixed(3),
    probe_ms: +probeMs.toFixed(3),
    cpu: meter(),
  };
}

export const log = (s) => process.stderr.write(`[filtered peers] ${s}\n`);
