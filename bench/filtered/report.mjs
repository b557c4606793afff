// Renders a filtered benchmark result (bench/filtered/run.mjs) as Markdown and SVG beside it:
//   node bench/filtered/report.mjs bench/filtered/results/filtered-<stamp>.json
// The table: per target and kind, recall@10 and QPS (and the ratio to the kind's unfiltered QPS)
// at each filter kind and selectivity, with the issue-25 goals checked on the measured figures:
// recall >= 0.95 at every point, no short result, QPS at 10 % random >= 0.5 x unfiltered.
// The plot: one panel per target and filter kind, x = selectivity (log), y = recall@10, one line per
// index kind; a second plot the same with y = QPS / unfiltered QPS.
import { readFileSync, writeFileSync } from 'node:fs';
import { COLORS, MARKERS } from '../common/recall-qps-svg.mjs';

const path = process.argv[2];
if (!path) throw new Error('usage: node bench/filtered/report.mjs <results.json>');
const r = JSON.parse(readFileSync(path, 'utf8'));
const rows = r.rows;
const targets = [...new Set(rows.map((x) => `${x.target}:${x.run}`))];
const kinds = [...new Set(rows.map((x) => x.kind))];
const filterKinds = ['random', 'correlated', 'tenant'];
const pct = (s) => `${+(s * 100).toPrecision(3)} %`;

const lines = [];
lines.push(`# Filtered search through a collection — ${r.date.slice(0, 16)}Z, commit ${r.commit}`);
lines.push('');
lines.push(
  `${r.machine.cpu}, ${r.machine.cpus} cores; load before/after each target: ` +
    r.runs.map((x) => `${x.name} ${x.load_before.toFixed(2)}/${x.load_after.toFixed(2)}`).join(', ') +
    '. Knobs: ' +
    (Object.entries(r.knobs)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'defaults (100,000 x 384, 200 queries)') +
    '.',
);
lines.push('');
lines.push('| target | kind | filter | selectivity | matching | recall@10 | short | QPS | × unfiltered | plan |');
lines.push('|---|---|---|---|---|---|---|---|---|---|');
for (const x of rows)
  lines.push(
    `| ${x.run} (${x.isa}) | ${x.kind} | ${x.filter_kind} | ${pct(x.selectivity)} | ${x.matching} | ${x.recall.toFixed(3)} | ${x.short_results} | ${x.qps.toFixed(0)} | ${(x.qps / x.unfiltered_qps).toFixed(2)} | ${x.plan} |`,
  );
lines.push('');
lines.push('## Goals (issue 25), on these figures');
lines.push('');
lines.push(
  '| target | kind | recall@10 unfiltered | lowest filtered recall@10 (where) | short results | QPS at 10 % random / unfiltered |',
);
lines.push('|---|---|---|---|---|---|');
for (const t of targets) {
  for (const k of kinds) {
    const pts = rows.filter((x) => `${x.target}:${x.run}` === t && x.kind === k);
    if (!pts.length) continue;
    const filtered = pts.filter((x) => x.filter_kind !== 'none');
    const worst = filtered.reduce((a, b) => (b.recall < a.recall ? b : a));
    const none = pts.find((x) => x.filter_kind === 'none');
    const shorts = pts.reduce((a, b) => a + b.short_results, 0);
    const ten = pts.find((x) => x.filter_kind === 'random' && Math.abs(x.selectivity - 0.1) < 1e-9);
    const ratio = ten ? ten.qps / ten.unfiltered_qps : NaN;
    lines.push(
      `| ${t.split(':')[1]} | ${k} | ${none ? none.recall.toFixed(3) : '—'} | ${worst.recall.toFixed(3)} (${worst.filter_kind} ${pct(worst.selectivity)}) ${worst.recall >= 0.95 ? 'met' : `missed by ${(0.95 - worst.recall).toFixed(3)}`} | ${shorts} ${shorts === 0 ? 'met' : 'missed'} | ${ratio.toFixed(2)} ${ratio >= 0.5 ? 'met' : `missed (goal 0.5)`} |`,
    );
  }
}
const cols = rows.find((x) => x.column_bytes !== undefined);
if (cols)
  lines.push(
    '',
    `Column indexes: ${(cols.column_bytes / cols.rows).toFixed(1)} B per vector for 3 filterable fields + the namespace (goal ≤ 32 B); ids ${(cols.id_bytes / cols.rows).toFixed(1)} B and stored records ${(cols.metadata_bytes / cols.rows).toFixed(1)} B per vector, reported apart.`,
  );
if (r.warnings?.length) lines.push('', '**Warnings:** ' + r.warnings.join('; '));

