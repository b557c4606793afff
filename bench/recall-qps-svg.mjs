// Recall-vs-QPS plots shared by the benchmark reports (report-hnsw.mjs, peers/report.mjs): one
// panel per workload, x = recall@10 (from the lowest tenth reached up to 1), y = QPS on a log
// scale, one polyline per series, a dashed line at recall 0.95.
//   recallQpsSvg([{ title, series: [{ name, points: [{ recall, qps }, …] }, …] }, …], { legend }) -> SVG text
// legend: 'inside' (default: top left of the plot) or 'right' (a column beside it, for many series).
// Points are drawn in the order given (sort them by the swept parameter). A series with one
// point (an exact index) is a dot; past ten series the colours repeat with dashed lines.
const W = 560, H = 380, LEGEND_W = 240, pad = { l: 64, r: 16, t: 34, b: 46 };
export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const fmt = (x) => Number(x).toLocaleString('en-US', { maximumFractionDigits: 0 });
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panel({ title, series }, i, legendRight) {
  const PW = W + (legendRight ? LEGEND_W : 0);
  const all = series.flatMap((s) => s.points);
  const xmin = Math.max(0, Math.floor(Math.min(...all.map((p) => p.recall)) * 10) / 10), xmax = 1;
  const qps = all.map((p) => p.qps).filter((q) => q > 0);
  const ymin = Math.floor(Math.log10(Math.min(...qps))), ymax = Math.ceil(Math.log10(Math.max(...qps)));
  const X = (x) => pad.l + ((x - xmin) / (xmax - xmin || 1)) * (W - pad.l - pad.r);
  const Y = (q) => H - pad.b - ((Math.log10(q) - ymin) / (ymax - ymin || 1)) * (H - pad.t - pad.b);
  const g = [`<g transform="translate(${i * PW},0)">`, `<text x="${W / 2}" y="20" text-anchor="middle" font-weight="bold">${esc(title)}</text>`];
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
  series.forEach((s, j) => {
    const pts = s.points.filter((p) => p.qps > 0);
    const c = COLORS[j % COLORS.length];
    // Past ten series the colours repeat, drawn dashed.
    const dash = j >= COLORS.length ? ' stroke-dasharray="6 3"' : '';
    // A series of one point (an exact index) is a dot; a polyline of one point draws nothing.
    if (pts.length === 1) g.push(`<circle cx="${X(pts[0].recall).toFixed(1)}" cy="${Y(pts[0].qps).toFixed(1)}" r="3" fill="${c}"/>`);
    else g.push(`<polyline fill="none" stroke="${c}" stroke-width="1.8"${dash} points="${pts.map((p) => `${X(p.recall).toFixed(1)},${Y(p.qps).toFixed(1)}`).join(' ')}"/>`);
    const lx = legendRight ? W + 4 : pad.l + 8;
    g.push(`<text x="${lx}" y="${pad.t + 14 + j * 14}" fill="${c}">${dash ? '- - ' : ''}${esc(s.name)}</text>`);
  });
  g.push('</g>');
  return g.join('\n');
}

export function recallQpsSvg(panels, { legend = 'inside' } = {}) {
  const right = legend === 'right';
  const width = (W + (right ? LEGEND_W : 0)) * panels.length;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" font-family="sans-serif" font-size="11">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n${panels.map((p, i) => panel(p, i, right)).join('\n')}\n</svg>\n`;
}
