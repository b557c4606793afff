// pgvector in PGlite (PostgreSQL compiled to wasm, in this Node process, in-memory data directory):
// table t (id int primary key, embedding vector(dim), r int, c int, tenant text), an HNSW index
// (vector_cosine_ops) and B-tree indexes on r, c and tenant (pgvector's README: index the filter
// columns so that a selective WHERE can be answered exactly), then per (filter, setting):
//   SELECT id FROM t [WHERE <filter>] ORDER BY embedding <=> $1 LIMIT 10
// with hnsw.ef_search and hnsw.iterative_scan set per setting, and EXPLAIN of that query for every
// query vector: the plan the planner chose (HNSW index scan, or an exact plan: sequential or bitmap
// scan + sort), tallied per point.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { K, filterToSql, log, measure, queryOf } from './common.mjs';

const peersDir = fileURLToPath(new URL('../../peers/', import.meta.url));
const version = (name) => JSON.parse(readFileSync(`${peersDir}node_modules/${name}/package.json`, 'utf8')).version;

// The knobs and their defaults (env PG_*; recorded in the results).
export function knobs(env = process.env) {
  const list = (s) =>
    String(s)
      .split(/[\s,]+/)
      .filter(Boolean);
  return {
    m: Number(env.PG_M ?? 16),
    ef_construction: Number(env.PG_EF_CONSTRUCTION ?? 64),
    ef_search: list(env.PG_EF_SEARCH ?? '40 200').map(Number),
    iterative_scan: list(env.PG_ITERATIVE ?? 'off relaxed_order'),
    btree_indexes: (env.PG_BTREE ?? '1') !== '0',
    maintenance_work_mem: env.PG_MAINTENANCE_WORK_MEM ?? '1GB',
    copy_chunk_rows: Number(env.PG_COPY_CHUNK ?? 5000),
  };
}

