// What the package's staging buffers keep in the wasm heap between calls: at most 8 MiB in
// all (q.stagingBytes()), whatever the calls before staged — big batches, big allow-lists,
// several of them at once, and calls that were refused after their inputs were staged. The
// issue this guards against: staging that stayed at 1.5x the largest batch ever added.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Quiver, QuiverError } from '../../js/index.js';

const KEPT_LIMIT = 8 * 2 ** 20;
const q = await Quiver.init({ variant: 'simd' });
after(() => q.terminate());

const dim = 64;
const n = 20_000; // 5 MiB of vectors: one slice
const vectors = q.unitGaussianVectors(n, dim, 5);
const ids = Float64Array.from({ length: n }, (_, i) => i);
const bigAllow = Float64Array.from({ length: 750_000 }, (_, i) => i); // 6 MB of ids

test('one call that stages several large blocks keeps at most 8 MiB of them', () => {
  const index = new q.FlatIndex({ dim, metric: 'l2' });
  try {
    index.add(ids, vectors); // ids 160 KB + vectors 5 MiB
    assert.ok(q.stagingBytes() <= KEPT_LIMIT, `after add: ${q.stagingBytes()}`);
    // allow-list 6 MB, results 200 x 2,000 x 16 B = 6.4 MB
    const batch = index.searchBatch(vectors.subarray(0, 200 * dim), 2000, { allow: bigAllow });
    assert.equal(batch.count, 200);
    assert.ok(q.stagingBytes() <= KEPT_LIMIT, `after searchBatch: ${q.stagingBytes()}`);
    assert.ok(q.stagingBytes() > 0, 'small blocks are kept for the next call');
  } finally {
    index.dispose();
  }
});

test('a call refused after its allow-list was staged keeps no large block', () => {
  const index = new q.FlatIndex({ dim, metric: 'l2' });
  try {
    index.add(ids.subarray(0, 10), vectors.subarray(0, 10 * dim));
    const allow = Float64Array.from({ length: 2_000_000 }, (_, i) => i); // 16 MB
    assert.throws(
      () => index.search(vectors.subarray(0, dim), 0, { allow }),
      (e) => e instanceof QuiverError && e.code === 'INVALID_K',
    );
    assert.ok(q.stagingBytes() <= KEPT_LIMIT, `after a refused search: ${q.stagingBytes()}`);
    assert.throws(
      () => index.searchBatch(vectors.subarray(0, dim + 1), 1, { allow }),
      (e) => e instanceof QuiverError && e.code === 'DIMENSION_MISMATCH',
    );
    assert.ok(q.stagingBytes() <= KEPT_LIMIT, `after a refused searchBatch: ${q.stagingBytes()}`);
  } finally {
    index.dispose();
  }
});
