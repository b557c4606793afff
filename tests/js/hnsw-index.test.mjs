// The HNSW index through the npm package, in every wasm variant: options and getters, recall
// against FlatIndex, ef (per call, raised to k), allow lists, remove / re-add, bad input
// (QuiverError with the C++ code, index unchanged), serialize/load round trips, and one-thread
// builds that give the same graph in every variant and natively (quiver demo --index hnsw
// builds with one thread). Files crossing between the native CLI and JS: io.test.mjs.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Quiver, QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { join } from 'node:path';
import { moduleLoader, requireCli, runCli, workDir } from './support.mjs';

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
const seq = (n, from = 0, step = 1) => Float64Array.from({ length: n }, (_, i) => from + i * step);

// Fraction of the exact top-k ids (rows of k) that the approximate rows contain.
function recall(got, exact, k) {
  let hit = 0;
  for (let q = 0; q < exact.length / k; q++) {
    const want = new Set(exact.slice(q * k, (q + 1) * k));
    for (let j = 0; j < k; j++) if (want.has(got[q * k + j])) hit++;
  }
  return hit / exact.length;
}

// 2,000 unit vectors of dimension 16 (ids 7i + 3) and 50 queries: small enough to build in
// every variant quickly, hard enough that a broken graph shows in the recall.
async function workload(q) {
  const n = 2000,
    dim = 16,
    nq = 50;
  const base = q.unitGaussianVectors(n, dim, 42);
  const queries = q.unitGaussianVectors(nq, dim, 13);
  return { n, dim, nq, base, queries, ids: seq(n, 3, 7) };
}

function exactIds(q, w, metric, k) {
  const flat = new q.FlatIndex({ dim: w.dim, metric });
  flat.add(w.ids, w.base);
  const r = [...flat.searchBatch(w.queries, k).ids];
  flat.dispose();
  return r;
}

