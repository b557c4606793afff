// The partitioned quantised index through the npm package, in every wasm variant: the lists
// and refineBits options and their getters, probes per call (every list probed = the
// unpartitioned index), bad values refused with INVALID_ARGUMENT, serialize/load round trips
// (from bytes and from a stream), and a partitioned file written natively in the older section
// order loading to the same index.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { chunked, moduleLoader, root } from './support.mjs';

const load = moduleLoader();
const N = 1200,
  DIM = 16,
  K = 10;

function rejects(fn, code, name) {
  assert.throws(
    fn,
    (e) => {
      assert.ok(e instanceof QuiverError, `${name}: not a QuiverError: ${e}`);
      assert.equal(e.code, code, `${name}: ${e.code} ${e.message}`);
      return true;
    },
    name,
  );
}

// The payload of each section of an index file, by tag, in file order (quiver/index_file.hpp:
// header size at byte 12, section count at 16 + 40, 32-byte table entries after the header).
function sections(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerBytes = view.getUint32(12, true),
    count = view.getUint32(16 + 40, true);
  const out = new Map();
  for (let i = 0; i < count; i++) {
    const e = 16 + headerBytes + 32 * i;
    const tag = String.fromCharCode(...bytes.subarray(e, e + 4));
    const offset = Number(view.getBigUint64(e + 8, true)),
      size = Number(view.getBigUint64(e + 16, true));
    out.set(tag, bytes.slice(offset, offset + size));
  }
  return out;
}

function build(q, options) {
  const index = new q.QuantizedIndex({ dim: DIM, metric: 'cosine', bits: 4, seed: 3, ...options });
  index.add(
    Float64Array.from({ length: N }, (_, i) => 10 + i),
    q.unitGaussianVectors(N, DIM, 5),
  );
  return index;
}

