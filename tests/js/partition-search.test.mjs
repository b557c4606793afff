// Searching the partitioned quantised index through the package, beyond its options
// (quantized-partition.test.mjs): allow-lists with few probes, batch rows equal to single
// searches, the worker API passing lists / refineBits / probes through, and a partitioned file
// with a refine plane written by the native CLI answering in wasm exactly as natively.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VARIANTS } from './support.mjs';
import { spawn } from '../../js/worker.js';
import { cli, moduleLoader, requireCli, workDir, writeFbin } from './support.mjs';

const load = moduleLoader();
const N = 3000,
  DIM = 24,
  K = 10,
  LISTS = 16;
const OPTIONS = { dim: DIM, metric: 'cosine', bits: 4, seed: 7, keepVectors: false, refineBits: 3, lists: LISTS };
const ids = Float64Array.from({ length: N }, (_, i) => 1000 + 3 * i);

async function data(variant) {
  const q = await load(variant);
  return { q, base: q.unitGaussianVectors(N, DIM, 11), queries: q.unitGaussianVectors(12, DIM, 12) };
}

function partitioned(q, base, options = OPTIONS) {
  const index = new q.QuantizedIndex(options);
  index.add(ids, base);
  return index;
}

const row = (r, i) => ({
  ids: r.ids.subarray(i * r.k, i * r.k + r.counts[i]),
  distances: r.distances.subarray(i * r.k, i * r.k + r.counts[i]),
});

for (const variant of VARIANTS) {
  describe(`partitioned search (${variant})`, () => {
    test('an allow-list returns only allowed ids, and all of a tight one even with one probe', async () => {
      const { q, base, queries } = await data(variant);
      const index = partitioned(q, base);
      assert.equal(index.lists, LISTS);
      // Four ids scattered over the index (in different lists as a rule) and one unknown id.
      const tight = [ids[1], ids[700], ids[1501], ids[2999], 5];
      for (let i = 0; i < 4; i++) {
        const r = index.search(queries.subarray(i * DIM, (i + 1) * DIM), K, { probes: 1, allow: tight });
        assert.deepEqual(
          [...r.ids].sort((a, b) => a - b),
          [ids[1], ids[700], ids[1501], ids[2999]].sort((a, b) => a - b),
        );
      }
      // A wide allow-list (every other id): every hit is allowed, k of them, at every probes.
      const even = Array.from(ids).filter((_, i) => i % 2 === 0);
      const allowed = new Set(even);
      for (const probes of [1, 3, LISTS]) {
        const r = index.searchBatch(queries, K, { probes, allow: even });
        for (let i = 0; i < queries.length / DIM; i++) {
          assert.equal(r.counts[i], K);
          for (const id of row(r, i).ids) assert.ok(allowed.has(id), `probes ${probes}: id ${id} is not allowed`);
        }
      }
      // Probing every list with an allow-list answers as the unpartitioned index does.
      const full = partitioned(q, base, { ...OPTIONS, lists: 0 });
      assert.deepEqual(
        index.searchBatch(queries, K, { probes: LISTS, allow: even }),
        full.searchBatch(queries, K, { allow: even }),
      );
      index.dispose();
      full.dispose();
    });

    test('batch rows equal single searches at each probes value, after removals and re-adds', async () => {
      const { q, base, queries } = await data(variant);
      const index = partitioned(q, base);
      const gone = Array.from(ids).filter((_, i) => i % 4 === 0);
      index.remove(gone);
      index.add(
        gone.slice(0, 100),
        base.subarray(0, 100 * DIM).map((x) => -x),
      ); // slots come back
      for (const probes of [undefined, 1, 2, 5]) {
        const opts = probes === undefined ? {} : { probes };
        const batch = index.searchBatch(queries, K, opts);
        for (let i = 0; i < queries.length / DIM; i++) {
          assert.deepEqual(
            index.search(queries.subarray(i * DIM, (i + 1) * DIM), K, opts),
            row(batch, i),
            `probes ${probes}, query ${i}`,
          );
        }
      }
      index.dispose();
    });
  });
}

describe('the worker API passes the partition options through', () => {
  const workers = [];
  after(async () => {
    for (const w of workers) await w.terminate();
  });
  for (const variant of ['simd-mt', 'simd']) {
    test(`${variant}: lists, refineBits and probes reach the index in the worker`, async () => {
      const { q, base, queries } = await data(variant);
      const w = await spawn({ variant, threads: 2 });
      workers.push(w);
      const local = partitioned(q, base);
      const remote = await w.create('quantized', OPTIONS);
      await remote.add(ids, base);
      assert.equal(await remote.property('lists'), LISTS);
      assert.equal(await remote.property('listsOption'), LISTS);
      assert.equal(await remote.property('defaultProbes'), local.defaultProbes);
      assert.equal(await remote.property('refineBits'), 3);
      for (const opts of [{ probes: 1 }, { probes: 4, allow: Array.from(ids.subarray(0, 900)) }, {}]) {
        assert.deepEqual(
          await remote.search(queries.subarray(0, DIM), K, opts),
          local.search(queries.subarray(0, DIM), K, opts),
        );
        assert.deepEqual(await remote.searchBatch(queries, K, opts), local.searchBatch(queries, K, opts));
      }
      // One probe differs from all of them (else the option would not have been seen).
      assert.notDeepEqual(
        await remote.searchBatch(queries, K, { probes: 1 }),
        await remote.searchBatch(queries, K, { probes: LISTS }),
      );
      const auto = await w.create('quantized', { dim: DIM, lists: 'auto' });
      assert.equal(await auto.property('listsOption'), 'auto');
      await assert.rejects(w.create('quantized', { dim: DIM, lists: -2 }), (e) => e.code === 'INVALID_ARGUMENT');
      await assert.rejects(
        remote.search(queries.subarray(0, DIM), K, { probes: -1 }),
        (e) => e.code === 'INVALID_ARGUMENT',
      );
      assert.deepEqual(await remote.serialize(), local.serialize());
      for (const i of [remote, auto]) await i.dispose();
      local.dispose();
    });
  }
});

