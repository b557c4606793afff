// add() through the worker with progress and cancellation: progress after every chunk up to
// the total, the same answers as one add, an AbortSignal that stops the add and leaves the
// index holding what it held before (all or nothing), a chunk the index rejects rolling back
// the chunks before it, and load() with an aborted signal.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from '../../js/main.js';
import { QuiverError } from '../../js/core/errors.js';

const is = (code) => (e) => e instanceof QuiverError && e.code === code;
const workers = [];
after(async () => {
  for (const w of workers) await w.terminate();
});
async function worker() {
  const w = await spawn({ variant: 'simd', threads: 1 });
  workers.push(w);
  return w;
}
// HNSW's graph options; a flat index takes none (an option that does not apply is refused).
const graph = (kind, options) => (kind === 'hnsw' ? options : {});
const range = (from, n) => Float64Array.from({ length: n }, (_, i) => from + i);

for (const kind of ['flat', 'hnsw']) {
  test(`${kind}: progress after each chunk, same answers as one add`, async () => {
    const w = await worker();
    const dim = 8;
    const vectors = await w.unitGaussianVectors(1000, dim, 3);
    const chunked = await w.create(kind, { dim, ...graph(kind, { M: 8, efConstruction: 32 }) });
    const events = [];
    await chunked.add(range(1, 1000), vectors, { chunkSize: 128, onProgress: (p) => events.push(p) });
    assert.deepEqual(
      events.map((e) => e.done),
      [128, 256, 384, 512, 640, 768, 896, 1000],
    );
    assert.ok(events.every((e) => e.total === 1000));
    assert.equal(await chunked.size, 1000);
    const whole = await w.create(kind, { dim, ...graph(kind, { M: 8, efConstruction: 32 }) });
    await whole.add(range(1, 1000), vectors);
    const query = vectors.slice(17 * dim, 18 * dim);
    assert.deepEqual((await chunked.search(query, 5)).ids, (await whole.search(query, 5)).ids);
  });

  test(`${kind}: an AbortSignal stops the add and the index holds what it held before`, async () => {
    const w = await worker();
    const dim = 8;
    const vectors = await w.unitGaussianVectors(3000, dim, 5);
    const index = await w.create(kind, { dim, ...graph(kind, { M: 8, efConstruction: 32 }) });
    await index.add(range(1, 100), vectors.slice(0, 100 * dim));
    const query = vectors.slice(50 * dim, 51 * dim);
    const before = await index.search(query, 5);
    const controller = new AbortController();
    const events = [];
    const adding = index.add(range(1000, 2900), vectors.slice(100 * dim), {
      chunkSize: 100,
      onProgress: (p) => {
        events.push(p.done);
        if (p.done === 300) controller.abort();
      },
      signal: controller.signal,
    });
    await assert.rejects(adding, is('ABORTED'));
    assert.ok(events.length >= 3 && events.at(-1) < 2900, `stopped part-way: ${events}`);
    assert.equal(await index.size, 100);
    assert.equal(await index.has(1000), false);
    assert.deepEqual((await index.search(query, 5)).ids, before.ids);
    // The ids of the cancelled add are free again.
    await index.add(range(1000, 10), vectors.slice(100 * dim, 110 * dim));
    assert.equal(await index.size, 110);
    // A signal that has already fired: nothing is sent.
    await assert.rejects(index.add([5000], vectors.slice(0, dim), { signal: AbortSignal.abort() }), is('ABORTED'));
    assert.equal(await index.size, 110);
  });

  test(`${kind}: a chunk the index rejects rolls back the chunks before it`, async () => {
    const w = await worker();
    const dim = 4;
    const index = await w.create(kind, { dim, ...graph(kind, { M: 8 }) });
    await index.add(
      [1, 2],
      [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
      ],
    );
    const vectors = new Float32Array(300 * dim).fill(0.5);
    vectors[250 * dim] = NaN; // the third chunk of 100
    await assert.rejects(
      index.add(range(10, 300), vectors, { chunkSize: 100, onProgress: () => {} }),
      is('NON_FINITE'),
    );
    assert.equal(await index.size, 2);
    assert.equal(await index.has(10), false);
  });
}

test('load() with an aborted signal rejects with ABORTED', async () => {
  const w = await worker();
  const index = await w.create('flat', { dim: 2 });
  await index.add([1], [[1, 2]]);
  const bytes = await index.serialize();
  await assert.rejects(w.load(bytes, { signal: AbortSignal.abort() }), is('ABORTED'));
  const loaded = await w.load(bytes, { signal: new AbortController().signal });
  assert.equal(await loaded.size, 1);
});

