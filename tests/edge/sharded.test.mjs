// The sharded collection (quiver-vector/cloudflare) in workerd: 4 QuiverShard Durable Objects
// with SQLite storage on a local disk behind the package's router, bundled from an installed
// copy of the package (tests/edge/sharded-support.mjs). Checked against a plain-JS reference
// (exact cosine distances over what was written, filters evaluated in JS) and against one
// collection of the same data in Node:
//   - upsert / insert / delete / get / query through the router, refusals that change nothing;
//   - the merged top-k of 4 flat shards is one flat collection's answer, bit for bit;
//   - HNSW and partitioned quantised shards meet the recall floor one index of the data meets;
//   - a stalled or throwing shard gives the partial answer or the SHARD_UNAVAILABLE error the
//     caller chose, naming the shard; another shard count is LAYOUT_MISMATCH;
//   - durability: workerd is SIGKILLed in a stream of acknowledged upserts (compacting as it
//     goes) and restarted on the same disk: every acknowledged write is there, whole, and the
//     write in flight is wholly there or wholly absent on each shard it went to.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Quiver } from '../../js/index.js';
import { idKey, shardOf } from '../../js/cloudflare/placement.js';
import { buildShardedApp, startSharded } from './sharded-support.mjs';

const dim = 32;
const fields = { lang: 'string', year: 'number', tags: 'tags' };
const COLLECTIONS = {
  flat: { shards: 4, collection: { dim, index: 'flat', fields } },
  hnsw: { shards: 4, collection: { dim, index: 'hnsw', options: { M: 12, efConstruction: 100, seed: 3 }, fields } },
  quant: { shards: 4, collection: { dim, index: 'quantized', options: { bits: 4, seed: 7, lists: 'auto' }, fields } },
  // Placed by namespace: a query that names one asks its shard alone.
  byns: { shards: 4, placement: 'namespace', collection: { dim, index: 'flat', fields } },
  // The flat collection's shards addressed by a router that counts 5 of them.
  resharded: { name: 'flat', shards: 5, collection: { dim, index: 'flat', fields } },
};

let q;
// (Made here, not in before(): project()'s after() inside a hook would remove it when the hook ends.)
const dir = buildShardedApp();
let server;
const stores = [];
const tempStore = (prefix) => {
  const store = mkdtempSync(join(tmpdir(), prefix));
  stores.push(store);
  return store;
};
// (Registered here, not in the hooks: an after() inside a hook runs when the hook ends.)
after(async () => {
  await server?.kill();
  for (const store of stores) rmSync(store, { recursive: true, force: true });
});
before(async () => {
  q = await Quiver.init({ variant: 'simd' });
  server = await startSharded(dir, tempStore('quiver-sharded-store-'), COLLECTIONS);
});

// 3,000 records: ids alternate strings and integers, metadata of three fields, a namespace on
// every fifth.
const N = 3000;
function makeRecords(seed) {
  const vectors = q.unitGaussianVectors(N, dim, seed);
  return Array.from({ length: N }, (_, i) => ({
    id: i % 2 ? `doc-${i}` : i,
    values: Array.from(vectors.subarray(i * dim, (i + 1) * dim)),
    metadata: { lang: ['en', 'de', 'fr'][i % 3], year: 1990 + (i % 37), tags: [`t${i % 4}`, `u${i % 7}`] },
    ...(i % 5 === 0 ? { namespace: 'team-a' } : {}),
  }));
}

// ---- the plain-JS reference: what was written, exact cosine distance, filters in JS ----------

