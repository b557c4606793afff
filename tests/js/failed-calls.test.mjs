// A module must survive any number of rejected calls: each one used to leak its wasm stack
// frame (16 bytes of a 5 MiB stack) and the caught C++ exception, so the module broke after
// about 327,000 failures (issue 11, defect 0). Every variant takes CALLS failing calls of
// every kind that reaches the C++ side — NaN query, duplicate id, unknown id, corrupt file,
// bad constructor argument — then must answer exactly as before, with the wasm memory the
// same size. 400,000 (past the old breaking point) in `node --test`; a longer run:
//   node tests/js/failed-calls.test.mjs 5000000
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { loadModule } from '../../js/loader.js';
import { ALL_BUILDS } from '../../js/builds.js';
import { moduleLoader } from './support.mjs';

const CALLS = Number(process.argv[2] ?? 400000);
const load = moduleLoader();

function expectCode(fn, code) {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof QuiverError) || e.code !== code) throw e;
    return;
  }
  assert.fail(`expected QuiverError ${code}`);
}

for (const variant of VARIANTS) {
  describe(`variant ${variant}`, () => {
    test(`${CALLS} failing calls leave the module working and its memory flat`, async () => {
      const q = await load(variant);
      const dim = 8;
      const vectors = q.unitGaussianVectors(50, dim, 42);
      const ids = Array.from({ length: 50 }, (_, i) => i + 1);
      const flat = new q.FlatIndex({ dim });
      const quantized = new q.QuantizedIndex({ dim });
      const hnsw = new q.HnswIndex({ dim, M: 8, efConstruction: 32 });
      const indexes = [flat, quantized, hnsw];
      for (const index of indexes) index.add(ids, vectors);
      const query = vectors.slice(0, dim);
      const expected = indexes.map((index) => index.search(query, 5));
      const files = indexes.map((index) => index.serialize());

      const nan = query.slice();
      nan[3] = NaN;
      const corrupt = files[0].slice();
      corrupt[corrupt.length - 1] ^= 0xff;
      const failures = [
        ...indexes.map((index) => () => expectCode(() => index.search(nan, 5), 'NON_FINITE')),
        ...indexes.map((index) => () => expectCode(() => index.searchBatch(nan, 5), 'NON_FINITE')),
        ...indexes.map((index) => () => expectCode(() => index.add([7], query), 'DUPLICATE_ID')),
        ...indexes.map((index) => () => expectCode(() => index.remove([999]), 'UNKNOWN_ID')),
        () => expectCode(() => q.load(corrupt), 'CHECKSUM_MISMATCH'),
        () => expectCode(() => q.FlatIndex.load(new Uint8Array(64)), 'BAD_MAGIC'),
        () => expectCode(() => new q.FlatIndex({ dim, metric: 'manhattan' }), 'INVALID_ARGUMENT'),
        () => expectCode(() => new q.HnswIndex({ dim, M: 1 }), 'INVALID_ARGUMENT'),
      ];
      // Warm up first: the first failures may allocate what the error path keeps for good
      // (Embind's string conversions, the staging buffers).
      for (let i = 0; i < 10 * failures.length; i++) failures[i % failures.length]();
      const heap = q.heapBytes();
      for (let i = 0; i < CALLS; i++) failures[i % failures.length]();
      assert.equal(q.heapBytes(), heap, 'the wasm memory grew while calls failed');

      // Everything still works and answers as before.
      indexes.forEach((index, i) => {
        assert.deepEqual(index.search(query, 5), expected[i]);
        assert.deepEqual(index.serialize(), files[i]);
        index.add([1000], vectors.slice(dim, 2 * dim));
        assert.equal(index.size, 51);
        const copy = q.load(index.serialize());
        assert.deepEqual(copy.search(query, 5), index.search(query, 5));
        copy.dispose();
        index.dispose();
      });
      assert.equal(q.heapBytes(), heap, 'the wasm memory grew');
    });

    // The binding itself, below the package: a failed call returns its sentinel and leaves
    // the wasm stack pointer where it was (it moved 16 bytes per failure before).
    test('failing binding calls return a sentinel and leave the wasm stack pointer in place', async () => {
      const { mod } = await loadModule({ variant }, ALL_BUILDS, 'test');
      try {
        const index = mod.FlatIndex.create(8, 'l2');
        const query = mod._malloc(32) >>> 0;
        const out = mod._malloc(160) >>> 0;
        new Float32Array(mod.HEAPU8.buffer, query, 8).fill(NaN);
        // Every kind's binding has one search shape: (query, k, out, ef, rerank (-1: unset), probes, allow, allowCount).
        const stack = mod.stackSave();
        for (let i = 0; i < 10000; i++) {
          assert.equal(mod.FlatIndex.create(8, 'manhattan'), null);
          assert.equal(index.search(query, 5, out, 0, -1, 0, 0, 0), -1);
          assert.equal(mod.indexKindOf(out, 16), '');
        }
        assert.equal(mod.stackSave(), stack, 'failed calls moved the wasm stack pointer');
        assert.ok(['BAD_MAGIC', 'TRUNCATED'].includes(mod.lastErrorCode()), mod.lastErrorCode());
        // The slot holds the latest failure: the empty index, which every kind checks before
        // the query (the spine's order: k, parameters, empty index, own rules, queries).
        assert.equal(index.search(query, 5, out, 0, -1, 0, 0, 0), -1);
        assert.equal(mod.lastErrorCode(), 'EMPTY_INDEX');
        mod._free(query);
        mod._free(out);
        index.delete();
      } finally {
        mod.PThread?.terminateAllThreads();
      }
    });
  });
}
