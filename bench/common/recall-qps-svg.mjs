// Recall-vs-QPS plots shared by the benchmark reports (hnsw/report.mjs, ivf/report.mjs,
// peers/report.mjs): one panel per workload, x = recall@10 (from the lowest tenth reached up to 1),
// y = QPS on a log scale, one polyline per series with a marker at every point, a dashed line at
// recall 0.95.
//   recallQpsSvg([{ title, caption?, series: [{ name, points: [{ recall, qps }, …], style? }, …] }, …],
//                { legend }) -> SVG text
// legend: 'inside' (default: bottom left of the plot) or 'right' (a column beside it, for many
// series); either way the legend box is sized from its longest label and lies inside the picture
// (the picture grows to hold it). caption: lines of text under the plot (wrapped to its width).
// style (all optional): { color, marker, width, dash, hollow, group, highlight } — marker one of
// MARKERS, dash an SVG dash array, hollow draws the markers white-filled, group a legend heading
// the series is listed under, highlight the index of a point to ring. A series without a colour or marker gets the next unused
// (colour, marker) pair, so no two series in a panel look alike. Points are drawn in the order
// given (sort them by the swept parameter); a series with one point (an exact index) is a marker.
// Every series is a <g class="series" data-name data-color data-marker>, the legend a
// <g class="legend"> whose first child is its box: the tests read them.
const W = 560,
  H = 380,
  pad = { l: 64, r: 16, t: 34, b: 46 };
export const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];
export const MARKERS = ['circle', 'square', 'triangle', 'diamond', 'triangle-down', 'cross', 'x', 'star', 'pentagon'];
// Width of text in the 11 px sans-serif the plots use: DejaVu Sans (Debian's default, wider than
// Arial or Helvetica) averages ≈ 5.6 px a character on these labels in Chromium; 6.2 leaves room
// for capitals, so a box sized by it holds its text.
const FONT = 11,
  CHAR_W = 6.2,
  LINE = 15;
export const textWidth = (s, size = FONT) => String(s).length * CHAR_W * (size / FONT);
const fmt = (x) => Number(x).toLocaleString('en-US', { maximumFractionDigits: 0 });
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n1 = (x) => x.toFixed(1);

// One marker shape centred on (x, y), size r (≈ radius).
function marker(shape, x, y, r, color, hollow) {
  const fill = hollow ? 'white' : color;
  const paint = `fill="${fill}" stroke="${color}" stroke-width="1.3"`;
  const poly = (pts) =>
    `<polygon points="${pts.map(([a, b]) => `${n1(x + a * r)},${n1(y + b * r)}`).join(' ')}" ${paint}/>`;
  switch (shape) {
    case 'square':
      return `<rect x="${n1(x - r * 0.85)}" y="${n1(y - r * 0.85)}" width="${n1(r * 1.7)}" height="${n1(r * 1.7)}" ${paint}/>`;
    case 'triangle':
      return poly([
        [0, -1.15],
        [1, 0.75],
        [-1, 0.75],
      ]);
    case 'triangle-down':
      return poly([
        [0, 1.15],
        [1, -0.75],
        [-1, -0.75],
      ]);
    case 'diamond':
      return poly([
        [0, -1.2],
        [1, 0],
        [0, 1.2],
        [-1, 0],
      ]);
    case 'star':
      return poly(
        Array.from({ length: 10 }, (_, i) => {
          const a = -Math.PI / 2 + (i * Math.PI) / 5,
            k = i % 2 ? 0.5 : 1.25;
          return [Math.cos(a) * k, Math.sin(a) * k];
        }),
      );
    case 'pentagon':
      return poly(
        Array.from({ length: 5 }, (_, i) => {
          const a = -Math.PI / 2 + (i * 2 * Math.PI) / 5;
          return [Math.cos(a) * 1.1, Math.sin(a) * 1.1];
        }),
      );
    case 'cross':
      return `<path d="M${n1(x - r)},${n1(y)}H${n1(x + r)}M${n1(x)},${n1(y - r)}V${n1(y + r)}" stroke="${color}" stroke-width="2.2"/>`;
    case 'x':
      return `<path d="M${n1(x - r * 0.8)},${n1(y - r * 0.8)}L${n1(x + r * 0.8)},${n1(y + r * 0.8)}M${n1(x - r * 0.8)},${n1(y + r * 0.8)}L${n1(x + r * 0.8)},${n1(y - r * 0.8)}" stroke="${color}" stroke-width="2.2"/>`;
    default:
      return `<circle cx="${n1(x)}" cy="${n1(y)}" r="${n1(r)}" ${paint}/>`;
  }
}

