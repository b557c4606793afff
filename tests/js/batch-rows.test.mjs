// searchBatch rows, one rule for every index kind (issue 11, defect 2): every row has
// k = min(k, size) slots, its hits first and then padding (id -1, distance Infinity), and
// counts[q] says how many hits row q has. A row that an allow list leaves short used to show
// whatever an earlier call left in the staging buffer (quantised: other tenants' ids) or a
// fake id 18446744073709552000 (HNSW); FlatIndex ignored `allow` altogether.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { spawn } from '../../js/worker/spawn.js';
import { moduleLoader } from './support.mjs';

const load = moduleLoader();
const DIM = 16;
const N = 500;
const NQ = 20;
const KINDS = {
  flat: (q) => new q.FlatIndex({ dim: DIM }),
  quantized: (q) => new q.QuantizedIndex({ dim: DIM }),
  hnsw: (q) => new q.HnswIndex({ dim: DIM, M: 8, efConstruction: 64 }),
};
const ids = Array.from({ length: N }, (_, i) => i);

// Checks one batch result against per-query search() with the same options.
function checkRows(batch, index, queries, k, options) {
  assert.equal(batch.count, NQ);
  assert.equal(batch.k, Math.min(k, index.size));
  assert.ok(batch.counts instanceof Uint32Array);
  assert.equal(batch.ids.length, NQ * batch.k);
  for (let q = 0; q < NQ; q++) {
    const single = index.search(queries.subarray(q * DIM, (q + 1) * DIM), k, options);
    assert.equal(batch.counts[q], single.ids.length, `row ${q} count`);
    const row = batch.ids.subarray(q * batch.k, (q + 1) * batch.k);
    const dist = batch.distances.subarray(q * batch.k, (q + 1) * batch.k);
    assert.deepEqual([...row.subarray(0, single.ids.length)], [...single.ids], `row ${q} hits`);
    assert.deepEqual([...dist.subarray(0, single.ids.length)], [...single.distances], `row ${q} distances`);
    for (let j = single.ids.length; j < batch.k; j++) {
      assert.equal(row[j], -1, `row ${q} slot ${j} is padding`);
      assert.equal(dist[j], Infinity, `row ${q} slot ${j} is padding`);
    }
  }
}

for (const variant of VARIANTS) {
  describe(`variant ${variant}`, () => {
    for (const [kind, make] of Object.entries(KINDS)) {
      test(`${kind}: filtered rows after an unfiltered batch hold only allowed ids, then padding`, async () => {
        const q = await load(variant);
        const index = make(q);
        index.add(ids, q.unitGaussianVectors(N, DIM, 42));
        const queries = q.unitGaussianVectors(NQ, DIM, 13);
        const unfiltered = index.searchBatch(queries, 10);
        checkRows(unfiltered, index, queries, 10, {});
        assert.ok(unfiltered.counts.every((c) => c === 10));
        const filtered = index.searchBatch(queries, 10, { allow: [7, 8, 9] });
        checkRows(filtered, index, queries, 10, { allow: [7, 8, 9] });
        for (let i = 0; i < filtered.ids.length; i++) {
          assert.ok([7, 8, 9, -1].includes(filtered.ids[i]), `id ${filtered.ids[i]} is not in the allow list`);
        }
        assert.ok(filtered.counts.every((c) => c === 3));
        // The single search returns only real hits.
        assert.deepEqual([...index.search(queries.subarray(0, DIM), 10, { allow: [9, 8, 7] }).ids].sort(), [7, 8, 9]);
        index.dispose();
      });

      test(`${kind}: allow [] gives no hits, in search and in every batch row`, async () => {
        const q = await load(variant);
        const index = make(q);
        index.add(ids, q.unitGaussianVectors(N, DIM, 42));
        const queries = q.unitGaussianVectors(NQ, DIM, 13);
        assert.equal(index.search(queries.subarray(0, DIM), 5, { allow: [] }).ids.length, 0);
        const batch = index.searchBatch(queries, 5, { allow: [] });
        assert.equal(batch.k, 5);
        assert.ok(batch.counts.every((c) => c === 0));
        assert.ok(batch.ids.every((id) => id === -1));
        assert.ok(batch.distances.every((d) => d === Infinity));
        index.dispose();
      });

      test(`${kind}: k beyond the size gives size slots per row`, async () => {
        const q = await load(variant);
        const index = make(q);
        index.add([1, 2, 3], q.unitGaussianVectors(3, DIM, 42));
        const queries = q.unitGaussianVectors(NQ, DIM, 13);
        const batch = index.searchBatch(queries, 50);
        assert.equal(batch.k, 3);
        assert.ok(batch.counts.every((c) => c === 3));
        checkRows(batch, index, queries, 50, {});
        index.dispose();
      });
    }

    test('FlatIndex search options are checked like the other kinds', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 2 });
      index.add(
        [1, 2],
        [
          [0, 0],
          [1, 1],
        ],
      );
      // null options are no options (options.js: null = not given); other non-objects are refused.
      for (const bad of [5, 'allow', [1]]) {
        assert.throws(
          () => index.search([0, 0], 1, bad),
          (e) => e instanceof QuiverError && e.code === 'INVALID_ARGUMENT',
        );
      }
      assert.throws(
        () => index.search([0, 0], 1, { allow: ['1'] }),
        (e) => e instanceof QuiverError && e.code === 'INVALID_ARGUMENT',
      );
      assert.deepEqual([...index.search([0, 0], 2, { allow: [2] }).ids], [2]);
      index.dispose();
    });
  });
}

describe('through the worker API', () => {
  let worker;
  after(async () => {
    await worker?.terminate();
  });
  test('searchBatch brings counts and padding across unchanged', async () => {
    worker = await spawn({ variant: 'simd' });
    for (const kind of Object.keys(KINDS)) {
      const options = kind === 'hnsw' ? { dim: DIM, M: 8, efConstruction: 64 } : { dim: DIM };
      const index = await worker.create(kind, options);
      await index.add(ids, await worker.unitGaussianVectors(N, DIM, 42));
      const queries = await worker.unitGaussianVectors(NQ, DIM, 13);
      const batch = await index.searchBatch(queries, 10, { allow: [7, 8, 9] });
      assert.equal(batch.k, 10);
      assert.ok(batch.counts instanceof Uint32Array, kind);
      assert.ok(
        batch.counts.every((c) => c === 3),
        kind,
      );
      for (let row = 0; row < NQ; row++) {
        const r = [...batch.ids.subarray(row * 10, row * 10 + 10)];
        assert.deepEqual(r.slice(0, 3).sort(), [7, 8, 9], kind);
        assert.deepEqual(r.slice(3), Array(7).fill(-1), kind);
      }
      await index.dispose();
    }
  });
});
