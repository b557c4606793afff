// The property-based test of the public API (tests/js/property-support.mjs says what it
// checks), bounded for `npm test`: every index kind in the simd build, and fewer sequences of
// each in simd-mt and baseline. A fixed seed per kind and variant keeps runs reproducible;
// QUIVER_PROPERTY_SEED changes it, QUIVER_PROPERTY_RUNS scales the counts.
// scripts/fuzz-js.mjs runs the same property for as long as you like.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KINDS, newStats, property, RECALL_FLOORS } from './property-support.mjs';
import { moduleLoader } from './support.mjs';

const load = moduleLoader();
const BASE_SEED = Number(process.env.QUIVER_PROPERTY_SEED ?? 20261130);
const SCALE = Number(process.env.QUIVER_PROPERTY_RUNS ?? 1);
// The heap may grow to this much above what it was when the variant's runs began: the
// indexes hold at most ~40 vectors of 16 floats, so anything near it is a leak or a buffer
// sized by a huge k.
const HEAP_SLACK = 64 * 1024 * 1024;
const PLAN = [
  { variant: 'simd', runs: 300, maxSteps: 30 },
  { variant: 'simd-mt', runs: 100, maxSteps: 30 },
  { variant: 'baseline', runs: 100, maxSteps: 30 },
];

for (const { variant, runs, maxSteps } of PLAN) {
  describe(`property: the JS API against a reference model (${variant})`, () => {
    KINDS.forEach((kind, i) => {
      test(`${kind}: ${Math.round(runs * SCALE)} random sequences of up to ${maxSteps} steps`, async () => {
        const q = await load(variant);
        const stats = newStats();
        const heapLimit = q.heapBytes() + HEAP_SLACK;
        fc.assert(property(q, kind, maxSteps, stats, heapLimit), {
          seed: BASE_SEED + 1000 * PLAN.findIndex((p) => p.variant === variant) + i,
          numRuns: Math.max(1, Math.round(runs * SCALE)),
        });
        assert.equal(stats.sequences >= runs * SCALE, true);
        // Unknown and inapplicable option keys were sent (and refused, changing nothing).
        assert.ok(stats.unknownOptions > 0, 'no call carried an unknown option key');
        // Across the whole run the approximate kinds stay above their floors too.
        for (const [key, r] of Object.entries(stats.recall)) {
          assert.ok(
            r.sum / r.n >= RECALL_FLOORS[key],
            `${key}: mean recall ${(r.sum / r.n).toFixed(3)} over ${r.n} searches`,
          );
        }
      });
    });
  });
}

// Allow-lists on the partitioned index (issue 23): at the default probes a search goes on
// until it has scored as many allowed vectors as the unfiltered search scores (at least
// 8,192), so an allow-list of at most 8,192 ids is scored in full and answers exactly as the
// unpartitioned index over the same codes does — whatever the ids, their number, k, or whether
// they are a random sample or a neighbourhood of one row. (It stopped once its candidates were
// full before, at the 12 nearest of 64 lists and 8,192 scanned of 10,000, and missed allowed
// vectors further out.)
describe('property: a small allow-list is scored in full by the partitioned index', () => {
  const N = 10000,
    DIM = 16;
  test('partitioned answers equal the unpartitioned index under 150 random allow-lists (simd)', async () => {
    const q = await load('simd');
    const rows = q.unitGaussianVectors(N, DIM, 5);
    const queries = q.unitGaussianVectors(40, DIM, 6);
    const ids = Array.from({ length: N }, (_, i) => 3 * i + 1);
    const make = (lists) => {
      const index = new q.QuantizedIndex({ dim: DIM, metric: 'cosine', keepVectors: false, refineBits: 3, lists });
      index.add(ids, rows);
      return index;
    };
    const part = make(64),
      whole = make(0);
    assert.equal(part.lists, 64);
    try {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 8192 }),
          fc.integer({ min: 1, max: 30 }),
          fc.integer({ min: 0, max: 39 }),
          fc.boolean(),
          fc.integer({ min: 0, max: N - 1 }),
          fc.integer(),
          (count, k, qi, region, centre, seed) => {
            let allowed;
            if (region) {
              // the `count` rows nearest one row: a neighbourhood, maybe far from the query
              const near = whole.search(rows.subarray(centre * DIM, (centre + 1) * DIM), Math.min(count, N));
              allowed = Array.from(near.ids);
            } else {
              // a seeded random sample
              const pick = new Set();
              let s = seed >>> 0;
              while (pick.size < count) {
                s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
                pick.add(ids[s % N]);
              }
              allowed = [...pick];
            }
            const query = queries.subarray(qi * DIM, (qi + 1) * DIM);
            const got = part.search(query, k, { allow: allowed });
            const want = whole.search(query, k, { allow: allowed });
            assert.equal(got.ids.length, Math.min(k, allowed.length));
            assert.deepEqual(Array.from(got.ids), Array.from(want.ids));
            assert.deepEqual(Array.from(got.distances), Array.from(want.distances));
          },
        ),
        { seed: BASE_SEED, numRuns: Math.round(150 * SCALE) },
      );
    } finally {
      part.dispose();
      whole.dispose();
    }
  });
});
