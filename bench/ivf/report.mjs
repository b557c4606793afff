// Markdown and SVG of a bench:ivf result file (bench/ivf/run.mjs writes both after a run;
// `node bench/ivf/report.mjs bench/ivf/results/ivf-….json` renders them again).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recallQpsSvg } from '../common/recall-qps-svg.mjs';

const f0 = (x) => (x == null ? '—' : Number(x).toLocaleString('en-US', { maximumFractionDigits: 0 }));
const f1 = (x) =>
  x == null ? '—' : Number(x).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const f3 = (x) => (x == null ? '—' : Number(x).toFixed(3));
const mib = (b) => (b == null ? '—' : `${(b / 2 ** 20).toFixed(1)} MiB`);

// One shape for every target: { label, builds, ivf, flat, hnsw }.
export function normalise(run) {
  const r = run.result;
  if (run.target === 'native') {
    const builds = r.lines
      .filter((l) => l.kind === 'ivf_build')
      .map((l) => ({
        threads: l.build_threads,
        build_s: l.build_s,
        memory_bytes: l.memory_bytes,
        bytes_per_vector: l.bytes_per_vector,
        peak_bytes: l.peak_bytes,
        peak_what: l.peak_what ?? 'RSS growth',
        lists: l.lists,
        default_probes: l.default_probes,
      }));
    const flat = r.lines.find((l) => l.kind === 'flat_search') ?? null;
    return { label: `native ${r.isa}`, builds, ivf: r.lines.filter((l) => l.kind === 'ivf_search'), flat, hnsw: null };
  }
  const where = run.target.startsWith('chromium') ? r.runtime : 'Node';
  const builds = r.builds.map((b) => ({ ...b, peak_bytes: b.heap_growth_bytes, peak_what: 'wasm heap growth' }));
  // Kernel forms the engine ran (q.kernelFeatures, e.g. relaxed-dot); results before it was
  // recorded have none and keep their old label.
  const features = r.kernelFeatures?.length ? `, ${r.kernelFeatures.join(' ')}` : '';
  return { label: `wasm ${r.variant} (${where}${features})`, builds, ivf: r.ivf, flat: r.flat, hnsw: r.hnsw };
}

// The first swept probes value reaching recall@10 0.95 (null if none); the default (adaptive)
// row is not a probes value and is reported beside it.
const at95 = (rows) => rows.find((x) => !x.default && x.recall >= 0.95) ?? null;
// The best setting at recall@10 >= 0.95: the fastest swept probes value reaching it.
const best95 = (rows) =>
  rows.filter((x) => !x.default && x.recall >= 0.95).reduce((a, x) => (a && a.qps >= x.qps ? a : x), null);
// What a query read (lists, vectors, bytes), from the native rows' stats: the same lists and
// blocks are read on every target (the answers are identical), so one count serves all.
const readOf = (x) =>
  x?.lists_per_query == null
    ? ''
    : ` [${x.lists_per_query.toFixed(1)} lists, ${f0(x.vectors_per_query)} vectors, ${f0(x.bytes_per_query / 1024)} KB]`;

// HNSW QPS at a given recall, linear in recall between the two swept ef around it (null when
// the sweep never reaches it).
export function hnswQpsAt(hnswRows, recall) {
  for (let i = 0; i < hnswRows.length; i++) {
    const b = hnswRows[i];
    if (b.recall >= recall) {
      const a = hnswRows[i - 1];
      if (!a || b.recall === a.recall) return b.qps;
      return a.qps + ((b.qps - a.qps) * (recall - a.recall)) / (b.recall - a.recall);
    }
  }
  return null;
}