// A plan (EXPLAIN FORMAT JSON's "Plan") as one line: node types from the top, with the index a
// scan uses, e.g. "Limit > Index Scan (t_embedding_idx)" or "Limit > Sort > Bitmap Heap Scan >
// Bitmap Index Scan (t_r_idx)".
export function planSummary(node) {
  const parts = [];
  const walk = (n) => {
    parts.push(n['Index Name'] ? `${n['Node Type']} (${n['Index Name']})` : n['Node Type']);
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(node);
  return parts.join(' > ');
}
// What kind of plan it is: 'hnsw' when the HNSW index produces the order, 'exact' otherwise.
export const planKind = (summary, hnswIndex) => (summary.includes(`Index Scan (${hnswIndex})`) ? 'hnsw' : 'exact');

const vectorText = (v) => {
  let s = '[';
  for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + v[i].toPrecision(9); // 9 digits: exact float32
  return s + ']';
};

export async function run(w, { passes, budgetS }) {
  const k = knobs();
  const { PGlite } = await import(`${peersDir}node_modules/@electric-sql/pglite/dist/index.js`);
  const { vector } = await import(`${peersDir}node_modules/@electric-sql/pglite-pgvector/dist/index.js`);
  const info = {
    library: 'pgvector in PGlite',
    packages: {
      '@electric-sql/pglite': version('@electric-sql/pglite'),
      '@electric-sql/pglite-pgvector': version('@electric-sql/pglite-pgvector'),
    },
    knobs: k,
  };
  const db = await PGlite.create({ extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  info.postgres = (await db.query('SELECT version()')).rows[0].version;
  info.pgvector = (await db.query("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).rows[0].extversion;
  const settings = async () =>
    Object.fromEntries(
      (
        await db.query(
          "SELECT name, setting, unit FROM pg_settings WHERE name LIKE 'hnsw.%' OR name IN " +
            "('maintenance_work_mem', 'work_mem', 'shared_buffers', 'max_parallel_workers_per_gather', " +
            "'max_parallel_maintenance_workers', 'random_page_cost', 'effective_cache_size')",
        )
      ).rows.map((r) => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]),
    );
  info.server_defaults = await settings();
  const iterativeSupported = 'hnsw.iterative_scan' in info.server_defaults;
  if (!iterativeSupported) log(`pgvector ${info.pgvector} has no hnsw.iterative_scan: those settings are skipped`);

  // Load: COPY ... FROM a blob in PostgreSQL's binary COPY format, in chunks (the text format
  // spends most of its time parsing floats in wasm).
  const t0 = performance.now();
  await db.exec(
    `CREATE TABLE t (id int PRIMARY KEY, embedding vector(${w.dim}), r int, c int, tenant text);` +
      `SET maintenance_work_mem = '${k.maintenance_work_mem}'`,
  );
  for (let at = 0; at < w.rows; at += k.copy_chunk_rows) {
    const blob = copyBinary(w, at, Math.min(w.rows, at + k.copy_chunk_rows));
    await db.query("COPY t FROM '/dev/blob' WITH (FORMAT binary)", [], { blob: new Blob([blob]) });
  }
  const load_s = (performance.now() - t0) / 1000;
  // What was loaded is what was exported: the row count and one row read back.
  const check = (
    await db.query(
      'SELECT (SELECT count(*)::int FROM t) AS n, (SELECT embedding::text FROM t WHERE id = $1) AS e, (SELECT tenant FROM t WHERE id = $1) AS tn',
      [w.rows - 1],
    )
  ).rows[0];
  const back = JSON.parse(check.e);
  const last = w.base.subarray((w.rows - 1) * w.dim, w.rows * w.dim);
  if (
    check.n !== w.rows ||
    back.length !== w.dim ||
    back.some((x, j) => Math.fround(x) !== last[j]) ||
    check.tn !== `t${w.tenant[w.rows - 1]}`
  )
    throw new Error(`pglite: the loaded table differs from the workload (rows ${check.n})`);
  log(
    `pglite: loaded ${w.rows} rows in ${load_s.toFixed(1)} s; building HNSW m ${k.m} ef_construction ${k.ef_construction} ...`,
  );
  let t1 = performance.now();
  await db.exec(
    `CREATE INDEX t_embedding_idx ON t USING hnsw (embedding vector_cosine_ops) WITH (m = ${k.m}, ef_construction = ${k.ef_construction})`,
  );
  const hnsw_build_s = (performance.now() - t1) / 1000;
  log(`pglite: HNSW built in ${hnsw_build_s.toFixed(1)} s`);
  t1 = performance.now();
  if (k.btree_indexes)
    await db.exec(
      'CREATE INDEX t_r_idx ON t (r); CREATE INDEX t_c_idx ON t (c); CREATE INDEX t_tenant_idx ON t (tenant)',
    );
  const btree_build_s = (performance.now() - t1) / 1000;
  t1 = performance.now();
  await db.exec('VACUUM ANALYZE t');
  const analyze_s = (performance.now() - t1) / 1000;
  const size = async (rel) => Number((await db.query(`SELECT pg_relation_size('${rel}') AS b`)).rows[0].b);
  info.build = {
    load_s: +load_s.toFixed(3),
    hnsw_build_s: +hnsw_build_s.toFixed(3),
    btree_build_s: +btree_build_s.toFixed(3),
    vacuum_analyze_s: +analyze_s.toFixed(3),
    table_bytes: await size('t'),
    hnsw_index_bytes: await size('t_embedding_idx'),
    btree_index_bytes: k.btree_indexes
      ? (await size('t_r_idx')) + (await size('t_c_idx')) + (await size('t_tenant_idx'))
      : 0,
  };
  info.index = `HNSW (vector_cosine_ops, m ${k.m}, ef_construction ${k.ef_construction})`;

  const qtext = Array.from({ length: w.queries }, (_, q) => vectorText(queryOf(w, q)));
  const points = [];
  const iteratives = iterativeSupported ? k.iterative_scan : ['off'];
  for (const ef of k.ef_search) {
    for (const iterative of iteratives) {
      await db.exec(`SET hnsw.ef_search = ${ef}`);
      if (iterativeSupported) await db.exec(`SET hnsw.iterative_scan = ${iterative}`);
      const config = `hnsw ef_search ${ef}, iterative_scan ${iterative}`;
      for (const f of w.filters) {
        const where = filterToSql(f.filter);
        const sql = `SELECT id FROM t${where ? ` WHERE ${where}` : ''} ORDER BY embedding <=> $1 LIMIT ${K}`;
        // The plan of every query (EXPLAIN plans without running).
        const plans = {};
        for (let q = 0; q < w.queries; q++) {
          const res = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, [qtext[q]]);
          const s = planSummary(res.rows[0]['QUERY PLAN'][0].Plan);
          plans[s] = (plans[s] ?? 0) + 1;
        }
        // EXPLAIN ANALYZE of the first query: what the plan did (rows removed by the filter).
        const analyzed = (await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, [qtext[0]])).rows[0]['QUERY PLAN'][0];
        const top = Object.entries(plans).sort((a, b) => b[1] - a[1])[0][0];
        const m = await measure(
          w,
          f,
          async (q) => (await db.query(sql, [qtext[q]], { rowMode: 'array' })).rows.map((r) => r[0]),
          { passes, budgetS },
        );
        const point = {
          peer: 'pglite',
          config,
          index: info.index,
          ef_search: ef,
          iterative_scan: iterativeSupported ? iterative : null,
          filter_kind: f.kind,
          selectivity: f.selectivity,
          filter: f.filter || null,
          sql,
          matching: f.matching,
          rows: w.rows,
          queries: w.queries,
          dim: w.dim,
          ...m,
          plan: planKind(top, 't_embedding_idx'),
          plan_summary: top,
          plans,
          explain_analyze_q0: {
            plan: planSummary(analyzed.Plan),
            planning_ms: analyzed['Planning Time'],
            execution_ms: analyzed['Execution Time'],
            nodes: flatNodes(analyzed.Plan),
          },
          build_s: info.build.hnsw_build_s,
        };
        points.push(point);
        log(
          `pglite ${config} ${f.kind} ${f.selectivity}: ${m.skipped ? `${m.skipped}; ` : ''}recall ${m.recall} short ${m.short_results} ` +
            `QPS ${m.qps} plan ${top}${Object.keys(plans).length > 1 ? ` (+${Object.keys(plans).length - 1} other)` : ''}`,
        );
      }
    }
  }
  info.settings_after = await settings();
  await db.close();
  return { info, points };
}

// Rows [from, to) as a binary COPY stream: signature, flags, header extension length, then per
// row a field count and each field as length + bytes (big-endian), then -1. A vector is its
// binary input form (pgvector's vector_recv): int16 dim, int16 0, dim float4.
export function copyBinary(w, from, to) {
  const enc = new TextEncoder();
  const tenants = [];
  let bytes = 19 + 2;
  for (let i = from; i < to; i++) {
    tenants.push(enc.encode(`t${w.tenant[i]}`));
    bytes += 2 + (4 + 4) + (4 + 4 + 4 * w.dim) + 2 * (4 + 4) + 4 + tenants[tenants.length - 1].length;
  }
  const buf = new Uint8Array(bytes);
  const v = new DataView(buf.buffer);
  buf.set([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00], 0); // PGCOPY\n\377\r\n\0
  let o = 19; // flags (int32 0) and extension length (int32 0) follow the signature
  const int4 = (x) => {
    v.setInt32(o, 4);
    v.setInt32(o + 4, x);
    o += 8;
  };
  for (let i = from; i < to; i++) {
    v.setInt16(o, 5);
    o += 2;
    int4(i);
    v.setInt32(o, 4 + 4 * w.dim);
    v.setInt16(o + 4, w.dim);
    v.setInt16(o + 6, 0);
    o += 8;
    for (let j = 0; j < w.dim; j++, o += 4) v.setFloat32(o, w.base[i * w.dim + j]);
    int4(w.r[i]);
    int4(w.c[i]);
    const t = tenants[i - from];
    v.setInt32(o, t.length);
    buf.set(t, o + 4);
    o += 4 + t.length;
  }
  v.setInt16(o, -1);
  return buf;
}

// The nodes of an analysed plan, top down: type, index, actual rows and what the filter removed.
function flatNodes(plan) {
  const out = [];
  const walk = (n) => {
    const o = { node: n['Node Type'] };
    if (n['Index Name']) o.index = n['Index Name'];
    for (const key of [
      'Actual Rows',
      'Actual Loops',
      'Rows Removed by Filter',
      'Rows Removed by Index Recheck',
      'Filter',
      'Index Cond',
      'Recheck Cond',
      'Sort Method',
    ])
      if (n[key] !== undefined) o[key.toLowerCase().replace(/ /g, '_')] = n[key];
    out.push(o);
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(plan);
  return out;
}
