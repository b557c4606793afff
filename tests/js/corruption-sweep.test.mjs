// The JS-side corruption sweep (tests/js/corruption-support.mjs says what it does) over index
// files of every kind and storage, in every wasm variant. Bounded for `npm test`: in simd every
// truncation length and a bit of every byte (all eight bits in the container region); in
// simd-mt and baseline the container region densely and every 5th byte of the payloads.
// `node scripts/fuzz-js.mjs --corruption` runs all eight bits of every byte in every variant.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { sampleFiles, summarize, sweep } from './corruption-support.mjs';
import { moduleLoader } from './support.mjs';

const load = moduleLoader();
const HEAP_SLACK = 64 * 1024 * 1024;

describe('corruption sweep through q.load', () => {
  for (const [variant, stride] of [
    ['simd', 1],
    ['simd-mt', 5],
    ['baseline', 5],
  ]) {
    test(`${variant}: truncations, bit flips and checksummed field edits of every kind of file`, async () => {
      const q = await load(variant);
      const files = sampleFiles(q);
      assert.equal(files.length, 18);
      const heapBefore = q.heapBytes();
      const counts = sweep(q, files, { stride });
      assert.ok(counts.loads > 0 && counts.rejected > 0, `${counts.loads} loads, ${counts.rejected} rejected`);
      assert.deepEqual(
        summarize(counts.failures),
        [],
        `${counts.failures.length} of ${counts.loads} damaged files broke a rule`,
      );
      assert.ok(q.heapBytes() <= heapBefore + HEAP_SLACK, `heap grew from ${heapBefore} to ${q.heapBytes()}`);
      console.log(
        `corruption sweep ${variant}: ${files.length} files, ${counts.loads} loads (${counts.rejected} rejected, ${counts.loaded} loaded and used)`,
      );
    });
  }
});