// A stream of `size`-byte chunks of `data` (one chunk per pull).
function chunked(data, size) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= data.length) {
        controller.close();
        return;
      }
      controller.enqueue(data.slice(at, at + size));
      at += size;
    },
  });
}

test('load() of a stream, a Response and a Blob in the worker reports progress in bytes and can be cancelled', async () => {
  const w = await worker();
  const dim = 8;
  const vectors = await w.unitGaussianVectors(2000, dim, 4);
  const source = await w.create('hnsw', { dim, M: 8, efConstruction: 32 });
  await source.add(range(1, 2000), vectors);
  const bytes = await source.serialize();
  const query = vectors.slice(9 * dim, 10 * dim);
  const expected = (await source.search(query, 3)).ids;

  const events = [];
  const fromStream = await w.load(chunked(bytes, 4096), { size: bytes.length, onProgress: (p) => events.push(p) });
  assert.equal(events.length, Math.ceil(bytes.length / 4096));
  assert.deepEqual(events.at(-1), { done: bytes.length, total: bytes.length });
  assert.deepEqual((await fromStream.search(query, 3)).ids, expected);
  const fromResponse = await w.load(new Response(bytes, { headers: { 'content-length': String(bytes.length) } }));
  assert.deepEqual((await fromResponse.search(query, 3)).ids, expected);
  const fromBlob = await w.load(new Blob([bytes]));
  assert.deepEqual((await fromBlob.search(query, 3)).ids, expected);

  const controller = new AbortController();
  const seen = [];
  const loading = w.load(chunked(bytes, 1024), {
    onProgress: (p) => {
      seen.push(p.done);
      if (seen.length === 3) controller.abort();
    },
    signal: controller.signal,
  });
  await assert.rejects(loading, is('ABORTED'));
  assert.ok(seen.length >= 3 && seen.at(-1) < bytes.length, `stopped part-way: ${seen}`);
  await assert.rejects(w.load(new Response(bytes, { status: 500 })), is('IO_ERROR'));
  // The worker still loads after the cancelled one.
  const again = await w.load(chunked(bytes, 8192));
  assert.deepEqual((await again.search(query, 3)).ids, expected);
});

// Issue 23 item 10: a cancel that arrived after its add had finished went into the host's
// "cancelled early" set and stayed there for ever (one entry per late cancel). The host is run
// here in this thread (serve() with a recording post), so its bookkeeping can be read.
test('the worker host keeps nothing for a cancel that comes after its call finished', async () => {
  const { serve } = await import('../../js/worker/worker-host.js');
  const replies = new Map();
  const onMessage = serve((m) => {
    if (!m.progress) replies.set(m.id, m);
  });
  const send = async (m) => {
    await onMessage(m);
    return replies.get(m.id);
  };
  assert.equal((await send({ id: 1, op: 'init', options: { variant: 'simd' } })).ok, true);
  const {
    value: { handle },
  } = await send({ id: 2, op: 'create', kind: 'flat', options: { dim: 2 } });
  try {
    // Finished, then cancelled (the abort raced the reply).
    assert.equal(
      (await send({ id: 3, op: 'call', handle, method: 'add', args: [[1], [[1, 2]]], chunked: {} })).ok,
      true,
    );
    await onMessage({ op: 'cancel', target: 3 });
    // Never sent at all.
    await onMessage({ op: 'cancel', target: 99 });
    assert.deepEqual(onMessage.pending(), { queued: 0, jobs: 0, cancels: 0 });
    // Still queued when cancelled: it is cancelled (ABORTED) and then forgotten.
    const busy = onMessage({
      id: 4,
      op: 'call',
      handle,
      method: 'add',
      args: [
        [5, 6],
        [
          [1, 1],
          [2, 2],
        ],
      ],
      chunked: { chunkSize: 1 },
    });
    const queuedAdd = onMessage({ id: 5, op: 'call', handle, method: 'add', args: [[7], [[3, 3]]], chunked: {} });
    onMessage({ op: 'cancel', target: 5 });
    assert.equal(onMessage.pending().cancels, 1);
    await busy;
    await queuedAdd;
    assert.equal(replies.get(4).ok, true);
    assert.equal(replies.get(5).error.code, 'ABORTED');
    assert.deepEqual(onMessage.pending(), { queued: 0, jobs: 0, cancels: 0 });
    assert.equal((await send({ id: 6, op: 'get', handle, property: 'size' })).value, 3);
  } finally {
    await send({ id: 7, op: 'terminate' });
  }
});

