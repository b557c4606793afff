// Renders a peers run (run.mjs) next to its JSON:
//   node bench/peers/report.mjs bench/peers/results/peers-<stamp>.json
// <stem>.md: machine, load, commit; install status of every peer; per workload the headline
// table — for each library and index, the first swept setting with recall@10 ≥ 0.95 (or its best
// recall when none reaches it), with build time, memory and batch QPS — then every swept point,
// and each library's noted quirks. Plots, QPS (log) against recall@10 (lib/plot.mjs):
// <stem>-<workload>.svg one line per library, its best configuration (lib/plot.mjs BEST_RULE);
// <stem>-<workload>-all.svg every configuration. Rendering is all this does: run it again on a
// committed JSON to redraw its .md and plots, nothing is measured.
// A partial file (a run that stopped, to be resumed with RESUME=) renders what it holds and
// lists the job x workload pairs still to run.
import { readFileSync, writeFileSync } from 'node:fs';
import { BEST_RULE, TARGET, peerPanels, renderPanel } from './lib/plot.mjs';
import { missingPairs } from './lib/progress.mjs';
import { estimateTable } from './lib/estimate.mjs';
import { workloadList } from './lib/data.mjs';

const path = process.argv[2];
if (!path) {
  console.error('usage: node bench/peers/report.mjs bench/peers/results/peers-<stamp>.json');
  process.exit(2);
}
const report = JSON.parse(readFileSync(path, 'utf8'));
const stem = path.replace(/\.json$/, '');
const name = stem.split('/').pop();
const fmt = (x, d = 0) =>
  x == null || Number.isNaN(x)
    ? '—'
    : Number(x).toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const mib = (b) => (b == null ? '—' : `${fmt(b / 2 ** 20, 1)} MiB`);
const label = (r) => `${r.library} ${r.target}`;
const setting = (row) => (row.param ? `${row.param} ${row.value}` : '—');

const md = [`# Peers: Quiver and the libraries users pick instead (${name})`, ''];
if (report.quick)
  md.push('**QUICK run (2,000-row workloads): a smoke test of the harness; the numbers mean nothing.**', '');
// Files from before `jobs` was recorded: the jobs that appear in them.
const jobNames = report.jobs ?? [...new Set(report.results.map((r) => r.job))];
const missing = missingPairs(
  report.results,
  jobNames,
  report.workloads.map((w) => w.name),
);
if (missing.length) {
  md.push(
    `**Partial run: ${report.results.length} of ${report.results.length + missing.length} job × workload pairs done.** ` +
      `Not run yet: ${missing.map((p) => `${p.job} on ${p.workload}`).join(', ')} (\`RESUME=${path} npm run bench:peers\` runs them).`,
    '',
  );
}
for (const s of report.resumed ?? []) {
  md.push(
    `Resumed ${s.date} on \`${s.host}\` at commit \`${s.commit}\` (${s.skipped} pairs already done${s.retry_failed ? ', failed ones run again' : ''}).`,
    '',
  );
}
const m = report.machine;
md.push(
  `Machine: \`${m.host}\`, ${m.cpu}, ${m.cpus} logical CPUs, ${m.memory_gib} GiB, ${m.os}, Node ${m.node}, ` +
    `native ISA ${m.native_isa}. Commit \`${report.commit}\`, ${report.date}.`,
  '',
);
const kn = report.knobs;
md.push(
  `Knobs: k = ${kn.k}, M ${kn.M}, efConstruction ${kn.efConstruction} wherever a library has them; ` +
    `ef swept over ${kn.ef_values.join(', ')}; metric ${kn.metric}. Recall@10 is computed by the harness from the ids ` +
    'each library returns, against exact ground truth (`quiver gen`, cached).',
  '',
);
md.push('Install status (bench/peers/install.mjs):', '', '| peer | status |', '|:--|:--|');
for (const [peer, s] of Object.entries(report.install)) md.push(`| ${peer} | ${s} |`);
md.push('');