// The goals (issues 14 and 28), each checked against this run where it has the numbers (codes
// only; at the first probes value reaching recall@10 0.95, and at the default).
function goals(report) {
  const out = ['## Goals (issues 14 and 28), from this run', ''];
  const mark = (ok) => (ok ? 'met' : '**missed**');
  const nativeOf = (w) => {
    const run = report.runs.find((r) => r.workload === w.name && !r.error && r.target === 'native');
    return run ? normalise(run) : null;
  };
  for (const w of report.workloads) {
    const native = nativeOf(w);
    for (const run of report.runs.filter((r) => r.workload === w.name && !r.error)) {
      const n = normalise(run);
      const hit = at95(n.ivf);
      const best = best95(n.ivf);
      const def = n.ivf.find((x) => x.default);
      const b = n.builds[n.builds.length - 1];
      const checks = [`${f1(b.bytes_per_vector)} B/vector (≤ 400: ${mark(b.bytes_per_vector <= 400)})`];
      if (!hit) checks.push('recall@10 0.95 **not reached** in the sweep');
      if (def && w.rows >= 1e6) {
        const within = best ? best.qps / def.qps : null;
        checks.push(
          `default recall ${f3(def.recall)} (≥ 0.95: ${mark(def.recall >= 0.95)})` +
            (within == null
              ? ''
              : `, ${within.toFixed(2)}× slower than the best setting (≤ 1.3: ${mark(within <= 1.3)})`),
        );
      }
      const top = [def && def.recall >= 0.95 ? def : null, best].filter(Boolean).sort((x, y) => y.qps - x.qps)[0];
      if (top && w.rows >= 1e6 && run.target !== 'native') {
        const want = run.target.startsWith('chromium') ? 5000 : 3000;
        checks.push(`${f0(top.qps)} QPS one thread at ≥ 0.95 (≥ ${f0(want)}: ${mark(top.qps >= want)})`);
        if (n.flat) checks.push(`${f1(top.qps / n.flat.qps)}× flat (≥ 100: ${mark(top.qps / n.flat.qps >= 100)})`);
        const nat = native ? [native.ivf.find((x) => x.default), best95(native.ivf)] : [];
        const natTop = nat.filter((x) => x && x.recall >= 0.95).sort((x, y) => y.qps - x.qps)[0];
        if (natTop)
          checks.push(`${(top.qps / natTop.qps).toFixed(2)}× native (≥ 0.6: ${mark(top.qps / natTop.qps >= 0.6)})`);
      }
      const two = n.builds.find((x) => x.threads === 2);
      if (w.rows >= 1e6 && two)
        checks.push(`build ${two.build_s.toFixed(0)} s on 2 threads (≤ 120: ${mark(two.build_s <= 120)})`);
      if (hit && n.hnsw) {
        const hq = hnswQpsAt(n.hnsw.rows, hit.recall);
        checks.push(
          hq == null
            ? 'HNSW never reached that recall in its sweep'
            : `${f1(hit.qps / hq)}× HNSW QPS at recall ${f3(hit.recall)} (≥ 2: ${mark(hit.qps / hq >= 2)})`,
        );
        const ratio = b.bytes_per_vector / n.hnsw.bytes_per_vector;
        checks.push(`memory ${ratio.toFixed(2)} of HNSW's (≤ 0.25: ${mark(ratio <= 0.25)})`);
      }
      out.push(`- ${w.name}, ${n.label}: ${checks.join('; ')}.`);
    }
  }
  out.push('');
  return out;
}

// The codes of the run's workloads: "4-bit fast-scan codes + 3-bit refine plane", per workload when
// they differ (and from knobs.index in results written before the codes were per part).
function codesOf(report) {
  const text = (b, r) => `${b}-bit fast-scan codes + ${r}-bit refine plane`;
  const per = report.workloads.map((w) => [
    w.name,
    w.bits ?? report.knobs.index.bits,
    w.refine_bits ?? report.knobs.index.refineBits,
  ]);
  const distinct = new Set(per.map(([, b, r]) => `${b}+${r}`));
  if (distinct.size <= 1) return text(per[0]?.[1], per[0]?.[2]);
  return per.map(([n, b, r]) => `${n}: ${text(b, r)}`).join('; ');
}