// A partitioned quantised index trains (k-means, then every vector to its list) inside the add
// that passes a threshold: one chunk that can take seconds. Its pieces report progress, and a
// cancel stops it there (the worker reads a shared flag; the cancel message would wait).
const partitionedRows = 40000;
async function partitioned(w, dim) {
  return w.create('quantized', { dim, bits: 4, lists: 'auto' });
}

test('partitioned quantised: progress during the training inside one chunk', async () => {
  const w = await worker();
  const dim = 64;
  const vectors = await w.unitGaussianVectors(partitionedRows, dim, 7);
  const index = await partitioned(w, dim);
  const events = [];
  await index.add(range(1, partitionedRows), vectors, {
    chunkSize: partitionedRows,
    onProgress: (p) => events.push(p),
  });
  const training = events.filter((e) => e.step?.name === 'training');
  const assigning = events.filter((e) => e.step?.name === 'assigning');
  // One chunk, but the module adds it in heap-sized slices (4 MiB of vectors): the slice that
  // passes 16,384 rows trains and the one that passes 32,768 trains again. Each training counts
  // its pieces 1..total, then re-assigns every vector.
  assert.ok(training.length > 8, `${training.length} training reports`);
  const runs = [];
  for (const e of training) {
    if (e.step.done === 1) runs.push([]);
    runs.at(-1).push(e);
  }
  assert.ok(runs.length >= 1);
  for (const run of runs) {
    assert.deepEqual(
      run.map((e) => e.step.done),
      run.map((_, i) => i + 1),
    );
    assert.ok(run.every((e) => e.step.total === run.length && e.done === 0 && e.total === partitionedRows));
    const next = events.indexOf(run.at(-1)) + 1;
    assert.equal(events[next].step?.name, 'assigning', 'training, then assigning');
  }
  assert.ok(assigning.length > 1 && assigning.at(-1).step.done === assigning.at(-1).step.total);
  assert.deepEqual(events.at(-1), { done: partitionedRows, total: partitionedRows });
  assert.ok((await index.property('lists')) > 1);
});

test('partitioned quantised: a cancel during the training stops it there and the index is as it was', async () => {
  const w = await worker();
  const dim = 64;
  const vectors = await w.unitGaussianVectors(partitionedRows, dim, 7);
  const index = await partitioned(w, dim);
  await index.add(range(1, 100), vectors.slice(0, 100 * dim));
  const before = await index.serialize();
  const controller = new AbortController();
  const events = [];
  const adding = index.add(range(1000, partitionedRows - 100), vectors.slice(100 * dim), {
    chunkSize: partitionedRows,
    signal: controller.signal,
    onProgress: (p) => {
      events.push(p);
      if (p.step?.name === 'training' && p.step.done === 2) controller.abort();
    },
  });
  await assert.rejects(adding, is('ABORTED'));
  const training = events.filter((e) => e.step?.name === 'training');
  assert.ok(training.length >= 2, `${training.length} training reports`);
  assert.ok(training.at(-1).step.done < training[0].step.total, 'stopped before the training ended');
  assert.ok(!events.some((e) => e.step?.name === 'assigning'), 'never reached the re-assignment');
  assert.equal(await index.size, 100);
  assert.deepEqual(await index.serialize(), before);
});

test('q.setWorkObserver: an observer that answers false stops a training add, the index as it was', async () => {
  const { init } = await import('../../js/index.js');
  const q = await init({ variant: 'simd' });
  const dim = 32;
  const vectors = q.unitGaussianVectors(6000, dim, 3);
  const index = new q.QuantizedIndex({ dim, bits: 4, lists: 'auto' });
  index.add(range(1, 100), vectors.slice(0, 100 * dim));
  const before = index.serialize();
  const seen = [];
  q.setWorkObserver((p) => {
    seen.push(p);
    return p.done < 3;
  });
  try {
    assert.throws(() => index.add(range(1000, 5900), vectors.slice(100 * dim)), is('ABORTED'));
  } finally {
    q.setWorkObserver(null);
  }
  assert.deepEqual(
    seen.map((p) => [p.step, p.done]),
    [
      ['training', 1],
      ['training', 2],
      ['training', 3],
    ],
  );
  assert.equal(index.size, 100);
  assert.deepEqual(index.serialize(), before);
  index.add(range(1000, 5900), vectors.slice(100 * dim)); // no observer: the add goes through
  assert.equal(index.size, 6000);
  assert.throws(() => q.setWorkObserver('yes'), is('INVALID_ARGUMENT'));
  index.dispose();
});
