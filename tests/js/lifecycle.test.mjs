// Ownership of the C++ objects behind the JS indexes: dispose() is idempotent, any other use
// of a disposed index throws QuiverError DISPOSED (never a crash), Symbol.dispose is dispose,
// the FinalizationRegistry warns about a leaked index (and only about leaked ones), and
// create/dispose cycles give back every byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Quiver, QuiverError } from '../../js/index.js';
import { moduleLoader, root } from './support.mjs';

const load = moduleLoader();

function kinds(q) {
  return [
    ['FlatIndex', () => new q.FlatIndex({ dim: 4 })],
    ['QuantizedIndex', () => new q.QuantizedIndex({ dim: 4, bits: 4 })],
    ['HnswIndex', () => new q.HnswIndex({ dim: 4 })],
    ['HnswIndex sq8', () => new q.HnswIndex({ dim: 4, storage: 'sq8' })],
  ];
}

const isDisposed = (e) => e instanceof QuiverError && e.code === 'DISPOSED';

test('dispose twice is a no-op and every later use throws DISPOSED', async () => {
  const q = await load('simd');
  for (const [name, make] of kinds(q)) {
    const index = make();
    index.add(
      [1, 2],
      [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
      ],
    );
    const bytes = index.serialize();
    assert.equal(index.disposed, false);
    index.dispose();
    index.dispose();
    assert.equal(index.disposed, true, name);
    const uses = [
      () => index.add([3], [0, 0, 1, 0]),
      () => index.remove([1]),
      () => index.has(1),
      () => index.search([1, 0, 0, 0], 1),
      () => index.searchBatch([1, 0, 0, 0], 1),
      () => index.serialize(),
      () => index.size,
      () => index.dim,
      () => index.metric,
      () => index.memoryBytes,
      () => index.isa,
    ];
    for (const use of uses) assert.throws(use, isDisposed, `${name}: ${use}`);
    // The module is still healthy: the same bytes load again.
    const again = q.load(bytes);
    assert.equal(again.size, 2);
    again.dispose();
  }
});

test('Symbol.dispose is dispose', async () => {
  const q = await load('simd');
  for (const [name, make] of kinds(q)) {
    const index = make();
    assert.equal(index[Symbol.dispose], index.dispose, name);
    index[Symbol.dispose]();
    assert.equal(index.disposed, true);
  }
});

// A leak test needs the collector: a child process with --expose-gc creates one index it
// disposes and one it drops, collects, and lets the registry callbacks run.
test('an index collected without dispose() is reported once; a disposed one is not', () => {
  const script = `
    import { Quiver } from './js/index.js';
    const q = await Quiver.init({ variant: 'simd' });
    (() => { const kept = new q.FlatIndex({ dim: 3 }); kept.dispose(); })();
    (() => { new q.QuantizedIndex({ dim: 5 }); })();
    for (let i = 0; i < 5; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); }
    q.terminate();
  `;
  const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  const warnings = child.stderr.split('\n').filter((l) => l.startsWith('quiver:'));
  assert.equal(warnings.length, 1, child.stderr);
  assert.match(warnings[0], /a QuantizedIndex \(dim 5\) was garbage-collected without dispose\(\)/);
});

// Each cycle holds 16 vectors of 128 floats (8 KB): leaking them for 10,000 cycles would need
// 80 MB more heap than the module has, so growth would show.
function cycle(q, i, make = (dim) => new q.FlatIndex({ dim })) {
  const dim = 128;
  const index = make(dim);
  const vectors = new Float32Array(16 * dim).fill(0.5);
  for (let r = 0; r < 16; r++) vectors[r * dim + (r % dim)] = 2;
  index.add(
    Array.from({ length: 16 }, (_, r) => r),
    vectors,
  );
  index.search(vectors.subarray(0, dim), 4);
  return index;
}

test('10,000 create/add/search/dispose cycles do not grow the wasm memory', async () => {
  const q = await Quiver.init({ variant: 'simd' });
  try {
    for (let i = 0; i < 200; i++) cycle(q, i).dispose();
    const before = q.heapBytes();
    for (let i = 0; i < 10_000; i++) cycle(q, i).dispose();
    assert.equal(q.heapBytes(), before);
  } finally {
    q.terminate();
  }
});

// The other classes build more per index (QuantizedIndex a rotation), so fewer cycles.
test('200 cycles of every other index class do not grow the wasm memory', async () => {
  const q = await Quiver.init({ variant: 'simd' });
  try {
    for (const name of ['QuantizedIndex', 'HnswIndex']) {
      const withDim = (dim) => new q[name]({ dim });
      for (let i = 0; i < 20; i++) cycle(q, i, withDim).dispose();
      const before = q.heapBytes();
      for (let i = 0; i < 200; i++) cycle(q, i, withDim).dispose();
      assert.equal(q.heapBytes(), before, name);
    }
  } finally {
    q.terminate();
  }
});

test('the cycle test would see a leak: the same cycles without dispose() grow the memory', async () => {
  const q = await Quiver.init({ variant: 'simd' });
  try {
    for (let i = 0; i < 200; i++) cycle(q, i).dispose();
    const before = q.heapBytes();
    const leaked = [];
    for (let i = 0; i < 10_000; i++) leaked.push(cycle(q, i));
    assert.ok(q.heapBytes() > before, `${q.heapBytes()} <= ${before}`);
    for (const index of leaked) index.dispose();
  } finally {
    q.terminate();
  }
});
