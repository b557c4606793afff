// Worker-hosted collections (spawn(): w.Collection.create, RemoteCollection): the same answers
// as a local collection, QuiverError codes from the worker, options refused before anything is
// posted, transferred buffers, dispose and terminate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Collection, QuiverError, spawn } from '../../js/main.js';
import { moduleLoader, workerStarter } from './support.mjs';
import { gaussianRow } from './collection-support.mjs';

const load = moduleLoader();
const start = workerStarter(spawn);
const is = (code, pattern) => (e) =>
  e instanceof QuiverError && e.code === code && (!pattern || pattern.test(e.message));

const DIM = 8;
const FIELDS = { lang: 'string', year: 'number', tags: 'tags' };
const records = () =>
  Array.from({ length: 200 }, (_, i) => ({
    id: i % 2 ? `doc-${i}` : i,
    values: gaussianRow(i + 1, DIM),
    metadata: { lang: i % 3 ? 'en' : 'de', year: 2000 + (i % 25), tags: [`t${i % 4}`], title: `#${i}` },
    ...(i % 5 === 0 ? { namespace: 'old' } : {}),
  }));

for (const variant of ['simd-mt', 'simd']) {
  test(`${variant}: a worker collection answers exactly like a local one`, async () => {
    const w = await start({ variant, threads: 2 });
    const q = await load(variant);
    for (const [index, options, search] of [
      ['flat', {}, { returnValues: true }],
      ['hnsw', { M: 8, efConstruction: 64 }, { ef: 32, returnValues: true }],
      ['quantized', { bits: 4 }, { rerank: 4 }],
    ]) {
      const spec = { dim: DIM, metric: 'l2', index, options, fields: FIELDS };
      const local = q.Collection.create(spec);
      const remote = await w.Collection.create(spec);
      assert.deepEqual([remote.index, remote.dim, remote.metric, remote.variant], [index, DIM, 'l2', variant]);
      local.upsert(records());
      await remote.upsert(records());
      assert.equal(await remote.size, 200);
      assert.equal(await remote.memoryBytes, local.memoryBytes);
      assert.deepEqual(await remote.describe(), local.describe());
      for (const filter of [undefined, { lang: 'de' }, { $or: [{ year: { $lt: 2005 } }, { tags: 't1' }] }]) {
        const options = { topK: 7, filter, returnMetadata: true, ...search };
        const vector = gaussianRow(999, DIM);
        assert.deepEqual(
          await remote.query(vector, options),
          local.query(vector, options),
          `${index} ${JSON.stringify(filter)}`,
        );
        assert.deepEqual(
          await remote.query(vector, { ...options, namespace: 'old' }),
          local.query(vector, { ...options, namespace: 'old' }),
        );
      }
      const ids = [1, 'doc-1', 'doc-3', 'nope', 0];
      assert.deepEqual(await remote.getByIds(ids, { returnValues: true }), local.getByIds(ids, { returnValues: true }));
      await remote.deleteByIds([0, 'doc-1']);
      local.deleteByIds([0, 'doc-1']);
      assert.equal(await remote.size, 198);
      assert.deepEqual(await remote.query(gaussianRow(5, DIM)), local.query(gaussianRow(5, DIM)));
      local.dispose();
      await remote.dispose();
    }
  });
}