// Fills in colour and marker where a series has none: the first (colour, marker) pair no other
// series of the panel uses, colours cycling first.
function styled(series) {
  const used = new Set(
    series.filter((s) => s.style?.color && s.style?.marker).map((s) => `${s.style.color} ${s.style.marker}`),
  );
  let next = 0;
  return series.map((s) => {
    const st = { width: 1.8, ...s.style };
    if (!st.color || !st.marker) {
      for (; ; next++) {
        const color = st.color ?? COLORS[next % COLORS.length];
        const mk = st.marker ?? MARKERS[Math.floor(next / COLORS.length) % MARKERS.length];
        if (!used.has(`${color} ${mk}`) || next > COLORS.length * MARKERS.length) {
          Object.assign(st, { color, marker: mk });
          break;
        }
      }
      next++;
    }
    used.add(`${st.color} ${st.marker}`);
    return { ...s, style: st };
  });
}

// Legend rows: a heading when the group changes (in the group's colour if its series share
// one), then the series.
function legendRows(series) {
  const rows = [];
  let group;
  for (const s of series) {
    if (s.style.group !== undefined && s.style.group !== group) {
      const members = series.filter((x) => x.style.group === s.style.group);
      rows.push({
        heading: s.style.group,
        color: members.every((x) => x.style.color === s.style.color) ? s.style.color : null,
      });
    }
    group = s.style.group;
    rows.push({ series: s });
  }
  return rows;
}

// Greedy word wrap to a width in pixels.
function wrap(text, width, size) {
  const out = [];
  let line = '';
  for (const word of String(text).split(' ')) {
    const cand = line ? `${line} ${word}` : word;
    if (line && textWidth(cand, size) > width) {
      out.push(line);
      line = word;
    } else line = cand;
  }
  if (line) out.push(line);
  return out;
}

const SAMPLE = 30; // legend: line sample length before the label

function layout(p, legendRight) {
  const series = styled(p.series);
  const rows = legendRows(series);
  const legendW = Math.ceil(16 + SAMPLE + 6 + Math.max(...rows.map((r) => textWidth(r.heading ?? r.series.name))));
  const legendH = rows.length * LINE + 10;
  const plotH = Math.max(H, legendRight ? pad.t + legendH + pad.b : 0);
  const width = W + (legendRight ? legendW + 8 : 0);
  const capSize = 10.5;
  const caption = (p.caption ?? []).flatMap((c) => wrap(c, width - 24, capSize));
  return {
    series,
    rows,
    legendW,
    legendH,
    plotH,
    width,
    caption,
    capSize,
    height: plotH + (caption.length ? caption.length * 14 + 8 : 0),
  };
}

