// The relaxed-simd variant: the loader's choice, with and without Node 20's
// --experimental-wasm-relaxed-simd, and answers identical to simd bit for bit (ids, distances
// and index files) for every kind, with baseline's ids beside them. The answer tests need the
// flag (scripts/test.sh runs this file with it); without it they are skipped and only the
// choice is checked (in child processes, with and without the flag).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Quiver } from '../../js/index.js';
import { hasRelaxedSimd } from '../../js/loader.js';

// What the loader picks in a fresh Node, with threads (Node has them) and without (as on a
// page without cross-origin isolation), and that an explicit request wins.
function choiceIn(flags) {
  const script = `
    const { chooseVariant, hasRelaxedSimd } = await import(${JSON.stringify(new URL('../../js/loader.js', import.meta.url).href)});
    const out = { relaxed: hasRelaxedSimd(), auto: chooseVariant(), explicit: chooseVariant('simd') };
    delete globalThis.SharedArrayBuffer;
    out.unthreaded = chooseVariant();
    console.log(JSON.stringify(out));`;
  return JSON.parse(
    execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8' }),
  );
}

test('without --experimental-wasm-relaxed-simd Node 20 gets simd (simd-mt with threads)', () => {
  assert.deepEqual(choiceIn([]), { relaxed: false, auto: 'simd-mt', explicit: 'simd', unthreaded: 'simd' });
});

test('with the flag relaxed-simd is picked where one thread is all there is', () => {
  assert.deepEqual(choiceIn(['--experimental-wasm-relaxed-simd']), {
    relaxed: true,
    auto: 'simd-mt',
    explicit: 'simd',
    unthreaded: 'relaxed-simd',
  });
});

const DIM = 72; // not a multiple of 16 or 32: every kernel runs its tail too
const N = 3000;
const QUERIES = 24;
const K = 10;

// One fingerprint per index: the ids of every query's answers, and a hash of ids, distance
// bits and the serialized file.
function fingerprint(q, index) {
  const queries = q.unitGaussianVectors(QUERIES, DIM, 17);
  const ids = [];
  const hash = createHash('sha256');
  for (let i = 0; i < QUERIES; i++) {
    const r = index.search(queries.subarray(i * DIM, (i + 1) * DIM), K);
    ids.push([...r.ids]);
    hash.update(new Uint8Array(Float64Array.from(r.ids).buffer));
    hash.update(new Uint8Array(Float32Array.from(r.distances).buffer));
  }
  hash.update(index.serialize());
  index.dispose();
  return { ids, exact: hash.digest('hex') };
}

const KINDS = {
  'flat l2': (q) => new q.FlatIndex({ dim: DIM, metric: 'l2' }),
  'flat cosine': (q) => new q.FlatIndex({ dim: DIM, metric: 'cosine' }),
  'quantized 4-bit': (q) => new q.QuantizedIndex({ dim: DIM, metric: 'cosine', bits: 4, seed: 3 }),
  'quantized 2-bit ip': (q) => new q.QuantizedIndex({ dim: DIM, metric: 'ip', bits: 2, seed: 3 }),
  'quantized partitioned': (q) => new q.QuantizedIndex({ dim: DIM, metric: 'l2', bits: 4, seed: 3, lists: 16 }),
  'hnsw f32': (q) => new q.HnswIndex({ dim: DIM, metric: 'cosine', M: 8, efConstruction: 60, seed: 9 }),
  'hnsw sq8': (q) => new q.HnswIndex({ dim: DIM, metric: 'l2', M: 8, efConstruction: 60, seed: 9, storage: 'sq8' }),
};

describe(
  'answers across baseline, simd and relaxed-simd',
  { skip: !hasRelaxedSimd() && 'needs --experimental-wasm-relaxed-simd' },
  () => {
    const modules = {};
    after(() => {
      for (const q of Object.values(modules)) q.terminate();
    });
    const load = async (variant) => (modules[variant] ??= await Quiver.init({ variant }));

    test('relaxed-simd loads as asked, with the SIMD128 kernels', async () => {
      const q = await load('relaxed-simd');
      assert.equal(q.variant, 'relaxed-simd');
      assert.equal(q.isa, 'wasm128');
      // Node 20 starts functions in Liftoff, which computes relaxed_dot wrongly: the start-up
      // check must keep the plain u8 gather (Chromium's check passes: tests/browser/package.test.mjs).
      assert.deepEqual(q.kernelFeatures, []);
      assert.deepEqual((await load('simd')).kernelFeatures, []);
    });

    for (const [kind, make] of Object.entries(KINDS)) {
      test(`${kind}: relaxed-simd = simd bit for bit, and baseline's ids`, async () => {
        const got = {};
        for (const variant of ['baseline', 'simd', 'relaxed-simd']) {
          const q = await load(variant);
          const index = make(q);
          index.add(
            Float64Array.from({ length: N }, (_, i) => 1 + i),
            q.unitGaussianVectors(N, DIM, 5),
          );
          got[variant] = fingerprint(q, index);
        }
        assert.equal(got['relaxed-simd'].exact, got.simd.exact, 'ids, distance bits and file');
        assert.deepEqual(got['relaxed-simd'].ids, got.simd.ids);
        if (!kind.startsWith('hnsw f32') && !kind.startsWith('flat')) {
          // Integer-scored kinds: the scalar path gives the same answers too.
          assert.deepEqual(got.baseline.ids, got.simd.ids, 'baseline ids');
        }
      });
    }
  },
);
