// How long the full run will take, job by job, estimated from a QUICK run (2,000 rows, 100
// queries), so a full run can be planned over quiet windows. A rough model, said as such: a job's
// measured time is split into
//   build   the build times it reported: scaled as n log n for graph indexes (HNSW), as n for
//           the others (flat, quantised, k-d tree);
//   search  queries / QPS of every swept point (one query per call, plus its batch calls, each
//           run twice: warm-up and timed): scaled by the query count, and by n (linear scans)
//           or log n (graphs) per query;
//   rest    everything else (process start, reading the workload, EdgeVec's rebuild per swept
//           value, …): scaled by n.
// A job is never estimated past the per-pair time limit (PEER_TIMEOUT_S), which stops it.
const isGraph = (config) => /hnsw/i.test(config);

function searchSeconds(rows, queries) {
  let s = 0;
  for (const r of rows) {
    if (r.qps > 0) s += queries / r.qps;
    for (const b of r.batch ?? []) if (b.qps > 0) s += 2 * (queries / b.qps);
  }
  return s;
}

// quick: one ok result entry of a QUICK run (seconds, configs); small / full: its workload at
// QUICK and at full size ({ rows, queries }). Returns seconds at full size.
export function estimatePairSeconds(quick, small, full, { limitSeconds = Infinity } = {}) {
  const n = full.rows / small.rows;
  const logN = Math.log2(full.rows) / Math.log2(small.rows);
  const q = full.queries / small.queries;
  let build = 0,
    search = 0,
    scaled = 0;
  for (const c of quick.configs ?? []) {
    const b = (c.builds ?? []).reduce((a, x) => a + (x.build_s ?? 0), 0);
    const s = searchSeconds(c.rows ?? [], small.queries);
    build += b;
    search += s;
    scaled += isGraph(c.config) ? b * n * logN + s * q * logN : b * n + s * q * n;
  }
  const rest = Math.max(0, (quick.seconds ?? 0) - build - search);
  return Math.min(limitSeconds, scaled + rest * n);
}

// Per job: { job, quickSeconds, perWorkload: { name: seconds }, totalSeconds }, from the
// results of a QUICK run and the full workload list. Failed pairs count as the time limit
// when they timed out and are left out (null) otherwise.
export function estimateFullRun(results, quickWorkloads, fullWorkloads, { limitSeconds }) {
  const byJob = new Map();
  for (const r of results) {
    const small = quickWorkloads.find((w) => w.name === r.workload);
    const full = fullWorkloads.find((w) => w.name === r.workload);
    if (!small || !full) continue;
    const e = byJob.get(r.job) ?? { job: r.job, quickSeconds: 0, perWorkload: {}, totalSeconds: 0, unknown: [] };
    e.quickSeconds += r.seconds ?? 0;
    const s =
      r.status === 'ok'
        ? estimatePairSeconds(r, small, full, { limitSeconds })
        : /timed out/.test(r.reason ?? '')
          ? limitSeconds
          : null;
    e.perWorkload[r.workload] = s;
    if (s === null) e.unknown.push(r.workload);
    else e.totalSeconds += s;
    byJob.set(r.job, e);
  }
  return [...byJob.values()];
}

export function formatDuration(seconds) {
  if (seconds === null || !Number.isFinite(seconds)) return '?';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

// The table run.mjs prints after a QUICK run.
export function estimateTable(estimates, workloadNames) {
  const lines = [
    `| job | QUICK s | ${workloadNames.map((w) => `full ${w}`).join(' | ')} | full total |`,
    `|:--|--:|${workloadNames.map(() => '--:').join('|')}|--:|`,
  ];
  let all = 0;
  for (const e of estimates) {
    all += e.totalSeconds;
    const cells = workloadNames.map((w) => (w in e.perWorkload ? formatDuration(e.perWorkload[w]) : '—'));
    lines.push(
      `| ${e.job} | ${e.quickSeconds.toFixed(1)} | ${cells.join(' | ')} | ${formatDuration(e.totalSeconds)}` +
        `${e.unknown.length ? ` + ? (failed: ${e.unknown.join(', ')})` : ''} |`,
    );
  }
  lines.push(`| all jobs | | ${workloadNames.map(() => '').join(' | ')} | ${formatDuration(all)} |`);
  return lines.join('\n');
}
