// The quantised index through the npm package, in every wasm variant: options and getters,
// the seed workload giving the same ids in every variant and natively, rerank and allow
// options, bad input (QuiverError with the C++ code, index unchanged), serialize/load round
// trips with byte-identical files, and files crossing between the native CLI and JS.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Quiver, QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { crc32c, fnv1a, moduleLoader, readFbin, requireCli, runCli, workDir, writeFbin } from './support.mjs';

const work = workDir('quiver-quantized-test-');
const load = moduleLoader();

function rejects(fn, code, part, name = code) {
  assert.throws(
    fn,
    (e) => {
      assert.ok(e instanceof QuiverError, `${name}: not a QuiverError: ${e}`);
      assert.equal(e.code, code, `${name}: ${e.code} ${e.message}`);
      if (part) assert.ok(e.message.includes(part), `${name}: ${e.message}`);
      return true;
    },
    name,
  );
}
const row = (data, dim, i) => data.subarray(i * dim, (i + 1) * dim);

function smallIndex(q, options = {}) {
  const dim = options.dim ?? 8;
  const index = new q.QuantizedIndex({ dim, metric: 'l2', bits: 4, seed: 42, keepVectors: true, ...options });
  const base = q.unitGaussianVectors(60, dim, 21);
  index.add(
    Float64Array.from({ length: 60 }, (_, i) => 1000 + i),
    base,
  );
  return { index, base, dim };
}

// The seed workload (DESIGN.md), built once per variant.
const seedIds = new Map();
async function seedWorkloadIds(variant) {
  if (seedIds.has(variant)) return seedIds.get(variant);
  const q = await load(variant);
  const n = 10000,
    dim = 384,
    nq = 256,
    k = 10;
  const base = q.unitGaussianVectors(n, dim, 42);
  const queries = q.unitGaussianVectors(nq, dim, 13);
  const index = new q.QuantizedIndex({ dim, metric: 'l2', bits: 4, seed: 42, keepVectors: true });
  index.add(
    Float64Array.from({ length: n }, (_, i) => i),
    base,
  );
  const plain = index.searchBatch(queries, k);
  const reranked = index.searchBatch(queries, k, { rerank: 4 });
  const out = { plain: [...plain.ids], reranked: [...reranked.ids], bytes: index.serialize() };
  // searchBatch rows equal single searches
  for (const i of [0, 17, 255]) {
    assert.deepEqual([...index.search(row(queries, dim, i), k).ids], out.plain.slice(i * k, (i + 1) * k));
    assert.deepEqual(
      [...index.search(row(queries, dim, i), k, { rerank: 4 }).ids],
      out.reranked.slice(i * k, (i + 1) * k),
    );
  }
  index.dispose();
  seedIds.set(variant, out);
  return out;
}

