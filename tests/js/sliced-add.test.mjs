// add() of a large batch: the package feeds it to wasm in slices of at most 4 MiB of vectors
// (js/core/staging.js addInSlices), so staging never holds the whole batch beside the index, and
// it stays all or nothing — a bad row or id in any slice adds nothing at all.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Quiver, QuiverError } from '../../js/index.js';
import { ADD_SLICE_BYTES } from '../../js/core/staging.js';

const q = await Quiver.init({ variant: 'simd' });
after(() => q.terminate());
const is = (code) => (e) => e instanceof QuiverError && e.code === code;

const dim = 256;
const rowsPerSlice = ADD_SLICE_BYTES / (dim * 4);
const n = 2 * rowsPerSlice + 500; // three slices
const vectors = q.unitGaussianVectors(n, dim, 21);
const ids = Float64Array.from({ length: n }, (_, i) => 10 * i + 7);

test('a batch of three slices gives the index that small adds give', () => {
  const big = new q.FlatIndex({ dim, metric: 'cosine' });
  const small = new q.FlatIndex({ dim, metric: 'cosine' });
  try {
    big.add(ids, vectors);
    for (let at = 0; at < n; at += 1000) {
      small.add(ids.subarray(at, Math.min(at + 1000, n)), vectors.subarray(at * dim, Math.min(at + 1000, n) * dim));
    }
    assert.equal(big.size, n);
    assert.deepEqual(big.serialize(), small.serialize());
    const qz = new q.QuantizedIndex({ dim, metric: 'l2', bits: 4 });
    qz.add(ids, vectors);
    assert.equal(qz.size, n);
    assert.equal(qz.search(vectors.subarray(5 * dim, 6 * dim), 1, { rerank: 4 }).ids[0], ids[5]);
    qz.dispose();
  } finally {
    big.dispose();
    small.dispose();
  }
});

test('a bad row or id in any slice adds nothing', () => {
  const index = new q.FlatIndex({ dim, metric: 'cosine' });
  try {
    index.add([1, 2], vectors.subarray(0, 2 * dim));
    const before = index.serialize();
    const unchanged = () => {
      assert.equal(index.size, 2);
      assert.deepEqual(index.serialize(), before);
    };
    const nan = vectors.slice();
    nan[(n - 3) * dim + 5] = NaN; // in the last slice
    assert.throws(
      () => index.add(ids, nan),
      (e) => is('NON_FINITE')(e) && /batch row/.test(e.message),
    );
    unchanged();
    const zero = vectors.slice();
    zero.fill(0, (rowsPerSlice + 1) * dim, (rowsPerSlice + 2) * dim); // a zero row under cosine, second slice
    assert.throws(() => index.add(ids, zero), is('INVALID_ARGUMENT'));
    unchanged();
    const repeated = ids.slice();
    repeated[n - 1] = repeated[0]; // repeated across slices
    assert.throws(() => index.add(repeated, vectors), is('DUPLICATE_ID'));
    unchanged();
    const present = ids.slice();
    present[n - 10] = 2; // already in the index
    assert.throws(() => index.add(present, vectors), is('DUPLICATE_ID'));
    unchanged();
    const fractional = ids.slice();
    fractional[rowsPerSlice + 3] = 0.5;
    assert.throws(() => index.add(fractional, vectors), is('INVALID_ARGUMENT'));
    unchanged();
    index.add(ids, vectors); // and the good batch still goes in
    assert.equal(index.size, n + 2);
  } finally {
    index.dispose();
  }
});

test('the staging of a large add is handed back: a second large add does not grow the heap', () => {
  const index = new q.FlatIndex({ dim, metric: 'l2' });
  try {
    index.add(ids, vectors);
    index.remove(ids);
    const heap = q.heapBytes();
    index.add(ids, vectors);
    assert.equal(q.heapBytes(), heap);
  } finally {
    index.dispose();
  }
});
