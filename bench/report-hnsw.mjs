// Renders an HNSW benchmark result (bench/run-hnsw.mjs) as Markdown and an SVG plot next to it:
//   node bench/report-hnsw.mjs bench/results/hnsw-<stamp>.json
// Markdown: machine, load and commit; build time and memory per (target, ISA, storage, build
// threads); the ef sweep (recall@10, single-thread QPS, mean / p99 latency) per workload; QPS at
// recall@10 = 0.95 per series and the wasm / native ratios. SVG: QPS against recall@10, one line
// per series, one panel per workload.
import { readFileSync, writeFileSync } from 'node:fs';

const path = process.argv[2];
if (!path) {
  console.error('usage: node bench/report-hnsw.mjs bench/results/hnsw-<stamp>.json');
  process.exit(2);
}
const report = JSON.parse(readFileSync(path, 'utf8'));
const rows = report.rows;
const fmt = (x, d = 0) => Number(x).toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const series = (r) => `${r.target === 'native' ? 'native' : `wasm ${r.variant}`} ${r.isa} ${r.storage}`;
const workloads = [...new Set(rows.map((r) => r.workload))];

const md = [];
md.push(`# HNSW (${path.split('/').pop().replace('.json', '')})`, '');
const m = report.machine;
md.push(`Machine: \`${m.host}\`, ${m.cpu}, ${m.cpus} logical CPUs, ${m.memory_gib} GiB, ${m.os}, Node ${m.node}. ` +
  `Commit \`${report.commit}\`, ${report.date}.`, '');
md.push('Runs (one process each; load average = 1-minute value before → after):', '');
md.push('| run | knobs | seconds | load |', '|:--|:--|--:|--:|');
for (const r of report.runs) {
  const knobs = Object.entries(r.knobs).map(([k, v]) => `${k.replace('QUIVER_BENCH_', '')}=${v}`).join(' ');
  md.push(`| ${r.name} | ${knobs} | ${fmt(r.seconds)} | ${r.load_before.toFixed(1)} → ${r.load_after.toFixed(1)} |`);
}
md.push('', 'Storage: `f32` = vectors in the graph; `sq8` = 8-bit codes in the graph, f32 vectors kept and the final candidates reranked exactly; `sq8-codes` = codes only.', '');

md.push('## Build', '', '| workload | rows | target | ISA | storage | build threads | build s | vectors/s | bytes/vector | max level |',
  '|:--|--:|:--|:--|:--|--:|--:|--:|--:|--:|');
for (const r of rows.filter((r) => r.kind === 'hnsw_build')) {
  md.push(`| ${r.workload} | ${fmt(r.rows)} | ${r.target === 'native' ? 'native' : `wasm ${r.variant}`} | ${r.isa} | ${r.storage} | ${r.build_threads} | ` +
    `${fmt(r.build_s, 1)} | ${fmt(r.vectors_per_s)} | ${fmt(r.bytes_per_vector)} | ${r.max_level} |`);
}

const summaries = rows.filter((r) => r.kind === 'hnsw_summary');
md.push('', '## QPS at recall@10 = 0.95 (single thread, interpolated between swept ef values)', '',
  '| workload | series | bytes/vector | QPS at 0.95 | smallest swept ef reaching 0.95 |', '|:--|:--|--:|--:|--:|');
for (const s of summaries) {
  const q = s.qps_at_recall_95_interpolated;
  md.push(`| ${s.workload} | ${series(s)} | ${fmt(s.bytes_per_vector)} | ${q > 0 ? fmt(q) : 'not reached'} | ${s.ef_at_recall_95 || '—'} |`);
}
// Ratios: each wasm series against the best native series of the same workload and storage.
const ratios = [];
for (const s of summaries.filter((s) => s.target !== 'native' && s.qps_at_recall_95_interpolated > 0)) {
  const natives = summaries.filter((n) => n.target === 'native' && n.workload === s.workload && n.storage === s.storage &&
    n.qps_at_recall_95_interpolated > 0);
  if (!natives.length) continue;
  const best = natives.reduce((a, b) => (a.qps_at_recall_95_interpolated >= b.qps_at_recall_95_interpolated ? a : b));
  ratios.push(`| ${s.workload} | ${s.storage} | ${series(s)} | native ${best.isa} | ${fmt(s.qps_at_recall_95_interpolated)} / ${fmt(best.qps_at_recall_95_interpolated)} | ${(s.qps_at_recall_95_interpolated / best.qps_at_recall_95_interpolated).toFixed(2)} |`);
}
if (ratios.length) {
  md.push('', '### wasm / native at recall@10 = 0.95', '', '| workload | storage | wasm | best native | QPS | ratio |', '|:--|:--|:--|:--|--:|--:|', ...ratios);
}