for (const variant of VARIANTS) {
  describe(`QuantizedIndex, variant ${variant}`, () => {
    test('options and getters', async () => {
      const q = await load(variant);
      const index = new q.QuantizedIndex({ dim: 10, metric: 'cosine', bits: 2, seed: 9, keepVectors: false });
      assert.ok(index instanceof q.QuantizedIndex);
      assert.equal(index.dim, 10);
      assert.equal(index.metric, 'cosine');
      assert.equal(index.bits, 2);
      assert.equal(index.seed, 9);
      assert.equal(index.keepVectors, false);
      assert.equal(index.isa, variant === 'baseline' ? 'scalar' : 'wasm128');
      assert.equal(index.variant, variant);
      assert.equal(index.size, 0);
      index.dispose();
      const d = new q.QuantizedIndex({ dim: 3 });
      assert.deepEqual([d.metric, d.bits, d.seed, d.keepVectors], ['l2', 4, 42, true]);
      d.dispose();
      rejects(() => d.size, 'DISPOSED');
      assert.equal(
        typeof Symbol.dispose === 'symbol' ? typeof q.QuantizedIndex.prototype[Symbol.dispose] : 'function',
        'function',
      );
    });

    test('add, has, remove, search with ids closest first', async () => {
      const q = await load(variant);
      const { index, base, dim } = smallIndex(q);
      assert.equal(index.size, 60);
      assert.equal(index.has(1005), true);
      assert.equal(index.has(5), false);
      assert.ok(index.memoryBytes > 60 * 4);
      // A stored vector reranked exactly is its own nearest neighbour at distance 0.
      const r = index.search(row(base, dim, 7), 5, { rerank: 8 });
      assert.equal(r.ids[0], 1007);
      assert.equal(r.distances[0], 0);
      assert.ok(r.ids instanceof Float64Array && r.distances instanceof Float32Array);
      for (let i = 1; i < r.distances.length; i++) assert.ok(r.distances[i - 1] <= r.distances[i]);
      index.remove([1007, 1010]);
      assert.equal(index.size, 58);
      assert.equal(index.has(1007), false);
      assert.ok(![...index.search(row(base, dim, 7), 58).ids].includes(1007));
      index.dispose();
    });

    test('rerank gives exact distances; codes-only indexes refuse it', async () => {
      const q = await load(variant);
      const { index, base, dim } = smallIndex(q, { metric: 'ip' });
      const flat = new q.FlatIndex({ dim, metric: 'ip' });
      flat.add(
        Float64Array.from({ length: 60 }, (_, i) => 1000 + i),
        base,
      );
      const query = q.unitGaussianVectors(1, dim, 77);
      const exact = flat.search(query, 60);
      const exactOf = new Map([...exact.ids].map((id, i) => [id, exact.distances[i]]));
      const rr = index.search(query, 5, { rerank: 12 }); // 60 candidates: the whole index
      assert.deepEqual([...rr.ids], [...exact.ids].slice(0, 5));
      for (let i = 0; i < 5; i++) assert.ok(Math.abs(rr.distances[i] - exactOf.get(rr.ids[i])) <= 1e-5);
      const codes = index.search(query, 5); // estimates: same ids need not hold, but close
      assert.equal(codes.ids.length, 5);
      flat.dispose();
      index.dispose();
      const lean = new q.QuantizedIndex({ dim, keepVectors: false });
      lean.add([1, 2], base.subarray(0, 2 * dim));
      rejects(() => lean.search(row(base, dim, 0), 1, { rerank: 2 }), 'INVALID_ARGUMENT', 'keep_vectors');
      assert.equal(lean.search(row(base, dim, 0), 1).ids[0], 1);
      lean.dispose();
    });

    test('allow lists restrict results, per call', async () => {
      const q = await load(variant);
      const { index, base, dim } = smallIndex(q);
      const query = row(base, dim, 3);
      const allow = [1040, 1003, 1059, 99999]; // 99999 is not in the index: ignored
      const r = index.search(query, 10, { allow });
      assert.deepEqual([...r.ids].sort(), [1003, 1040, 1059]);
      assert.equal(r.ids[0], 1003);
      assert.equal(index.search(query, 10, { allow: new Uint32Array([1040]) }).ids[0], 1040);
      assert.equal(index.search(query, 10, { allow: [] }).ids.length, 0);
      assert.equal(index.search(query, 10).ids.length, 10); // the allow list did not stick
      const batch = index.searchBatch(base.subarray(0, 3 * dim), 2, { allow: [1000, 1001, 1002], rerank: 2 });
      assert.equal(batch.k, 2);
      assert.deepEqual([batch.ids[0], batch.ids[2], batch.ids[4]], [1000, 1001, 1002]);
      rejects(() => index.search(query, 10, { allow: [-1] }), 'INVALID_ARGUMENT');
      rejects(() => index.search(query, 10, { allow: [1.5] }), 'INVALID_ARGUMENT');
      index.dispose();
    });

    test('bad input gives QuiverError with the C++ code and leaves the index unchanged', async () => {
      const q = await load(variant);
      const { index, base, dim } = smallIndex(q);
      index.remove([1001]);
      const before = index.serialize();
      const v = row(base, dim, 0);
      const nan = Float32Array.from(v);
      nan[2] = NaN;
      rejects(() => index.add([1], nan), 'NON_FINITE');
      rejects(() => index.add([1, 2], Float32Array.from([...v, ...nan])), 'NON_FINITE');
      rejects(() => index.add([1000], v), 'DUPLICATE_ID', 'id 1000');
      rejects(() => index.add([7, 7], Float32Array.from([...v, ...v])), 'DUPLICATE_ID');
      rejects(() => index.add([7], new Float32Array(dim + 1)), 'DIMENSION_MISMATCH');
      rejects(() => index.add([7, 8], v), 'DIMENSION_MISMATCH');
      rejects(
        () =>
          index.add(
            [7],
            Float32Array.from(v, (x) => x * 2 ** 60),
          ),
        'NON_FINITE',
        '2^100',
      );
      rejects(() => index.add([-3], v), 'INVALID_ARGUMENT');
      rejects(() => index.remove([1000, 424242]), 'UNKNOWN_ID');
      rejects(() => index.remove([1001]), 'UNKNOWN_ID');
      rejects(() => index.search(v, 0), 'INVALID_K');
      rejects(() => index.search(nan, 3), 'NON_FINITE');
      rejects(() => index.search(new Float32Array(dim - 1), 3), 'DIMENSION_MISMATCH');
      rejects(() => index.search(v, 3, { rerank: -1 }), 'INVALID_ARGUMENT');
      rejects(() => index.search(v, 3, { rerank: 0.5 }), 'INVALID_ARGUMENT');
      rejects(() => index.search(v, 3, 'fast'), 'INVALID_ARGUMENT'); // (null options = none)
      rejects(() => index.searchBatch(new Float32Array(dim + 1), 3), 'DIMENSION_MISMATCH');
      assert.deepEqual(index.serialize(), before);
      assert.equal(index.size, 59);
      for (const [opts, part] of [
        [{ dim: 0 }, 'dim'],
        [{ dim: 4, bits: 3 }, 'bits'],
        [{ dim: 4, bits: 8 }, 'bits'],
        [{ dim: 4, metric: 'hamming' }, 'hamming'],
        [{ dim: 4, seed: -1 }, 'seed'],
        [{ dim: 4, seed: 2 ** 53 }, 'seed'],
        [{ dim: 4, keepVectors: 1 }, 'keepVectors'],
      ]) {
        rejects(() => new q.QuantizedIndex(opts), 'INVALID_ARGUMENT', part, JSON.stringify(opts));
      }
      const empty = new q.QuantizedIndex({ dim: 4 });
      rejects(() => empty.search([1, 0, 0, 0], 1), 'EMPTY_INDEX');
      empty.dispose();
      index.dispose();
    });

    test('serialize and load round-trip (q.load, Quiver.load, QuantizedIndex.load)', async () => {
      const q = await load(variant);
      for (const options of [
        {},
        { metric: 'cosine', bits: 2, keepVectors: false, seed: 5 },
        { metric: 'ip', dim: 7 },
      ]) {
        const { index, base, dim } = smallIndex(q, options);
        index.remove([1002, 1030]);
        const bytes = index.serialize();
        assert.ok(bytes instanceof Uint8Array);
        const loaded = q.load(bytes);
        assert.ok(loaded instanceof q.QuantizedIndex);
        assert.deepEqual(
          [loaded.dim, loaded.metric, loaded.bits, loaded.seed, loaded.keepVectors, loaded.size],
          [index.dim, index.metric, index.bits, index.seed, index.keepVectors, 58],
        );
        const queries = q.unitGaussianVectors(5, dim, 31);
        const opts = index.keepVectors ? { rerank: 3 } : {};
        assert.deepEqual(loaded.searchBatch(queries, 7, opts), index.searchBatch(queries, 7, opts));
        assert.deepEqual(loaded.serialize(), bytes);
        // later adds reuse the same free slots, so the files stay equal
        loaded.add([1, 2, 3], base.subarray(0, 3 * dim));
        index.add([1, 2, 3], base.subarray(0, 3 * dim));
        assert.deepEqual(loaded.serialize(), index.serialize());
        const fromBuffer = q.QuantizedIndex.load(bytes.buffer.slice(0));
        assert.equal(fromBuffer.size, 58);
        fromBuffer.dispose();
        const shared = await Quiver.load(bytes, { variant });
        assert.equal(shared.constructor.name, 'QuantizedIndex');
        assert.equal(shared.size, 58);
        shared.dispose();
        rejects(() => q.FlatIndex.load(bytes), 'INVALID_ARGUMENT', 'holds a quantized index');
        index.dispose();
        loaded.dispose();
      }
    });

    test('bad files give the C++ codes', async () => {
      const q = await load(variant);
      const { index } = smallIndex(q);
      const good = index.serialize();
      index.dispose();
      const flipped = good.slice();
      flipped[flipped.length - 5] ^= 0x10;
      rejects(() => q.load(flipped), 'CHECKSUM_MISMATCH', 'section VECS checksum mismatch');
      rejects(() => q.load(good.slice(0, good.length - 9)), 'TRUNCATED');
      rejects(() => q.QuantizedIndex.load(good.slice(0, 100)), 'TRUNCATED');
      rejects(() => q.QuantizedIndex.load(new Uint8Array(64)), 'BAD_MAGIC');
    });

    test('the same data gives the same bytes as the native build', async () => {
      const q = await load(variant);
      const n = 300,
        dim = 384;
      const base = q.unitGaussianVectors(n, dim, 42);
      const ids = Float64Array.from({ length: n }, (_, i) => i * 3 + 1);
      const four = new q.QuantizedIndex({ dim, metric: 'l2', bits: 4, seed: 42, keepVectors: false });
      four.add(ids, base);
      four.remove([1, 4, 301]);
      const two = new q.QuantizedIndex({ dim, metric: 'cosine', bits: 2, seed: 9, keepVectors: true });
      two.add(ids, base);
      const a = four.serialize(),
        c = two.serialize();
      // The constants of tests/cpp/test_io_quantized.cpp (QuantizedIndexFile.ByteIdenticalEverywhere).
      assert.equal(a.length, 62832);
      assert.equal(crc32c(a), 0xb954c5c8);
      assert.equal(fnv1a(a), 0xb0776c206d58d92en);
      assert.equal(fnv1a(c), 0xcb884c8cc13b94e4n);
      four.dispose();
      two.dispose();
    });
  });
}

