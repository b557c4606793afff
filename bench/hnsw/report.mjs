// Renders an HNSW benchmark result (bench/hnsw/run.mjs) as Markdown and an SVG plot next to it:
//   node bench/hnsw/report.mjs bench/hnsw/results/hnsw-<stamp>.json
// Markdown: machine, load and commit; build time and memory per (target, ISA, storage, build
// threads); the ef sweep (recall@10, single-thread QPS, mean / p99 latency) per workload; QPS at
// recall@10 = 0.95 per series and the wasm / native ratios. SVG: QPS against recall@10, one line
// per series, one panel per workload.
import { readFileSync, writeFileSync } from 'node:fs';
import { recallQpsSvg } from '../common/recall-qps-svg.mjs';

const path = process.argv[2];
if (!path) {
  console.error('usage: node bench/hnsw/report.mjs bench/hnsw/results/hnsw-<stamp>.json');
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
md.push(
  `Machine: \`${m.host}\`, ${m.cpu}, ${m.cpus} logical CPUs, ${m.memory_gib} GiB, ${m.os}, Node ${m.node}. ` +
    `Commit \`${report.commit}\`, ${report.date}.`,
  '',
);
md.push(
  'Runs (one process each; load average = 1-minute value before → after; busy / stolen = cores the whole machine ran / lost to other guests on average during the run):',
  '',
);
md.push('| run | knobs | seconds | load | busy / stolen cores |', '|:--|:--|--:|--:|--:|');
for (const r of report.runs) {
  const knobs = Object.entries(r.knobs)
    .map(([k, v]) => `${k.replace('QUIVER_BENCH_', '')}=${v}`)
    .join(' ');
  const cpu = r.busy_cores === undefined ? '—' : `${r.busy_cores.toFixed(2)} / ${r.steal_cores.toFixed(2)}`;
  md.push(
    `| ${r.name} | ${knobs} | ${fmt(r.seconds)} | ${r.load_before.toFixed(1)} → ${r.load_after.toFixed(1)} | ${cpu} |`,
  );
}
if (report.wasm_node_flags)
  md.push(
    '',
    `Wasm processes ran with \`node ${report.wasm_node_flags.join(' ')}\` (every function compiled by TurboFan up front).`,
  );
// Steady-state warnings (bench/common/steady-state.mjs): passes of one point that disagree, simd vs simd-mt.
if (report.warnings?.length) {
  md.push(
    '',
    `**Warning: ${report.warnings.length} figure(s) not steady** — rerun before quoting them:`,
    '',
    ...report.warnings.map((w) => `- ${w}`),
  );
}
md.push(
  '',
  'Storage: `f32` = vectors in the graph; `sq8` = 8-bit codes in the graph, f32 vectors kept and the final candidates reranked exactly; `sq8-codes` = codes only; a `+nbr` suffix = with neighbour codes beside the level-0 links (neighbor_codes).',
  '',
);

md.push(
  '## Build',
  '',
  '| workload | rows | target | ISA | storage | build threads | build s | vectors/s | bytes/vector | max level |',
  '|:--|--:|:--|:--|:--|--:|--:|--:|--:|--:|',
);
for (const r of rows.filter((r) => r.kind === 'hnsw_build')) {
  md.push(
    `| ${r.workload} | ${fmt(r.rows)} | ${r.target === 'native' ? 'native' : `wasm ${r.variant}`} | ${r.isa} | ${r.storage} | ${r.build_threads} | ` +
      `${fmt(r.build_s, 1)} | ${fmt(r.vectors_per_s)} | ${fmt(r.bytes_per_vector)} | ${r.max_level} |`,
  );
}

const summaries = rows.filter((r) => r.kind === 'hnsw_summary');
md.push(
  '',
  '## QPS at recall@10 = 0.95 (single thread, interpolated between swept ef values)',
  '',
  '| workload | series | bytes/vector | QPS at 0.95 | smallest swept ef reaching 0.95 |',
  '|:--|:--|--:|--:|--:|',
);
for (const s of summaries) {
  const q = s.qps_at_recall_95_interpolated;
  md.push(
    `| ${s.workload} | ${series(s)} | ${fmt(s.bytes_per_vector)} | ${q > 0 ? fmt(q) : 'not reached'} | ${s.ef_at_recall_95 || '—'} |`,
  );
}
// Ratios: each wasm series against the best native series of the same workload and storage.
const ratios = [];
for (const s of summaries.filter((s) => s.target !== 'native' && s.qps_at_recall_95_interpolated > 0)) {
  const natives = summaries.filter(
    (n) =>
      n.target === 'native' &&
      n.workload === s.workload &&
      n.storage === s.storage &&
      n.qps_at_recall_95_interpolated > 0,
  );
  if (!natives.length) continue;
  const best = natives.reduce((a, b) => (a.qps_at_recall_95_interpolated >= b.qps_at_recall_95_interpolated ? a : b));
  ratios.push(
    `| ${s.workload} | ${s.storage} | ${series(s)} | native ${best.isa} | ${fmt(s.qps_at_recall_95_interpolated)} / ${fmt(best.qps_at_recall_95_interpolated)} | ${(s.qps_at_recall_95_interpolated / best.qps_at_recall_95_interpolated).toFixed(2)} |`,
  );
}
if (ratios.length) {
  md.push(
    '',
    '### wasm / native at recall@10 = 0.95',
    '',
    '| workload | storage | wasm | best native | QPS | ratio |',
    '|:--|:--|:--|:--|--:|--:|',
    ...ratios,
  );
}

for (const w of workloads) {
  const searches = rows.filter((r) => r.kind === 'hnsw_search' && r.workload === w);
  const names = [...new Set(searches.map(series))];
  const efs = [...new Set(searches.map((r) => r.ef))].sort((a, b) => a - b);
  md.push(
    '',
    `## ef sweep: ${w} (${fmt(searches[0]?.rows ?? 0)} × ${searches[0]?.dim}, ${searches[0]?.queries} queries, k = 10)`,
    '',
    'Each cell: recall@10 / QPS / mean µs / p99 µs.',
    '',
    `| ef | ${names.join(' | ')} |`,
    `|--:|${names.map(() => '--:').join('|')}|`,
  );
  for (const ef of efs) {
    const cells = names.map((n) => {
      const r = searches.find((x) => series(x) === n && x.ef === ef);
      return r ? `${r.recall.toFixed(3)} / ${fmt(r.qps)} / ${fmt(r.mean_us)} / ${fmt(r.p99_us)}` : '—';
    });
    md.push(`| ${ef} | ${cells.join(' | ')} |`);
  }
}
writeFileSync(path.replace(/\.json$/, '.md'), md.join('\n') + '\n');

// SVG: one panel per workload, x = recall@10, y = log10 QPS (bench/common/recall-qps-svg.mjs).
const svg = recallQpsSvg(
  workloads.map((w) => {
    const searches = rows.filter((r) => r.kind === 'hnsw_search' && r.workload === w);
    const names = [...new Set(searches.map(series))];
    return {
      title: `${w}: QPS (log) vs recall@10`,
      series: names.map((n) => ({
        name: n,
        points: searches.filter((r) => series(r) === n).sort((a, b) => a.ef - b.ef),
      })),
    };
  }),
);
writeFileSync(path.replace(/\.json$/, '.svg'), svg);
console.log(md.join('\n'));