const key = (id) => `${typeof id}:${id}`;
function matchesFilter(meta, f) {
  return Object.entries(f).every(([field, cond]) => {
    if (field === '$and') return cond.every((c) => matchesFilter(meta, c));
    if (field === '$or') return cond.some((c) => matchesFilter(meta, c));
    if (field === '$not') return !matchesFilter(meta, cond);
    const v = meta[field];
    const ops = typeof cond === 'object' && !Array.isArray(cond) ? cond : { $eq: cond };
    return Object.entries(ops).every(([op, arg]) => {
      const has = (x) => (Array.isArray(v) ? v.includes(x) : v === x);
      if (op === '$eq') return has(arg);
      if (op === '$ne') return !has(arg);
      if (op === '$in') return arg.some(has);
      if (op === '$nin') return !arg.some(has);
      if (op === '$contains') return has(arg);
      if (op === '$gte') return v >= arg;
      if (op === '$lt') return v < arg;
      throw new Error(`the reference has no ${op}`);
    });
  });
}
function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return 1 - dot / Math.sqrt(na * nb);
}
function reference(store, vector, { topK, filter, namespace }) {
  return [...store.values()]
    .filter(
      (r) =>
        (namespace === undefined || (r.namespace ?? '') === namespace) &&
        (!filter || matchesFilter(r.metadata, filter)),
    )
    .map((r) => ({ id: r.id, distance: cosine(vector, r.values) }))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, topK);
}

const ASKS = [
  { topK: 10 },
  { topK: 10, filter: { lang: 'de' } },
  { topK: 7, filter: { year: { $gte: 2020 } } },
  { topK: 10, filter: { $and: [{ tags: { $contains: 't1' } }, { lang: { $ne: 'en' } }] } },
  { topK: 5, filter: { $or: [{ year: { $lt: 1992 } }, { tags: { $in: ['u3'] } }] }, namespace: 'team-a' },
  { topK: 10, filter: { $not: { lang: { $in: ['en', 'fr'] } } } },
];

// Loads `records` into the named collection through the router in batches of 500 (each spans
// all 4 shards) and returns the reference store.
async function load(name, records) {
  const store = new Map();
  for (let at = 0; at < records.length; at += 500) {
    const batch = records.slice(at, at + 500);
    const r = await server
      .post(`/${name}/upsert`, { records: batch })
      .catch((e) => assert.fail(`${e.cause ?? e}\n${server.log.join('')}`));
    assert.equal(r.status, 200, `${JSON.stringify(r.body)}\n${server.log.join('')}`);
    assert.deepEqual(r.body, { count: batch.length, shards: [0, 1, 2, 3] });
    for (const rec of batch) store.set(key(rec.id), rec);
  }
  return store;
}

