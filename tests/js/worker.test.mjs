// The worker-hosted async API in Node (a worker_thread per spawn()): the same answers as the
// synchronous API, QuiverError codes from the worker, transferred buffers, dispose and
// terminate semantics, 'quiver-vector/worker' through package.json "exports", and an idle worker
// that does not keep the process alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Quiver, QuiverError, spawn as spawnFromMain } from '../../js/main.js';
import { spawn } from 'quiver-vector/worker';
import { moduleLoader, root, workerStarter } from './support.mjs';

const load = moduleLoader();
const start = workerStarter(spawn);
const is = (code) => (e) => e instanceof QuiverError && e.code === code;

test('quiver-vector/worker, Quiver.spawn and the main export are the same function', () => {
  assert.equal(spawn, Quiver.spawn);
  assert.equal(spawn, spawnFromMain);
});

for (const variant of ['simd-mt', 'simd']) {
  test(`${variant}: a worker index answers exactly like a local one`, async () => {
    const w = await start({ variant, threads: 2 });
    assert.equal(w.variant, variant);
    const q = await load(variant);
    // The worker reports its module's kernel paths as the local module does (none in simd*).
    assert.deepEqual(w.kernelFeatures, q.kernelFeatures);
    assert.deepEqual(w.kernelFeatures, []);
    const dim = 16;
    const vectors = q.unitGaussianVectors(500, dim, 3);
    const ids = Array.from({ length: 500 }, (_, i) => i * 3);
    const queries = q.unitGaussianVectors(20, dim, 4);
    for (const [kind, options, searchOptions] of [
      ['flat', { dim, metric: 'cosine' }, undefined],
      ['quantized', { dim, bits: 4, seed: 9 }, { rerank: 2, allow: ids.slice(0, 300) }],
    ]) {
      const local = kind === 'flat' ? new q.FlatIndex(options) : new q.QuantizedIndex(options);
      local.add(ids, vectors);
      const remote = await w.create(kind, options);
      assert.equal(remote.kind, kind);
      assert.equal(remote.dim, dim);
      assert.equal(remote.variant, variant);
      await remote.add(ids, vectors);
      assert.equal(await remote.size, 500);
      assert.equal(await remote.memoryBytes, local.memoryBytes);
      assert.equal(await remote.has(3), true);
      assert.deepEqual(
        await remote.search(queries.subarray(0, dim), 5, searchOptions),
        local.search(queries.subarray(0, dim), 5, searchOptions),
      );
      assert.deepEqual(
        await remote.searchBatch(queries, 7, searchOptions),
        local.searchBatch(queries, 7, searchOptions),
      );
      await remote.remove([3, 6]);
      local.remove([3, 6]);
      assert.deepEqual(await remote.serialize(), local.serialize());
      local.dispose();
      await remote.dispose();
    }
  });
}

test('HnswIndex through the worker', async () => {
  const q = await load('simd');
  const w = await start({ variant: 'simd' });
  const dim = 8;
  const vectors = q.unitGaussianVectors(300, dim, 5);
  const ids = Array.from({ length: 300 }, (_, i) => i);
  const local = new q.HnswIndex({ dim, M: 8, efConstruction: 50, seed: 3 });
  local.add(ids, vectors, { threads: 1 });
  const remote = await w.create('hnsw', { dim, M: 8, efConstruction: 50, seed: 3 });
  await remote.add(ids, vectors, { threads: 1 });
  assert.equal(remote.kind, 'hnsw');
  assert.deepEqual(
    await remote.search(vectors.subarray(0, dim), 5, { ef: 40 }),
    local.search(vectors.subarray(0, dim), 5, { ef: 40 }),
  );
  assert.deepEqual(await remote.serialize(), local.serialize());
  await remote.remove([0, 1]);
  await remote.compact();
  local.remove([0, 1]);
  local.compact();
  assert.deepEqual(await remote.serialize(), local.serialize());
  local.dispose();
  await remote.dispose();

  // sq8 storage: options, per-call rerank and the storage property cross the worker boundary.
  const options = { dim, M: 8, efConstruction: 50, seed: 3, storage: 'sq8', keepVectors: true };
  const localSq8 = new q.HnswIndex(options);
  localSq8.add(ids, vectors, { threads: 1 });
  const remoteSq8 = await w.create('hnsw', options);
  await remoteSq8.add(ids, vectors, { threads: 1 });
  assert.equal(await remoteSq8.property('storage'), 'sq8');
  for (const rerank of [true, false]) {
    assert.deepEqual(
      await remoteSq8.search(vectors.subarray(dim, 2 * dim), 5, { rerank }),
      localSq8.search(vectors.subarray(dim, 2 * dim), 5, { rerank }),
    );
  }
  localSq8.dispose();
  await remoteSq8.dispose();
});

