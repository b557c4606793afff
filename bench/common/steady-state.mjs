// Checks that a benchmark's one-query-per-call QPS describe the warm, steady state, shared by the
// HNSW (bench/hnsw/run.mjs), partitioned (bench/ivf/) and peers (bench/peers/) runners.
//
// Why (issue 15's variant anomaly, README "HNSW index"): V8 runs a wasm function first as
// Liftoff (baseline) code and recompiles it with TurboFan only once it is hot, in the
// background. Code that a benchmark process has not run yet — search right after a build or a
// load — starts at Liftoff speed, and the wasm `simd` and `simd-mt` builds, which run the same
// single-threaded search, then differ by whatever their processes' tier-up timing did. The
// runners start wasm processes with WASM_EAGER_FLAGS and time each point in passes over the same
// queries; these checks say, in the JSON and on stderr, when that still did not give one steady
// figure:
//   passes    the passes of one point (in groups of consecutive passes) disagree by more than
//             PASS_TOLERANCE of their median (and, when the first ones were the slow ones, that
//             the warm-up was not over);
//   variants  simd and simd-mt single-query QPS for the same configuration and point differ by
//             more than VARIANT_FACTOR — they run the same code, so one of them was not measured
//             in its steady state (or the machine was not quiet).
// Pure functions on numbers: the unit test (tests/js/bench-steady-state.test.mjs) feeds them
// synthetic pass timings.

// V8 flags for benchmark processes that run wasm: no Liftoff tier, and every function compiled (by
// TurboFan, then) when the module is compiled instead of at its first call — so no timed loop runs
// baseline code or waits for a tier-up. Node 20 defaults to lazy compilation with Liftoff and
// dynamic tiering. Chromium takes the same flags through --js-flags="...".
export const WASM_EAGER_FLAGS = ['--no-liftoff', '--no-wasm-lazy-compilation'];

// Passes of one point may spread by 20 % of their median: passes of the same queries through the
// same code should agree within a few per cent on a quiet machine, but a 256-query pass at low ef
// lasts only 10-30 ms, where one descheduling shows.
export const PASS_TOLERANCE = 0.2;
// simd vs simd-mt single-query QPS may differ by this factor (quiet runs: 0.9-1.1).
export const VARIANT_FACTOR = 1.25;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => Math.round(x).toLocaleString('en-US');

// Consecutive passes in at most 10 groups of (nearly) equal counts, each group's QPS over all its
// passes (count / sum of 1/QPS: every pass has the same queries). Up to 10 passes a group is a
// pass; beyond that one pass cut short by the scheduler is diluted in its group, while a slow
// stretch — a warm-up, a busy spell — still makes slow groups.
const MAX_GROUPS = 10;
function groupsOf(qps) {
  const g = Math.min(qps.length, MAX_GROUPS);
  return Array.from({ length: g }, (_, i) => {
    const part = qps.slice(Math.floor((i * qps.length) / g), Math.floor(((i + 1) * qps.length) / g));
    return part.length / part.reduce((a, x) => a + 1 / x, 0);
  });
}
const spreadOf = (xs) => {
  const lo = Math.min(...xs),
    hi = Math.max(...xs),
    mid = median(xs);
  return { lo, hi, median: mid, spread: (hi - lo) / mid };
};

