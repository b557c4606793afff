// Renders a concurrent benchmark report (the object bench/concurrent/run.mjs writes as
// bench/concurrent/results/concurrent-*.json, and the browser page examples/bench/ as
// bench/browser/results/concurrent-browser-*.json) as Markdown and an SVG plot: QPS and
// speedup vs threads; native vs wasm under Node vs wasm in a browser; mutex vs nolock vs direct;
// batch search scaling. No Node APIs: the browser page imports it too.

const fmt = (x, d = 0) =>
  x === undefined || x === null || Number.isNaN(x)
    ? '—'
    : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const pct = (a, b) => (a && b ? `${((a / b - 1) * 100).toFixed(1)} %` : '—');

// name: the results file's stem, for the title and the "Plot / Raw data" line (files: false
// leaves that line out, as the browser page does for a session not saved yet).
export function renderReport(report, name = 'concurrent', { files = true } = {}) {
  const runs = report.concurrent ?? [];
  const targets = [...new Set(runs.map((r) => r.target))];
  const modes = [...new Set(runs.map((r) => r.mode))];
  const threads = [...new Set(runs.flatMap((r) => r.results.map((p) => p.threads)))].sort((a, b) => a - b);
  const get = (target, mode) => runs.find((r) => r.target === target && r.mode === mode);
  const point = (target, mode, t) => get(target, mode)?.results.find((p) => p.threads === t);
  const k = report.knobs;
  const first = runs[0] ?? {};
  const lines = [];
  const m = report.machine;
  lines.push(`# Concurrent k-NN: cache contention and scaling (${name})`, '');
  lines.push(
    `Machine: \`${m.host}\`, ${m.cpu}, ${m.cpus} logical CPUs, ${m.memory_gib} GiB, ${m.os}, Node ${m.node}. ` +
      `Commit \`${report.commit}\`${report.dirty ? ' (with uncommitted changes)' : ''}, ${report.timestamp}. ` +
      `Load average (1 min) before / after the run: ${m.loadavg_before ?? '?'} / ${m.loadavg_after ?? '?'}.`,
    '',
  );
  if (report.target) {
    lines.push(
      `Target: \`${report.target}\`, the page examples/bench/ (main() on a pthread, ` +
        `${m.hardware_concurrency ?? '?'} CPUs reported by the browser).`,
      '',
    );
  }
  const b = report.browser_source;
  if (b) {
    lines.push(
      `Runs \`wasm-browser\`: ${b.target} from \`${b.file}\` (commit \`${b.commit}\`, ${b.timestamp}, ` +
        `${b.knobs.DURATION_S} s per point, load average ${b.loadavg_before ?? '?'} / ${b.loadavg_after ?? '?'}).`,
      '',
    );
  }
  lines.push(
    `Workload: index \`${first.index ?? k.INDEX}\`, ${k.CORPUS_ROWS} × ${k.DIM} unit vectors (seed 42), ` +
      `${k.QUERY_POOL} queries (seed 13), k = ${k.K}, inner product; ${k.DURATION_S} s per point after a ` +
      `${k.WARMUP_S} s warm-up. ISA: ${targets.map((t) => `${t} ${runs.find((r) => r.target === t)?.isa}`).join(', ')}.`,
    '',
  );
  lines.push(
    'Modes: `mutex` = lookup in the index cache, mutex mode (a map under a `std::mutex`); ' +
      "`nolock` = the cache's lock-free mode (immutable snapshot + hazard pointer); " +
      '`direct` = no cache, every thread searches one shared index (the floor).',
    '',
  );

  lines.push('## Throughput (QPS, speedup over 1 thread)', '');
  lines.push(`| threads | target | ${modes.map((mo) => `${mo} QPS | ${mo} speedup`).join(' | ')} | nolock vs mutex |`);
  lines.push(`|--:|:--|${modes.map(() => '--:|--:').join('|')}|--:|`);
  for (const target of targets) {
    for (const t of threads) {
      const cells = modes.map((mo) => {
        const p = point(target, mo, t);
        return `${fmt(p?.qps)} | ${p ? p.speedup.toFixed(2) + ' ×' : '—'}`;
      });
      lines.push(
        `| ${t} | ${target} | ${cells.join(' | ')} | ${pct(point(target, 'nolock', t)?.qps, point(target, 'mutex', t)?.qps)} |`,
      );
    }
  }
  lines.push('');

  lines.push('## Latency per call (µs: mean / p50 / p99)', '');
  lines.push(`| threads | target | ${modes.join(' | ')} |`);
  lines.push(`|--:|:--|${modes.map(() => '--:').join('|')}|`);
  for (const target of targets) {
    for (const t of threads) {
      const cells = modes.map((mo) => {
        const p = point(target, mo, t);
        return p ? `${fmt(p.latency_mean_us)} / ${fmt(p.latency_p50_us)} / ${fmt(p.latency_p99_us)}` : '—';
      });
      lines.push(`| ${t} | ${target} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('');

  lines.push('## Per-call cost at 1 thread', '');
  lines.push('| target | mode | total µs | lookup µs | search µs | overhead µs | lookup share |');
  lines.push('|:--|:--|--:|--:|--:|--:|--:|');
  for (const r of runs) {
    const b = r.breakdown;
    lines.push(
      `| ${r.target} | ${r.mode} | ${fmt(b.total_us, 1)} | ${fmt(b.lookup_us, 3)} | ${fmt(b.search_us, 1)} | ` +
        `${fmt(b.overhead_us, 1)} | ${b.total_us ? ((100 * b.lookup_us) / b.total_us).toFixed(3) + ' %' : '—'} |`,
    );
  }
  lines.push('');

  const lookupRuns = runs.filter((r) => r.lookup_only?.length);
  if (lookupRuns.length) {
    lines.push(`## Lookups alone (million lookups/s, all threads; ${k.LOOKUP_ONLY_S} s per point)`, '');
    lines.push(`| threads | ${lookupRuns.map((r) => `${r.target} ${r.mode}`).join(' | ')} |`);
    lines.push(`|--:|${lookupRuns.map(() => '--:').join('|')}|`);
    for (const t of threads) {
      lines.push(
        `| ${t} | ${lookupRuns.map((r) => fmt((r.lookup_only.find((p) => p.threads === t)?.lookups_per_s ?? NaN) / 1e6, 2)).join(' | ')} |`,
      );
    }
    lines.push('');
  }

  const scaling = report.scaling ?? [];
  if (scaling.length) {
    const st = [...new Set(scaling.flatMap((s) => s.results.map((p) => p.threads)))].sort((a, b) => a - b);
    lines.push(
      `## Batch search scaling (search_batch of ${scaling[0].knobs.QUERY_POOL} queries on the process pool)`,
      '',
    );
    lines.push(
      `| threads | ${scaling.map((s) => `${s.target} QPS | ${s.target} speedup`).join(' | ')} | identical results |`,
    );
    lines.push(`|--:|${scaling.map(() => '--:|--:').join('|')}|:-:|`);
    for (const t of st) {
      const ps = scaling.map((s) => s.results.find((p) => p.threads === t));
      lines.push(
        `| ${t} | ${ps.map((p) => (p ? `${fmt(p.qps)} | ${p.speedup.toFixed(2)} ×` : '— | —')).join(' | ')} | ` +
          `${ps.every((p) => !p || p.identical) ? 'yes' : 'NO'} |`,
      );
    }
    lines.push(`\nPool workers: ${scaling.map((s) => `${s.target} ${s.pool_workers}`).join(', ')}.`, '');
  }
  if (files) lines.push(`Plot: \`${name}.svg\`. Raw data: \`${name}.json\`.`, '');
  return { markdown: lines.join('\n'), svg: renderSvg(report) };
}

function renderSvg(report) {
  const runs = report.concurrent ?? [];
  const scaling = report.scaling ?? [];
  const H = 380,
    top = 40,
    bottom = 60,
    panelW = 300,
    gap = 60,
    left = 70;
  const W = left + 3 * panelW + 2 * gap + 30; // three panels; the last one's 16-thread point not clipped
  const colors = { mutex: '#d62728', nolock: '#1f77b4', direct: '#2ca02c', batch: '#9467bd' };
  const dash = { native: '', wasm: '6 4', 'wasm-browser': '1 3' };
  const allThreads = [...new Set([...runs, ...scaling].flatMap((r) => r.results.map((p) => p.threads)))].sort(
    (a, b) => a - b,
  );
  const maxT = Math.max(2, ...allThreads);
  const xOf = (x0, t) => x0 + (Math.log2(t) / Math.log2(maxT)) * panelW;
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
  ];
  const panel = (i, title, series, yMax, yLabel, ideal) => {
    const x0 = left + i * (panelW + gap),
      y0 = top,
      h = H - top - bottom;
    const yOf = (v) => y0 + h - (v / yMax) * h;
    out.push(
      `<text x="${x0 + panelW / 2}" y="${top - 16}" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
    );
    out.push(`<rect x="${x0}" y="${y0}" width="${panelW}" height="${h}" fill="none" stroke="#999"/>`);
    for (let j = 0; j <= 4; ++j) {
      const v = (yMax * j) / 4,
        y = yOf(v);
      out.push(`<line x1="${x0}" x2="${x0 + panelW}" y1="${y}" y2="${y}" stroke="#eee"/>`);
      out.push(
        `<text x="${x0 - 6}" y="${y + 4}" text-anchor="end">${v >= 1000 ? (v / 1000).toFixed(1) + 'k' : +v.toFixed(2)}</text>`,
      );
    }
    for (const t of allThreads) out.push(`<text x="${xOf(x0, t)}" y="${y0 + h + 16}" text-anchor="middle">${t}</text>`);
    out.push(`<text x="${x0 + panelW / 2}" y="${y0 + h + 34}" text-anchor="middle">threads</text>`);
    out.push(
      `<text transform="translate(${x0 - 48},${y0 + h / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
    );
    if (ideal) {
      const cpus = report.machine.cpus;
      const pts = allThreads.map((t) => `${xOf(x0, t)},${yOf(Math.min(t, cpus, yMax))}`).join(' ');
      out.push(`<polyline points="${pts}" fill="none" stroke="#bbb" stroke-width="1.5" stroke-dasharray="2 3"/>`);
    }
    for (const s of series) {
      const pts = s.points.map((p) => `${xOf(x0, p.threads)},${yOf(p.value)}`).join(' ');
      out.push(
        `<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}"/>`,
      );
      for (const p of s.points)
        out.push(`<circle cx="${xOf(x0, p.threads)}" cy="${yOf(p.value)}" r="3" fill="${s.color}"/>`);
    }
  };
  const series = (list, key, colorOf) =>
    list.map((r) => ({
      color: colorOf(r),
      dash: dash[r.target] ?? '',
      points: r.results.map((p) => ({ threads: p.threads, value: p[key] })),
    }));
  const maxQps = Math.max(1, ...runs.flatMap((r) => r.results.map((p) => p.qps)));
  const maxSpeed = Math.max(2, ...[...runs, ...scaling].flatMap((r) => r.results.map((p) => p.speedup)));
  const niceMax = (v) => {
    const e = 10 ** Math.floor(Math.log10(v));
    return (Math.ceil((v / e) * 2) / 2) * e;
  };
  panel(
    0,
    'k-NN QPS (cache lookup + search)',
    series(runs, 'qps', (r) => colors[r.mode] ?? '#555'),
    niceMax(maxQps * 1.05),
    'QPS',
    false,
  );
  panel(
    1,
    'speedup over 1 thread',
    series(runs, 'speedup', (r) => colors[r.mode] ?? '#555'),
    niceMax(maxSpeed * 1.05),
    'speedup',
    true,
  );
  if (scaling.length)
    panel(
      2,
      'batch search speedup (pool)',
      series(scaling, 'speedup', () => colors.batch),
      niceMax(maxSpeed * 1.05),
      'speedup',
      true,
    );
  // Legend.
  let lx = left,
    ly = H - 12;
  const item = (color, d, label) => {
    out.push(
      `<line x1="${lx}" x2="${lx + 26}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2" stroke-dasharray="${d}"/>`,
    );
    out.push(`<text x="${lx + 32}" y="${ly}">${esc(label)}</text>`);
    lx += 40 + label.length * 7;
  };
  for (const mode of [...new Set(runs.map((r) => r.mode))]) item(colors[mode] ?? '#555', '', mode);
  if (scaling.length) item(colors.batch, '', 'search_batch');
  const shown = new Set([...runs, ...scaling].map((r) => r.target));
  if (shown.has('native')) item('#333', dash.native, 'native');
  if (shown.has('wasm')) item('#333', dash.wasm, 'wasm simd-mt (Node)');
  if (shown.has('wasm-browser')) item('#333', dash['wasm-browser'], 'wasm simd-mt (Chromium)');
  item('#bbb', '2 3', `ideal (≤ ${report.machine.cpus} CPUs)`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

// The knobs that define the workload: results on different workloads are not comparable.
const WORKLOAD = ['INDEX', 'CORPUS_ROWS', 'DIM', 'QUERY_POOL', 'K', 'BIT_WIDTH', 'THREADS'];
export function sameWorkload(a = {}, b = {}) {
  return WORKLOAD.every((k) => String(a[k] ?? '') === String(b[k] ?? ''));
}

// A copy of a native/wasm report with the runs of a browser report (target "wasm-browser")
// appended, and where they came from (shown in the Markdown header).
export function mergeBrowserReport(report, browser, file) {
  const m = browser.machine ?? {};
  return {
    ...report,
    concurrent: [...(report.concurrent ?? []), ...(browser.concurrent ?? [])],
    scaling: [...(report.scaling ?? []), ...(browser.scaling ?? [])],
    browser_source: {
      file,
      target: browser.target,
      commit: browser.commit,
      timestamp: browser.timestamp,
      knobs: browser.knobs,
      loadavg_before: m.loadavg_before,
      loadavg_after: m.loadavg_after,
    },
  };
}