const svgs = [];
for (const w of report.workloads) {
  const runs = report.results.filter((r) => r.workload === w.name);
  md.push(`## ${w.name}: ${fmt(w.rows)} × ${w.dim}, ${fmt(w.queries)} queries`, '');
  md.push(
    `Headline: per library and index, the first swept setting with recall@10 ≥ ${TARGET} (in sweep order; ` +
      '"not reached" gives the best point). QPS: one query per call, one thread; batch: the library\'s batch call or ' +
      'parallel queries, with its thread count. Build: seconds with 1 thread / all threads. Memory: RSS growth over ' +
      'the first build (peak RSS of the build process for native Quiver) / size the library reports (wasm: and the ' +
      'wasm memory size after the build, which includes earlier indexes of the same process: it never shrinks).',
    '',
  );
  md.push(
    '| library | target | index | setting | recall@10 | QPS | mean µs | p99 µs | batch QPS (threads) | build s (1 / all) | RSS / reported | bytes/vector |',
    '|:--|:--|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const p of missing.filter((x) => x.workload === w.name)) {
    md.push(`| ${p.job} | — | — | not run yet | — | — | — | — | — | — | — | — |`);
  }
  for (const r of runs) {
    if (r.status !== 'ok') {
      md.push(`| ${r.job} | — | — | **failed** | — | — | — | — | — | — | — | ${r.reason.replace(/\|/g, '/')} |`);
      continue;
    }
    for (const c of r.configs) {
      const hit = c.rows.find((x) => x.recall >= TARGET);
      const best = c.rows.reduce((a, b) => (b.recall > a.recall ? b : a), c.rows[0]);
      const p = hit ?? best;
      const b1 = c.builds[0];
      const buildS = c.builds.map((b) => fmt(b.build_s, 2)).join(' / ') + (c.builds.length === 1 ? ' / —' : '');
      const memory =
        `${mib(b1.rss_delta_bytes ?? b1.peak_rss_bytes)} / ${mib(b1.library_bytes)}` +
        (b1.wasm_heap_bytes ? ` (heap ${mib(b1.wasm_heap_bytes)})` : '');
      const batch = p.batch.map((b) => `${fmt(b.qps)} (${b.threads})`).join(', ') || '—';
      md.push(
        `| ${r.library} | ${r.target} | ${c.config} | ${hit ? setting(p) : p.param ? `not reached (best: ${setting(p)})` : 'not reached (one setting)'} | ` +
          `${p.recall.toFixed(3)} | ${fmt(p.qps)} | ${fmt(p.mean_us, 1)} | ${fmt(p.p99_us, 1)} | ${batch} | ${buildS} | ${memory} | ` +
          `${b1.library_bytes ? fmt(b1.library_bytes / w.rows) : '—'} |`,
      );
    }
  }
  const plotted = runs.some((r) => r.status === 'ok' && r.configs?.length);
  const panels = plotted ? peerPanels(report, w, runs, { allFile: `${name}-${w.name}-all.svg` }) : null;
  if (panels) {
    md.push(
      '',
      `Plots: [${name}-${w.name}.svg](${name}-${w.name}.svg) — one line per library (each Quiver target counts as one), ` +
        `its best configuration: ${BEST_RULE}; [${name}-${w.name}-all.svg](${name}-${w.name}-all.svg) — every configuration. ` +
        `Best configurations: ${panels.main.series.map((s) => s.name).join('; ')}.`,
      '',
    );
  } else md.push('');
  md.push(
    '<details><summary>Every swept point</summary>',
    '',
    '| library | target | index | setting | recall@10 | QPS | mean µs | p99 µs | batch QPS (threads) |',
    '|:--|:--|:--|:--|--:|--:|--:|--:|--:|',
  );
  for (const r of runs.filter((x) => x.status === 'ok')) {
    for (const c of r.configs) {
      for (const x of c.rows) {
        md.push(
          `| ${r.library} | ${r.target} | ${c.config} | ${setting(x)} | ${x.recall.toFixed(3)} | ${fmt(x.qps)} | ` +
            `${fmt(x.mean_us, 1)} | ${fmt(x.p99_us, 1)} | ${x.batch.map((b) => `${fmt(b.qps)} (${b.threads})`).join(', ') || '—'} |`,
        );
      }
    }
  }
  md.push('', '</details>', '');
  if (panels) {
    const { main, all } = panels;
    writeFileSync(`${stem}-${w.name}.svg`, renderPanel(main));
    writeFileSync(`${stem}-${w.name}-all.svg`, renderPanel(all));
    svgs.push(`${stem}-${w.name}.svg`, `${stem}-${w.name}-all.svg`);
  }
}

md.push('## Notes per library (quirks handled by the adapters in bench/peers/adapters/)', '');
const seen = new Set();
for (const r of report.results.filter((x) => x.status === 'ok')) {
  const key = label(r);
  if (seen.has(key)) continue;
  seen.add(key);
  md.push(`- **${key}** (${r.version}): ${r.notes.join('; ')}.`);
}
md.push(
  '',
  'Runs (seconds; 1-minute load average before → after):',
  '',
  '| job | workload | status | seconds | load |',
  '|:--|:--|:--|--:|--:|',
);
const load = (l) => (l ? l[0].toFixed(1) : '—');
for (const r of report.results) {
  md.push(
    `| ${r.job} | ${r.workload} | ${r.status} | ${fmt(r.seconds, 1)} | ${load(r.load_before)} → ${load(r.load_after)} |`,
  );
}
if (report.full_run_estimate) {
  md.push(
    '',
    'Estimated duration of the full run per job, from this QUICK run (rough model: bench/peers/lib/estimate.mjs):',
    '',
    estimateTable(
      report.full_run_estimate,
      workloadList(false).map((w) => w.name),
    ),
  );
}
writeFileSync(`${stem}.md`, md.join('\n') + '\n');
console.log(`wrote ${stem}.md and ${svgs.length} plot(s)`);
