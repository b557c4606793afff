// LanceDB (@lancedb/lancedb: the Rust engine as a Node addon; a table in a local directory): table t
// (id int32, vector fixed-size list of float32, r int32, c int32, tenant utf8) with scalar indexes
// (B-tree on r and c, bitmap on tenant: LanceDB's advice for prefiltered vector search), then per
// index configuration and query setting, per filter:
//   table.query().nearestTo(q).distanceType('cosine').where(<filter as SQL>).limit(10)
// Prefiltering is LanceDB's default (the filter is applied before the vector search; .postfilter()
// turns it off): one setting measures .postfilter() for contrast. Configurations: no vector index
// (exact scan of the filtered rows), IVF_PQ at LanceDB's defaults, IVF_HNSW_SQ (one partition, as
// its documentation recommends). explainPlan() of every point's first query is recorded.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { K, filterToSql, log, measure, queryOf } from './common.mjs';

const peersDir = fileURLToPath(new URL('../../peers/', import.meta.url));
const version = (name) => JSON.parse(readFileSync(`${peersDir}node_modules/${name}/package.json`, 'utf8')).version;

export function knobs(env = process.env) {
  return {
    ivf_pq: {
      // LanceDB's defaults, written out: partitions sqrt(rows), sub-vectors dim / 16, 8 bits.
      index: { numBits: 8 },
      settings: [
        { name: 'defaults (nprobes 20)' },
        { name: 'refine 10', refineFactor: 10 },
        { name: 'nprobes 60, refine 10', nprobes: 60, refineFactor: 10 },
        { name: 'defaults, postfilter', postfilter: true },
      ],
    },
    hnsw_sq: {
      index: { numPartitions: 1, m: Number(env.LANCE_HNSW_M ?? 20), efConstruction: Number(env.LANCE_HNSW_EFC ?? 300) },
      settings: [{ name: 'defaults (ef 15 = 1.5 x limit)' }, { name: 'ef 64', ef: 64 }, { name: 'ef 200', ef: 200 }],
    },
    scalar_indexes: (env.LANCE_SCALAR ?? '1') !== '0',
    configs: String(env.LANCE_CONFIGS ?? 'flat ivf_pq hnsw_sq')
      .split(/[\s,]+/)
      .filter(Boolean),
  };
}

// explainPlan text -> the operators from the top, one line: "ProjectionExec > ... > KNNVectorDistance > ...".
export function planOperators(text) {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const op = l.split(/[:\s]/)[0];
      const scalar = l.match(/@(\w+)\((\w+)\)/); // ScalarIndexQuery: query=[r < 1]@r_idx(BTree)
      const probes = l.match(/minimum_nprobes=(\d+), maximum_nprobes=(\S+?),/);
      if (op === 'ScalarIndexQuery' && scalar) return `${op} (${scalar[1]} ${scalar[2]})`;
      if (op === 'ANNIvfPartition' && probes)
        return `${op} (nprobes ${probes[1]}-${probes[2].replace(/^Some\((\d+)\)$/, '$1')})`;
      return op;
    })
    .join(' > ');
}
// 'ann' when a vector index answers (ANN operators in the plan), 'exact' when every filtered row's
// distance is computed (KNNVectorDistance over a scan without an ANN operator).
export const planKind = (ops) => (/ANN|Ivf|Hnsw/i.test(ops) ? 'ann' : 'exact');