for (const w of workloads) {
  const searches = rows.filter((r) => r.kind === 'hnsw_search' && r.workload === w);
  const names = [...new Set(searches.map(series))];
  const efs = [...new Set(searches.map((r) => r.ef))].sort((a, b) => a - b);
  md.push('', `## ef sweep: ${w} (${fmt(searches[0]?.rows ?? 0)} × ${searches[0]?.dim}, ${searches[0]?.queries} queries, k = 10)`, '',
    'Each cell: recall@10 / QPS / mean µs / p99 µs.', '',
    `| ef | ${names.join(' | ')} |`, `|--:|${names.map(() => '--:').join('|')}|`);
  for (const ef of efs) {
    const cells = names.map((n) => {
      const r = searches.find((x) => series(x) === n && x.ef === ef);
      return r ? `${r.recall.toFixed(3)} / ${fmt(r.qps)} / ${fmt(r.mean_us)} / ${fmt(r.p99_us)}` : '—';
    });
    md.push(`| ${ef} | ${cells.join(' | ')} |`);
  }
}
writeFileSync(path.replace(/\.json$/, '.md'), md.join('\n') + '\n');

// SVG: one panel per workload, x = recall@10 (0.5 … 1), y = log10 QPS.
const W = 560, H = 380, pad = { l: 64, r: 16, t: 34, b: 46 };
const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const panels = [];
workloads.forEach((w, i) => {
  const searches = rows.filter((r) => r.kind === 'hnsw_search' && r.workload === w);
  const names = [...new Set(searches.map(series))];
  const xmin = Math.max(0, Math.floor(Math.min(...searches.map((r) => r.recall)) * 10) / 10), xmax = 1;
  const qps = searches.map((r) => r.qps).filter((q) => q > 0);
  const ymin = Math.floor(Math.log10(Math.min(...qps))), ymax = Math.ceil(Math.log10(Math.max(...qps)));
  const X = (x) => pad.l + ((x - xmin) / (xmax - xmin || 1)) * (W - pad.l - pad.r);
  const Y = (q) => H - pad.b - ((Math.log10(q) - ymin) / (ymax - ymin || 1)) * (H - pad.t - pad.b);
  const g = [`<g transform="translate(${i * W},0)">`, `<text x="${W / 2}" y="20" text-anchor="middle" font-weight="bold">${w}: QPS (log) vs recall@10</text>`];
  for (let e = ymin; e <= ymax; e++) {
    g.push(`<line x1="${pad.l}" x2="${W - pad.r}" y1="${Y(10 ** e)}" y2="${Y(10 ** e)}" stroke="#ddd"/>`,
      `<text x="${pad.l - 6}" y="${Y(10 ** e) + 4}" text-anchor="end">${fmt(10 ** e)}</text>`);
  }
  for (let x = xmin; x <= xmax + 1e-9; x += 0.1) {
    g.push(`<line x1="${X(x)}" x2="${X(x)}" y1="${pad.t}" y2="${H - pad.b}" stroke="#eee"/>`,
      `<text x="${X(x)}" y="${H - pad.b + 16}" text-anchor="middle">${x.toFixed(1)}</text>`);
  }
  g.push(`<line x1="${X(0.95)}" x2="${X(0.95)}" y1="${pad.t}" y2="${H - pad.b}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${W / 2}" y="${H - 8}" text-anchor="middle">recall@10</text>`);
  names.forEach((n, j) => {
    const pts = searches.filter((r) => series(r) === n && r.qps > 0).sort((a, b) => a.ef - b.ef);
    const c = colors[j % colors.length];
    g.push(`<polyline fill="none" stroke="${c}" stroke-width="1.8" points="${pts.map((r) => `${X(r.recall).toFixed(1)},${Y(r.qps).toFixed(1)}`).join(' ')}"/>`);
    g.push(`<text x="${pad.l + 8}" y="${pad.t + 14 + j * 14}" fill="${c}">${n}</text>`);
  });
  g.push('</g>');
  panels.push(g.join('\n'));
});
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W * workloads.length}" height="${H}" font-family="sans-serif" font-size="11">\n` +
  `<rect width="100%" height="100%" fill="white"/>\n${panels.join('\n')}\n</svg>\n`;
writeFileSync(path.replace(/\.json$/, '.svg'), svg);
console.log(md.join('\n'));
