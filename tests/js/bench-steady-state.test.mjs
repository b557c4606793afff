// The benchmark runners' steady-state checks (bench/common/steady-state.mjs) on synthetic pass timings:
// when passes of one point disagree, when the first pass is the slow one (warm-up not over), and
// when the simd and simd-mt builds disagree on the same point. No real timing is measured here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkPasses,
  checkVariants,
  PASS_TOLERANCE,
  reportWarnings,
  VARIANT_FACTOR,
  warningsOf,
} from '../../bench/common/steady-state.mjs';
import { peersSteadyState } from '../../bench/peers/lib/steady.mjs';
import { cpuBetween } from '../../bench/common/run-info.mjs';

test('passes that agree within the tolerance pass; up to 10 passes the spread is (max - min) / median', () => {
  const c = checkPasses([1000, 1050, 980, 1010]);
  assert.equal(c.ok, true);
  assert.equal(c.checked, true);
  assert.equal(c.warning, undefined);
  assert.equal(c.passes, 4);
  assert.equal(c.spread, +((1050 - 980) / 1005).toFixed(3));
  // Exactly at the tolerance still passes (median 1000, spread 0.2); just past it does not.
  assert.equal(checkPasses([1000, 1000, 1200], { tolerance: 0.2 }).ok, true);
  assert.equal(checkPasses([1000, 1000, 1201], { tolerance: 0.2 }).ok, false);
  // The default is PASS_TOLERANCE.
  const edge = [1000, 1000, 1000 + 1000 * PASS_TOLERANCE * 1.01];
  assert.equal(checkPasses(edge).ok, false);
  assert.equal(checkPasses(edge, { tolerance: PASS_TOLERANCE * 1.02 }).ok, true);
});

test('a slow first pass with steady passes after it is reported as warm-up', () => {
  // The shape V8's tier-up gives: Liftoff code for most of the first pass, TurboFan after.
  const c = checkPasses([2100, 3600, 3650, 3580, 3620], { label: 'simd f32 ef 40', code: 'wasm' });
  assert.equal(c.ok, false);
  assert.match(
    c.warning,
    /^simd f32 ef 40: passes disagree: 2,100-3,650 QPS over 5 passes \(spread 43 % of the median, tolerance 20 %\)/,
  );
  assert.match(c.warning, /first pass is 42 % slower than the rest: warm-up \(tier-up\) not over/);
});

