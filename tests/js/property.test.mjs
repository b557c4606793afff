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
          assert.ok(r.sum / r.n >= RECALL_FLOORS[key], `${key}: mean recall ${(r.sum / r.n).toFixed(3)} over ${r.n} searches`);
        }
      });
    });
  });
}