for (const variant of VARIANTS) {
  describe(`HnswIndex, variant ${variant}`, () => {
    test('options and getters', async () => {
      const q = await load(variant);
      const index = new q.HnswIndex({ dim: 10, metric: 'cosine', M: 8, efConstruction: 50, efSearch: 20, seed: 9 });
      assert.ok(index instanceof q.HnswIndex);
      assert.deepEqual(
        [index.dim, index.metric, index.M, index.efConstruction, index.seed, index.size, index.maxLevel],
        [10, 'cosine', 8, 50, 9, 0, -1],
      );
      assert.equal(index.isa, variant === 'baseline' ? 'scalar' : 'wasm128');
      assert.equal(index.variant, variant);
      assert.equal(index.nodeBytes % 64, 0);
      assert.ok(index.nodeBytes >= 16 * 4 + 4 + 2 * 8 * 4); // padded vector, count, 2M links
      index.dispose();
      rejects(() => index.size, 'DISPOSED');
      const d = new q.HnswIndex({ dim: 3 });
      assert.deepEqual([d.metric, d.M, d.efConstruction, d.seed], ['l2', 16, 200, 42]);
      const small = new q.HnswIndex({ dim: 3, M: 12, efConstruction: 4 });
      assert.equal(small.efConstruction, 12, 'efConstruction below M is raised to M');
      d.dispose();
      small.dispose();
    });

    test('add, has, remove and search with ids closest first', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const index = new q.HnswIndex({ dim: w.dim, M: 8, efConstruction: 64 });
      index.add(w.ids.subarray(0, 300), w.base.subarray(0, 300 * w.dim));
      assert.equal(index.size, 300);
      assert.ok(index.maxLevel >= 0);
      assert.ok(index.memoryBytes >= 300 * index.nodeBytes);
      assert.equal(index.has(3), true);
      assert.equal(index.has(4), false);
      const r = index.search(row(w.base, w.dim, 5), 8);
      assert.ok(r.ids instanceof Float64Array && r.distances instanceof Float32Array);
      assert.equal(r.ids[0], 3 + 5 * 7); // a stored vector is its own nearest neighbour
      assert.equal(r.distances[0], 0);
      for (let i = 1; i < r.distances.length; i++) assert.ok(r.distances[i - 1] <= r.distances[i]);
      // ids given as a plain array, a Uint32Array and BigInts
      index.add([5000], row(w.base, w.dim, 400));
      index.add(new Uint32Array([5001]), [...row(w.base, w.dim, 401)]);
      index.add([5002n], [[...row(w.base, w.dim, 402)]]);
      assert.equal(index.size, 303);
      assert.equal(index.search(row(w.base, w.dim, 402), 1).ids[0], 5002);
      index.remove([38, 5000]);
      assert.equal(index.size, 301);
      assert.equal(index.has(38), false);
      assert.ok(![...index.search(row(w.base, w.dim, 5), 301, { ef: 400 }).ids].includes(38));
      assert.equal(index.search(row(w.base, w.dim, 5), 301, { ef: 400 }).ids.length, 301);
      // update = remove + add: the id comes back with its new vector
      index.add([38], row(w.base, w.dim, 900));
      assert.equal(index.search(row(w.base, w.dim, 900), 1).ids[0], 38);
      index.dispose();
    });

    test('recall@10 against FlatIndex grows with ef; searchBatch rows equal single searches', async () => {
      const q = await load(variant);
      const w = await workload(q);
      for (const metric of ['l2', 'ip', 'cosine']) {
        const exact = exactIds(q, w, metric, 10);
        const index = new q.HnswIndex({ dim: w.dim, metric, M: 16, efConstruction: 100 });
        index.add(w.ids, w.base);
        const low = recall([...index.searchBatch(w.queries, 10, { ef: 10 }).ids], exact, 10);
        const batch = index.searchBatch(w.queries, 10, { ef: 100 });
        const high = recall([...batch.ids], exact, 10);
        assert.ok(high >= 0.95, `${metric}: recall@10 ${high} at ef 100`);
        assert.ok(high >= low, `${metric}: ef 100 ${high} vs ef 10 ${low}`);
        // a beam as wide as the index finds the exact answer
        assert.deepEqual([...index.searchBatch(w.queries, 10, { ef: w.n }).ids], exact, `${metric}: ef = n`);
        for (const i of [0, 17, 49]) {
          const one = index.search(row(w.queries, w.dim, i), 10, { ef: 100 });
          assert.deepEqual([...one.ids], [...batch.ids.subarray(i * 10, (i + 1) * 10)], `${metric} query ${i}`);
          assert.deepEqual([...one.distances], [...batch.distances.subarray(i * 10, (i + 1) * 10)]);
        }
        index.dispose();
      }
    });

    test('ef is per call, defaults to efSearch, and a value below k is raised to k', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const index = new q.HnswIndex({ dim: w.dim, M: 6, efConstruction: 40, efSearch: 30 });
      index.add(w.ids, w.base);
      const k = 40;
      const ids = (opts) => [...index.searchBatch(w.queries, k, opts).ids];
      const atK = ids({ ef: k });
      assert.equal(atK.length, w.nq * k, 'k results per query even when ef < k');
      assert.deepEqual(ids({ ef: 1 }), atK, 'ef 1 behaves as ef = k');
      assert.deepEqual(ids({ ef: k - 1 }), atK, 'ef k - 1 behaves as ef = k');
      assert.deepEqual(ids({}), atK, 'efSearch 30 < k is raised to k too');
      assert.deepEqual(ids({ ef: 0 }), atK, 'ef 0 means efSearch');
      const k5 = (opts) => [...index.searchBatch(w.queries, 5, opts).ids];
      assert.deepEqual(k5({}), k5({ ef: 30 }), 'no ef: the index efSearch');
      assert.deepEqual(k5({ ef: 0 }), k5({ ef: 30 }));
      // and a narrower beam sometimes differs, so the option is really used
      assert.notDeepEqual(k5({ ef: 5 }), k5({ ef: 2000 }));
      assert.deepEqual(k5({ ef: 30 }), k5(), 'the previous call did not change the default');
      index.dispose();
    });

    test('allow lists restrict results, per call', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const index = new q.HnswIndex({ dim: w.dim, M: 8, efConstruction: 64 });
      index.add(w.ids, w.base);
      const query = row(w.base, w.dim, 3);
      const allow = [3 + 7 * 40, 3 + 7 * 3, 3 + 7 * 1999, 4]; // 4 is not in the index: ignored
      const r = index.search(query, 10, { allow });
      assert.deepEqual(
        [...r.ids].sort((a, b) => a - b),
        [24, 283, 13996],
      );
      assert.equal(r.ids[0], 24);
      assert.equal(index.search(query, 10, { allow: new Uint32Array([283]) }).ids[0], 283);
      assert.equal(index.search(query, 10, { allow: [] }).ids.length, 0);
      assert.equal(index.search(query, 10).ids.length, 10); // the allow list did not stick
      // A large allow list (every other id): only allowed ids, and the best of them.
      const even = [...w.ids].filter((_, i) => i % 2 === 0);
      const evenSet = new Set(even);
      const flat = new q.FlatIndex({ dim: w.dim, metric: 'l2' });
      flat.add(Float64Array.from(even), Float32Array.from(even.flatMap((id) => [...row(w.base, w.dim, (id - 3) / 7)])));
      const exact = [...flat.searchBatch(w.queries, 10).ids];
      const got = index.searchBatch(w.queries, 10, { allow: even, ef: 200 });
      assert.ok([...got.ids].every((id) => evenSet.has(id)));
      assert.ok(recall([...got.ids], exact, 10) >= 0.95);
      flat.dispose();
      rejects(() => index.search(query, 10, { allow: [-1] }), 'INVALID_ARGUMENT');
      rejects(() => index.search(query, 10, { allow: [1.5] }), 'INVALID_ARGUMENT');
      index.dispose();
    });

    test('bad input gives QuiverError with the C++ code and leaves the index unchanged', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const index = new q.HnswIndex({ dim: w.dim, metric: 'cosine', M: 6, efConstruction: 32 });
      index.add(w.ids.subarray(0, 300), w.base.subarray(0, 300 * w.dim));
      index.remove([3]);
      const queries = w.queries.subarray(0, 5 * w.dim);
      const snapshot = () => ({
        size: index.size,
        memory: index.memoryBytes,
        level: index.maxLevel,
        result: index.searchBatch(queries, 10, { ef: 50 }),
      });
      const before = snapshot();
      const v = row(w.base, w.dim, 500);
      const nan = Float32Array.from(v);
      nan[2] = NaN;
      const inf = Float32Array.from(v);
      inf[0] = -Infinity;
      rejects(() => index.add([1], nan), 'NON_FINITE');
      rejects(() => index.add([1, 2], Float32Array.from([...v, ...inf])), 'NON_FINITE');
      rejects(() => index.add([10], v), 'DUPLICATE_ID');
      rejects(() => index.add([1, 1], Float32Array.from([...v, ...v])), 'DUPLICATE_ID');
      rejects(() => index.add([1], new Float32Array(w.dim + 1)), 'DIMENSION_MISMATCH');
      rejects(() => index.add([1, 2], v), 'DIMENSION_MISMATCH');
      rejects(() => index.add([1], new Float32Array(w.dim)), 'INVALID_ARGUMENT'); // zero vector, cosine
      rejects(() => index.add([-3], v), 'INVALID_ARGUMENT');
      rejects(() => index.add([2 ** 53], v), 'INVALID_ARGUMENT');
      rejects(() => index.add([1], v, { threads: -1 }), 'INVALID_ARGUMENT', 'threads');
      rejects(() => index.add([1], v, 'fast'), 'INVALID_ARGUMENT'); // (null options = none)
      rejects(() => index.remove([10, 424242]), 'UNKNOWN_ID');
      rejects(() => index.remove([3]), 'UNKNOWN_ID'); // already removed
      rejects(() => index.remove([10, 10]), 'DUPLICATE_ID');
      rejects(() => index.search(v, 0), 'INVALID_K');
      rejects(() => index.searchBatch(queries, 0), 'INVALID_K');
      rejects(() => index.search(nan, 3), 'NON_FINITE');
      rejects(() => index.search(new Float32Array(w.dim - 1), 3), 'DIMENSION_MISMATCH');
      rejects(() => index.search(v, 3, { ef: -1 }), 'INVALID_ARGUMENT', 'ef');
      rejects(() => index.search(v, 3, { ef: 2.5 }), 'INVALID_ARGUMENT', 'ef');
      rejects(() => index.search(v, 3, 'fast'), 'INVALID_ARGUMENT');
      rejects(() => index.searchBatch(new Float32Array(w.dim + 1), 3), 'DIMENSION_MISMATCH');
      assert.deepEqual(snapshot(), before);
      assert.equal(index.size, 299);
      for (const [opts, part] of [
        [{ dim: 0 }, 'dim'],
        [{ dim: 4, M: 1 }, 'M'],
        [{ dim: 4, M: 1000 }, 'M'],
        [{ dim: 4, M: 2.5 }, 'M'],
        [{ dim: 4, efConstruction: -1 }, 'efConstruction'],
        [{ dim: 4, efSearch: 0 }, 'ef_search'],
        [{ dim: 4, metric: 'hamming' }, 'hamming'],
        [{ dim: 4, seed: -1 }, 'seed'],
        [{ dim: 4, seed: 2 ** 53 }, 'seed'],
        [{ dim: 4, storage: 'sq4' }, 'sq4'],
        [{ dim: 4, storage: 8 }, 'storage'],
        [{ dim: 4, keepVectors: 1 }, 'keepVectors'],
        [{ dim: 4, storage: 'sq8', neighborCodes: 1 }, 'neighborCodes'],
        [{ dim: 4, neighborCodes: true }, 'neighbor_codes needs sq8'],
      ]) {
        rejects(() => new q.HnswIndex(opts), 'INVALID_ARGUMENT', part, JSON.stringify(opts));
      }
      const empty = new q.HnswIndex({ dim: 4 });
      rejects(() => empty.search([1, 0, 0, 0], 1), 'EMPTY_INDEX');
      rejects(() => empty.remove([1]), 'UNKNOWN_ID');
      empty.add([], new Float32Array(0));
      assert.equal(empty.size, 0);
      empty.dispose();
      index.dispose();
    });

    test('sq8 storage: smaller nodes, exact rerank from kept vectors per call, codes-only without them', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const flat = new q.FlatIndex({ dim: w.dim, metric: 'l2' });
      flat.add(w.ids, w.base);
      const exact = flat.searchBatch(w.queries, 10);
      flat.dispose();
      const make = (options) => {
        const index = new q.HnswIndex({ dim: w.dim, M: 16, efConstruction: 100, ...options });
        index.add(w.ids, w.base, { threads: 1 });
        return index;
      };
      const f32 = make({}),
        sq8 = make({ storage: 'sq8' }),
        lean = make({ storage: 'sq8', keepVectors: false });
      assert.deepEqual(
        [f32.storage, f32.keepVectors, sq8.storage, sq8.keepVectors, lean.storage, lean.keepVectors],
        ['f32', true, 'sq8', true, 'sq8', false],
      );
      assert.ok(sq8.nodeBytes < f32.nodeBytes, `node bytes sq8 ${sq8.nodeBytes}, f32 ${f32.nodeBytes}`);
      assert.equal(lean.nodeBytes, sq8.nodeBytes);
      assert.ok(lean.bytesPerVector < f32.bytesPerVector && lean.bytesPerVector < sq8.bytesPerVector);
      const reranked = sq8.searchBatch(w.queries, 10, { ef: 100 });
      assert.ok(
        recall([...reranked.ids], [...exact.ids], 10) >= 0.95,
        `sq8 + rerank recall ${recall([...reranked.ids], [...exact.ids], 10)}`,
      );
      // Reranked distances are the exact f32 ones (checked where the id is in the exact top 10
      // of its query); without rerank they are code estimates.
      let checked = 0;
      for (let i = 0; i < reranked.ids.length; i++) {
        const qRow = Math.floor(i / 10);
        const j = [...exact.ids.subarray(qRow * 10, qRow * 10 + 10)].indexOf(reranked.ids[i]);
        if (j < 0) continue;
        const d = exact.distances[qRow * 10 + j];
        assert.ok(
          Math.abs(reranked.distances[i] - d) <= 1e-5 * Math.max(1, d),
          `distance ${i}: ${reranked.distances[i]} vs ${d}`,
        );
        checked++;
      }
      assert.ok(checked >= 0.95 * reranked.ids.length);
      const codes = sq8.searchBatch(w.queries, 10, { ef: 100, rerank: false });
      assert.equal(codes.ids.length, reranked.ids.length);
      assert.notDeepEqual([...codes.distances], [...reranked.distances]);
      assert.ok(recall([...codes.ids], [...exact.ids], 10) >= 0.8);
      // rerank is a depth as in every kind: true / false (the older switch) mean absent / 0.
      assert.deepEqual(sq8.searchBatch(w.queries, 10, { ef: 100, rerank: true }), reranked);
      assert.deepEqual(sq8.searchBatch(w.queries, 10, { ef: 100, rerank: 0 }), codes);
      // Depth 1 re-scores only the best 10 by code distance: the code ranking's ids, exact distances.
      const one = sq8.searchBatch(w.queries, 10, { ef: 100, rerank: 1 });
      for (let qRow = 0; qRow < one.count; qRow++) {
        const ids = (r) => [...r.ids.subarray(qRow * 10, qRow * 10 + 10)].sort((a, b) => a - b);
        assert.deepEqual(ids(one), ids(codes), `query ${qRow}`);
      }
      // Codes only: the default and 0 are the code ranking of the same graph; a depth is refused
      // with the error every kind gives for rerank without kept vectors.
      const leanCodes = lean.searchBatch(w.queries, 10, { ef: 100 });
      assert.deepEqual(lean.searchBatch(w.queries, 10, { ef: 100, rerank: false }), leanCodes);
      assert.deepEqual(lean.searchBatch(w.queries, 10, { ef: 100, rerank: 0 }), leanCodes);
      assert.deepEqual([...leanCodes.ids], [...codes.ids], 'same codes, same graph, with or without kept vectors');
      rejects(
        () => lean.search(row(w.queries, w.dim, 0), 10, { rerank: 1 }),
        'INVALID_ARGUMENT',
        'keep_vectors = false',
      );
      rejects(() => sq8.search(row(w.queries, w.dim, 0), 10, { rerank: 'deep' }), 'INVALID_ARGUMENT', 'rerank');
      rejects(() => sq8.search(row(w.queries, w.dim, 0), 10, { rerank: -1 }), 'INVALID_ARGUMENT', 'rerank');
      // Neighbour codes: bigger nodes (one fast-scan block: 16 dims -> 64 code bytes + 32 x 8
      // bytes of factors), the same graph, recall close to the same codes searched without them.
      const nbr = make({ storage: 'sq8', keepVectors: false, neighborCodes: true });
      assert.deepEqual([nbr.neighborCodes, lean.neighborCodes, f32.neighborCodes], [true, false, false]);
      assert.equal(nbr.nodeBytes, lean.nodeBytes + 64 + 256);
      assert.ok(nbr.bytesPerVector > lean.bytesPerVector);
      const nbrCodes = nbr.searchBatch(w.queries, 10, { ef: 100 });
      const rNbr = recall([...nbrCodes.ids], [...exact.ids], 10),
        rLean = recall([...leanCodes.ids], [...exact.ids], 10);
      assert.ok(rNbr >= rLean - 0.03, `recall with neighbour codes ${rNbr}, without ${rLean}`);
      for (const x of [f32, sq8, lean, nbr]) x.dispose();
    });

    test('serialize and load round-trip (q.load, Quiver.load, HnswIndex.load) and go on identically', async () => {
      const q = await load(variant);
      const w = await workload(q);
      for (const options of [
        {},
        { metric: 'cosine', M: 6, efConstruction: 30, efSearch: 20, seed: 5 },
        { metric: 'ip', M: 4 },
        { storage: 'sq8', M: 8 },
        { storage: 'sq8', metric: 'cosine', keepVectors: false, M: 5 },
        { storage: 'sq8', keepVectors: false, neighborCodes: true, M: 6 },
      ]) {
        const index = new q.HnswIndex({ dim: w.dim, ...options });
        index.add(w.ids.subarray(0, 600), w.base.subarray(0, 600 * w.dim), { threads: 1 });
        index.remove([3, 10, 3 + 7 * 599]);
        const bytes = index.serialize();
        assert.ok(bytes instanceof Uint8Array);
        const loaded = q.load(bytes);
        assert.ok(loaded instanceof q.HnswIndex);
        const props = (x) => [
          x.dim,
          x.metric,
          x.M,
          x.efConstruction,
          x.efSearch,
          x.seed,
          x.size,
          x.maxLevel,
          x.storage,
          x.keepVectors,
          x.nodeBytes,
          x.neighborCodes,
        ];
        assert.deepEqual(props(loaded), props(index));
        assert.equal(loaded.has(10), false);
        for (const opts of [{}, { ef: 50 }, { ef: 5, allow: [17, 24, 31, 4000] }, { rerank: false }]) {
          assert.deepEqual(
            loaded.searchBatch(w.queries, 10, opts),
            index.searchBatch(w.queries, 10, opts),
            JSON.stringify(opts),
          );
        }
        assert.deepEqual(loaded.serialize(), bytes);
        // Later adds reuse the same removed slots and draw the same levels: the files stay equal.
        const more = w.base.subarray(600 * w.dim, 700 * w.dim);
        loaded.add(w.ids.subarray(600, 700), more, { threads: 1 });
        index.add(w.ids.subarray(600, 700), more, { threads: 1 });
        assert.deepEqual(loaded.serialize(), index.serialize());
        const again = q.HnswIndex.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
        assert.equal(again.size, 597);
        again.dispose();
        const shared = await Quiver.load(bytes, { variant });
        assert.equal(shared.constructor.name, 'HnswIndex');
        const direct = q.HnswIndex.load(bytes);
        assert.deepEqual(shared.search(row(w.queries, w.dim, 0), 5), direct.search(row(w.queries, w.dim, 0), 5));
        shared.dispose();
        direct.dispose();
        rejects(() => q.FlatIndex.load(bytes), 'INVALID_ARGUMENT', 'holds a hnsw index');
        rejects(() => q.QuantizedIndex.load(bytes), 'INVALID_ARGUMENT', 'holds a hnsw index');
        index.dispose();
        loaded.dispose();
      }
      const empty = new q.HnswIndex({ dim: 5, M: 3 });
      const reloaded = q.load(empty.serialize());
      assert.deepEqual([reloaded.size, reloaded.dim, reloaded.M, reloaded.maxLevel], [0, 5, 3, -1]);
      empty.dispose();
      reloaded.dispose();
    });

    test('bad hnsw files give the C++ codes', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const index = new q.HnswIndex({ dim: w.dim, M: 4 });
      index.add(w.ids.subarray(0, 50), w.base.subarray(0, 50 * w.dim));
      const good = index.serialize();
      index.dispose();
      const flipped = good.slice();
      flipped[flipped.length - 5] ^= 0x10;
      rejects(() => q.load(flipped), 'CHECKSUM_MISMATCH', 'section VECS checksum mismatch');
      rejects(() => q.load(good.slice(0, good.length - 9)), 'TRUNCATED');
      rejects(() => q.HnswIndex.load(good.slice(0, 100)), 'TRUNCATED');
      rejects(() => q.HnswIndex.load(new Uint8Array(64)), 'BAD_MAGIC');
    });

    test('compact drops removed nodes, shrinks memory and keeps ids and recall', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const index = new q.HnswIndex({ dim: w.dim, M: 8, efConstruction: 64 });
      index.add(w.ids, w.base, { threads: 1 });
      const removed = [...w.ids].filter((_, i) => i % 3 === 0);
      index.remove(removed);
      const keep = [...w.ids].filter((_, i) => i % 3 !== 0);
      const flat = new q.FlatIndex({ dim: w.dim, metric: 'l2' });
      flat.add(Float64Array.from(keep), Float32Array.from(keep.flatMap((id) => [...row(w.base, w.dim, (id - 3) / 7)])));
      const exact = [...flat.searchBatch(w.queries, 10).ids];
      flat.dispose();
      const memory = index.memoryBytes;
      index.compact();
      assert.equal(index.size, keep.length);
      assert.ok(index.memoryBytes < memory, `memory ${index.memoryBytes} after compact, ${memory} before`);
      assert.ok(keep.every((id) => index.has(id)) && removed.every((id) => !index.has(id)));
      const got = [...index.searchBatch(w.queries, 10, { ef: 100 }).ids];
      const removedSet = new Set(removed);
      assert.ok(got.every((id) => !removedSet.has(id)));
      assert.ok(recall(got, exact, 10) >= 0.95, `recall after compact ${recall(got, exact, 10)}`);
      // The compacted graph saves, loads and grows like any other.
      const loaded = q.load(index.serialize());
      assert.deepEqual(loaded.searchBatch(w.queries, 10), index.searchBatch(w.queries, 10));
      loaded.dispose();
      index.add(removed.slice(0, 10), w.base.subarray(0, 10 * w.dim));
      assert.equal(index.size, keep.length + 10);
      index.compact(); // nothing to drop: still fine
      assert.equal(index.size, keep.length + 10);
      index.dispose();
      rejects(() => index.compact(), 'DISPOSED');
    });

    test('warm searches through the package do not grow the wasm heap', async () => {
      const q = await load(variant);
      const w = await workload(q);
      for (const storage of ['f32', 'sq8']) {
        const index = new q.HnswIndex({ dim: w.dim, M: 8, efConstruction: 64, storage });
        index.add(w.ids, w.base);
        const allow = [...w.ids].filter((_, i) => i % 2 === 0);
        const run = () => {
          for (let i = 0; i < w.nq; i++) {
            const query = row(w.queries, w.dim, i);
            index.search(query, 10, { ef: 80 });
            index.search(query, 10, { ef: 80, allow, rerank: false });
          }
          index.searchBatch(w.queries, 10, { ef: 80, allow });
        };
        run(); // warm: staging buffers and per-thread search contexts reach their size
        const heap = q.heapBytes();
        for (let r = 0; r < 10; r++) run(); // 1,000 searches and 10 batches
        assert.equal(q.heapBytes(), heap, `${storage}: heap grew over 1,000 warm searches`);
        index.dispose();
      }
    });

    test('a one-thread build is deterministic; any thread count keeps recall', async () => {
      const q = await load(variant);
      const w = await workload(q);
      const exact = exactIds(q, w, 'l2', 10);
      const build = (threads) => {
        const index = new q.HnswIndex({ dim: w.dim, M: 8, efConstruction: 64, seed: 7 });
        index.add(w.ids, w.base, threads === undefined ? undefined : { threads });
        const r = index.searchBatch(w.queries, 10, { ef: 64 });
        const level = index.maxLevel;
        index.dispose();
        return { ids: [...r.ids], distances: [...r.distances], level };
      };
      const one = build(1);
      assert.deepEqual(build(1), one);
      for (const threads of [undefined, 0, 2]) {
        assert.ok(recall(build(threads).ids, exact, 10) >= 0.95, `threads ${threads}`);
      }
    });
  });
}