test('errors come back as QuiverError with the C++ code, and the index is unchanged', async () => {
  const w = await start({ variant: 'simd' });
  const index = await w.create('flat', { dim: 3 });
  await index.add(
    [1, 2],
    [
      [1, 0, 0],
      [0, 1, 0],
    ],
  );
  await assert.rejects(index.add([3], [1, 2]), is('DIMENSION_MISMATCH'));
  await assert.rejects(index.add([2], [[1, 1, 1]]), (e) => is('DUPLICATE_ID')(e) && /2/.test(e.message));
  await assert.rejects(index.add([4], [[NaN, 0, 0]]), is('NON_FINITE'));
  await assert.rejects(index.search([1, 0, 0], 0), is('INVALID_K'));
  await assert.rejects(index.remove([99]), is('UNKNOWN_ID'));
  assert.equal(await index.size, 2);
  await assert.rejects(w.create('flat', { dim: 0 }), is('INVALID_ARGUMENT'));
  await assert.rejects(w.create('kd-tree', { dim: 3 }), is('INVALID_ARGUMENT'));
  await assert.rejects(
    w.load(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])),
    (e) => e instanceof QuiverError && e.code !== 'INTERNAL',
  );
  await assert.rejects(index.compact(), is('INVALID_ARGUMENT'));
  await assert.rejects(spawn({ locateFile: (f) => f }), is('INVALID_ARGUMENT'));
  await assert.rejects(spawn({ variant: 'mmx' }), is('INVALID_ARGUMENT'));
  await index.dispose();
});

test('transfer: true moves the caller buffers; results are fresh typed arrays', async () => {
  const w = await start({ variant: 'simd' });
  const index = await w.create('flat', { dim: 2 });
  const ids = new Float64Array([5, 6]);
  const vectors = new Float32Array([0, 0, 1, 1]);
  await index.add(ids, vectors, { transfer: true });
  assert.equal(vectors.byteLength, 0, 'the vectors were moved to the worker');
  assert.equal(ids.byteLength, 0);
  const kept = new Float32Array([1, 1]);
  const r = await index.search(kept, 1);
  assert.equal(kept.byteLength, 8, 'without transfer the query is copied');
  assert.ok(r.ids instanceof Float64Array && r.distances instanceof Float32Array);
  assert.deepEqual([...r.ids], [6]);
  const bytes = await index.serialize();
  assert.ok(bytes instanceof Uint8Array);
  const copy = await w.load(bytes, { transfer: true });
  assert.equal(bytes.byteLength, 0);
  assert.equal(await copy.size, 2);
  await copy.dispose();
  await index.dispose();
});

test('dispose twice is fine; a disposed remote index rejects with DISPOSED; terminate ends every call', async () => {
  const w = await spawn({ variant: 'simd' });
  const index = await w.create('flat', { dim: 2 });
  await index.dispose();
  await index.dispose();
  await assert.rejects(index.search([0, 0], 1), is('DISPOSED'));
  await assert.rejects(index.size, is('DISPOSED'));
  const other = await w.create('flat', { dim: 2 });
  await w.terminate();
  await w.terminate();
  await assert.rejects(other.search([0, 0], 1), is('WORKER_EXITED'));
  await assert.rejects(w.create('flat', { dim: 2 }), is('WORKER_EXITED'));
});

test('bytes saved by a worker load locally and the other way round', async () => {
  const w = await start({ variant: 'simd-mt', threads: 2 });
  const q = await load('simd');
  const local = new q.QuantizedIndex({ dim: 4, bits: 2 });
  local.add(
    [1, 2, 3],
    [
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 1],
    ],
  );
  const remote = await w.load(local.serialize());
  assert.equal(remote.kind, 'quantized');
  assert.equal(await remote.property('bits'), 2);
  const back = q.load(await remote.serialize());
  assert.deepEqual(back.search([0, 0, 1, 1], 3), local.search([0, 0, 1, 1], 3));
  back.dispose();
  local.dispose();
  await remote.dispose();
});

test('load options reach the worker: a precompiled module and a wasm path', async () => {
  const wasm = join(root, 'js', 'wasm', 'simd', 'quiver.wasm');
  const module = await WebAssembly.compile(readFileSync(wasm));
  for (const options of [
    { variant: 'simd', wasmModule: module, wasmUrl: '/nowhere/quiver.wasm' },
    { variant: 'simd', wasmUrl: wasm },
  ]) {
    const w = await start(options);
    const index = await w.create('flat', { dim: 2 });
    await index.add(
      [1, 2],
      [
        [0, 0],
        [1, 1],
      ],
    );
    assert.deepEqual([...(await index.search([1, 1], 1)).ids], [2]);
  }
  await assert.rejects(spawn({ variant: 'simd', wasmUrl: '/nowhere/quiver.wasm' }), is('LOAD_FAILED'));
});

test('a process that never calls terminate() still exits once its calls are done', () => {
  const script = `
    import { spawn } from 'quiver-vector/worker';
    const w = await spawn({ variant: 'simd-mt', threads: 2 });
    const index = await w.create('flat', { dim: 2 });
    await index.add([1], [[1, 2]]);
    console.log((await index.search([1, 2], 1)).ids[0]);
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(child.signal, null, 'the process had to be killed: the worker kept it alive');
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), '1');
});
