// The filtered peers' report: from a results JSON (bench/filtered/peers.mjs) the Markdown tables
// and two plots by selectivity (recall@10, QPS), beside the JSON with the same stem. Measures nothing.
//   node bench/filtered/peers-report.mjs bench/filtered/results/peers-<stamp>.json
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { COLORS } from '../common/recall-qps-svg.mjs';
import { checkPasses, warningsOf } from '../common/steady-state.mjs';

const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'triangle-down'];

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
const measured = (p) => !p.skipped;
const good = (p) => measured(p) && p.recall >= GOOD_RECALL && p.short_results === 0;
// The point to quote per (peer, filter): the fastest with recall >= 0.95 and no short result,
// otherwise the one with the highest recall (on a tie, the faster).
export function bestOf(points) {
  const ok = points.filter(good);
  const pool = ok.length ? ok : points.filter(measured);
  if (!pool.length) return null;
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
      if (!b) return `— | every configuration skipped (${ps[0].skipped})`;
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
      p.skipped
        ? `| ${p.peer} | ${p.config} | ${filterName(p)} | ${num(p.matching)} | skipped | — | ` +
            `(~${num(1000 / p.probe_ms, 1)}) | — | — | ${planLabel(p)}; ${p.skipped} |`
        : `| ${p.peer} | ${p.config} | ${filterName(p)} | ${num(p.matching)} | ${p.recall.toFixed(3)} | ${p.short_results} | ` +
            `${num(p.qps)} | ${num(p.p99_ms, 1)} | ${p.cpu?.busy_cores ?? '—'} | ${planLabel(p)} |`,
    );
  if (points.some((p) => p.skipped))
    out.push(
      '',
      'A skipped point was not measured: its first 3 queries said it would take longer than the point budget; the QPS in ' +
        'brackets is 1 / the mean time of those 3 queries, not a measurement of the point.',
    );
  out.push('');
  // Passes of a point that disagree (steady-state.mjs): a busy machine or a slow start.
  const warnings = warningsOf(
    points.filter(measured).map((p) =>
      checkPasses(p.passes_qps, {
        label: `${p.peer} ${p.config} ${filterName(p)}`,
        code: p.peer === 'pglite' ? 'wasm' : 'native',
      }),
    ),
  );
  if (warnings.length)
    out.push(
      `**Passes that disagree** (${warnings.length} of ${points.filter(measured).length} measured points):`,
      '',
      ...warnings.map((x) => `- ${x}`),
      '',
    );
  const markdown = out.join('\n');

  // Small multiples as in report.mjs (Quiver's own figures), so the two line up: one panel per
  // filter kind, x = selectivity (log), y = recall@10 or QPS (log), one line per configuration.
  const shown = points.filter(measured);
  const recallMin = Math.floor(Math.min(0.8, ...shown.map((p) => p.recall)) * 20) / 20;
  const qpsAll = shown.map((p) => p.qps).filter((x) => x > 0);
  const recallSvg = selectivityPlot(shown, (p) => p.recall, 'recall@10', recallMin, 1, false, w);
  const qpsSvg = selectivityPlot(
    shown,
    (p) => p.qps,
    'QPS (log)',
    10 ** Math.floor(Math.log10(Math.min(...qpsAll))),
    10 ** Math.ceil(Math.log10(Math.max(...qpsAll))),
    true,
    w,
  );
  const stem = file ? basename(file).replace(/\.json$/, '') : 'peers';
  const markdownWithPlots =
    markdown + `\n![recall@10 by selectivity](${stem}-recall.svg)\n\n![QPS by selectivity](${stem}-qps.svg)\n`;
  if (file) {
    writeFileSync(file.replace(/\.json$/, '.md'), markdownWithPlots);
    writeFileSync(file.replace(/\.json$/, '-recall.svg'), recallSvg);
    writeFileSync(file.replace(/\.json$/, '-qps.svg'), qpsSvg);
  }
  return { markdown: markdownWithPlots, recallSvg, qpsSvg };
}

