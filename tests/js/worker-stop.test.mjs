// Worker calls that used to never settle or could not be stopped (issue 23 items 6 and 7):
// a detached input buffer with { transfer: true } (Node's postMessage drops such a message
// silently) is refused with INVALID_ARGUMENT before anything is posted, a SharedArrayBuffer
// input with { transfer: true } is sent without transfer, and terminate() ends a worker in the
// middle of a long add at once, rejecting the running call, the calls queued behind it and
// every later call with WORKER_EXITED.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, QuiverError } from '../../js/main.js';
import { workerStarter } from './support.mjs';

const is = (code) => (e) => e instanceof QuiverError && e.code === code;
const start = workerStarter(spawn);

// A bound that detects a hang (a promise that never settles), not a speed goal.
const HANG_MS = 5000;
function bounded(promise, what) {
  let timer;
  const hang = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${HANG_MS} ms`)), HANG_MS);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}
function detached(Type, n) {
  const a = new Type(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  assert.equal(a.buffer.byteLength, 0);
  return a;
}
function shared(Type, values) {
  const a = new Type(new SharedArrayBuffer(values.length * Type.BYTES_PER_ELEMENT));
  a.set(values);
  return a;
}

for (const variant of ['simd', 'simd-mt']) {
  test(`${variant}: a detached buffer is INVALID_ARGUMENT (with or without transfer), never a call that hangs`, async () => {
    const w = await start({ variant, threads: 2 });
    const dim = 4;
    const index = await w.create('flat', { dim });
    await index.add(
      [1, 2, 3],
      [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 0, 1, 0],
      ],
    );
    const bytes = await index.serialize();
    for (const transfer of [true, false]) {
      const calls = {
        search: () => index.search(detached(Float32Array, dim), 1, { transfer }),
        searchBatch: () => index.searchBatch(detached(Float32Array, 2 * dim), 1, { transfer }),
        'add (ids)': () => index.add(detached(Float64Array, 1), new Float32Array(dim).fill(1), { transfer }),
        'add (vectors)': () => index.add([9], detached(Float32Array, dim), { transfer }),
        'chunked add': () => index.add([9], detached(Float32Array, dim), { transfer, onProgress: () => {} }),
        'load (view)': () => w.load(detached(Uint8Array, bytes.length), { transfer }),
        'load (ArrayBuffer)': () => w.load(detached(Uint8Array, bytes.length).buffer, { transfer }),
      };
      for (const [what, fn] of Object.entries(calls)) {
        await assert.rejects(
          bounded(fn(), `${what}, transfer ${transfer}`),
          is('INVALID_ARGUMENT'),
          `${what}, transfer ${transfer}`,
        );
      }
    }
    assert.equal(await index.size, 3, 'nothing was added');
    // The worker still answers.
    assert.deepEqual([...(await index.search([0, 1, 0, 0], 1)).ids], [2]);
  });

  test(`${variant}: a SharedArrayBuffer input with transfer: true is sent without transfer`, async () => {
    const w = await start({ variant, threads: 2 });
    const dim = 4;
    const index = await w.create('flat', { dim });
    const ids = shared(Float64Array, [1, 2, 3]);
    const vectors = shared(Float32Array, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
    await bounded(index.add(ids, vectors, { transfer: true }), 'add');
    assert.equal(await index.size, 3);
    const query = shared(Float32Array, [0, 0, 1, 0]);
    assert.deepEqual([...(await bounded(index.search(query, 1, { transfer: true }), 'search')).ids], [3]);
    const batch = await bounded(
      index.searchBatch(shared(Float32Array, [1, 0, 0, 0, 0, 1, 0, 0]), 1, { transfer: true }),
      'searchBatch',
    );
    assert.deepEqual([...batch.ids], [1, 2]);
    await bounded(
      index.add(shared(Float64Array, [4]), shared(Float32Array, [0, 0, 0, 1]), {
        transfer: true,
        onProgress: () => {},
      }),
      'chunked add',
    );
    assert.equal(await index.size, 4);
    const file = await index.serialize();
    const loaded = await bounded(w.load(shared(Uint8Array, file), { transfer: true }), 'load');
    assert.equal(await loaded.size, 4);
    // The shared buffers stay usable here.
    assert.equal(query.byteLength, 16);
    assert.equal(ids[2], 3);
  });

  test(`${variant}: terminate() during a long HNSW add ends it at once; pending and later calls reject with WORKER_EXITED`, async () => {
    const w = await start({ variant, threads: 2 });
    const dim = 48;
    const n = 30000;
    const vectors = await w.unitGaussianVectors(n, dim, 7);
    const index = await w.create('hnsw', { dim, M: 16, efConstruction: 200 });
    let settled = false;
    const adding = index.add(
      Float64Array.from({ length: n }, (_, i) => i),
      vectors,
    );
    adding.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    const queued = index.search(vectors.subarray(0, dim), 3); // waits behind the add
    const chunked = index.add([n + 1], vectors.subarray(0, dim), { onProgress: () => {} });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(settled, false, 'the add finished within 200 ms: the test would prove nothing');
    const t0 = performance.now();
    const stopping = w.terminate();
    await assert.rejects(bounded(adding, 'the running add'), is('WORKER_EXITED'));
    await assert.rejects(bounded(queued, 'the queued search'), is('WORKER_EXITED'));
    await assert.rejects(bounded(chunked, 'the queued chunked add'), is('WORKER_EXITED'));
    await bounded(stopping, 'terminate()');
    const elapsed = performance.now() - t0;
    // A bound for "it did not wait for the build" (the build takes many seconds), not a speed goal.
    assert.ok(elapsed < 2000, `terminate() took ${elapsed.toFixed(0)} ms: it waited for the add`);
    await assert.rejects(index.size, is('WORKER_EXITED'));
    await assert.rejects(index.search(vectors.subarray(0, dim), 1), is('WORKER_EXITED'));
    await assert.rejects(w.create('flat', { dim: 2 }), is('WORKER_EXITED'));
    await assert.rejects(w.load(new Uint8Array(8)), is('WORKER_EXITED'));
    await w.terminate(); // again: a no-op
  });
}