test('a slow start names tier-up only for wasm code', () => {
  const passes = [2100, 3600, 3650, 3580, 3620];
  assert.match(checkPasses(passes, { code: 'wasm' }).warning, /warm-up \(tier-up\) not over$/);
  const native = checkPasses(passes, { code: 'native' }).warning;
  assert.match(native, /first pass is 42 % slower than the rest: slow start \(native code has no tier-up/);
  assert.doesNotMatch(native, /warm-up \(tier-up\)/);
  const unknown = checkPasses(passes).warning; // e.g. a peer library: no claim about the cause
  assert.match(unknown, /slow start \(warm-up not over, or the machine was busy\)$/);
  assert.doesNotMatch(unknown, /tier-up/);
});

test('passes that disagree without a slow start are reported without the warm-up hint', () => {
  const c = checkPasses([3600, 2000, 3500, 3550]); // a busy machine in the middle of the run
  assert.equal(c.ok, false);
  assert.match(c.warning, /passes disagree/);
  assert.doesNotMatch(c.warning, /warm-up/);
  // A slow start but the later passes disagree too: not called warm-up.
  assert.doesNotMatch(checkPasses([1000, 3000, 2000, 3000, 1500, 3000]).warning, /warm-up/);
  // A slow start over two passes, then steady: warm-up.
  assert.match(checkPasses([1000, 2000, 3000, 2900, 3000]).warning, /the first 2 passes are 56 % slower than the rest/); // 2 passes at 1,333 QPS over both
});

test('many passes: one cut short by the scheduler is tolerated, a slow first stretch is not', () => {
  const steady = Array.from({ length: 100 }, (_, i) => 1000 * (1 + 0.02 * Math.sin(i)));
  const oneBad = [...steady];
  oneBad[17] = 500;
  assert.equal(checkPasses(oneBad).ok, true);
  const tenWithOneBad = steady.slice(0, 10);
  tenWithOneBad[5] = 500;
  assert.equal(checkPasses(tenWithOneBad).ok, false); // up to 10 passes every pass counts
  const slowStart = steady.map((x, i) => (i < 30 ? 0.6 * x : x));
  const c = checkPasses(slowStart, { label: 'wasm simd f32 ef 10', code: 'wasm' });
  assert.equal(c.ok, false);
  assert.equal(c.passes, 100);
  const [, slower] = c.warning.match(
    /the first 30 passes are (\d+) % slower than the rest: warm-up \(tier-up\) not over$/,
  );
  assert.ok(Number(slower) >= 35 && Number(slower) <= 45, slower);
  // Short interruptions spread over the run (every 7th pass at 0.6): each group of 10 passes
  // holds one or two, so the groups agree and the figure stands.
  assert.equal(checkPasses(steady.map((x, i) => (i % 7 === 3 ? 0.6 * x : x))).ok, true);
  // A busy spell in the middle: passes disagree, no warm-up.
  const spell = steady.map((x, i) => (i >= 40 && i < 60 ? 0.5 * x : x));
  assert.doesNotMatch(checkPasses(spell).warning, /warm-up/);
});

test('one pass (or none) cannot disagree; junk values are ignored', () => {
  assert.deepEqual(checkPasses([1234]), { passes: 1, checked: false, ok: true });
  assert.deepEqual(checkPasses(undefined), { passes: 0, checked: false, ok: true });
  assert.deepEqual(checkPasses([0, NaN, 500]), { passes: 1, checked: false, ok: true });
  assert.equal(checkPasses([1000, 1600], { tolerance: 1 }).ok, true); // the tolerance is the caller's
});

test('simd and simd-mt single-query QPS: the anomaly of 2026-11-30 is flagged, level runs are not', () => {
  // hnsw-20261130T1242Z (f32, clustered): simd 1.7x slower at every ef. hnsw-20261201T0545Z: level.
  const points = [
    { variant: 'simd', key: '11-30 ef 40', qps: 2073 },
    { variant: 'simd-mt', key: '11-30 ef 40', qps: 3515.4 },
    { variant: 'simd', key: '12-01 ef 40', qps: 4797.2 },
    { variant: 'simd-mt', key: '12-01 ef 40', qps: 5059 },
    { variant: 'simd-mt', key: 'faster simd', qps: 1000 },
    { variant: 'simd', key: 'faster simd', qps: 1300 },
  ];
  const checks = checkVariants(points);
  assert.deepEqual(
    checks.map((c) => [c.key, c.ok]),
    [
      ['11-30 ef 40', false],
      ['12-01 ef 40', true],
      ['faster simd', false],
    ],
  );
  assert.equal(checks[0].ratio, 1.696);
  assert.match(checks[0].warning, /^11-30 ef 40: simd 2,073 QPS vs simd-mt 3,515 \(1\.70x, more than 1\.25x\)/);
  assert.match(checks[2].warning, /simd-mt 1,000 QPS vs simd 1,300 \(1\.30x/);
  assert.deepEqual(warningsOf(checks), [checks[0].warning, checks[2].warning]);
});

test('variant check: the factor is inclusive, unmatched keys and other variants are skipped, the first figure counts', () => {
  const at = (r) =>
    checkVariants([
      { variant: 'simd', key: 'k', qps: 1000 },
      { variant: 'simd-mt', key: 'k', qps: 1000 * r },
    ]);
  assert.equal(at(VARIANT_FACTOR)[0].ok, true);
  assert.equal(at(1 / VARIANT_FACTOR)[0].ok, true);
  assert.equal(at(VARIANT_FACTOR * 1.01)[0].ok, false);
  assert.equal(
    checkVariants(
      [
        { variant: 'simd', key: 'k', qps: 1000 },
        { variant: 'simd-mt', key: 'k', qps: 1400 },
      ],
      { factor: 1.5 },
    )[0].ok,
    true,
  );
  assert.deepEqual(
    checkVariants([
      { variant: 'simd', key: 'only simd', qps: 100 },
      { variant: 'baseline', key: 'b', qps: 100 },
      { variant: 'simd', key: 'b', qps: 500 },
      { variant: 'native', key: 'n', qps: 100 },
      { variant: 'simd-mt', key: 'n', qps: 500 },
      { variant: 'simd', key: 'zero', qps: 0 },
      { variant: 'simd-mt', key: 'zero', qps: 100 },
    ]),
    [],
  );
  const twice = checkVariants([
    { variant: 'simd', key: 'k', qps: 1000 },
    { variant: 'simd', key: 'k', qps: 5 },
    { variant: 'simd-mt', key: 'k', qps: 1100 },
  ]);
  assert.equal(twice.length, 1);
  assert.equal(twice[0].simd, 1000);
});

test('reportWarnings prints nothing when all is steady and every warning otherwise', () => {
  let out = '';
  const write = (s) => {
    out += s;
  };
  assert.deepEqual(reportWarnings([], write), []);
  assert.equal(out, '');
  reportWarnings(['a: passes disagree', 'b: simd 1 QPS vs simd-mt 2'], write);
  assert.match(out, /WARNING: 2 figure\(s\) not steady/);
  assert.match(out, /\n {2}a: passes disagree\n {2}b: simd 1 QPS vs simd-mt 2\n$/);
});

test("the peers run compares Quiver's wasm simd and simd-mt rows and collects every library's pass warnings", () => {
  const row = (value, qps, warning) => ({
    param: 'ef',
    value,
    qps,
    pass_check: warning ? { ok: false, warning } : { ok: true },
  });
  const job = (name, variant, rows, extra = {}) => ({
    job: name,
    workload: 'embedding',
    status: 'ok',
    adapter: variant ? 'quiver-wasm' : 'hnswlib-wasm',
    options: variant ? { variant } : {},
    configs: [{ config: 'hnsw f32', rows }],
    ...extra,
  });
  const { warnings, variant_checks } = peersSteadyState([
    job('quiver-wasm-simd', 'simd', [row(40, 2000), row(80, 1500, 'hnsw f32 ef 80: passes disagree')]),
    job('quiver-wasm-simd-mt', 'simd-mt', [row(40, 3400), row(80, 1550)]),
    job('hnswlib-wasm', null, [row(40, 9000, 'hnsw ef 40: passes disagree')]),
    job('quiver-wasm-simd', 'simd', [row(40, 1)], { workload: 'seed', status: 'failed', configs: [] }),
  ]);
  assert.deepEqual(
    variant_checks.map((c) => [c.key, c.ok]),
    [
      ['embedding hnsw f32 ef 40', false],
      ['embedding hnsw f32 ef 80', true],
    ],
  );
  assert.equal(warnings.length, 3);
  assert.equal(warnings[0], 'quiver-wasm-simd on embedding: hnsw f32 ef 80: passes disagree');
  assert.equal(warnings[1], 'hnswlib-wasm on embedding: hnsw ef 40: passes disagree');
  assert.match(warnings[2], /^embedding hnsw f32 ef 40: simd 2,000 QPS vs simd-mt 3,400 \(1\.70x/);
});

test('the machine meter: busy and stolen cores between two /proc/stat lines', () => {
  //            user nice system idle iowait irq softirq steal
  const t0 = 'cpu  1000 0 100 5000 0 0 0 0 0 0';
  // 200 ticks pass on 2 cores: 100 user, 100 idle -> one core busy on average, none stolen.
  assert.deepEqual(cpuBetween(t0, 'cpu  1100 0 100 5100 0 0 0 0 0 0', 2), { busy_cores: 1, steal_cores: 0 });
  // 200 ticks: 100 user, 50 iowait (counted idle), 50 steal -> 150 of 200 not idle: 1.5 busy, 0.5 stolen.
  assert.deepEqual(cpuBetween(t0, 'cpu  1100 0 100 5000 50 0 0 50 0 0', 2), { busy_cores: 1.5, steal_cores: 0.5 });
  assert.equal(cpuBetween(t0, t0, 2), null); // no time passed
  assert.equal(cpuBetween(null, t0, 2), null); // no /proc/stat
});
