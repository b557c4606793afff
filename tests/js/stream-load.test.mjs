// Loading index files from a Response, a ReadableStream and a Blob (q.loadFrom, Quiver.load):
// known and unknown lengths, many small chunks (the heap block grows), the same index as
// from bytes, bad sources rejected with a code and the heap block freed every time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Quiver, QuiverError } from '../../js/index.js';
import { chunked } from './support.mjs';

const is = (code) => (e) => e instanceof QuiverError && e.code === code;
const q = await Quiver.init({ variant: 'simd' });
after(async () => {
  q.terminate();
  (await Quiver.shared({ variant: 'simd' })).terminate();
});

const dim = 16;
const vectors = q.unitGaussianVectors(3000, dim, 9);
const source = new q.HnswIndex({ dim, metric: 'cosine', M: 8, efConstruction: 32 });
source.add(
  Float64Array.from({ length: 3000 }, (_, i) => i + 1),
  vectors,
);
const bytes = source.serialize();
const query = vectors.subarray(20 * dim, 21 * dim);
const expected = [...source.search(query, 5).ids];
source.dispose();

async function same(loading) {
  const index = await loading;
  try {
    assert.equal(index.constructor.name, 'HnswIndex');
    assert.deepEqual([...index.search(query, 5).ids], expected);
  } finally {
    index.dispose();
  }
}

test('a Response with Content-Length, a Blob, and a stream of unknown length in small chunks', async () => {
  await same(q.loadFrom(new Response(bytes, { headers: { 'content-length': String(bytes.length) } })));
  await same(q.loadFrom(new Blob([bytes])));
  await same(q.loadFrom(chunked(bytes, 1000))); // grows past the first block
  await same(q.loadFrom(chunked(bytes, 4096), { size: bytes.length }));
  await same(q.loadFrom(bytes)); // bytes still work
  await same(Quiver.load(new Response(bytes), { variant: 'simd' }));
});

test('bad sources are rejected with a code; the heap does not grow over repeated loads', async () => {
  await assert.rejects(q.loadFrom(new Response(bytes, { status: 404 })), is('IO_ERROR'));
  await assert.rejects(q.loadFrom(chunked(bytes.slice(0, bytes.length - 100), 512)), is('TRUNCATED'));
  const broken = new ReadableStream({
    pull(c) {
      c.error(new Error('connection reset'));
    },
  });
  await assert.rejects(q.loadFrom(broken), (e) => is('IO_ERROR')(e) && /connection reset/.test(e.message));
  for (let i = 0; i < 3; i++) await same(q.loadFrom(chunked(bytes, 777)));
  const heap = q.heapBytes();
  for (let i = 0; i < 20; i++) {
    await same(q.loadFrom(chunked(bytes, 777)));
    await assert.rejects(q.loadFrom(chunked(bytes.slice(0, 5000), 777)), is('TRUNCATED'));
  }
  assert.equal(q.heapBytes(), heap, 'every heap block was freed');
});

// The C++ stream loader decides, not JS: a damaged flat file fed as a stream of small chunks
// (and as a Blob, whose length is exact) fails with the same code and message as the same
// bytes given to q.load — every truncation, and a flipped bit in every byte.
test('a damaged flat file fails the same way from a stream as from bytes', async () => {
  const flat = new q.FlatIndex({ dim: 4, metric: 'cosine' });
  flat.add([3, 1, 4, 15], new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 2, 2, 2, 0.5]));
  const good = flat.serialize();
  flat.dispose();
  const outcome = async (loading) => {
    try {
      const index = await loading;
      const r = [...index.search(new Float32Array([1, 0, 0, 0]), 4).ids];
      index.dispose();
      return `loaded ${r}`;
    } catch (e) {
      assert.ok(e instanceof QuiverError, `${e}`);
      return `${e.code}: ${e.message}`;
    }
  };
  const damaged = [];
  for (let len = 0; len < good.length; len++) damaged.push([`truncated to ${len}`, good.slice(0, len)]);
  for (let i = 0; i < good.length; i++) {
    const b = good.slice();
    b[i] ^= 1 << (i % 8);
    damaged.push([`byte ${i} flipped`, b]);
  }
  const heap = q.heapBytes();
  for (const [label, b] of damaged) {
    const want = await outcome(Promise.resolve().then(() => q.load(b)));
    assert.equal(await outcome(q.loadFrom(chunked(b, 7))), want, `${label}, stream`);
    assert.equal(await outcome(q.loadFrom(new Blob([b]))), want, `${label}, Blob`);
  }
  assert.equal(q.heapBytes(), heap, 'failed loads left nothing allocated that grew the heap');
});