describe('a native partitioned file with a refine plane answers identically in wasm', () => {
  const work = workDir('quiver-partition-file-');
  const basePath = join(work, 'base.fbin'),
    queryPath = join(work, 'queries.fbin'),
    file = join(work, 'part.qvr');
  const native = {};
  before(async () => {
    requireCli();
    const { base, queries } = await data('simd');
    writeFbin(basePath, N, DIM, base);
    writeFbin(queryPath, queries.length / DIM, DIM, queries);
    const b = spawnSync(
      cli,
      [
        'build',
        basePath,
        '-o',
        file,
        '--index',
        'quantized',
        '--metric',
        'cosine',
        '--bits',
        '4',
        '--lists',
        String(LISTS),
        '--refine-bits',
        '3',
        '--no-vectors',
        '-q',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(b.status, 0, b.stderr);
    for (const probes of ['2', '0']) {
      const s = spawnSync(cli, ['search', file, queryPath, '-k', String(K), '--probes', probes, '--json', '-q'], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      assert.equal(s.status, 0, s.stderr);
      native[probes] = JSON.parse(s.stdout);
    }
  });

  for (const variant of VARIANTS) {
    test(`${variant}: same ids and distances as the native CLI`, async () => {
      const { q, queries } = await data(variant);
      const bytes = new Uint8Array(readFileSync(file));
      const index = q.load(bytes);
      assert.equal(index.lists, LISTS);
      assert.equal(index.refineBits, 3);
      assert.equal(index.keepVectors, false);
      assert.deepEqual(index.serialize(), bytes);
      for (const [probes, want] of Object.entries(native)) {
        const opts = probes === '0' ? {} : { probes: Number(probes) };
        const got = index.searchBatch(queries, K, opts);
        for (let i = 0; i < want.ids.length; i++) {
          const r = row(got, i);
          assert.deepEqual(Array.from(r.ids), want.ids[i].map(Number), `probes ${probes}, query ${i}: ids`);
          assert.deepEqual(
            Array.from(r.distances),
            want.distances[i].map(Math.fround),
            `probes ${probes}, query ${i}: distances`,
          );
        }
      }
      index.dispose();
    });
  }
});

// A JS add() reaches the C++ index in 4 MiB slices (2,730 rows at d = 384), the CLI adds in
// chunks of 1,024 here: both train at the same fixed threshold (16,384 of 20,000 rows) on the
// same first rows, so the lists, and the whole file, are those of the native build.
describe('the batching of an add does not change the partitioned index', () => {
  const BIG = 20000,
    BIG_DIM = 384;
  const work = workDir('quiver-partition-batching-');
  const basePath = join(work, 'big.fbin'),
    file = join(work, 'big.qvr');
  before(async () => {
    requireCli();
    const q = await load('simd');
    writeFbin(basePath, BIG, BIG_DIM, q.unitGaussianVectors(BIG, BIG_DIM, 21));
    const b = spawnSync(
      cli,
      [
        'build',
        basePath,
        '-o',
        file,
        '--index',
        'quantized',
        '--metric',
        'cosine',
        '--bits',
        '4',
        '--seed',
        '42',
        '--lists',
        'auto',
        '--refine-bits',
        '0',
        '--no-vectors',
        '-q',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(b.status, 0, b.stderr);
  });

  test('simd: a sliced JS add gives the native lists and file bytes', async () => {
    const q = await load('simd');
    const bytes = new Uint8Array(readFileSync(file));
    const native = q.load(bytes);
    const index = new q.QuantizedIndex({
      dim: BIG_DIM,
      metric: 'cosine',
      bits: 4,
      seed: 42,
      keepVectors: false,
      refineBits: 0,
      lists: 'auto',
    });
    index.add(
      Float64Array.from({ length: BIG }, (_, i) => i),
      q.unitGaussianVectors(BIG, BIG_DIM, 21),
    );
    assert.equal(index.lists, native.lists);
    assert.equal(index.lists, 16384 / 256); // auto: 256 vectors per list at the training size
    assert.equal(
      Buffer.compare(Buffer.from(index.serialize()), Buffer.from(bytes)),
      0,
      'the JS-built file differs from the native build',
    );
    index.dispose();
    native.dispose();
  });
});
