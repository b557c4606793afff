// Heaps past 2 GiB (issue 11, defect 4). A wasm32 export returns a pointer as a signed i32,
// so past 2 GiB `_malloc` hands JS a negative number; every heap access of the package must
// treat addresses as unsigned (load() wrote the file at a negative offset and failed exactly
// when indexes are big). The test fills the low 2 GiB of a module with indexes that leave no
// free hole, then loads, searches and serialises an index whose buffers can only come from
// above 2^31, and checks every answer against the same calls made before the heap was filled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Quiver } from '../../js/index.js';

const TWO_GIB = 2 ** 31;

for (const variant of ['simd', 'simd-mt']) {
  test(`${variant}: load, search, searchBatch, add and serialize with buffers above 2 GiB`, async () => {
    // The index under test and its answers, from a module whose heap stays small.
    const dim = 8;
    const n = 1 << 20;
    const newIds = new Float64Array(n).map((_, i) => i * 7 + 2);
    let file, single, batch, more, grown;
    {
      const ref = await Quiver.init({ variant: 'simd' });
      const index = new ref.FlatIndex({ dim });
      index.add(
        new Float64Array(n).map((_, i) => i * 7 + 1),
        ref.unitGaussianVectors(n, dim, 42),
      );
      file = index.serialize();
      more = ref.unitGaussianVectors(n, dim, 43);
      index.add(newIds, more);
      grown = {
        single: index.search(more.subarray(0, dim), 3),
        batch: index.searchBatch(more.subarray(0, 64 * dim), 100),
      };
      index.remove(newIds);
      single = index.search(more.subarray(0, dim), 50, { allow: [1, 8, 15, 22] });
      batch = index.searchBatch(more.subarray(0, 64 * dim), 100);
      index.dispose();
      ref.terminate();
    }

    const q = await Quiver.init({ variant });
    try {
      // Fill the heap to past 2 GiB with 16 MiB indexes allocated back to back (one staging
      // block reused for every add, so nothing is freed and no large hole remains below).
      const bigDim = 65536;
      const rows = 64;
      const block = new Float32Array(rows * bigDim);
      const rowIds = Array.from({ length: rows }, (_, i) => i);
      const fillers = [];
      while (q.heapBytes() < TWO_GIB + 2 ** 27) {
        const filler = new q.FlatIndex({ dim: bigDim });
        filler.add(rowIds, block);
        fillers.push(filler);
      }
      assert.ok(q.heapBytes() > TWO_GIB);

      // Every buffer from here on is new and too big for a hole below 2^31: the file copy,
      // the index, the result and vector staging, the serialised bytes.
      const loaded = q.load(file);
      assert.equal(loaded.size, n);
      assert.deepEqual(loaded.serialize(), file);
      loaded.add(newIds, more);
      assert.deepEqual(loaded.search(more.subarray(0, dim), 3), grown.single);
      assert.deepEqual(loaded.searchBatch(more.subarray(0, 64 * dim), 100), grown.batch);
      loaded.remove(newIds);
      assert.deepEqual(loaded.search(more.subarray(0, dim), 50, { allow: [1, 8, 15, 22] }), single);
      assert.deepEqual(loaded.searchBatch(more.subarray(0, 64 * dim), 100), batch);
      assert.deepEqual(loaded.serialize(), file);
      assert.deepEqual(q.unitGaussianVectors(n, dim, 43), more);
      loaded.dispose();
      for (const filler of fillers) filler.dispose();
    } finally {
      q.terminate();
    }
  });
}
