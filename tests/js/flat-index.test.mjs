// The flat index through the npm package's API, in every wasm variant.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { Quiver, QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { hasSimd } from '../../js/loader.js';

const modules = new Map();
async function load(variant) {
  if (!modules.has(variant)) modules.set(variant, await Quiver.init({ variant }));
  return modules.get(variant);
}
after(() => {
  for (const q of modules.values()) q.terminate();
});

test('Node 20 validates the SIMD probe and auto picks simd-mt', async () => {
  assert.equal(hasSimd(), true);
  assert.equal(Quiver.chooseVariant('auto'), 'simd-mt');
  assert.throws(() => Quiver.chooseVariant('avx9'), QuiverError);
});

for (const variant of VARIANTS) {
  describe(`variant ${variant}`, () => {
    test('rerank is a depth in every kind: the exact flat index accepts it and answers the same', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 8 });
      index.add([1, 2, 3, 4, 5], q.unitGaussianVectors(5, 8, 3));
      const query = q.unitGaussianVectors(1, 8, 4);
      const plain = index.search(query, 3);
      for (const rerank of [0, 1, 4]) assert.deepEqual(index.search(query, 3, { rerank }), plain, `rerank ${rerank}`);
      for (const rerank of [-1, 1.5, true, 'deep']) {
        assert.throws(
          () => index.search(query, 3, { rerank }),
          (e) => e instanceof QuiverError && e.code === 'INVALID_ARGUMENT',
          `rerank ${rerank}`,
        );
      }
      // Only HnswIndex keeps the older boolean form.
      const quantized = new q.QuantizedIndex({ dim: 8 });
      quantized.add([1, 2, 3, 4, 5], q.unitGaussianVectors(5, 8, 3));
      assert.throws(
        () => quantized.search(query, 3, { rerank: true }),
        (e) => e.code === 'INVALID_ARGUMENT',
      );
      assert.equal(quantized.search(query, 3, { rerank: 2 }).ids.length, 3);
      quantized.dispose();
      index.dispose();
    });

    test('reports its variant and ISA', async () => {
      const q = await load(variant);
      assert.equal(q.variant, variant);
      assert.equal(q.isa, variant === 'baseline' ? 'scalar' : 'wasm128');
      const index = new q.FlatIndex({ dim: 4 });
      assert.equal(index.isa, q.isa);
      assert.equal(index.dim, 4);
      assert.equal(index.metric, 'l2');
      index.dispose();
    });

    test('hand-checked search with a tie broken by id', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 2, metric: 'l2' });
      index.add([10, 20, 30, 40], new Float32Array([0, 0, 1, 0, 0, 2, 3, 3]));
      const r = index.search(new Float32Array([0, 1]), 3);
      assert.deepEqual([...r.ids], [10, 30, 20]);
      assert.deepEqual([...r.distances], [1, 1, 2]);
      assert.ok(r.ids instanceof Float64Array && r.distances instanceof Float32Array);
      assert.equal(index.size, 4);
      index.remove([10]);
      assert.equal(index.has(10), false);
      assert.equal(index.size, 3);
      assert.deepEqual([...index.search([0, 0], 10).ids], [20, 30, 40]);
      index.dispose();
    });

    test('ids up to 2^53 - 1 round-trip from numbers, Uint32Array and BigUint64Array', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 1 });
      const max = Number.MAX_SAFE_INTEGER;
      index.add([max, 2 ** 32 + 5], [[1], [2]]);
      index.add(new Uint32Array([7]), [3]);
      index.add(new BigUint64Array([123456789012345n]), [4]);
      assert.deepEqual([...index.search([1], 4).ids], [max, 2 ** 32 + 5, 7, 123456789012345]);
      assert.equal(index.has(max), true);
      for (const bad of [-1, 1.5, 2 ** 53, NaN]) {
        assert.throws(
          () => index.add([bad], [9]),
          (e) => e instanceof QuiverError && e.code === 'INVALID_ARGUMENT',
        );
      }
      assert.equal(index.size, 4);
      index.dispose();
    });

    test('bad input throws QuiverError with the C++ message and changes nothing', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 3, metric: 'cosine' });
      index.add(
        [1, 2],
        [
          [1, 0, 0],
          [0, 1, 0],
        ],
      );
      const before = index.search([1, 1, 0.5], 2);
      const cases = [
        ['DIMENSION_MISMATCH', () => index.add([3], [1, 2])],
        [
          'NON_FINITE',
          () =>
            index.add(
              [3, 4],
              [
                [1, 1, 1],
                [1, NaN, 1],
              ],
            ),
        ],
        ['NON_FINITE', () => index.search([Infinity, 0, 0], 1)],
        [
          'DUPLICATE_ID',
          () =>
            index.add(
              [5, 2],
              [
                [1, 1, 1],
                [2, 2, 2],
              ],
            ),
        ],
        [
          'DUPLICATE_ID',
          () =>
            index.add(
              [6, 6],
              [
                [1, 1, 1],
                [2, 2, 2],
              ],
            ),
        ],
        ['UNKNOWN_ID', () => index.remove([1, 99])],
        ['INVALID_K', () => index.search([1, 0, 0], 0)],
        ['INVALID_ARGUMENT', () => index.add([7], [0, 0, 0])],
        ['INVALID_ARGUMENT', () => new q.FlatIndex({ dim: 3, metric: 'manhattan' })],
      ];
      for (const [code, fn] of cases) {
        assert.throws(fn, (e) => {
          assert.ok(e instanceof QuiverError, `expected QuiverError, got ${e}`);
          assert.ok(e instanceof Error);
          assert.equal(e.code, code, e.message);
          assert.ok(e.message.length > 10);
          return true;
        });
      }
      assert.equal(index.size, 2);
      for (const id of [3, 4, 5, 6, 7]) assert.equal(index.has(id), false);
      assert.deepEqual(index.search([1, 1, 0.5], 2), before);
      const empty = new q.FlatIndex({ dim: 3 });
      assert.throws(() => empty.search([1, 2, 3], 1), { code: 'EMPTY_INDEX', message: 'the index is empty' });
      empty.dispose();
      index.dispose();
    });

    test('dispose is idempotent and a disposed index throws instead of crashing', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 2 });
      index.dispose();
      index.dispose();
      assert.throws(() => index.size, { code: 'DISPOSED' });
      assert.throws(() => index.search([1, 2], 1), { code: 'DISPOSED' });
    });

    test('batch search equals single searches', async () => {
      const q = await load(variant);
      const dim = 16;
      const base = q.unitGaussianVectors(300, dim, 1);
      const queries = q.unitGaussianVectors(5, dim, 2);
      const index = new q.FlatIndex({ dim, metric: 'ip' });
      index.add(
        Array.from({ length: 300 }, (_, i) => i),
        base,
      );
      const batch = index.searchBatch(queries, 4);
      assert.equal(batch.k, 4);
      assert.equal(batch.count, 5);
      for (let i = 0; i < 5; i++) {
        const one = index.search(queries.subarray(i * dim, (i + 1) * dim), 4);
        assert.deepEqual([...batch.ids.subarray(i * 4, i * 4 + 4)], [...one.ids]);
      }
      index.dispose();
    });
  });
}

test('every variant returns the same ids on the seed workload', async () => {
  const dim = 384,
    n = 2000,
    nq = 32,
    k = 10;
  const results = [];
  for (const variant of VARIANTS) {
    const q = await load(variant);
    const index = new q.FlatIndex({ dim });
    index.add(
      Array.from({ length: n }, (_, i) => i),
      q.unitGaussianVectors(n, dim, 42),
    );
    results.push([...index.searchBatch(q.unitGaussianVectors(nq, dim, 13), k).ids]);
    index.dispose();
  }
  assert.deepEqual(results[1], results[0]);
  assert.deepEqual(results[2], results[0]);
});