test('worker collections: errors keep their codes and change nothing; options are checked before posting', async () => {
  const w = await start({ variant: 'simd' });
  const c = await w.Collection.create({ dim: DIM, index: 'hnsw', fields: FIELDS });
  await c.upsert(records().slice(0, 20));
  const v = gaussianRow(3, DIM);
  await assert.rejects(c.insert([{ id: 2, values: v }]), is('DUPLICATE_ID'));
  await assert.rejects(c.deleteByIds([2, 'zz']), is('UNKNOWN_ID'));
  await assert.rejects(c.upsert([{ id: 'x', values: v.subarray(1) }]), is('DIMENSION_MISMATCH'));
  await assert.rejects(c.upsert([{ id: 'x', values: v, extra: 1 }]), is('INVALID_ARGUMENT', /unknown option 'extra'/));
  await assert.rejects(c.query(v, { filter: { lang: { $like: 'e' } } }), is('INVALID_ARGUMENT', /unknown operator/));
  await assert.rejects(c.query(v, { filter: { title: '#1' } }), is('INVALID_ARGUMENT', /not a declared/));
  await assert.rejects(c.getByIds(['x'.repeat(300)]), is('INVALID_ARGUMENT', /at most 256 are allowed/));
  const codesOnly = await w.Collection.create({
    dim: DIM,
    index: 'hnsw',
    options: { storage: 'sq8', keepVectors: false },
  });
  await codesOnly.upsert([{ id: 1, values: v }]);
  await assert.rejects(codesOnly.query(v, { returnValues: true }), is('INVALID_ARGUMENT', /does not keep its vectors/));
  await codesOnly.dispose();
  // Refused here, before a message is posted: the promise rejects, nothing throws.
  const early = c.query(v, { probes: 3 });
  assert.ok(early instanceof Promise);
  await assert.rejects(early, is('INVALID_ARGUMENT', /remote Collection query\(\) on a hnsw index: option 'probes'/));
  await assert.rejects(c.upsert([], { transfer: 'yes' }), is('INVALID_ARGUMENT', /transfer/));
  await assert.rejects(
    w.Collection.create({ dim: DIM, indx: 'flat' }),
    is('INVALID_ARGUMENT', /unknown option 'indx'/),
  );
  assert.equal(await c.size, 20);
  await c.dispose();
  await c.dispose();
  await assert.rejects(c.size, is('DISPOSED'));
  await assert.rejects(c.query(v), is('DISPOSED'));
});

test('worker collections: serialize in one place, load in another — the same collection', async () => {
  const w = await start({ variant: 'simd' });
  const q = await load('simd');
  const spec = { dim: DIM, index: 'hnsw', options: { M: 8 }, fields: FIELDS };
  const remote = await w.Collection.create(spec);
  await remote.upsert(records());
  const bytes = await remote.serialize();
  assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
  const local = q.Collection.load(bytes);
  const v = gaussianRow(77, DIM);
  const ask = { topK: 6, filter: { lang: 'de' }, returnMetadata: true };
  assert.deepEqual(local.query(v, ask), await remote.query(v, ask));
  const again = await w.Collection.load(local.serialize(), { transfer: true });
  assert.equal(await again.size, 200);
  assert.deepEqual(await again.query(v, ask), local.query(v, ask));
  const viaTarget = await Collection.load(bytes, { quiver: w });
  assert.equal(viaTarget.index, 'hnsw');
  await assert.rejects(w.Collection.load(new Uint8Array(64)), is('BAD_MAGIC'));
  await assert.rejects(w.Collection.load(bytes, { transfr: true }), is('INVALID_ARGUMENT', /transfr/));
  local.dispose();
  for (const c of [remote, again, viaTarget]) await c.dispose();
});

test('worker collections: Collection.create(options, { quiver: worker }), transfer, Symbol.asyncDispose, terminate', async () => {
  const w = await start({ variant: 'simd' });
  const c = await Collection.create({ dim: 2, index: 'flat', metric: 'l2' }, { quiver: w });
  assert.equal(c.index, 'flat');
  const values = new Float32Array([1, 2]);
  await c.upsert([{ id: 'a', values }], { transfer: true });
  assert.equal(values.byteLength, 0, 'the values moved into the worker');
  const query = new Float32Array([1, 2]);
  const r = await c.query(query, { transfer: true, returnValues: true });
  assert.equal(query.byteLength, 0, 'the query moved into the worker');
  assert.deepEqual(r.matches, [{ id: 'a', distance: 0, values: new Float32Array([1, 2]) }]);
  // A detached buffer is refused before anything is sent.
  await assert.rejects(c.upsert([{ id: 'b', values }], { transfer: true }), is('INVALID_ARGUMENT', /detached/));
  const d = await w.Collection.create({ dim: 2 });
  await d[Symbol.asyncDispose]();
  await assert.rejects(d.size, is('DISPOSED'));
  await w.terminate();
  await assert.rejects(c.size, is('WORKER_EXITED'));
  await assert.rejects(w.Collection.create({ dim: 2 }), is('WORKER_EXITED'));
});
