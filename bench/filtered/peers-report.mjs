// The filtered peers' report: from a results JSON (bench/filtered/peers.mjs) the Markdown tables
// and a recall-vs-QPS plot per filter kind, beside the JSON with the same stem. Measures nothing.
//   node bench/filtered/peers-report.mjs bench/filtered/results/peers-<stamp>.json
import { readFileSync, writeFileSync } from 'node:fs';
import { recallQpsSvg } from '../common/recall-qps-svg.mjs';

const pct = (s) => `${+(s * 100).toPrecision(3)} %`;
const num = (x, d = 0) =>
  x === null || x === undefined ? '—' : Number(x).toLocaleString('en-US', { maximumFractionDigits: d });
const filterName = (p) => (p.filter_kind === 'none' ? 'none' : `${p.filter_kind} ${pct(p.selectivity)}`);
export const GOOD_RECALL = 0.95;

// A point's plan in a few words: what EXPLAIN (pglite) or explainPlan (lancedb) showed.
export function planLabel(p) {
  const words = (s) => {
    if (p.peer === 'pglite') {
      if (/Index Scan \(t_embedding_idx\)/.test(s)) return 'HNSW index scan';
      const bitmap = s.match(/Bitmap Index Scan \((\w+)\)/);
      if (bitmap) return `exact: bitmap scan ${bitmap[1]} + sort`;
      if (/Seq Scan/.test(s)) return 'exact: seq scan + sort';
      return s;
    }
    const scalar = s.match(/ScalarIndexQuery \((\w+) (\w+)\)/);
    const pre = scalar
      ? ` + prefilter ${scalar[1]}`
      : /FilterExec: r|FilterExec/.test(s) && p.filter
        ? ' + filter'
        : '';
    if (/ANN/.test(s)) return `ANN${p.prefilter === false && p.filter ? ' then postfilter' : pre}`;
    return `exact: KNN over the scan${pre}`;
  };
  let label = words(p.plan_summary);
  const plans = Object.entries(p.plans ?? {});
  if (plans.length > 1) {
    const total = plans.reduce((a, [, n]) => a + n, 0);
    label += ` (${p.plans[p.plan_summary]}/${total}; others: ${plans
      .filter(([s]) => s !== p.plan_summary)
      .map(([s, n]) => `${words(s)} ${n}`)
      .join(', ')})`;
  }
  return label;
}

const configName = (p) => `${p.peer === 'pglite' ? 'pgvector/PGlite' : 'LanceDB'} ${p.config}`;
const good = (p) => p.recall >= GOOD_RECALL && p.short_results === 0;
// The point to quote per (peer, filter): the fastest with recall >= 0.95 and no short result,
// otherwise the one with the highest recall (on a tie, the faster).
export function bestOf(points) {
  const ok = points.filter(good);
  const pool = ok.length ? ok : points;
  return [...pool].sort((a, b) => (ok.length ? b.qps - a.qps : b.recall - a.recall || b.qps - a.qps))[0];
}