function panel(p, L, x0, legendRight) {
  const { series, rows, legendW, legendH, plotH, caption, capSize } = L;
  const all = series.flatMap((s) => s.points);
  const xmin = Math.max(0, Math.floor(Math.min(...all.map((q) => q.recall)) * 10) / 10),
    xmax = 1;
  const qps = all.map((q) => q.qps).filter((q) => q > 0);
  const ymin = Math.floor(Math.log10(Math.min(...qps))),
    ymax = Math.ceil(Math.log10(Math.max(...qps)));
  const X = (x) => pad.l + ((x - xmin) / (xmax - xmin || 1)) * (W - pad.l - pad.r);
  const Y = (q) => plotH - pad.b - ((Math.log10(q) - ymin) / (ymax - ymin || 1)) * (plotH - pad.t - pad.b);
  const g = [
    `<g transform="translate(${x0},0)">`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`,
  ];
  for (let e = ymin; e <= ymax; e++) {
    g.push(
      `<line x1="${pad.l}" x2="${W - pad.r}" y1="${n1(Y(10 ** e))}" y2="${n1(Y(10 ** e))}" stroke="#ddd"/>`,
      `<text x="${pad.l - 6}" y="${n1(Y(10 ** e) + 4)}" text-anchor="end">${fmt(10 ** e)}</text>`,
    );
  }
  for (let x = xmin; x <= xmax + 1e-9; x += 0.1) {
    g.push(
      `<line x1="${n1(X(x))}" x2="${n1(X(x))}" y1="${pad.t}" y2="${plotH - pad.b}" stroke="#eee"/>`,
      `<text x="${n1(X(x))}" y="${plotH - pad.b + 16}" text-anchor="middle">${x.toFixed(1)}</text>`,
    );
  }
  g.push(
    `<line x1="${n1(X(0.95))}" x2="${n1(X(0.95))}" y1="${pad.t}" y2="${plotH - pad.b}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${n1(X(0.95) - 3)}" y="${pad.t + 10}" text-anchor="end" fill="#777" font-size="10">0.95</text>`,
    `<text x="${(pad.l + W - pad.r) / 2}" y="${plotH - 10}" text-anchor="middle">recall@10</text>`,
    `<text transform="translate(14,${(pad.t + plotH - pad.b) / 2}) rotate(-90)" text-anchor="middle">QPS (log scale)</text>`,
  );
  // Series: thin and dashed ones first, so the bold ones are drawn over them.
  const order = series.map((s, j) => j).sort((a, b) => series[a].style.width - series[b].style.width);
  for (const j of order) {
    const s = series[j],
      st = s.style;
    const pts = s.points.filter((q) => q.qps > 0);
    const r = st.width >= 2.4 ? 4 : 3.3;
    g.push(`<g class="series" data-name="${esc(s.name)}" data-color="${st.color}" data-marker="${st.marker}">`);
    if (pts.length > 1) {
      g.push(
        `<polyline fill="none" stroke="${st.color}" stroke-width="${st.width}"${st.dash ? ` stroke-dasharray="${st.dash}"` : ''} ` +
          `stroke-linejoin="round" points="${pts.map((q) => `${n1(X(q.recall))},${n1(Y(q.qps))}`).join(' ')}"/>`,
      );
    }
    for (const q of pts) g.push(marker(st.marker, X(q.recall), Y(q.qps), r, st.color, st.hollow));
    const h = st.highlight != null ? s.points[st.highlight] : null;
    if (h && h.qps > 0)
      g.push(
        `<circle class="highlight" cx="${n1(X(h.recall))}" cy="${n1(Y(h.qps))}" r="${r + 4}" fill="none" stroke="${st.color}" stroke-width="1.5"/>`,
      );
    g.push('</g>');
  }
  // Legend: beside the plot, or in its bottom left corner (low recall and low QPS: where
  // recall-vs-QPS curves seldom are); a white box either way.
  const lx = legendRight ? W + 4 : pad.l + 6,
    ly = legendRight ? pad.t + 4 : plotH - pad.b - legendH - 6;
  g.push(
    '<g class="legend">',
    `<rect x="${lx}" y="${ly}" width="${legendW}" height="${legendH}" fill="white" fill-opacity="0.92" stroke="#ccc"/>`,
  );
  rows.forEach((row, i) => {
    const y = ly + 5 + LINE * i + LINE / 2;
    if (row.heading !== undefined) {
      g.push(
        `<text x="${lx + 8}" y="${n1(y + 4)}" font-weight="bold"${row.color ? ` fill="${row.color}"` : ''}>${esc(row.heading)}</text>`,
      );
      return;
    }
    const st = row.series.style;
    g.push(
      `<line x1="${lx + 8}" x2="${lx + 8 + SAMPLE}" y1="${n1(y)}" y2="${n1(y)}" stroke="${st.color}" stroke-width="${st.width}"${st.dash ? ` stroke-dasharray="${st.dash}"` : ''}/>`,
      marker(st.marker, lx + 8 + SAMPLE / 2, y, st.width >= 2.4 ? 4 : 3.3, st.color, st.hollow),
      `<text x="${lx + 8 + SAMPLE + 6}" y="${n1(y + 4)}">${esc(row.series.name)}</text>`,
    );
  });
  g.push('</g>');
  caption.forEach((line, i) => {
    g.push(
      `<text class="caption" x="12" y="${plotH + 12 + i * 14}" font-size="${capSize}" fill="#333">${esc(line)}</text>`,
    );
  });
  g.push('</g>');
  return g.join('\n');
}

export function recallQpsSvg(panels, { legend = 'inside' } = {}) {
  const right = legend === 'right';
  const layouts = panels.map((p) => layout(p, right));
  const width = layouts.reduce((a, L) => a + L.width, 0);
  const height = Math.max(...layouts.map((L) => L.height));
  let x0 = 0;
  const body = panels.map((p, i) => {
    const s = panel(p, layouts[i], x0, right);
    x0 += layouts[i].width;
    return s;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="${FONT}">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n${body.join('\n')}\n</svg>\n`
  );
}