// Per-pass QPS of one point, in order -> { passes, checked, lo, hi, median, spread, ok,
// warning? } with spread = (hi - lo) / median over the groups above. Not ok when spread >
// tolerance; the warning then says whether the passes started slow (leading groups below
// (1 - tolerance) of the last half's median while the last half agrees: the warm-up was not
// over) or simply disagree (a busy machine). Fewer than two passes cannot disagree: checked
// false, no warning. code ('wasm', 'native' or unknown) names the likely cause of a slow start:
// V8's tier-up only for wasm; native code has none, so there it is cold caches and pages or the
// machine.
const SLOW_START_CAUSE = {
  wasm: 'warm-up (tier-up) not over',
  native: 'slow start (native code has no tier-up: cold caches or pages, or the machine was busy)',
};
export function checkPasses(passesQps, { tolerance = PASS_TOLERANCE, label = '', code } = {}) {
  const qps = (passesQps ?? []).filter((x) => Number.isFinite(x) && x > 0);
  if (qps.length < 2) return { passes: qps.length, checked: false, ok: true };
  const groups = groupsOf(qps);
  const { lo, hi, median: mid, spread } = spreadOf(groups);
  const result = {
    passes: qps.length,
    checked: true,
    lo,
    hi,
    median: mid,
    spread: +spread.toFixed(3),
    ok: spread <= tolerance,
  };
  if (!result.ok) {
    const tail = groups.slice(Math.floor(groups.length / 2));
    const ref = median(tail);
    let lead = 0;
    while (lead < groups.length && groups[lead] < (1 - tolerance) * ref) lead++;
    const slowStart = lead > 0 && spreadOf(tail).spread <= tolerance;
    const slow = qps.slice(0, Math.floor((lead * qps.length) / groups.length));
    const slowQps = slow.length / slow.reduce((a, x) => a + 1 / x, 0);
    const first = slow.length === 1 ? 'the first pass is' : `the first ${slow.length} passes are`;
    result.warning =
      `${label ? `${label}: ` : ''}passes disagree: ${fmt(lo)}-${fmt(hi)} QPS over ${qps.length} passes ` +
      `(spread ${(spread * 100).toFixed(0)} % of the median, tolerance ${(tolerance * 100).toFixed(0)} %)` +
      (slowStart
        ? `; ${first} ${((1 - slowQps / ref) * 100).toFixed(0)} % slower than the rest: ${SLOW_START_CAUSE[code] ?? 'slow start (warm-up not over, or the machine was busy)'}`
        : '');
  }
  return result;
}

// simd vs simd-mt. points: [{ variant, key, qps }] where key names the configuration and point
// (e.g. 'clustered f32 ef 40'); only keys measured in both variants are compared, once each.
// -> [{ key, simd, simd_mt, ratio (simd-mt / simd), ok, warning? }]
export function checkVariants(points, { factor = VARIANT_FACTOR } = {}) {
  const by = new Map();
  for (const p of points) {
    if (p.variant !== 'simd' && p.variant !== 'simd-mt') continue;
    if (!(Number.isFinite(p.qps) && p.qps > 0)) continue;
    if (!by.has(p.key)) by.set(p.key, {});
    by.get(p.key)[p.variant] ??= p.qps;
  }
  const out = [];
  for (const [key, v] of by) {
    if (v.simd === undefined || v['simd-mt'] === undefined) continue;
    const ratio = v['simd-mt'] / v.simd;
    const ok = ratio <= factor && ratio >= 1 / factor;
    const c = { key, simd: v.simd, simd_mt: v['simd-mt'], ratio: +ratio.toFixed(3), ok };
    if (!ok) {
      const [fast, slow] = ratio > 1 ? ['simd-mt', 'simd'] : ['simd', 'simd-mt'];
      c.warning =
        `${key}: ${slow} ${fmt(Math.min(v.simd, v['simd-mt']))} QPS vs ${fast} ${fmt(Math.max(v.simd, v['simd-mt']))} ` +
        `(${Math.max(ratio, 1 / ratio).toFixed(2)}x, more than ${factor}x): both run the same single-threaded search, ` +
        'so one was not in its steady state or the machine was busy';
    }
    out.push(c);
  }
  return out;
}

// The warnings of a list of check results, in order.
export const warningsOf = (checks) => checks.filter((c) => c && c.warning).map((c) => c.warning);

// Prints warnings (if any) under a heading on stderr; returns them.
export function reportWarnings(warnings, write = (s) => process.stderr.write(s)) {
  if (warnings.length)
    write(
      `\nWARNING: ${warnings.length} figure(s) not steady (bench/common/steady-state.mjs):\n${warnings.map((w) => `  ${w}\n`).join('')}`,
    );
  return warnings;
}