// Panels random / correlated / tenant side by side, a legend under them naming every
// configuration (pgvector solid, LanceDB dashed with hollow markers).
function selectivityPlot(points, yOf, yLabel, yMin, yMax, logY, w) {
  const kinds = ['random', 'correlated', 'tenant'];
  const configs = [...new Set(points.map(configName))];
  const pw = 300,
    ph = 210,
    pad = { l: 56, r: 24, t: 30, b: 42 };
  const cellW = pw + pad.l + pad.r;
  const legendH = 16 * configs.length + 14;
  const W = kinds.length * cellW,
    H = ph + pad.t + pad.b + legendH + 10;
  const xOf = (s) => (Math.log10(s) + 3) / 3; // 0.1 % .. 100 %
  const yFrac = (v) => {
    const f = logY
      ? (Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))
      : (v - yMin) / (yMax - yMin);
    return Math.min(1, Math.max(0, f));
  };
  const style = (i, name) => ({
    color: COLORS[i % COLORS.length],
    marker: SHAPES[(Math.floor(i / COLORS.length) + i) % SHAPES.length],
    dash: name.startsWith('LanceDB') ? ' stroke-dasharray="5 3"' : '',
    hollow: name.startsWith('LanceDB'),
  });
  const mark = (shape, x, y, color, hollow) => {
    const r = 4,
      paint = `fill="${hollow ? 'white' : color}" stroke="${color}" stroke-width="1.3"`;
    if (shape === 'square') return `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" ${paint}/>`;
    if (shape === 'triangle') return `<path d="M${x},${y - r} L${x + r},${y + r} L${x - r},${y + r} Z" ${paint}/>`;
    if (shape === 'diamond')
      return `<path d="M${x},${y - r} L${x + r},${y} L${x},${y + r} L${x - r},${y} Z" ${paint}/>`;
    if (shape === 'triangle-down') return `<path d="M${x},${y + r} L${x + r},${y - r} L${x - r},${y - r} Z" ${paint}/>`;
    return `<circle cx="${x}" cy="${y}" r="${r}" ${paint}/>`;
  };
  const f1 = (x) => x.toFixed(1);
  let svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">\n` +
    '<rect width="100%" height="100%" fill="white"/>\n';
  kinds.forEach((kind, ki) => {
    const ox = ki * cellW + pad.l,
      oy = pad.t;
    svg += `<text x="${ox + pw / 2}" y="${oy - 12}" text-anchor="middle" font-weight="bold">peers — ${kind} (${num(w.rows)} x ${w.dim})</text>\n`;
    svg += `<rect x="${ox}" y="${oy}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>\n`;
    for (const sel of [0.001, 0.01, 0.1, 1]) {
      const x = ox + xOf(sel) * pw;
      svg += `<line x1="${f1(x)}" y1="${oy}" x2="${f1(x)}" y2="${oy + ph}" stroke="#eee"/><text x="${f1(x)}" y="${oy + ph + 14}" text-anchor="middle">${pct(sel)}</text>\n`;
    }
    const ticks = logY
      ? Array.from({ length: Math.round(Math.log10(yMax / yMin)) + 1 }, (_, i) => yMin * 10 ** i)
      : [yMin, (yMin + yMax) / 2, yMax];
    for (const v of ticks) {
      const y = oy + ph - yFrac(v) * ph;
      svg += `<line x1="${ox}" y1="${f1(y)}" x2="${ox + pw}" y2="${f1(y)}" stroke="#f2f2f2"/><text x="${ox - 4}" y="${f1(y + 4)}" text-anchor="end">${num(+v.toPrecision(3), 3)}</text>\n`;
    }
    if (!logY && yMin < GOOD_RECALL) {
      const y = oy + ph - yFrac(GOOD_RECALL) * ph;
      svg += `<line x1="${ox}" y1="${f1(y)}" x2="${ox + pw}" y2="${f1(y)}" stroke="#444" stroke-dasharray="4 3"/>\n`;
    }
    svg += `<text x="${ox + pw / 2}" y="${oy + ph + 32}" text-anchor="middle">selectivity</text>\n`;
    svg += `<text transform="translate(${ox - 42},${oy + ph / 2}) rotate(-90)" text-anchor="middle">${yLabel}</text>\n`;
    configs.forEach((name, ci) => {
      const st = style(ci, name);
      const pts = points
        .filter((p) => configName(p) === name && p.filter_kind === kind)
        .sort((a, b) => a.selectivity - b.selectivity);
      if (!pts.length) return;
      const xy = pts.map((p) => [ox + xOf(p.selectivity) * pw, oy + ph - yFrac(yOf(p)) * ph]);
      svg += `<g class="series" data-name="${name}" data-color="${st.color}" data-marker="${st.marker}"><polyline fill="none" stroke="${st.color}" stroke-width="1.5"${st.dash} points="${xy.map(([x, y]) => `${f1(x)},${f1(y)}`).join(' ')}"/>`;
      for (const [x, y] of xy) svg += mark(st.marker, f1(x), f1(y), st.color, st.hollow);
      svg += '</g>\n';
    });
  });
  const ly = ph + pad.t + pad.b + 4;
  svg += `<g class="legend"><rect x="${pad.l}" y="${ly}" width="${W - 2 * pad.l}" height="${legendH}" fill="white" stroke="#999"/>`;
  configs.forEach((name, ci) => {
    const st = style(ci, name),
      y = ly + 16 + ci * 16;
    svg += `<line x1="${pad.l + 10}" y1="${y - 4}" x2="${pad.l + 34}" y2="${y - 4}" stroke="${st.color}" stroke-width="1.5"${st.dash}/>${mark(st.marker, pad.l + 22, y - 4, st.color, st.hollow)}<text x="${pad.l + 42}" y="${y}">${name}</text>`;
  });
  return svg + '</g>\n</svg>\n';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/filtered/peers-report.mjs RESULTS.json\n');
    process.exit(2);
  }
  process.stdout.write(renderReport(JSON.parse(readFileSync(file, 'utf8')), file).markdown);
}
