// The peers run's plots (report.mjs), per workload:
//   main: one recall-vs-QPS line per library — its best configuration (bestConfig) — Quiver's
//         bold and solid, the peers' thin and dashed with hollow markers; a library keeps its
//         colour and marker in every plot of the run.
//   all:  every configuration: colour = library, marker = index kind (flat, quantised, HNSW …),
//         the legend listed under each library.
// A "library" is a job: a library in one target (Quiver native, Quiver wasm simd, Quiver wasm
// simd-mt, hnswlib-node, …), since the targets are what a user picks between.
import { COLORS, MARKERS, recallQpsSvg } from '../../common/recall-qps-svg.mjs';

export const TARGET = 0.95;
export const BEST_RULE =
  `the configuration with the highest QPS at recall@10 ≥ ${TARGET} among its swept points; ` +
  `for a library that never reaches ${TARGET}, the configuration with the highest recall (ties: the faster)`;

const fmt = (x) => Number(x).toLocaleString('en-US', { maximumFractionDigits: 0 });

// A library's best configuration (BEST_RULE): { config, point, reached }.
export function bestConfig(configs, target = TARGET) {
  let best = null;
  for (const config of configs) {
    const hits = config.rows.filter((x) => x.recall >= target);
    const reached = hits.length > 0;
    const pool = reached ? hits : config.rows;
    // Reached: the fastest such point. Not reached: the highest recall, then the fastest.
    const point = pool.reduce((a, b) =>
      (reached ? b.qps > a.qps : b.recall > a.recall || (b.recall === a.recall && b.qps > a.qps)) ? b : a,
    );
    const better =
      !best ||
      (reached !== best.reached
        ? reached
        : reached
          ? point.qps > best.point.qps
          : point.recall > best.point.recall || (point.recall === best.point.recall && point.qps > best.point.qps));
    if (better) best = { config, point, reached };
  }
  return best;
}

export const libraryName = (r) => (r.library === 'quiver' ? `quiver ${r.target.split(' (')[0]}` : r.library);

// Index kind of a configuration name -> marker, the same kind the same shape in every library.
const KIND_MARKERS = [
  [/codes only/i, 'triangle-down'],
  [/partition/i, 'cross'],
  [/sq8/i, 'diamond'],
  [/hnsw/i, 'triangle'],
  [/quantiz/i, 'square'],
  [/flat/i, 'circle'],
  [/k-d tree/i, 'star'],
];
const kindMarker = (name) => (KIND_MARKERS.find(([re]) => re.test(name)) ?? [null, 'x'])[1];

// Colour and marker per library, by its place in the run's job list (stable across workloads).
export function libraryStyles(report) {
  const jobs = report.jobs ?? [...new Set(report.results.map((r) => r.job))];
  return new Map(
    jobs.map((job, i) => [job, { color: COLORS[i % COLORS.length], marker: MARKERS[i % MARKERS.length] }]),
  );
}

const isQuiver = (r) => r.library === 'quiver';
const QUIVER = { width: 2.8, group: 'Quiver' };
const PEER = { width: 1.6, dash: '6 3', hollow: true, group: 'Peers' };
const points = (c) => c.rows.map((x) => ({ recall: x.recall, qps: x.qps }));

// runs: the results of one workload (any status). Returns { main, all } panels for recallQpsSvg,
// Quiver's libraries first.
export function peerPanels(report, w, runs, { allFile } = {}) {
  const styles = libraryStyles(report);
  const ok = runs.filter((r) => r.status === 'ok' && r.configs?.length);
  const ordered = [...ok.filter(isQuiver), ...ok.filter((r) => !isQuiver(r))];
  const failed = runs
    .filter((r) => r.status !== 'ok')
    .map((r) => `${r.job} (failed: ${String(r.reason).split(/[:\n]/)[0]})`);
  const title = `${w.name} ${fmt(w.rows)} × ${w.dim}: QPS (log, 1 thread) vs recall@10`;

  const mainSeries = ordered.map((r) => {
    const b = bestConfig(r.configs);
    const at = b.reached
      ? `${fmt(b.point.qps)} QPS at ${b.point.recall.toFixed(3)}`
      : `best recall ${b.point.recall.toFixed(3)}, ${fmt(b.point.qps)} QPS`;
    return {
      name: `${libraryName(r)}: ${b.config.config} (${at})`,
      library: r.job,
      config: b.config.config,
      points: points(b.config),
      style: { ...(isQuiver(r) ? QUIVER : PEER), ...styles.get(r.job), highlight: b.config.rows.indexOf(b.point) },
    };
  });
  const caption = [
    `One line per library (each Quiver target counts as one): its best configuration, ${BEST_RULE}; ` +
      `the ringed point is the one that decides it. Quiver: bold, solid; peers: dashed, hollow markers.` +
      (allFile ? ` Every configuration: ${allFile}.` : '') +
      (failed.length ? ` Not drawn: ${failed.join(', ')}.` : ''),
  ];

  const allSeries = [];
  for (const r of ordered) {
    const used = new Set();
    for (const c of r.configs) {
      let marker = kindMarker(c.config);
      if (used.has(marker)) marker = MARKERS.find((m) => !used.has(m));
      used.add(marker);
      allSeries.push({
        name: c.config,
        library: r.job,
        config: c.config,
        points: points(c),
        style: {
          ...(isQuiver(r) ? { width: 1.8 } : { width: 1.4, dash: '6 3', hollow: true }),
          color: styles.get(r.job).color,
          marker,
          group: libraryName(r),
        },
      });
    }
  }
  const allCaption = [
    'Every configuration: colour = library (as in the main plot), marker = index kind ' +
      '(circle flat, square quantised, triangle HNSW, diamond HNSW sq8, down-triangle HNSW sq8 codes only, cross partitioned, star k-d tree). ' +
      'Quiver solid, peers dashed.' +
      (failed.length ? ` Not drawn: ${failed.join(', ')}.` : ''),
  ];
  return {
    main: { title, caption, series: mainSeries },
    all: { title: `${title} — every configuration`, caption: allCaption, series: allSeries },
  };
}

export const renderPanel = (p) => recallQpsSvg([p], { legend: 'right' });
