// Limits and coercions at the JS boundary (issue 11, defects 1 and 7). Nothing the caller
// passes may wrap, overwrite the heap or arrive as something else: k is an integer in
// [1, 2^32 - 1] and sizes the result buffers only through min(k, size); dim is an integer in
// [1, 2^24]; metric, ids and vectors of the wrong type are QuiverErrors (not Embind's
// BindingError or a TypeError); string ids are refused, not coerced; a file whose ids JS
// cannot name exactly (above 2^53 - 1) does not load. Every rejected call changes nothing and
// the module keeps working.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { crc32c, moduleLoader } from './support.mjs';

const load = moduleLoader();

function rejects(fn, code) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof QuiverError, `expected QuiverError ${code}, got ${e?.name}: ${e?.message}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

// Recomputes the section and header CRCs of an edited index file (layout: src/container/format.hpp).
function fixCrcs(b) {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const headerBytes = v.getUint32(12, true);
  const sections = v.getUint32(16 + 40, true);
  for (let i = 0; i < sections; i++) {
    const e = 16 + headerBytes + 32 * i;
    const off = Number(v.getBigUint64(e + 8, true));
    const size = Number(v.getBigUint64(e + 16, true));
    v.setUint32(e + 24, crc32c(b.subarray(off, off + size)), true);
  }
  const end = 16 + headerBytes + 32 * sections;
  v.setUint32(end, crc32c(b.subarray(0, end)), true);
  return b;
}

// The file with every u64 equal to `from` rewritten as `to` (CRCs fixed).
function replaceId(bytes, from, to) {
  const b = bytes.slice();
  const v = new DataView(b.buffer);
  let found = 0;
  for (let off = 0; off + 8 <= b.length; off++) {
    if (v.getBigUint64(off, true) === from) {
      v.setBigUint64(off, to, true);
      found++;
    }
  }
  assert.equal(found, 1, 'the marker id appears once in the file');
  return fixCrcs(b);
}

for (const variant of VARIANTS) {
  describe(`variant ${variant}`, () => {
    test('a huge k is clamped to the size: no heap overwrite, no heap growth, coded errors past 2^32 - 1', async () => {
      const q = await load(variant);
      const dim = 8;
      const index = new q.FlatIndex({ dim });
      const n = 1000;
      const vectors = q.unitGaussianVectors(n, dim, 42);
      index.add(
        Array.from({ length: n }, (_, i) => i),
        vectors,
      );
      const query = vectors.slice(0, dim);
      const all = index.search(query, n);
      index.searchBatch(vectors.slice(0, 4 * dim), n); // warm: staging sized for these calls
      const heap = q.heapBytes();
      // 178956971 * 16 wraps to 8 bytes under `| 0`; 1e8 and 1e7 used to reserve GBs / MBs.
      for (const k of [178956971, 1e8, 1e7, 2 ** 32 - 1]) {
        assert.deepEqual(index.search(query, k), all, `k = ${k}`);
        const batch = index.searchBatch(vectors.slice(0, 4 * dim), k);
        assert.equal(batch.k, n);
        assert.deepEqual([...batch.ids.subarray(0, n)], [...all.ids]);
      }
      assert.equal(q.heapBytes(), heap, 'a huge k grew the wasm memory');
      for (const k of [2 ** 32 + 3, 2 ** 32, 2 ** 53, 0, -1, 1.5, NaN, Infinity, '5', null, 5n]) {
        rejects(() => index.search(query, k), 'INVALID_K');
        rejects(() => index.searchBatch(query, k), 'INVALID_K');
      }
      // The module is still sound: valid calls answer as before (simd-mt used to hang here).
      assert.deepEqual(index.search(query, 10), { ids: all.ids.slice(0, 10), distances: all.distances.slice(0, 10) });
      const again = new q.FlatIndex({ dim });
      again.add([1], query);
      assert.deepEqual([...again.search(query, 1e8).ids], [1]);
      again.dispose();
      index.dispose();
    });

    test('a batch whose results the heap cannot hold is OUT_OF_MEMORY and changes nothing', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 1 });
      const n = 100000;
      index.add(
        Array.from({ length: n }, (_, i) => i),
        q.unitGaussianVectors(n, 1, 42),
      );
      const queries = q.unitGaussianVectors(3000, 1, 13);
      const heap = q.heapBytes();
      // 3000 rows x min(1e6, 100000) x 16 bytes = 4.8 GB > 4 GiB.
      rejects(() => index.searchBatch(queries, 1e6), 'OUT_OF_MEMORY');
      assert.equal(q.heapBytes(), heap);
      const batch = index.searchBatch(queries.subarray(0, 2), 3);
      assert.deepEqual([...batch.ids.subarray(0, 3)], [...index.search(queries.subarray(0, 1), 3).ids]);
      index.dispose();
    });

    test('loadFrom with a declared size past 4 GiB is OUT_OF_MEMORY, not a wrapped block the stream overruns', async () => {
      const q = await load(variant);
      const index = new q.FlatIndex({ dim: 4 });
      index.add(
        [1, 2],
        [
          [1, 0, 0, 0],
          [0, 1, 0, 0],
        ],
      );
      const file = index.serialize();
      index.dispose();
      for (const size of [2 ** 32 + 64, 2 ** 33]) {
        await assert.rejects(
          q.loadFrom(new Blob([file]), { size }),
          (e) => e instanceof QuiverError && e.code === 'OUT_OF_MEMORY',
        );
      }
      const loaded = await q.loadFrom(new Blob([file]));
      assert.deepEqual([...loaded.search([0, 1, 0, 0], 1).ids], [2]);
      loaded.dispose();
    });

    test('dim, metric and options: coded errors, no wrap-around, no BindingError', async () => {
      const q = await load(variant);
      for (const Cls of [q.FlatIndex, q.QuantizedIndex, q.HnswIndex]) {
        for (const dim of [2 ** 32 + 16, 2 ** 24 + 1, 0, -8, 1.5, '8', null, undefined, 8n]) {
          rejects(() => new Cls({ dim }), 'INVALID_ARGUMENT');
        }
        for (const metric of [5, {}, 'manhattan', 'L2']) {
          rejects(() => new Cls({ dim: 4, metric }), 'INVALID_ARGUMENT');
        }
        // null = not given (options.js): the default metric.
        const plain = new Cls({ dim: 4, metric: null });
        assert.equal(plain.metric, 'l2');
        plain.dispose();
        for (const options of [null, 4, 'dim']) rejects(() => new Cls(options), 'INVALID_ARGUMENT');
      }
      const index = new q.FlatIndex({ dim: 2 ** 4 });
      assert.equal(index.dim, 16);
      index.dispose();
    });

    test('null, undefined and strings for ids and vectors are QuiverErrors and change nothing', async () => {
      const q = await load(variant);
      for (const make of [
        () => new q.FlatIndex({ dim: 2 }),
        () => new q.QuantizedIndex({ dim: 2 }),
        () => new q.HnswIndex({ dim: 2 }),
      ]) {
        const index = make();
        index.add(
          [1, 2],
          [
            [0.5, 0],
            [1, 1],
          ],
        );
        const before = index.search([0, 0.5], 2);
        const bad = [
          () => index.add(null, [[2, 2]]),
          () => index.add(undefined, [[2, 2]]),
          () => index.add([3], null),
          () => index.add([3], undefined),
          () => index.add(['3'], [[2, 2]]),
          () => index.add([{}], [[2, 2]]),
          () => index.add({ length: 1, 0: 3 }, [[2, 2]]),
          () => index.add([3], [['2', 2]]),
          () => index.add([3], [null]),
          () => index.add([3], ['2', '2']),
          () => index.remove(null),
          () => index.remove(['1']),
          () => index.search(null, 1),
          () => index.search(undefined, 1),
          () => index.search(['0', '0'], 1),
          () => index.searchBatch(null, 1),
          () => index.has('1'),
          () => index.has(null),
          () => index.has(undefined),
        ];
        for (const call of bad) rejects(call, 'INVALID_ARGUMENT');
        assert.equal(index.size, 2);
        assert.deepEqual(index.search([0, 0.5], 2), before);
        assert.equal(index.has(1), true);
        assert.equal(index.has(1n), true);
        assert.equal(index.has(-1), false);
        assert.equal(index.has(2 ** 64), false);
        assert.equal(index.has(2n ** 64n), false);
        index.dispose();
      }
      rejects(() => q.load(null), 'INVALID_ARGUMENT');
      rejects(() => q.FlatIndex.load(undefined), 'INVALID_ARGUMENT');
    });

    test('a file with an id above 2^53 - 1 does not load in JS (every kind)', async () => {
      const q = await load(variant);
      const marker = 0x1a2b3c4d5e6f;
      for (const make of [
        () => new q.FlatIndex({ dim: 4 }),
        () => new q.QuantizedIndex({ dim: 4 }),
        () => new q.HnswIndex({ dim: 4 }),
      ]) {
        const index = make();
        index.add(
          [1, marker, 3],
          [
            [1, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 0, 1, 0],
          ],
        );
        const good = index.serialize();
        index.dispose();
        // The same file with the marker id rewritten still loads (so the edit is sound) ...
        const same = q.load(replaceId(good, BigInt(marker), BigInt(marker + 1)));
        assert.equal(same.has(marker + 1), true);
        same.dispose();
        // ... but not with an id JS would round (2^53 + 1 reads back as 2^53).
        for (const id of [2n ** 53n + 1n, 2n ** 53n, 2n ** 64n - 2n]) {
          const bytes = replaceId(good, BigInt(marker), id);
          assert.throws(
            () => q.load(bytes),
            (e) => e instanceof QuiverError && e.code === 'INVALID_ARGUMENT' && e.message.includes(String(id)),
          );
        }
      }
    });
  });
}