test('upsert, insert, delete, get and query through the router answer as the plain-JS reference; refusals change nothing', async () => {
  const records = makeRecords(5);
  const store = await load('flat', records);
  // Replace 200 (new vectors and metadata), delete 300.
  const fresh = q.unitGaussianVectors(200, dim, 99);
  const replaced = records.slice(0, 200).map((r, i) => ({
    ...r,
    values: Array.from(fresh.subarray(i * dim, (i + 1) * dim)),
    metadata: { ...r.metadata, lang: 'de', year: 2030 },
  }));
  assert.equal((await server.post('/flat/upsert', { records: replaced })).status, 200);
  for (const r of replaced) store.set(key(r.id), r);
  const gone = records.slice(1000, 1300).map((r) => r.id);
  const deleted = await server.post('/flat/delete', { ids: gone });
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  for (const id of gone) store.delete(key(id));

  // Refused, and nothing written: insert of an existing id beside new ones (the new ones span
  // the other shards), delete with one unknown id, a record whose metadata has the wrong type.
  const newOnes = Array.from({ length: 12 }, (_, i) => ({ id: `new-${i}`, values: records[i].values }));
  const dup = await server.post('/flat/insert', { records: [...newOnes, { id: 'doc-5', values: records[5].values }] });
  assert.equal(dup.status, 400);
  assert.equal(dup.body.error, 'DUPLICATE_ID', dup.body.message);
  const unknown = await server.post('/flat/delete', { ids: [2, 'doc-3', 'missing', 'doc-7'] });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error, 'UNKNOWN_ID', unknown.body.message);
  const badMeta = await server.post('/flat/upsert', {
    records: [...newOnes, { id: 'x', values: records[0].values, metadata: { year: 'old' } }],
  });
  assert.equal(badMeta.status, 400);
  assert.equal(badMeta.body.error, 'INVALID_ARGUMENT', badMeta.body.message);
  const got = await server.post('/flat/get', { ids: [...newOnes.map((r) => r.id), 2, 'doc-3', 'doc-7', 'doc-1001'] });
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.deepEqual(got.body.slice(0, 12), new Array(12).fill(null), 'the refused writes wrote nothing');
  assert.deepEqual(
    got.body.slice(12),
    [2, 'doc-3', 'doc-7']
      .map((id) => {
        const r = store.get(key(id));
        return { id, metadata: r.metadata, ...(r.namespace ? { namespace: r.namespace } : {}) };
      })
      .concat([null]),
  );

  for (const [name, code, body] of [
    ['a wrong dimension', 'DIMENSION_MISMATCH', { vector: records[0].values.slice(1) }],
    ['an undeclared field', 'INVALID_ARGUMENT', { vector: records[0].values, filter: { title: 'x' } }],
    ['an unknown operator', 'INVALID_ARGUMENT', { vector: records[0].values, filter: { lang: { $regex: 'd' } } }],
    ['a misspelt option', 'INVALID_ARGUMENT', { vector: records[0].values, topk: 3 }],
    ['an option of another kind', 'INVALID_ARGUMENT', { vector: records[0].values, ef: 64 }],
    ['a bad deadline', 'INVALID_ARGUMENT', { vector: records[0].values, deadlineMs: -1 }],
  ]) {
    const r = await server.post('/flat/query', body);
    assert.equal(r.status, 400, name);
    assert.equal(r.body.error, code, `${name}: ${r.body.message}`);
  }
  const unknownField = await server.post('/flat/upsert', { records: [], extra: 1 });
  assert.equal(unknownField.body.error, 'INVALID_ARGUMENT');

  const queries = q.unitGaussianVectors(12, dim, 17);
  for (let i = 0; i < 12; i++) {
    const vector = Array.from(queries.subarray(i * dim, (i + 1) * dim));
    for (const ask of ASKS) {
      const r = await server.post('/flat/query', { vector, ...ask });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const want = reference(store, vector, ask);
      const what = `query ${i} ${JSON.stringify(ask)}`;
      assert.equal(r.body.partial, false);
      assert.equal(r.body.matches.length, want.length, what);
      r.body.matches.forEach((m, rank) => {
        assert.ok(Math.abs(m.distance - want[rank].distance) < 1e-5, `${what}: rank ${rank}`);
        const stored = store.get(key(m.id));
        assert.ok(stored, `${what}: ${m.id} is not in the reference`);
        assert.ok(Math.abs(cosine(vector, stored.values) - m.distance) < 1e-5, `${what}: ${m.id}'s distance`);
        assert.equal(m.namespace, stored.namespace, what);
      });
    }
  }
  const described = await server.get('/flat/describe');
  assert.equal(described.body.size, store.size);
  assert.equal(described.body.perShard.length, 4);
  for (const s of described.body.perShard) {
    const expected = [...store.values()].filter((r) => shardOf(idKey(r.id), 4) === s.shard).length;
    assert.equal(s.size, expected, `shard ${s.shard} holds the ids the placement gives it`);
  }
});