// The graph fingerprint: the seed workload's generator at a small size, one build thread,
// every variant and the native CLI (quiver demo builds with one thread) give the same ids.
describe('HnswIndex across variants and natively', () => {
  const rows = 3000,
    dim = 32,
    nq = 50,
    k = 10;
  const opts = { M: 16, efConstruction: 200, seed: 42 };
  async function wasmIds(variant, storage = 'f32') {
    const q = await load(variant);
    const codes = storage === 'sq8+nbr' ? { storage: 'sq8', neighborCodes: true, keepVectors: false } : { storage };
    const index = new q.HnswIndex({ dim, metric: 'l2', ...opts, ...codes });
    index.add(seq(rows), q.unitGaussianVectors(rows, dim, 42), { threads: 1 });
    const ids = [...index.searchBatch(q.unitGaussianVectors(nq, dim, 13), k, { ef: 64 }).ids];
    const level = index.maxLevel;
    const bytes = index.serialize();
    index.remove(seq(rows / 4, 0, 4));
    index.compact();
    const compacted = index.serialize();
    index.dispose();
    return { ids, level, bytes, compacted };
  }

  test('every variant builds (and compacts) the same graph with one thread: same ids, same file', async () => {
    for (const storage of ['f32', 'sq8', 'sq8+nbr']) {
      const first = await wasmIds(VARIANTS[0], storage);
      for (const variant of VARIANTS.slice(1))
        assert.deepEqual(await wasmIds(variant, storage), first, `${variant} ${storage}`);
    }
  });

  test('the native one-thread build (quiver demo --index hnsw) gives the same ids at every ISA level', async () => {
    requireCli();
    const wasm = await wasmIds('simd');
    const info = JSON.parse(runCli(['info', '--json']));
    for (const isa of info.available_isas) {
      const native = JSON.parse(
        runCli([
          'demo',
          '--json',
          '--index',
          'hnsw',
          '--isa',
          isa,
          '--rows',
          `${rows}`,
          '--dim',
          `${dim}`,
          '--queries',
          `${nq}`,
          '-k',
          `${k}`,
          '--M',
          '16',
          '--ef-construction',
          '200',
          '--ef',
          '64',
        ]),
      );
      assert.deepEqual(native.ids, wasm.ids, `native ${isa} vs wasm simd`);
      // (io.test.mjs also compares the file of a one-thread CLI build byte for byte.)
    }
  });

  test('quiver compare --index hnsw: every variant returns the native ids, from its own build and from the native file', () => {
    requireCli();
    const work = workDir('quiver-hnsw-compare-');
    runCli([
      'gen',
      'seed',
      '-o',
      work,
      '--name',
      'c',
      '--rows',
      '2000',
      '--queries',
      '30',
      '--dim',
      '24',
      '-k',
      '10',
      '-q',
    ]);
    const out = JSON.parse(
      runCli([
        'compare',
        join(work, 'c.base.fbin'),
        join(work, 'c.queries.fbin'),
        '--gt',
        join(work, 'c.gt.ibin'),
        '--index',
        'hnsw',
        '--M',
        '8',
        '--ef-construction',
        '64',
        '--ef',
        '32',
        '--seed',
        '3',
        '--json',
        '-q',
      ]),
    );
    assert.equal(out.index, 'hnsw');
    assert.deepEqual(
      out.targets.map((t) => t.target),
      ['native', ...VARIANTS.map((v) => `wasm ${v}`)],
    );
    const nativeRecall = out.targets[0].recall;
    assert.ok(nativeRecall >= 0.9, `recall ${nativeRecall}`);
    for (const t of out.targets) {
      assert.equal(t.ids_agree_with_native, 1, `${t.target}: ids of its own one-thread build`);
      assert.equal(t.native_file_ids_agree, 1, `${t.target}: ids from the native file`);
      assert.equal(t.recall, nativeRecall, t.target);
      assert.ok(t.index_mb > 0, t.target);
    }
    // sq8 codes only: integer code distances, so the graph and answers are the same everywhere.
    const sq8 = JSON.parse(
      runCli([
        'compare',
        join(work, 'c.base.fbin'),
        join(work, 'c.queries.fbin'),
        '--gt',
        join(work, 'c.gt.ibin'),
        '--index',
        'hnsw',
        '--M',
        '8',
        '--ef-construction',
        '64',
        '--storage',
        'sq8',
        '--no-vectors',
        '--variants',
        'simd,baseline',
        '--json',
        '-q',
      ]),
    );
    for (const t of sq8.targets) {
      assert.equal(t.ids_agree_with_native, 1, `sq8 ${t.target}`);
      assert.equal(t.native_file_ids_agree, 1, `sq8 ${t.target}`);
      assert.ok(
        t.index_mb < out.targets[0].index_mb,
        `sq8 codes only ${t.index_mb} MB vs f32 ${out.targets[0].index_mb} MB`,
      );
    }
    // The table form names the index and has a row per measure.
    const table = runCli([
      'compare',
      join(work, 'c.base.fbin'),
      join(work, 'c.queries.fbin'),
      '--index',
      'hnsw',
      '--M',
      '8',
      '--ef-construction',
      '64',
      '--variants',
      'simd',
      '-q',
    ]);
    assert.match(table, /^hnsw index, 2000 x 24 \(l2\), 30 queries, k=10, one thread/);
    assert.match(table, /ids = native +100\.00% +100\.00%/);
  });
});