export function renderReport(results, file) {
  const { machine: m, workload: w, points } = results;
  const out = [];
  out.push(`# Filtered search: the peers (${results.stamp}${results.quick ? ', QUICK' : ''})`, '');
  out.push(
    `Workload: quiver_bench_filtered's, ${num(w.rows)} x ${w.dim}, ${w.queries} queries, ${w.metric}, k ${w.k} ` +
      `(${w.source}). Recall@10 against the exported exact filtered top 10; "short" = queries answered with ` +
      `fewer than min(10, matching) ids; QPS = one query at a time over all queries, ${results.knobs.passes} timed passes ` +
      `(after one scored pass); busy cores = the whole machine's during the timed passes.`,
    '',
  );
  out.push(
    `Machine: ${m.host}, ${m.cpu}, ${m.cpus} cores, ${m.memory_gib} GiB, ${m.os}, Node ${m.node}; commit ${results.commit}; ` +
      `load average before ${m.load_before?.join(' ')}, after ${m.load_after?.join(' ') ?? '—'}.`,
    '',
  );
  for (const job of results.jobs)
    out.push(
      `- ${job.peer}: ${job.status} in ${num(job.seconds)} s, load ${job.load_before.join(' ')} → ${job.load_after.join(' ')}, ` +
        `busy cores ${job.cpu?.busy_cores ?? '—'}${job.error ? `; ${job.error.split('\n')[0]}` : ''}`,
    );
  out.push('');
  const pg = results.peers.pglite;
  if (pg)
    out.push(
      `pgvector in PGlite: @electric-sql/pglite ${pg.packages['@electric-sql/pglite']} + @electric-sql/pglite-pgvector ` +
        `${pg.packages['@electric-sql/pglite-pgvector']} (pgvector ${pg.pgvector}, ${pg.postgres.split(' on ')[0]}); ` +
        `${pg.index}; B-tree indexes on r, c, tenant: ${pg.knobs.btree_indexes ? 'yes' : 'no'}; maintenance_work_mem ` +
        `${pg.knobs.maintenance_work_mem}. Load (binary COPY) ${num(pg.build.load_s, 1)} s, HNSW build ${num(pg.build.hnsw_build_s, 1)} s, ` +
        `B-trees ${num(pg.build.btree_build_s, 1)} s; table ${num(pg.build.table_bytes / 2 ** 20, 1)} MiB, HNSW index ` +
        `${num(pg.build.hnsw_index_bytes / 2 ** 20, 1)} MiB; peak RSS ${num(pg.peak_rss_bytes / 2 ** 20)} MiB.`,
      '',
    );
  const ld = results.peers.lancedb;
  if (ld)
    out.push(
      `LanceDB: @lancedb/lancedb ${ld.packages['@lancedb/lancedb']} (native addon), ${ld.storage}; scalar indexes ` +
        `(B-tree r, c; bitmap tenant): ${ld.knobs.scalar_indexes ? 'yes' : 'no'}; prefilter: ${ld.prefilter}. Load ` +
        `${num(ld.build.load_s, 1)} s, scalar indexes ${num(ld.build.scalar_index_s, 1)} s` +
        (ld.build.ivf_pq_build_s !== undefined ? `, IVF_PQ build ${num(ld.build.ivf_pq_build_s, 1)} s` : '') +
        (ld.build.hnsw_sq_build_s !== undefined ? `, IVF_HNSW_SQ build ${num(ld.build.hnsw_sq_build_s, 1)} s` : '') +
        `; peak RSS ${num(ld.peak_rss_bytes / 2 ** 20)} MiB.`,
      '',
    );

  // Best per filter and peer.
  const filters = w.filters.map((f) => ({
    ...f,
    name: filterName({ filter_kind: f.kind, selectivity: f.selectivity }),
  }));
  const peerNames = [...new Set(points.map((p) => p.peer))];
  out.push(
    `## Per filter: each peer's best point`,
    '',
    `The fastest configuration with recall@10 ≥ ${GOOD_RECALL} and no short result; where none has both, the one with the ` +
      `highest recall (marked ✗).`,
    '',
  );
  out.push(
    `| filter | matching | ${peerNames.map((n) => `${n}: recall / QPS | ${n}: configuration, plan`).join(' | ')} |`,
  );
  out.push(`|:--|--:|${peerNames.map(() => '--:|:--|').join('')}`);
  for (const f of filters) {
    const cells = peerNames.map((peer) => {
      const ps = points.filter(
        (p) => p.peer === peer && p.filter_kind === f.kind && p.selectivity === f.selectivity && p.filter === f.filter,
      );
      if (!ps.length) return '— | —';
      const b = bestOf(ps);
      return `${good(b) ? '' : '✗ '}${b.recall.toFixed(3)} / ${num(b.qps)}${b.short_results ? ` (${b.short_results} short)` : ''} | ${b.config}; ${planLabel(b)}`;
    });
    out.push(`| ${f.name} | ${num(f.matching)} | ${cells.join(' | ')} |`);
  }
  out.push('');

  // Every point.
  out.push('## Every point', '');
  out.push('| peer | configuration | filter | matching | recall@10 | short | QPS | p99 ms | busy cores | plan |');
  out.push('|:--|:--|:--|--:|--:|--:|--:|--:|--:|:--|');
  for (const p of points)
    out.push(
      `| ${p.peer} | ${p.config} | ${filterName(p)} | ${num(p.matching)} | ${p.recall.toFixed(3)} | ${p.short_results} | ` +
        `${num(p.qps)} | ${num(p.p99_ms, 1)} | ${p.cpu?.busy_cores ?? '—'} | ${planLabel(p)} |`,
    );
  out.push('');
  const markdown = out.join('\n');

  // One panel per filter kind: a line per configuration through its selectivities.
  const kinds = ['random', 'correlated', 'tenant'];
  const configs = [...new Set(points.filter((p) => p.prefilter !== false).map(configName))];
  const panels = kinds.map((kind) => ({
    title: `${kind} filters (${num(w.rows)} x ${w.dim})`,
    caption: [
      `One line per configuration through its points at each selectivity of the ${kind} filter ` +
        `(${[...new Set(points.filter((p) => p.filter_kind === kind).map((p) => pct(p.selectivity)))].join(', ')}), ` +
        `in that order: not a swept knob. LanceDB's postfilter setting is left out (recall near 0).`,
    ],
    series: configs.map((name) => ({
      name,
      style: name.startsWith('pgvector') ? { width: 2 } : { dash: '5,3', hollow: true },
      points: points
        .filter((p) => configName(p) === name && p.filter_kind === kind)
        .sort((a, b) => a.selectivity - b.selectivity)
        .map((p) => ({ recall: p.recall, qps: p.qps })),
    })),
  }));
  const svg = recallQpsSvg(panels, { legend: 'right' });
  if (file) {
    writeFileSync(file.replace(/\.json$/, '.md'), markdown);
    writeFileSync(file.replace(/\.json$/, '.svg'), svg);
  }
  return { markdown, svg };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/filtered/peers-report.mjs RESULTS.json\n');
    process.exit(2);
  }
  process.stdout.write(renderReport(JSON.parse(readFileSync(file, 'utf8')), file).markdown);
}