describe('QuantizedIndex across variants and the native CLI', () => {
  test('the seed workload gives the same ids and the same file in every variant', async () => {
    const first = await seedWorkloadIds(VARIANTS[0]);
    assert.equal(first.plain.length, 2560);
    for (const variant of VARIANTS.slice(1)) {
      const other = await seedWorkloadIds(variant);
      assert.deepEqual(other.plain, first.plain, `${variant}: ids without rerank`);
      assert.deepEqual(other.reranked, first.reranked, `${variant}: ids with rerank 4`);
      assert.deepEqual(other.bytes, first.bytes, `${variant}: index file`);
    }
  });

  test("native CLI files load in every variant with the CLI's results, and JS writes the same bytes", async () => {
    requireCli();
    runCli(['gen', 'seed', '-o', work, '--name', 'seed', '-q']); // 10,000 x 384, 256 queries, as DESIGN.md
    const baseFile = join(work, 'seed.base.fbin'),
      queryFile = join(work, 'seed.queries.fbin');
    const indexFile = join(work, 'seed-q4.qvr');
    runCli(['build', baseFile, '-o', indexFile, '--index', 'quantized', '--bits', '4', '--seed', '42', '-q']);
    const native = JSON.parse(runCli(['search', indexFile, queryFile, '-k', '10', '--json']));
    const nativeRerank = JSON.parse(runCli(['search', indexFile, queryFile, '-k', '10', '--rerank', '4', '--json']));
    const bytes = new Uint8Array(readFileSync(indexFile));
    const queries = readFbin(queryFile);
    const js = await seedWorkloadIds('simd');
    assert.deepEqual(js.plain, native.ids.flat(), 'JS-built seed index vs native');
    assert.deepEqual(js.reranked, nativeRerank.ids.flat(), 'JS-built seed index with rerank vs native');
    assert.deepEqual(js.bytes, bytes, 'JS-built seed index file vs the CLI-built one');
    for (const variant of VARIANTS) {
      const q = await load(variant);
      const index = q.load(bytes);
      assert.ok(index instanceof q.QuantizedIndex);
      assert.equal(index.size, 10000);
      const r = index.searchBatch(queries.data, 10);
      assert.deepEqual([...r.ids], native.ids.flat(), `${variant}: ids`);
      for (let i = 0; i < r.distances.length; i++) {
        const d = native.distances[Math.floor(i / 10)][i % 10];
        assert.ok(Math.abs(r.distances[i] - d) <= 1e-5 * Math.max(1, Math.abs(d)), `${variant}: distance ${i}`);
      }
      assert.deepEqual([...index.searchBatch(queries.data, 10, { rerank: 4 }).ids], nativeRerank.ids.flat());
      assert.deepEqual(index.serialize(), bytes);
      index.dispose();
    }
  });

  test('files written from JS load natively (info, search) with the same results', async () => {
    requireCli();
    for (const variant of VARIANTS) {
      const q = await load(variant);
      const rows = 900,
        dim = 40,
        nq = 12;
      const base = q.unitGaussianVectors(rows, dim, 5);
      const queries = q.unitGaussianVectors(nq, dim, 6);
      const index = new q.QuantizedIndex({ dim, metric: 'cosine', bits: 2, seed: 1234, keepVectors: true });
      index.add(
        Float64Array.from({ length: rows }, (_, i) => i),
        base,
      );
      index.remove([5, 6, 700]);
      const file = join(work, `js-${variant}.qvr`);
      writeFileSync(file, index.serialize());
      const info = JSON.parse(runCli(['info', file, '--json']));
      assert.deepEqual(
        [info.kind, info.metric, info.count, info.dim, info.seed, info.valid, info.contents_checked],
        ['quantized', 'cosine', rows - 3, dim, 1234, true, true],
      );
      assert.deepEqual(info.params.slice(0, 4), [2, 1, rows, 3]);
      const queryFile = join(work, `js-${variant}.queries.fbin`);
      writeFbin(queryFile, nq, dim, queries);
      for (const rerank of [0, 3]) {
        const native = JSON.parse(runCli(['search', file, queryFile, '-k', '7', '--rerank', String(rerank), '--json']));
        assert.deepEqual(
          native.ids.flat(),
          [...index.searchBatch(queries, 7, { rerank }).ids],
          `${variant} rerank ${rerank}`,
        );
      }
      index.dispose();
    }
  });
});
