// Collection files cross between JS and the native library: a file JS serialises is queried by
// `quiver collection query` with the same answers, a file `quiver collection build` writes loads
// in every wasm variant and answers the same, and saveToFile() / readFile() carry a collection.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { saveToFile } from '../../js/main.js';
import { VARIANTS } from './support.mjs';
import { cli, moduleLoader, requireCli, workDir, writeFbin } from './support.mjs';
import { gaussianRow } from './collection-support.mjs';

const load = moduleLoader();
const work = workDir('quiver-collection-files-');
const DIM = 8;
const ROWS = 150;
const FIELDS = { lang: 'string', year: 'number', tags: 'tags' };
const rows = Array.from({ length: ROWS }, (_, i) => gaussianRow(i + 1, DIM));
const meta = (i) => ({ lang: i % 3 ? 'en' : 'fr', year: 2000 + (i % 25), tags: [`t${i % 4}`] });
const idOf = (i) => (i % 2 ? `doc-${i}` : i);
const queryRow = gaussianRow(999, DIM);
const FILTER = { lang: 'en', year: { $gte: 2010 } };

function runCli(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

before(() => requireCli());

test('a collection JS serialises is queried natively with the same answers', async () => {
  const q = await load('simd');
  const c = q.Collection.create({ dim: DIM, index: 'flat', metric: 'l2', fields: FIELDS });
  c.upsert(rows.map((values, i) => ({ id: idOf(i), values, metadata: meta(i), ...(i % 5 ? {} : { namespace: 'x' }) })));
  const file = join(work, 'from-js.qvr');
  writeFileSync(file, c.serialize());
  const queries = join(work, 'q.fbin');
  writeFbin(queries, 1, DIM, queryRow);
  const out = JSON.parse(
    runCli([
      'collection',
      'query',
      file,
      '--queries',
      queries,
      '-k',
      '5',
      '--filter',
      JSON.stringify(FILTER),
      '--metadata',
      '--json',
    ]),
  );
  const js = c.query(queryRow, { topK: 5, filter: FILTER, returnMetadata: true });
  assert.deepEqual(
    out[0].matches.map((m) => [m.id, m.metadata]),
    js.matches.map((m) => [m.id, m.metadata]),
  );
  assert.equal(out[0].plan.matching, js.plan.matching);
  const inX = JSON.parse(
    runCli(['collection', 'query', file, '--queries', queries, '-k', '3', '--namespace', 'x', '--json']),
  );
  assert.deepEqual(
    inX[0].matches.map((m) => m.id),
    c.query(queryRow, { topK: 3, namespace: 'x' }).matches.map((m) => m.id),
  );
  // saveToFile takes anything with serialize(); the file reads back with Collection.load.
  const saved = join(work, 'saved.qvr');
  assert.equal(await saveToFile(c, saved), readFileSync(file).length);
  const back = q.Collection.load(readFileSync(saved));
  assert.deepEqual(back.query(queryRow, { topK: 5, filter: FILTER }), c.query(queryRow, { topK: 5, filter: FILTER }));
  back.dispose();
  c.dispose();
});

test('a collection `quiver collection build` writes loads in every variant and answers the same', async () => {
  const base = join(work, 'base.fbin');
  const flat = new Float32Array(ROWS * DIM);
  rows.forEach((r, i) => flat.set(r, i * DIM));
  writeFbin(base, ROWS, DIM, flat);
  const records = join(work, 'records.jsonl');
  writeFileSync(records, rows.map((_, i) => JSON.stringify({ id: idOf(i), metadata: meta(i) })).join('\n') + '\n');
  const file = join(work, 'native.qvr');
  runCli([
    'collection',
    'build',
    base,
    '--records',
    records,
    '--field',
    'lang:string',
    '--field',
    'year:number',
    '--field',
    'tags:tags',
    '--index',
    'flat',
    '--metric',
    'l2',
    '-o',
    file,
    '-q',
  ]);
  const bytes = readFileSync(file);
  let first;
  for (const variant of VARIANTS) {
    const q = await load(variant);
    const c = q.Collection.load(bytes);
    assert.deepEqual([c.index, c.metric, c.size], ['flat', 'l2', ROWS]);
    assert.deepEqual(c.describe().fields, FIELDS);
    assert.deepEqual(
      c.getByIds([0, 'doc-1', 1]).map((r) => r?.metadata ?? null),
      [meta(0), meta(1), null],
    );
    const r = c.query(queryRow, { topK: 5, filter: FILTER, returnMetadata: true });
    assert.equal(r.matches.length, 5);
    first ??= r;
    assert.deepEqual(r, first, variant);
    c.dispose();
  }
});

test('Collection.loadParts / serializeParts: the file in parts, consumed or handed out one at a time, the same as load() / serialize(); parts that do not add up are refused and leave nothing', async () => {
  const q = await load('simd');
  const c = q.Collection.create({ dim: DIM, index: 'hnsw', options: { M: 8 }, fields: FIELDS });
  c.upsert(rows.map((values, i) => ({ id: idOf(i), values, metadata: meta(i) })));
  const bytes = c.serialize();
  // Uneven parts, an empty one among them, in three kinds of chunk; a generator that counts how
  // many it has handed out before the load asks for the next.
  const cuts = [0, 1, 8, 8, 1000, 1001, bytes.length];
  let handedOut = 0;
  function* parts(extra = 0, drop = 0) {
    for (let i = 0; i + 1 < cuts.length; i++) {
      const part = bytes.slice(cuts[i], cuts[i + 1] - (i + 2 === cuts.length ? drop : 0));
      handedOut++;
      yield i % 3 === 0 ? part : i % 3 === 1 ? part.buffer : new DataView(part.buffer);
    }
    if (extra) yield new Uint8Array(extra);
  }
  const whole = q.Collection.load(bytes);
  const fromParts = q.Collection.loadParts(bytes.length, parts());
  assert.equal(handedOut, cuts.length - 1);
  assert.deepEqual(fromParts.describe(), whole.describe());
  assert.deepEqual(
    fromParts.query(queryRow, { topK: 5, filter: FILTER, returnMetadata: true }),
    whole.query(queryRow, { topK: 5, filter: FILTER, returnMetadata: true }),
  );
  assert.deepEqual(fromParts.serialize(), bytes);
  // serializeParts hands over the same file in parts of at most partBytes.
  for (const partBytes of [1, 7, 1000, bytes.length, bytes.length + 1]) {
    const got = [];
    assert.equal(
      fromParts.serializeParts(partBytes, (p) => got.push(p)),
      bytes.length,
    );
    assert.ok(got.every((p) => p instanceof Uint8Array && p.length <= partBytes && p.length > 0));
    assert.equal(got.length, Math.ceil(bytes.length / partBytes));
    assert.deepEqual(Buffer.concat(got), Buffer.from(bytes));
  }
  assert.throws(
    () => fromParts.serializeParts(0, () => {}),
    (e) => e.code === 'INVALID_ARGUMENT',
  );
  assert.throws(
    () => fromParts.serializeParts(10, null),
    (e) => e.code === 'INVALID_ARGUMENT',
  );
  // A throwing onPart stops the hand-over and releases the file: the collection serialises again.
  assert.throws(
    () =>
      fromParts.serializeParts(100, () => {
        throw new Error('storage full');
      }),
    /storage full/,
  );
  assert.deepEqual(fromParts.serialize(), bytes);
  const refusals = [
    [() => q.Collection.loadParts(bytes.length, parts(0, 3)), 'TRUNCATED'],
    [() => q.Collection.loadParts(bytes.length, parts(5)), 'CORRUPT'],
    [() => q.Collection.loadParts(-1, parts()), 'INVALID_ARGUMENT'],
    [() => q.Collection.loadParts(1.5, parts()), 'INVALID_ARGUMENT'],
    [() => q.Collection.loadParts(bytes.length, 42), 'INVALID_ARGUMENT'],
    [() => q.Collection.loadParts(bytes.length, [bytes.slice(0, 10), 'text']), 'INVALID_ARGUMENT'],
  ];
  for (const [call, code] of refusals) assert.throws(call, (e) => e.code === code, code);
  // Refused loads free what they took: the heap does not grow over many of them.
  for (const [call] of refusals) assert.throws(call);
  const heap = q.heapBytes();
  for (let i = 0; i < 300; i++) for (const [call] of refusals) assert.throws(call);
  assert.equal(q.heapBytes(), heap);
  for (const x of [c, whole, fromParts]) x.dispose();
});