export async function run(w, { passes, budgetS }) {
  const k = knobs();
  const lancedb = await import(`${peersDir}node_modules/@lancedb/lancedb/dist/index.js`);
  const arrow = await import(`${peersDir}node_modules/apache-arrow/Arrow.node.mjs`);
  const info = {
    library: 'LanceDB',
    packages: {
      '@lancedb/lancedb': version('@lancedb/lancedb'),
      'apache-arrow': version('apache-arrow'),
    },
    knobs: k,
    prefilter: 'default (.postfilter() not called) except the "postfilter" setting',
    build: {},
    indices: {},
  };
  const dir = mkdtempSync(`${os.tmpdir()}/quiver-filtered-lancedb-`);
  info.storage = `local directory under ${os.tmpdir()} (deleted afterwards)`;
  try {
    const db = await lancedb.connect(dir);
    // The table as one Arrow record batch.
    const vecType = new arrow.FixedSizeList(w.dim, new arrow.Field('item', new arrow.Float32(), true));
    const vectors = arrow.makeVector(
      arrow.makeData({
        type: vecType,
        length: w.rows,
        nullCount: 0,
        child: arrow.makeData({ type: new arrow.Float32(), length: w.rows * w.dim, nullCount: 0, data: w.base }),
      }),
    );
    const table = new arrow.Table({
      id: arrow.makeVector(Int32Array.from({ length: w.rows }, (_, i) => i)),
      vector: vectors,
      r: arrow.makeVector(Int32Array.from(w.r)),
      c: arrow.makeVector(Int32Array.from(w.c)),
      tenant: arrow.vectorFromArray(
        Array.from(w.tenant, (t) => `t${t}`),
        new arrow.Utf8(),
      ),
    });
    let t0 = performance.now();
    const t = await db.createTable('t', table, { mode: 'overwrite' });
    info.build.load_s = +((performance.now() - t0) / 1000).toFixed(3);
    const rows = await t.countRows();
    const back = (
      await t
        .query()
        .where(`id = ${w.rows - 1}`)
        .select(['vector', 'tenant'])
        .toArray()
    )[0];
    const last = w.base.subarray((w.rows - 1) * w.dim, w.rows * w.dim);
    if (rows !== w.rows || back.tenant !== `t${w.tenant[w.rows - 1]}` || [...back.vector].some((x, j) => x !== last[j]))
      throw new Error(`lancedb: the loaded table differs from the workload (rows ${rows})`);
    info.schema = String(await t.schema());
    t0 = performance.now();
    if (k.scalar_indexes) {
      await t.createIndex('r', { config: lancedb.Index.btree() });
      await t.createIndex('c', { config: lancedb.Index.btree() });
      await t.createIndex('tenant', { config: lancedb.Index.bitmap() });
    }
    info.build.scalar_index_s = +((performance.now() - t0) / 1000).toFixed(3);
    info.indices.scalar = await t.listIndices();
    log(`lancedb: loaded ${rows} rows in ${info.build.load_s} s, scalar indexes in ${info.build.scalar_index_s} s`);

    const points = [];
    const runConfig = async (config, index, settings, build_s) => {
      for (const s of settings) {
        const label = `${config}${s.name ? `, ${s.name}` : ''}`;
        for (const f of w.filters) {
          const where = filterToSql(f.filter);
          const build = (q) => {
            let query = t.query().nearestTo(queryOf(w, q)).distanceType('cosine').limit(K).select(['id', '_distance']);
            if (where) query = query.where(where);
            if (s.nprobes) query = query.nprobes(s.nprobes);
            if (s.refineFactor) query = query.refineFactor(s.refineFactor);
            if (s.ef) query = query.ef(s.ef);
            if (s.postfilter) query = query.postfilter();
            return query;
          };
          const explain = await build(0).explainPlan(true);
          const ops = planOperators(explain);
          const m = await measure(w, f, async (q) => (await build(q).toArray()).map((row) => row.id), {
            passes,
            budgetS,
          });
          points.push({
            peer: 'lancedb',
            config: label,
            index,
            setting: s,
            prefilter: !s.postfilter,
            filter_kind: f.kind,
            selectivity: f.selectivity,
            filter: f.filter || null,
            where: where || null,
            matching: f.matching,
            rows: w.rows,
            queries: w.queries,
            dim: w.dim,
            ...m,
            plan: planKind(ops),
            plan_summary: ops,
            explain_q0: explain,
            build_s,
          });
          log(
            `lancedb ${label} ${f.kind} ${f.selectivity}: ${m.skipped ? `${m.skipped}; ` : ''}recall ${m.recall} short ${m.short_results} QPS ${m.qps} plan ${planKind(ops)}`,
          );
        }
      }
    };
    const vectorIndex = async (name, config) => {
      const t1 = performance.now();
      await t.createIndex('vector', { config, replace: true });
      const s = +((performance.now() - t1) / 1000).toFixed(3);
      info.build[`${name}_build_s`] = s;
      info.indices[name] = (await t.listIndices()).find((i) => i.columns.includes('vector'));
      log(`lancedb: ${name} built in ${s} s`);
      return s;
    };
    if (k.configs.includes('flat')) await runConfig('no vector index', 'none (exact scan)', [{ name: '' }], 0);
    if (k.configs.includes('ivf_pq')) {
      const s = await vectorIndex('ivf_pq', lancedb.Index.ivfPq({ distanceType: 'cosine', ...k.ivf_pq.index }));
      info.ivf_pq_stats = await t.indexStats('vector_idx');
      const idx = `IVF_PQ (cosine; LanceDB's defaults: partitions sqrt(rows) = ${Math.round(Math.sqrt(w.rows))}, sub-vectors dim / 16 = ${w.dim / 16}, 8 bits)`;
      await runConfig('IVF_PQ', idx, k.ivf_pq.settings, s);
    }
    if (k.configs.includes('hnsw_sq')) {
      const s = await vectorIndex('hnsw_sq', lancedb.Index.hnswSq({ distanceType: 'cosine', ...k.hnsw_sq.index }));
      info.hnsw_sq_stats = await t.indexStats('vector_idx');
      const { numPartitions, m, efConstruction } = k.hnsw_sq.index;
      await runConfig(
        'IVF_HNSW_SQ',
        `IVF_HNSW_SQ (cosine, partitions ${numPartitions}, m ${m}, ef_construction ${efConstruction})`,
        k.hnsw_sq.settings,
        s,
      );
    }
    return { info, points };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