test('the merged top-k of 4 flat shards is one flat collection of the same records, bit for bit', async () => {
  const records = makeRecords(23);
  await load('flat', records); // replaces the first test's records with these ids
  const local = q.Collection.create({ dim, index: 'flat', fields });
  after(() => local.dispose());
  local.upsert(records);
  // Every id of the first test's records is among these (the refused new-* ids never were).
  const queries = q.unitGaussianVectors(20, dim, 29);
  for (let i = 0; i < 20; i++) {
    const vector = Array.from(queries.subarray(i * dim, (i + 1) * dim));
    for (const ask of ASKS) {
      const r = await server.post('/flat/query', { vector, ...ask, returnMetadata: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const want = local.query(Float32Array.from(vector), { ...ask, returnMetadata: true });
      assert.deepEqual(r.body.matches, want.matches, `query ${i} ${JSON.stringify(ask)}`);
      assert.equal(r.body.plan.matching, want.plan.matching);
    }
  }
});

// recall@10 of `answer(vector)` against exact search over `records`.
async function recall(records, answer) {
  const store = new Map(records.map((r) => [key(r.id), r]));
  const queries = q.unitGaussianVectors(40, dim, 31);
  let hit = 0;
  let total = 0;
  for (let i = 0; i < 40; i++) {
    const vector = Array.from(queries.subarray(i * dim, (i + 1) * dim));
    for (const ask of [{ topK: 10 }, { topK: 10, filter: { lang: 'de' } }]) {
      const want = new Set(reference(store, vector, ask).map((m) => key(m.id)));
      const got = await answer(vector, ask);
      hit += got.filter((m) => want.has(key(m.id))).length;
      total += want.size;
    }
  }
  return hit / total;
}

for (const [name, floor] of [
  ['hnsw', 0.95],
  ['quant', 0.8],
]) {
  test(`${name} shards: recall@10 through the router meets the floor one ${name} collection of the data meets (${floor})`, async () => {
    const records = makeRecords(41);
    await load(name, records);
    const { collection } = COLLECTIONS[name];
    const local = q.Collection.create(collection);
    after(() => local.dispose());
    local.upsert(records);
    const single = await recall(records, async (v, ask) => local.query(Float32Array.from(v), ask).matches);
    const routed = await recall(records, async (v, ask) => {
      const r = await server.post(`/${name}/query`, { vector: v, ...ask });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.matches;
    });
    console.log(`# recall@10: one ${name} collection ${single.toFixed(4)}, 4 shards ${routed.toFixed(4)}`);
    assert.ok(single >= floor, `one ${name} collection: recall ${single}`);
    assert.ok(routed >= floor, `4 ${name} shards: recall ${routed} (one collection: ${single})`);
  });
}

test('a stalled or throwing shard: a partial answer naming it, or SHARD_UNAVAILABLE, as the caller chose; another shard count is LAYOUT_MISMATCH', async () => {
  const records = makeRecords(23);
  const store = await load('flat', records);
  const vector = records[7].values;
  const without2 = new Map([...store].filter(([, r]) => shardOf(idKey(r.id), 4) !== 2));
  for (const mode of ['stall', 'throw']) {
    assert.equal((await server.post('/flat/fault', { shard: 2, mode })).status, 200);
    const started = Date.now();
    const partial = await server.post('/flat/query', { vector, topK: 10, deadlineMs: 400, onPartial: 'partial' });
    assert.equal(partial.status, 200, JSON.stringify(partial.body));
    assert.equal(partial.body.partial, true);
    assert.equal(partial.body.missing.length, 1);
    assert.equal(partial.body.missing[0].shard, 2);
    assert.equal(partial.body.missing[0].reason, mode === 'stall' ? 'deadline' : 'error');
    assert.equal(partial.body.plan.shards, 3);
    assert.deepEqual(
      partial.body.matches.map((m) => m.id),
      reference(without2, vector, { topK: 10 }).map((m) => m.id),
      'the merged answer of the other three shards',
    );
    if (mode === 'stall') assert.ok(Date.now() - started < 5000, 'the deadline cut the wait');
    const failed = await server.post('/flat/query', { vector, topK: 10, deadlineMs: 400 });
    assert.equal(failed.status, 503, JSON.stringify(failed.body));
    assert.equal(failed.body.error, 'SHARD_UNAVAILABLE');
    assert.match(failed.body.message, /shard 2/);
    assert.deepEqual(
      failed.body.missing.map((m) => m.shard),
      [2],
    );
    assert.equal((await server.post('/flat/fault', { shard: 2, mode: null })).status, 200);
  }
  const healthy = await server.post('/flat/query', { vector, topK: 10 });
  assert.equal(healthy.body.partial, false);
  assert.equal(healthy.body.matches[0].id, records[7].id);

  const resharded = await server.post('/resharded/query', { vector, topK: 3 });
  assert.equal(resharded.status, 400);
  assert.equal(resharded.body.error, 'LAYOUT_MISMATCH', resharded.body.message);
  const reshardedWrite = await server.post('/resharded/upsert', { records: records.slice(0, 50) });
  assert.equal(reshardedWrite.body.error, 'LAYOUT_MISMATCH');
});

test("placement 'namespace': a namespace's records on one shard, a query naming it asks that shard alone", async () => {
  const records = makeRecords(71).map((r, i) => ({ ...r, namespace: `tenant-${i % 6}` }));
  const all = new Map(records.map((r) => [key(r.id), r]));
  for (let at = 0; at < records.length; at += 500) {
    const r = await server.post('/byns/upsert', { records: records.slice(at, at + 500) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const described = await server.get('/byns/describe');
  for (const s of described.body.perShard) {
    const want = records.filter((r) => shardOf(`ns:${r.namespace}`, 4) === s.shard).length;
    assert.equal(s.size, want, `shard ${s.shard}`);
  }
  const vector = records[9].values;
  for (const namespace of ['tenant-3', 'tenant-5']) {
    const r = await server.post('/byns/query', { vector, topK: 8, namespace, filter: { lang: { $ne: 'fr' } } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.plan.shards, 1, 'one shard asked');
    assert.deepEqual(
      r.body.matches.map((m) => m.id),
      reference(all, vector, { topK: 8, namespace, filter: { lang: { $ne: 'fr' } } }).map((m) => m.id),
    );
  }
  const everywhere = await server.post('/byns/query', { vector, topK: 5 });
  assert.equal(everywhere.body.plan.shards, 4);
  assert.equal(everywhere.body.matches[0].id, records[9].id);
  // get and delete take the ids' namespace.
  const id = records[9].id;
  const got = await server.post('/byns/get', { ids: [id], namespace: 'tenant-3' });
  assert.equal(got.body[0].id, id);
  assert.equal((await server.post('/byns/delete', { ids: [id], namespace: 'tenant-3' })).status, 200);
  assert.deepEqual((await server.post('/byns/get', { ids: [id], namespace: 'tenant-3' })).body, [null]);
  // Under placement 'id' the option is refused, not ignored.
  const refused = await server.post('/flat/get', { ids: [id], namespace: 'tenant-3' });
  assert.equal(refused.body.error, 'INVALID_ARGUMENT', refused.body.message);
});

test('durability: SIGKILL in a stream of acknowledged upserts, restart on the same disk: every acknowledged write is there, none half-applied', async () => {
  const store = tempStore('quiver-sharded-durable-');
  // l2 keeps the vectors as written (cosine stores them normalised), so values compare exactly.
  const config = { docs: { shards: 4, collection: { dim, metric: 'l2', index: 'flat', fields: { v: 'number' } } } };
  let w = await startSharded(dir, store, config, { compactLogBytes: 32 << 10 });
  after(() => w.kill());
  const vectors = q.unitGaussianVectors(4000, dim, 61);
  const values = (i) => Array.from(vectors.subarray((i % 4000) * dim, ((i % 4000) + 1) * dim));
  // Each write: 16 new ids and 4 earlier ones replaced; version = the write's number.
  const acked = new Map(); // id -> { version, row }
  let next = 0;
  let write = 0;
  const makeBatch = () => {
    write++;
    const batch = [];
    for (let j = 0; j < 16; j++) batch.push({ id: `r${next}`, row: next++ });
    for (let j = 0; j < 4 && next > 40; j++)
      batch.push({ id: `r${(write * 7919 + j * 31) % (next - 20)}`, row: next + 1000 + j });
    return batch.map((b) => ({ id: b.id, values: values(b.row), metadata: { v: write }, row: b.row, version: write }));
  };
  const send = (batch) =>
    w.post('/docs/upsert', { records: batch.map(({ id, values: v, metadata }) => ({ id, values: v, metadata })) });

  const deadline = Date.now() + 2500;
  while (Date.now() < deadline || acked.size < 400) {
    const batch = makeBatch();
    const r = await send(batch);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    for (const b of batch) acked.set(b.id, b);
  }
  // The write in flight when the process dies.
  const inFlight = makeBatch();
  const pending = send(inFlight).catch(() => null);
  await new Promise((r) => setTimeout(r, 3));
  await w.kill();
  await pending;

  w = await startSharded(dir, store, config, { compactLogBytes: 32 << 10 });
  const ids = [...new Set([...acked.keys(), ...inFlight.map((b) => b.id)])];
  const got = await w.post('/docs/get', { ids, returnValues: true });
  assert.equal(got.status, 200, `${JSON.stringify(got.body).slice(0, 500)}\n${w.log.join('')}`);
  const flight = new Map(inFlight.map((b) => [b.id, b]));
  const byShard = new Map(); // shard -> [applied?] of the write in flight
  got.body.forEach((rec, i) => {
    const id = ids[i];
    const old = acked.get(id);
    const mine = flight.get(id);
    const matches = (b) => rec && rec.metadata.v === b.version && rec.values.every((x, d) => x === values(b.row)[d]);
    let applied = null;
    if (mine && matches(mine)) applied = true;
    else if (old)
      assert.ok(
        matches(old),
        `${id}: the acknowledged version ${old.version} whole, got ${JSON.stringify(rec?.metadata)}`,
      );
    else if (mine) {
      assert.equal(rec, null, `${id} (only in the write in flight) is absent or whole`);
      applied = false;
    }
    if (mine) {
      if (applied === null) applied = false;
      const shard = shardOf(idKey(id), 4);
      if (!byShard.has(shard)) byShard.set(shard, new Set());
      byShard.get(shard).add(applied);
    }
  });
  for (const [shard, states] of byShard) {
    assert.equal(states.size, 1, `the write in flight is wholly applied or wholly absent on shard ${shard}`);
  }
  const described = await w.get('/docs/describe');
  const shards = described.body.perShard;
  assert.ok(
    shards.some((s) => s.snapshot) && shards.some((s) => s.coldStart.replayedWrites > 0),
    `the restart loaded snapshots and replayed logs: ${JSON.stringify(shards.map((s) => [s.snapshot, s.coldStart]))}`,
  );
  const inFlightApplied = [...byShard.values()].filter((s) => s.has(true)).length;
  // How many shards had the write in flight applied when it died (any of 0..4 is correct).
  console.log(
    `# ${write - 1} writes acknowledged (${acked.size} ids); the write in flight applied on ${inFlightApplied} of ${byShard.size} shards`,
  );
});

test('a shard whose snapshot is damaged on disk does not start: the others answer, it is named missing, never a refusal', async () => {
  const config = { docs: { shards: 4, collection: { dim, index: 'flat', fields } } };
  const store = tempStore('quiver-sharded-damaged-');
  let w = await startSharded(dir, store, config);
  try {
    const records = makeRecords(5).slice(0, 800);
    assert.equal((await w.post('/docs/upsert', { records })).status, 200);
    assert.equal((await w.post('/docs/compact', {})).status, 200);
    const damaged = await w.post('/docs/fault', { shard: 1, mode: 'damage' });
    assert.deepEqual(damaged.body, { ok: true });
    await w.kill();
    w = await startSharded(dir, store, config);
    const vector = records[3].values;
    const partial = await w.post('/docs/query', { vector, topK: 5, onPartial: 'partial' });
    assert.equal(partial.status, 200, JSON.stringify(partial.body));
    assert.deepEqual(
      partial.body.missing.map((m) => [m.shard, m.reason]),
      [[1, 'error']],
    );
    assert.match(partial.body.missing[0].message, /checksum mismatch/i);
    const others = new Map(records.filter((r) => shardOf(idKey(r.id), 4) !== 1).map((r) => [key(r.id), r]));
    assert.deepEqual(
      partial.body.matches.map((m) => m.id),
      reference(others, vector, { topK: 5 }).map((m) => m.id),
    );
    const failed = await w.post('/docs/query', { vector, topK: 5 });
    assert.equal(failed.status, 503);
    assert.equal(failed.body.error, 'SHARD_UNAVAILABLE');
    // A write that needs shard 1 is refused whole in its first step: nothing written anywhere.
    const fresh = Array.from({ length: 40 }, (_, i) => ({ id: `late-${i}`, values: records[i].values }));
    const write = await w.post('/docs/upsert', { records: fresh });
    assert.equal(write.status, 503, JSON.stringify(write.body));
    assert.equal(write.body.error, 'SHARD_UNAVAILABLE');
    const onHealthy = fresh.filter((r) => shardOf(idKey(r.id), 4) !== 1).map((r) => r.id);
    const got = await w.post('/docs/get', { ids: onHealthy });
    assert.deepEqual(got.body, new Array(onHealthy.length).fill(null));
  } finally {
    await w.kill();
  }
});
