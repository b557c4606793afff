// A chunked add through the worker that is cancelled or partly rejected leaves the index as it
// was, byte for byte (issue 23 item 8). It used to remove the rows it had added, which is not an
// inverse for every kind: a partitioned quantised index of 500 vectors in 1 list came back
// re-trained into 16 lists, a quantised index kept the removed slots on its free list and HNSW
// kept them as tombstones — serialize() gave other bytes (and other answers). Each kind is
// checked after an aborted add and after an add whose later chunk holds a NaN; and a later add
// gives the same file as on an index that never saw the failed one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, QuiverError } from '../../js/main.js';

const is = (code) => (e) => e instanceof QuiverError && e.code === code;
const workers = [];
after(async () => {
  for (const w of workers) await w.terminate();
});
const range = (from, n) => Float64Array.from({ length: n }, (_, i) => from + i);

const dim = 8;
const KINDS = [
  ['flat', 'flat', { dim }],
  ['quantized', 'quantized', { dim, bits: 4, seed: 3 }],
  ['quantized, 16 lists (trained during the add)', 'quantized', { dim, bits: 4, seed: 3, lists: 16, refineBits: 2 }],
  ['hnsw', 'hnsw', { dim, M: 8, efConstruction: 32 }],
  ['hnsw sq8', 'hnsw', { dim, M: 8, efConstruction: 32, storage: 'sq8' }],
];
const addOptions = (kind) => (kind === 'hnsw' ? { threads: 1 } : {});

for (const variant of ['simd', 'simd-mt']) {
  for (const [name, kind, options] of KINDS) {
    test(`${variant}, ${name}: an aborted or partly rejected chunked add leaves the same bytes`, async () => {
      const w = await spawn({ variant, threads: 2 });
      workers.push(w);
      const vectors = await w.unitGaussianVectors(2000, dim, 11);
      const base = vectors.slice(0, 500 * dim);
      const extra = vectors.slice(500 * dim, 1500 * dim);
      const index = await w.create(kind, options);
      await index.add(range(0, 500), base, addOptions(kind));
      await index.remove([3, 17, 400]); // free slots / tombstones before the add, too
      const before = await index.serialize();
      const lists = kind === 'quantized' ? await index.property('lists') : undefined;

      // Aborted after the third chunk of 100.
      const controller = new AbortController();
      const seen = [];
      await assert.rejects(
        index.add(range(1000, 1000), extra, {
          ...addOptions(kind),
          chunkSize: 100,
          signal: controller.signal,
          onProgress: (p) => {
            seen.push(p.done);
            if (p.done === 300) controller.abort();
          },
        }),
        is('ABORTED'),
      );
      assert.ok(seen.includes(300) && seen.at(-1) < 1000, `stopped part-way: ${seen}`);
      assert.deepEqual(await index.serialize(), before, 'the aborted add changed the bytes');
      if (lists !== undefined) assert.equal(await index.property('lists'), lists, 'the partition was re-trained');

      // Rejected in the sixth chunk (a NaN), after five chunks went in.
      const bad = extra.slice();
      bad[550 * dim + 2] = NaN;
      await assert.rejects(
        index.add(range(1000, 1000), bad, { ...addOptions(kind), chunkSize: 100, onProgress: () => {} }),
        is('NON_FINITE'),
      );
      assert.deepEqual(await index.serialize(), before, 'the partly rejected add changed the bytes');
      assert.equal(await index.size, 497);
      assert.equal(await index.has(1000), false);

      // The index still works under its handle, and a later add gives the same file as on an
      // index that never saw the failed adds.
      const twin = await w.load(before);
      await index.add(range(1000, 1000), extra, { ...addOptions(kind), chunkSize: 250, onProgress: () => {} });
      await twin.add(range(1000, 1000), extra, { ...addOptions(kind), chunkSize: 250, onProgress: () => {} });
      assert.deepEqual(
        await index.serialize(),
        await twin.serialize(),
        'a later add differs from one on an untouched copy',
      );
      assert.equal(await index.size, 1497);
      if (options.lists) {
        assert.equal(lists, 1, 'untrained before the add');
        assert.equal(await index.property('lists'), 16, 'the add crosses the training threshold');
      }
      const query = extra.subarray(5 * dim, 6 * dim);
      assert.deepEqual(await index.search(query, 3), await twin.search(query, 3));
      await index.dispose();
      await twin.dispose();
      await w.terminate();
    });
  }
}