// ---- SVG: small multiples, x = log10 selectivity ----
function plot(yOf, yLabel, yMin, yMax, logY) {
  const pw = 300,
    ph = 210,
    pad = { l: 52, r: 30, t: 28, b: 40 };
  const panels = [];
  for (const t of targets) for (const f of filterKinds) panels.push([t, f]);
  const ncol = filterKinds.length;
  const nrow = Math.ceil(panels.length / ncol);
  const legendH = 18 * kinds.length + 12;
  const W = ncol * (pw + pad.l + pad.r),
    H = nrow * (ph + pad.t + pad.b) + legendH;
  const xs = (s) => (Math.log10(s) + 3) / 3; // 0.1 % .. 100 %
  const ys = (v) =>
    logY ? (Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin)) : (v - yMin) / (yMax - yMin);
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n`;
  panels.forEach(([t, f], i) => {
    const ox = (i % ncol) * (pw + pad.l + pad.r) + pad.l,
      oy = Math.floor(i / ncol) * (ph + pad.t + pad.b) + pad.t;
    svg += `<text x="${ox + pw / 2}" y="${oy - 10}" text-anchor="middle" font-weight="bold">${t.split(':')[1]} — ${f}</text>\n`;
    svg += `<rect x="${ox}" y="${oy}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>\n`;
    for (const s of [0.001, 0.01, 0.1, 1]) {
      const x = ox + xs(s) * pw;
      svg += `<line x1="${x}" y1="${oy}" x2="${x}" y2="${oy + ph}" stroke="#eee"/><text x="${x}" y="${oy + ph + 14}" text-anchor="middle">${pct(s)}</text>\n`;
    }
    const ticks = logY ? [yMin, Math.sqrt(yMin * yMax), yMax] : [yMin, (yMin + yMax) / 2, yMax];
    for (const v of ticks) {
      const y = oy + ph - ys(v) * ph;
      svg += `<text x="${ox - 4}" y="${y + 4}" text-anchor="end">${+v.toPrecision(2)}</text>\n`;
    }
    if (!logY && yMin < 0.95 && yMax > 0.95) {
      const y = oy + ph - ys(0.95) * ph;
      svg += `<line x1="${ox}" y1="${y}" x2="${ox + pw}" y2="${y}" stroke="#444" stroke-dasharray="4 3"/>\n`;
    }
    if (logY) {
      const y = oy + ph - ys(0.5) * ph;
      svg += `<line x1="${ox}" y1="${y}" x2="${ox + pw}" y2="${y}" stroke="#444" stroke-dasharray="4 3"/>\n`;
    }
    svg += `<text x="${ox + pw / 2}" y="${oy + ph + 30}" text-anchor="middle">selectivity</text>\n`;
    svg += `<text transform="translate(${ox - 38},${oy + ph / 2}) rotate(-90)" text-anchor="middle">${yLabel}</text>\n`;
    kinds.forEach((k, ki) => {
      const pts = rows
        .filter((x) => `${x.target}:${x.run}` === t && x.kind === k && x.filter_kind === f)
        .sort((a, b) => a.selectivity - b.selectivity);
      if (!pts.length) return;
      const clamp = (v) => Math.min(1, Math.max(0, v));
      const xy = pts.map((x) => [ox + xs(x.selectivity) * pw, oy + ph - clamp(ys(yOf(x))) * ph]);
      svg += `<g class="series" data-name="${k}" data-color="${COLORS[ki]}" data-marker="${MARKERS[ki]}"><polyline fill="none" stroke="${COLORS[ki]}" stroke-width="1.6" points="${xy.map((p) => p.join(',')).join(' ')}"/>`;
      for (const [x, y] of xy) svg += marker(MARKERS[ki], x, y, COLORS[ki]);
      svg += '</g>\n';
    });
  });
  const ly = nrow * (ph + pad.t + pad.b) + 6;
  svg += `<g class="legend"><rect x="${pad.l}" y="${ly}" width="${W - 2 * pad.l}" height="${legendH - 8}" fill="white" stroke="#999"/>`;
  kinds.forEach((k, ki) => {
    const y = ly + 14 + ki * 18;
    svg += `<line x1="${pad.l + 10}" y1="${y - 4}" x2="${pad.l + 34}" y2="${y - 4}" stroke="${COLORS[ki]}" stroke-width="1.6"/>${marker(MARKERS[ki], pad.l + 22, y - 4, COLORS[ki])}<text x="${pad.l + 42}" y="${y}">${k}</text>`;
  });
  return svg + '</g>\n</svg>\n';
}
function marker(kind, x, y, color) {
  const s = 4;
  switch (kind) {
    case 'square':
      return `<rect x="${x - s}" y="${y - s}" width="${2 * s}" height="${2 * s}" fill="${color}"/>`;
    case 'triangle':
      return `<path d="M${x},${y - s} L${x + s},${y + s} L${x - s},${y + s} Z" fill="${color}"/>`;
    case 'diamond':
      return `<path d="M${x},${y - s} L${x + s},${y} L${x},${y + s} L${x - s},${y} Z" fill="${color}"/>`;
    case 'triangle-down':
      return `<path d="M${x},${y + s} L${x + s},${y - s} L${x - s},${y - s} Z" fill="${color}"/>`;
    default:
      return `<circle cx="${x}" cy="${y}" r="${s}" fill="${color}"/>`;
  }
}

const base = path.replace(/\.json$/, '');
const minRecall = Math.min(0.8, ...rows.map((x) => x.recall));
writeFileSync(
  `${base}-recall.svg`,
  plot((x) => x.recall, 'recall@10', Math.floor(minRecall * 20) / 20, 1, false),
);
const ratios = rows.map((x) => x.qps / x.unfiltered_qps);
writeFileSync(
  `${base}-qps.svg`,
  plot((x) => x.qps / x.unfiltered_qps, 'QPS / unfiltered', Math.min(0.05, ...ratios), Math.max(20, ...ratios), true),
);
const name = base.split('/').pop();
lines.push('', `![recall@10 by selectivity](${name}-recall.svg)`, '', `![QPS relative to unfiltered](${name}-qps.svg)`);
writeFileSync(`${base}.md`, lines.join('\n') + '\n');
process.stderr.write(`wrote ${base}.md, ${base}-recall.svg, ${base}-qps.svg\n`);