for (const variant of VARIANTS) {
  describe(`QuantizedIndex lists (${variant})`, () => {
    test('lists, refineBits and probes', async () => {
      const q = await load(variant);
      const part = build(q, { lists: 16, refineBits: 3, keepVectors: false });
      assert.equal(part.listsOption, 16);
      assert.equal(part.lists, 16); // trained at 32 x 16 = 512 vectors
      assert.equal(part.defaultProbes, 8);
      assert.equal(part.refineBits, 3);
      const full = build(q, { lists: 0, refineBits: 3, keepVectors: false });
      assert.equal(full.lists, 0);
      const queries = q.unitGaussianVectors(8, DIM, 9);
      const all = part.searchBatch(queries, K, { probes: 16 });
      const want = full.searchBatch(queries, K);
      assert.deepEqual(all.ids, want.ids);
      assert.deepEqual(all.distances, want.distances);
      const one = part.search(queries.subarray(0, DIM), K, { probes: 1 });
      assert.equal(one.ids.length, K);
      const rows = part.searchBatch(queries, K, { probes: 2 });
      assert.deepEqual(part.search(queries.subarray(DIM, 2 * DIM), K, { probes: 2 }).ids, rows.ids.subarray(K, 2 * K));
      const auto = build(q, { lists: 'auto' });
      assert.equal(auto.listsOption, 'auto');
      assert.equal(auto.lists, 1); // auto trains at 4096 vectors
      for (const index of [part, full, auto]) index.dispose();
    });

    test('refineBits 1..5 over 2- and 4-bit codes: each is kept, and 5 finds every stored vector first', async () => {
      const q = await load(variant);
      const base = q.unitGaussianVectors(N, DIM, 5);
      for (const bits of [2, 4]) {
        for (let refineBits = 1; refineBits <= 5; refineBits++) {
          const index = build(q, { bits, lists: 16, refineBits, keepVectors: false });
          assert.equal(index.refineBits, refineBits);
          if (refineBits === 5) {
            // 2 + 5 and 4 + 5 bits per coordinate: a stored vector is its own nearest neighbour.
            const got = index.searchBatch(base.subarray(0, 8 * DIM), 1, { probes: 16 });
            assert.deepEqual(Array.from(got.ids), [10, 11, 12, 13, 14, 15, 16, 17], `bits ${bits}`);
          }
          index.dispose();
        }
      }
    });

    test('bad lists, refineBits and probes are refused', async () => {
      const q = await load(variant);
      for (const lists of [-1, 1.5, 65537, 'x', true]) {
        // (null = not given: the default)
        rejects(() => new q.QuantizedIndex({ dim: 4, lists }), 'INVALID_ARGUMENT', `lists ${lists}`);
      }
      for (const refineBits of [-1, 6, 2.5, '3']) {
        rejects(() => new q.QuantizedIndex({ dim: 4, refineBits }), 'INVALID_ARGUMENT', `refineBits ${refineBits}`);
      }
      const index = build(q, { lists: 8 });
      for (const probes of [-1, 1.5, 2 ** 32, '2']) {
        rejects(
          () => index.search(q.unitGaussianVectors(1, DIM, 1), K, { probes }),
          'INVALID_ARGUMENT',
          `probes ${probes}`,
        );
      }
      assert.equal(index.size, N);
      index.dispose();
    });

    test('serialize / load round trip and a native file', async () => {
      const q = await load(variant);
      const index = build(q, { lists: 12, keepVectors: true });
      index.remove([10, 11, 500]);
      const bytes = index.serialize();
      const copy = q.load(bytes);
      assert.equal(copy.lists, 12);
      assert.equal(copy.listsOption, 12);
      assert.deepEqual(copy.serialize(), bytes);
      const queries = q.unitGaussianVectors(4, DIM, 2);
      assert.deepEqual(
        copy.searchBatch(queries, K, { probes: 3, rerank: 2 }),
        index.searchBatch(queries, K, { probes: 3, rerank: 2 }),
      );
      // The partition is stored before the codes, so a stream is placed into the lists as it
      // arrives: the same index from a stream of small pieces.
      assert.deepEqual(
        [...sections(bytes).keys()],
        ['SLOT', 'FREE', 'PART', 'CENT', 'LIST', 'CODE', 'OFFS', 'SCAL', 'VECS'],
      );
      const streamed = await q.loadFrom(chunked(bytes, 1000));
      assert.deepEqual(streamed.serialize(), bytes);
      assert.deepEqual(
        streamed.searchBatch(queries, K, { probes: 3, rerank: 2 }),
        index.searchBatch(queries, K, { probes: 3, rerank: 2 }),
      );
      // Written by the native library (tests/fuzz/make-corpus.sh) in the older order, the
      // partition last: 3 trained lists, free slots. It loads (gathered whole, as before) and
      // saves the same sections, byte for byte, in the current order, which streams into the
      // same index.
      const file = new Uint8Array(
        readFileSync(join(root, 'tests/fuzz/corpus/index_loader/quantized-4-l2-lists3-free.qvr')),
      );
      const native = q.load(file);
      assert.equal(native.lists, 3);
      assert.deepEqual([...sections(file).keys()].slice(-3), ['PART', 'CENT', 'LIST']);
      const resaved = native.serialize();
      const order = [...sections(resaved).keys()];
      assert.ok(order.indexOf('LIST') < order.indexOf('CODE'), order.join(' '));
      assert.deepEqual(Object.fromEntries(sections(resaved)), Object.fromEntries(sections(file)));
      const fromStream = await q.loadFrom(chunked(resaved, 100));
      assert.deepEqual(fromStream.serialize(), resaved);
      const nativeQueries = q.unitGaussianVectors(3, native.dim, 9);
      for (const probes of [1, 3]) {
        assert.deepEqual(
          fromStream.searchBatch(nativeQueries, 5, { probes }),
          native.searchBatch(nativeQueries, 5, { probes }),
        );
      }
      for (const i of [index, copy, streamed, native, fromStream]) i.dispose();
    });
  });
}