export function renderIvfReport(report, name) {
  const md = [];
  const m = report.machine;
  md.push(
    `# Partitioned quantised index (${name})`,
    '',
    `Commit ${report.commit}, ${report.date}${report.quick ? ' — QUICK smoke run, not a measurement' : ''}. ` +
      `${m.cpu}, ${m.cpus} CPUs, ${m.memory_gib} GiB, ${m.os}, Node ${m.node}${m.chromium ? `, Chromium ${m.chromium}` : ''}; ` +
      `load average ${m.load_average_start?.map((x) => x.toFixed(2)).join(' / ') ?? '?'} at the start, ` +
      `${m.load_average_end?.map((x) => x.toFixed(2)).join(' / ')} at the end.`,
    '',
    `Index: ${codesOf(report)}, no f32 vectors, ` +
      `lists '${report.knobs.index.lists}', metric ${report.knobs.index.metric}, k = 10. QPS: one thread, one query per call ` +
      `(at least ${report.knobs.seconds} s per figure); batch: searchBatch / search_batch over all queries on the pool ` +
      `(threads in brackets). HNSW: f32, M ${report.knobs.hnsw.M}, efConstruction ${report.knobs.hnsw.efConstruction}.`,
    '',
  );
  const panels = [];
  for (const w of report.workloads) {
    const all = report.runs.filter((r) => r.workload === w.name);
    const runs = all.filter((r) => !r.error);
    for (const r of all.filter((x) => x.error)) md.push(`**${w.name}, ${r.target} failed:** ${r.error}`, '');
    if (!runs.length) continue;
    const norm = runs.map((r) => ({ run: r, ...normalise(r) }));
    md.push(`## ${w.name}: ${w.rows.toLocaleString('en-US')} × ${w.dim}, ${w.queries} queries`, '');
    // Summary: one row per target.
    md.push(
      '| target | build s (threads) | lists | B/vector | peak memory | default (adaptive): recall / QPS / batch QPS | first probes ≥ 0.95: probes / recall / QPS | flat QPS | × flat | HNSW QPS at that recall | × HNSW | HNSW B/vector |',
      '|---|---|--:|--:|--:|---|---|--:|--:|--:|--:|--:|',
    );
    for (const n of norm) {
      const b = n.builds[n.builds.length - 1];
      const def = n.ivf.find((x) => x.default);
      const hit = at95(n.ivf);
      const hq = n.hnsw && hit ? hnswQpsAt(n.hnsw.rows, hit.recall) : null;
      md.push(
        `| ${n.label} | ${n.builds.map((x) => `${x.build_s.toFixed(2)} (${x.threads})`).join(', ')} | ${b.lists} | ${f1(b.bytes_per_vector)} | ` +
          `${mib(b.peak_bytes)} (${b.peak_what}) | ${def ? `${f3(def.recall)} / ${f0(def.qps)} / ${f0(def.batch_qps)} (${def.batch_threads})` : '—'} | ` +
          `${hit ? `${hit.probes} / ${f3(hit.recall)} / ${f0(hit.qps)}` : 'not reached'} | ${n.flat ? f1(n.flat.qps) : '—'} | ` +
          `${n.flat && hit ? f1(hit.qps / n.flat.qps) : '—'} | ${hq == null ? '—' : f0(hq)} | ${hq ? f1(hit.qps / hq) : '—'} | ` +
          `${n.hnsw ? `${f1(n.hnsw.bytes_per_vector)} (${f1(n.hnsw.bytes_per_vector / b.bytes_per_vector)}× this)` : '—'} |`,
      );
    }
    md.push('');
    // The sweep: one row per probes value, one column group per target.
    md.push(
      `Recall@10 and QPS (one query per call; batch) by probes, and what a query read (lists, vectors, KB: native stats, the same on every target):`,
      '',
      `| probes | ${norm.map((n) => n.label).join(' | ')} | read a query (native) |`,
      `|--:|${norm.map(() => '---').join('|')}|---|`,
    );
    const probes = [...new Set(norm.flatMap((n) => n.ivf.filter((x) => !x.default).map((x) => x.probes)))].sort(
      (a, b) => a - b,
    );
    const nativeRows = norm.find((n) => n.run.target === 'native')?.ivf ?? [];
    const row = (label, pick) =>
      md.push(
        `| ${label} | ` +
          norm
            .map((n) => {
              const x = pick(n.ivf);
              return x ? `${f3(x.recall)}: ${f0(x.qps)}; ${f0(x.batch_qps)}` : '—';
            })
            .join(' | ') +
          ` | ${readOf(pick(nativeRows)).replace(/^ \[|\]$/g, '') || '—'} |`,
      );
    for (const p of probes) row(String(p), (rows) => rows.find((y) => y.probes === p && !y.default));
    if (norm.some((n) => n.ivf.some((x) => x.default)))
      row('default (adaptive)', (rows) => rows.find((y) => y.default));
    md.push('');
    for (const n of norm.filter((x) => x.hnsw)) {
      md.push(
        `HNSW, ${n.label}: built in ${n.hnsw.build_s.toFixed(1)} s (${n.hnsw.threads} threads), ${f1(n.hnsw.bytes_per_vector)} B/vector; ` +
          n.hnsw.rows.map((x) => `ef ${x.ef}: ${f3(x.recall)} / ${f0(x.qps)} QPS`).join(', ') +
          '.',
        '',
      );
    }
    const series = [];
    for (const n of norm) {
      // In recall order: the default row (adaptive) sits between the probes values.
      series.push({
        name: `ivf ${n.label}`,
        points: n.ivf.map((x) => ({ recall: x.recall, qps: x.qps })).sort((a, b) => a.recall - b.recall),
      });
      if (n.hnsw)
        series.push({ name: `hnsw ${n.label}`, points: n.hnsw.rows.map((x) => ({ recall: x.recall, qps: x.qps })) });
      if (n.flat) series.push({ name: `flat ${n.label}`, points: [{ recall: n.flat.recall, qps: n.flat.qps }] });
    }
    panels.push({ title: `${w.name} (${w.rows.toLocaleString('en-US')} × ${w.dim})`, series });
  }
  md.push(...goals(report));
  return { markdown: md.join('\n'), svg: recallQpsSvg(panels, { legend: 'right' }) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = process.argv[2];
  const { markdown, svg } = renderIvfReport(JSON.parse(readFileSync(path, 'utf8')), basename(path, '.json'));
  writeFileSync(path.replace(/\.json$/, '.md'), markdown);
  writeFileSync(path.replace(/\.json$/, '.svg'), svg);
  process.stdout.write(`${markdown}\n`);
}
