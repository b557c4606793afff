// Collections through the npm package (js/kinds/collection.js over bindings/collection_bindings.cpp),
// in every wasm variant: string and number ids, upsert and insert, getByIds and deleteByIds,
// every filter operator, namespaces, returnValues, refused input that changes nothing, batches
// larger than one piece of JSON, disposal — and a property test against a plain-JS reference
// (tests/js/collection-support.mjs). QUIVER_PROPERTY_SEED and QUIVER_PROPERTY_RUNS change its
// seed and scale its runs, as for the index property.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Collection, Quiver, QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { moduleLoader } from './support.mjs';
import {
  RECALL_FLOORS,
  Reference,
  checkAnswer,
  collectionProperty,
  gaussianRow,
  matches,
  newStats,
} from './collection-support.mjs';

const load = moduleLoader();
const is = (code, pattern) => (e) => {
  assert.ok(e instanceof QuiverError, `not a QuiverError: ${e?.stack ?? e}`);
  assert.equal(e.code, code, e.message);
  if (pattern) assert.match(e.message, pattern);
  return true;
};
const KINDS = ['flat', 'quantized', 'hnsw'];
// Index configurations and whether they keep the f32 vectors (so returnValues works): the
// defaults of every kind do; codes-only ones do not.
const KEEPING = [
  ['flat', {}, true],
  ['quantized', {}, true],
  ['hnsw', {}, true],
  ['hnsw', { storage: 'sq8' }, true],
  ['quantized', { keepVectors: false, refineBits: 3 }, false],
  ['hnsw', { storage: 'sq8', keepVectors: false }, false],
];
// Query options that make a kind's distances exact (the quantised kind re-scores with its kept
// vectors; it would otherwise rank by its codes).
const exactly = (kind) => (kind === 'quantized' ? { rerank: 4 } : {});

// The plan a filtered query must report (include/quiver/collection.hpp): nothing matched, or
// everything (no filter for the index), or HNSW with more than 1/16 of the vectors matching
// (a walk of the graph testing the rows; it may fall back to the allow list), or an allow list.
function strategyFor(kind, matching, total) {
  if (matching === 0) return 'empty';
  if (matching === total) return 'unfiltered';
  if (kind === 'hnsw' && matching * 16 > total) return ['filtered-walk', 'filtered-walk+allow-list'];
  return 'prefilter';
}

// A small documents collection: 40 records with every field type, some without a field, some
// in a namespace; the vectors are Gaussian rows (seeded).
const DIM = 8;
function documents() {
  const out = [];
  for (let i = 0; i < 40; i++) {
    const metadata = { lang: ['en', 'de', 'fr', 'é'][i % 4], year: 2015 + (i % 10), draft: i % 3 === 0 };
    if (i % 5 === 0) delete metadata.lang;
    if (i % 7 === 0) delete metadata.year;
    if (i % 11 === 0) delete metadata.draft;
    if (i % 6 !== 0) metadata.tags = [['news', 'tech', 'sport'][i % 3], ...(i % 4 === 0 ? ['long'] : [])];
    metadata.title = `document ${i}`;
    const r = { id: i % 2 ? `doc-${i}` : i, values: gaussianRow(1000 + i, DIM), metadata };
    if (i % 8 === 1) r.namespace = 'archive';
    out.push(r);
  }
  return out;
}
const DOC_FIELDS = { lang: 'string', year: 'number', draft: 'boolean', tags: 'tags' };

for (const variant of VARIANTS) {
  describe(`collections (${variant})`, () => {
    test('create: defaults, describe, the classes, options checked by name', async () => {
      const q = await load(variant);
      const c = q.Collection.create({ dim: 4, fields: { lang: 'string' } });
      assert.ok(c instanceof q.Collection);
      assert.ok(c instanceof Collection);
      assert.equal(c.index, 'hnsw');
      assert.equal(c.metric, 'cosine');
      assert.equal(c.dim, 4);
      assert.equal(c.size, 0);
      assert.equal(c.variant, variant);
      const d = c.describe();
      assert.deepEqual(
        { ...d, indexDetail: undefined, memory: undefined },
        {
          size: 0,
          dim: 4,
          metric: 'cosine',
          index: 'hnsw',
          indexDetail: undefined,
          fields: { lang: 'string' },
          namespaces: 0,
          memory: undefined,
        },
      );
      assert.match(d.indexDetail, /M 16, efConstruction 200/);
      const m = d.memory;
      assert.equal(m.total, m.index + m.ids + m.metadata + m.columns);
      assert.equal(c.memoryBytes, m.total);
      c.dispose();

      const h = q.Collection.create({
        dim: 4,
        index: 'hnsw',
        metric: 'l2',
        options: { M: 8, efConstruction: 40, efSearch: 20 },
      });
      assert.match(h.describe().indexDetail, /M 8, efConstruction 40, efSearch 20/);
      h.dispose();
      const qc = q.Collection.create({
        dim: 4,
        index: 'quantized',
        options: { bits: 2, keepVectors: false, refineBits: 3 },
      });
      assert.match(qc.describe().indexDetail, /2 bits/);
      qc.dispose();

      // Unknown or inapplicable options are refused, naming them; nothing is made.
      const refused = [
        [{ dim: 4, dims: 3 }, /unknown option 'dims'/],
        [{ dim: 4, index: 'flat', options: { M: 8 } }, /option 'M' does not apply here/],
        [{ dim: 4, index: 'hnsw', options: { probes: 2 } }, /option 'probes' does not apply here/],
        [{ dim: 4, index: 'quantized', options: { bitz: 4 } }, /unknown option 'bitz'/],
        [{ dim: 4, options: { dim: 4 } }, /option 'dim' does not apply here/],
        [{ dim: 4, index: 'ivf' }, /index must be 'flat', 'quantized', 'hnsw'/],
        [{ dim: 4, fields: { lang: 'text' } }, /field 'lang' has type 'text'/],
        [{ dim: 4, fields: ['lang'] }, /fields must be/],
        [{ dim: 4, fields: { $lang: 'string' } }, /may not start with '\$'/],
        [{ dim: 0 }, /dim must be an integer/],
        [{ metric: 'l2' }, /dim is required/],
        [{ dim: 4, metric: 'manhattan' }, /metric/],
        [{ dim: 4, index: 'quantized', options: { bits: 3 } }, /bits/],
      ];
      for (const [options, pattern] of refused) {
        assert.throws(() => q.Collection.create(options), is('INVALID_ARGUMENT', pattern), JSON.stringify(options));
      }
      assert.throws(() => q.Collection.create(), is('INVALID_ARGUMENT', /dim is required/));
      assert.throws(() => new Collection(), is('INVALID_ARGUMENT', /Collection.create/));
      assert.throws(() => new q.Collection({ dim: 3 }), is('INVALID_ARGUMENT', /Collection.create/));

      // The package-level create(): async, in a given module or the shared one.
      const given = await Collection.create({ dim: 3, index: 'flat' }, { quiver: q });
      assert.ok(given instanceof q.Collection);
      given.dispose();
      await assert.rejects(Collection.create({ dim: 3 }, { quiver: q, where: 1 }), is('INVALID_ARGUMENT', /where/));
      if (variant === 'simd') {
        const shared = await Collection.create({ dim: 3, index: 'flat' });
        assert.equal(shared.variant, (await Quiver.shared()).variant);
        shared.dispose();
      }
    });

    test('ids: strings and integers, 7 and "7" are different records', async () => {
      const q = await load(variant);
      const c = q.Collection.create({ dim: 2, index: 'flat', metric: 'l2' });
      const max = Number.MAX_SAFE_INTEGER;
      c.upsert([
        { id: 7, values: [1, 0] },
        { id: '7', values: [0, 1] },
        { id: max, values: [1, 1] },
        { id: 'ünïcødé ✓', values: [2, 2] },
        { id: 'x'.repeat(256), values: [3, 3] },
      ]);
      assert.equal(c.size, 5);
      const got = c.getByIds([7, '7', max, 'ünïcødé ✓', 'x'.repeat(256), 8, '8']);
      assert.deepEqual(
        got.map((r) => r?.id ?? null),
        [7, '7', max, 'ünïcødé ✓', 'x'.repeat(256), null, null],
      );
      assert.equal(typeof got[0].id, 'number');
      assert.equal(typeof got[1].id, 'string');
      const r = c.query([0, 1], { topK: 2 });
      assert.deepEqual(
        r.matches.map((m) => m.id),
        ['7', max],
      );
      c.deleteByIds(['7']);
      assert.deepEqual(
        c.getByIds([7, '7']).map((x) => x?.id ?? null),
        [7, null],
      );
      // Refused ids: nothing is added.
      for (const id of [-1, 1.5, max + 1, NaN, Infinity, '', 'x'.repeat(257), 7n, null, true, {}, [1]]) {
        assert.throws(
          () =>
            c.upsert([
              { id: 'fine', values: [0, 0] },
              { id, values: [1, 1] },
            ]),
          (e) => e instanceof QuiverError && e.code === 'INVALID_ARGUMENT',
          String(id),
        );
        assert.throws(() => c.getByIds([id]), is('INVALID_ARGUMENT'), String(id));
      }
      assert.equal(c.size, 4);
      assert.equal(c.getByIds(['fine'])[0], null);
      assert.throws(() => c.getByIds('fine'), is('INVALID_ARGUMENT', /ids must be an array/));
      c.dispose();
    });

    test('upsert replaces vector, metadata and namespace; insert refuses present or repeated ids', async () => {
      const q = await load(variant);
      for (const kind of KINDS) {
        const c = q.Collection.create({ dim: 2, index: kind, metric: 'l2', fields: { lang: 'string' } });
        c.upsert([
          { id: 'a', values: [1, 0], metadata: { lang: 'en', n: 1 }, namespace: 'one' },
          { id: 'b', values: [0, 1], metadata: { lang: 'de' } },
        ]);
        c.upsert([{ id: 'a', values: [0, -1], metadata: { lang: 'fr' } }]);
        assert.equal(c.size, 2, kind);
        const [a] = c.getByIds(['a']);
        assert.deepEqual(a, { id: 'a', metadata: { lang: 'fr' } }, kind);
        assert.equal(c.query([1, 0], { filter: { lang: 'en' } }).plan.matching, 0, kind);
        assert.equal(c.query([1, 0], { namespace: 'one' }).plan.matching, 0, kind);
        const [hit, ...more] = c.query([0, -1], { topK: 1, filter: { lang: 'fr' } }).matches;
        assert.deepEqual([hit.id, more.length], ['a', 0], kind);
        assert.ok(hit.distance < 1e-6, kind);
        // insert: an id already present, or one given twice, is DUPLICATE_ID; nothing is added.
        assert.throws(
          () =>
            c.insert([
              { id: 'c', values: [1, 1] },
              { id: 'a', values: [1, 1] },
            ]),
          is('DUPLICATE_ID', /"a" is already present/),
        );
        assert.throws(
          () =>
            c.insert([
              { id: 'c', values: [1, 1] },
              { id: 'c', values: [2, 2] },
            ]),
          is('DUPLICATE_ID', /appears twice/),
        );
        assert.throws(
          () =>
            c.upsert([
              { id: 9, values: [1, 1] },
              { id: 9, values: [2, 2] },
            ]),
          is('DUPLICATE_ID'),
        );
        assert.equal(c.size, 2);
        assert.deepEqual(c.getByIds(['c', 9]), [null, null]);
        c.insert([{ id: 'c', values: [1, 1] }]);
        assert.equal(c.size, 3);
        c.upsert([]);
        c.insert([]);
        assert.equal(c.size, 3);
        c.dispose();
      }
    });

    test('getByIds: missing ids are null, values only from an index that keeps them', async () => {
      const q = await load(variant);
      for (const [kind, options, keeps] of KEEPING) {
        const c = q.Collection.create({ dim: 3, index: kind, options, metric: 'l2' });
        const context = `${kind} ${JSON.stringify(options)}`;
        c.upsert([
          { id: 1, values: [1, 2, 3], metadata: { k: 'v', list: ['a', 'b'] }, namespace: 'ns' },
          { id: 'two', values: new Float32Array([4, 5, 6]) },
        ]);
        assert.deepEqual(c.getByIds([]), []);
        assert.deepEqual(c.getByIds(['1', 'two', 1, 3]), [
          null,
          { id: 'two', metadata: {} },
          { id: 1, metadata: { k: 'v', list: ['a', 'b'] }, namespace: 'ns' },
          null,
        ]);
        if (keeps) {
          const [one, none, two] = c.getByIds([1, 5, 'two'], { returnValues: true });
          assert.deepEqual(one.values, new Float32Array([1, 2, 3]), context);
          assert.equal(none, null);
          assert.deepEqual(two.values, new Float32Array([4, 5, 6]), context);
          // What getByIds returns goes back in unchanged.
          c.upsert([one, two]);
          assert.equal(c.size, 2);
        } else {
          assert.throws(
            () => c.getByIds([1], { returnValues: true }),
            is('INVALID_ARGUMENT', /does not keep its vectors/),
            context,
          );
        }
        assert.throws(
          () => c.getByIds([1], { values: true }),
          is('INVALID_ARGUMENT', /option 'values' does not apply here \(it takes returnValues\)/),
        );
        c.dispose();
      }
      // Under cosine the stored vectors are the normalised ones.
      const cos = q.Collection.create({ dim: 2, index: 'flat' });
      cos.upsert([{ id: 1, values: [3, 4] }]);
      assert.deepEqual(cos.getByIds([1], { returnValues: true })[0].values, new Float32Array([0.6, 0.8]));
      cos.dispose();
    });

    test('deleteByIds: an unknown or repeated id removes nothing', async () => {
      const q = await load(variant);
      for (const kind of KINDS) {
        const c = q.Collection.create({ dim: 2, index: kind, metric: 'l2' });
        c.upsert([
          { id: 1, values: [1, 0] },
          { id: 'a', values: [0, 1] },
          { id: 'b', values: [1, 1] },
        ]);
        assert.throws(() => c.deleteByIds([1, 'zz']), is('UNKNOWN_ID', /"zz" is not present/));
        assert.throws(() => c.deleteByIds(['1']), is('UNKNOWN_ID'));
        assert.throws(() => c.deleteByIds(['a', 'a']), is('DUPLICATE_ID'));
        assert.throws(() => c.deleteByIds([1.5]), is('INVALID_ARGUMENT'));
        assert.equal(c.size, 3);
        assert.equal(c.query([1, 0], { topK: 5 }).matches.length, 3);
        c.deleteByIds([1, 'a']);
        c.deleteByIds([]);
        assert.equal(c.size, 1);
        assert.deepEqual(
          c.query([1, 0], { topK: 5 }).matches.map((m) => m.id),
          ['b'],
        );
        // A deleted id can come back.
        c.insert([{ id: 1, values: [1, 0] }]);
        assert.equal(c.size, 2);
        c.dispose();
      }
    });

    test('filters: every operator, $and / $or / $not, tags, missing fields — the exact filtered top k', async () => {
      const q = await load(variant);
      const docs = documents();
      const filters = [
        {},
        { lang: 'en' },
        { lang: { $eq: 'de' } },
        { lang: { $ne: 'en' } },
        { lang: { $in: ['en', 'fr'] } },
        { lang: { $nin: ['en', 'fr'] } },
        { lang: { $lt: 'en' } },
        { lang: { $lte: 'en' } },
        { lang: { $gt: 'en' } },
        { lang: { $gte: 'fr' } },
        { year: 2020 },
        { year: { $ne: 2020 } },
        { year: { $lt: 2018 } },
        { year: { $lte: 2018 } },
        { year: { $gt: 2021 } },
        { year: { $gte: 2021, $lt: 2023 } },
        { year: { $in: [2015, 2019, 1999] } },
        { year: { $nin: [2015, 2019] } },
        { draft: true },
        { draft: { $eq: false } },
        { draft: { $ne: true } },
        { draft: { $in: [true] } },
        { draft: { $nin: [false] } },
        { tags: 'news' },
        { tags: { $contains: 'long' } },
        { tags: { $in: ['tech', 'sport'] } },
        { tags: { $nin: ['news'] } },
        { tags: { $in: [] } },
        { lang: 'en', draft: false },
        { $and: [{ lang: { $ne: 'de' } }, { year: { $gte: 2018 } }] },
        { $or: [{ lang: 'fr' }, { tags: 'sport' }, { year: 2024 }] },
        { $not: { lang: 'en' } },
        { $not: { $or: [{ draft: true }, { year: { $lt: 2020 } }] } },
        { $and: [{ $or: [{ lang: 'de' }, { lang: 'é' }] }, { $not: { tags: { $contains: 'tech' } } }] },
      ];
      for (const kind of KINDS) {
        const c = q.Collection.create({ dim: DIM, index: kind, metric: 'l2', fields: DOC_FIELDS });
        c.upsert(docs);
        const ref = new Reference('l2', DOC_FIELDS);
        ref.write(docs, false);
        for (const filter of filters) {
          const matching = ref.matching(filter);
          for (const [seed, topK] of [
            [1, 5],
            [2, 40],
          ]) {
            const vector = gaussianRow(seed, DIM);
            const options = { topK, filter, ...(kind === 'quantized' ? { rerank: 8 } : {}) };
            const r = c.query(vector, options);
            const strategies = [strategyFor(kind, matching.length, docs.length)].flat();
            assert.ok(strategies.includes(r.plan.strategy), `${kind} ${JSON.stringify(filter)}: ${r.plan.strategy}`);
            assert.equal(r.plan.total, docs.length);
            checkAnswer(r, ref.ranked(vector, filter), topK, {
              exact: kind !== 'hnsw' || topK === 40,
              exactDistances: true,
              context: `${kind} ${JSON.stringify(filter)} topK ${topK}`,
            });
          }
        }
        // Without a filter: every record, the plan says so.
        const all = c.query(gaussianRow(3, DIM), { topK: 100 });
        assert.equal(all.plan.strategy, 'unfiltered');
        assert.equal(all.matches.length, docs.length);
        c.dispose();
      }
      // The reference itself, by hand, on the semantics of a missing field.
      assert.equal(matches({ year: { $ne: 2020 } }, {}, DOC_FIELDS), true);
      assert.equal(matches({ year: { $lt: 3000 } }, {}, DOC_FIELDS), false);
      assert.equal(matches({ tags: { $nin: ['x'] } }, {}, DOC_FIELDS), true);
    });

    test('namespaces: a query sees one namespace ("" = the records without one)', async () => {
      const q = await load(variant);
      for (const kind of KINDS) {
        const c = q.Collection.create({ dim: DIM, index: kind, metric: 'l2', fields: DOC_FIELDS });
        const docs = documents();
        c.upsert(docs);
        assert.equal(c.describe().namespaces, 1);
        const archived = docs.filter((d) => d.namespace === 'archive').map((d) => d.id);
        const r = c.query(gaussianRow(5, DIM), { topK: 40, namespace: 'archive', returnMetadata: true });
        assert.equal(r.plan.matching, archived.length);
        assert.deepEqual(r.matches.map((m) => m.id).sort(), [...archived].sort());
        assert.ok(r.matches.every((m) => m.namespace === 'archive' && typeof m.metadata.title === 'string'));
        const plain = c.query(gaussianRow(5, DIM), { topK: 40, namespace: '' });
        assert.equal(plain.plan.matching, docs.length - archived.length);
        assert.ok(plain.matches.every((m) => m.namespace === undefined && m.metadata === undefined));
        const both = c.query(gaussianRow(5, DIM), { topK: 40, namespace: 'archive', filter: { tags: 'news' } });
        assert.equal(
          both.plan.matching,
          docs.filter((d) => d.namespace === 'archive' && d.metadata.tags?.includes('news')).length,
        );
        const none = c.query(gaussianRow(5, DIM), { namespace: 'nowhere' });
        assert.deepEqual(none, { matches: [], plan: { strategy: 'empty', matching: 0, total: docs.length } });
        assert.throws(
          () => c.query(gaussianRow(5, DIM), { namespace: 'n'.repeat(65) }),
          is('INVALID_ARGUMENT', /namespace/),
        );
        assert.throws(
          () => c.query(gaussianRow(5, DIM), { namespace: 3 }),
          is('INVALID_ARGUMENT', /namespace must be a string/),
        );
        c.dispose();
      }
    });

    test('returnValues and returnMetadata; a kind that keeps no f32 vectors refuses returnValues', async () => {
      const q = await load(variant);
      for (const [kind, options, keeps] of KEEPING) {
        const c = q.Collection.create({ dim: 3, index: kind, options, metric: 'l2' });
        const context = `${kind} ${JSON.stringify(options)}`;
        c.upsert([
          { id: 'a', values: [1, 2, 3], metadata: { t: 'x' } },
          { id: 'b', values: [3, 2, 1] },
        ]);
        if (keeps) {
          const r = c.query([1, 2, 3], { topK: 2, returnValues: true, returnMetadata: true, ...exactly(kind) });
          assert.deepEqual(
            r.matches.map(({ distance, ...m }) => [m, Math.round(distance)]),
            [
              [{ id: 'a', metadata: { t: 'x' }, values: new Float32Array([1, 2, 3]) }, 0],
              [{ id: 'b', metadata: {}, values: new Float32Array([3, 2, 1]) }, 8],
            ],
            context,
          );
        } else {
          assert.throws(
            () => c.query([1, 2, 3], { returnValues: true }),
            is('INVALID_ARGUMENT', /does not keep its vectors/),
            context,
          );
        }
        const [top] = c.query([1, 2, 3], { topK: 1, ...exactly(kind) }).matches;
        assert.deepEqual(Object.keys(top), ['id', 'distance'], context);
        assert.equal(top.id, 'a', context);
        c.dispose();
      }
    });

    test('refused calls change nothing: bad filters, unknown options, wrong dimensions, NaN, bad metadata', async () => {
      const q = await load(variant);
      for (const kind of KINDS) {
        const c = q.Collection.create({ dim: DIM, index: kind, metric: 'l2', fields: DOC_FIELDS });
        const docs = documents();
        c.upsert(docs);
        const probe = gaussianRow(77, DIM);
        const before = JSON.stringify([
          c.size,
          c.query(probe, { topK: 40, returnMetadata: true }),
          c.getByIds(docs.map((d) => d.id)),
        ]);
        const v = gaussianRow(9, DIM);
        const refusals = [
          // Filters: C++ checks them (an unknown operator, an undeclared field, a wrong type) and
          // JS refuses what JSON would change (undefined, NaN).
          [() => c.query(v, { filter: { lang: { $regex: 'e' } } }), 'INVALID_ARGUMENT', /unknown operator "\$regex"/],
          [
            () => c.query(v, { filter: { title: 'document 1' } }),
            'INVALID_ARGUMENT',
            /not a declared filterable field/,
          ],
          [() => c.query(v, { filter: { year: '2020' } }), 'INVALID_ARGUMENT', /number field/],
          [() => c.query(v, { filter: { draft: { $gt: false } } }), 'INVALID_ARGUMENT', /no order/],
          [() => c.query(v, { filter: { tags: { $eq: 'news' } } }), 'INVALID_ARGUMENT', /tags field/],
          [() => c.query(v, { filter: { $and: [] } }), 'INVALID_ARGUMENT', /non-empty array/],
          [() => c.query(v, { filter: { $nor: [{ lang: 'en' }] } }), 'INVALID_ARGUMENT', /unknown operator "\$nor"/],
          [() => c.query(v, { filter: { lang: undefined } }), 'INVALID_ARGUMENT', /'lang' is undefined/],
          [() => c.query(v, { filter: { year: NaN } }), 'INVALID_ARGUMENT', /NaN/],
          [() => c.query(v, { filter: { year: 2n } }), 'INVALID_ARGUMENT', /bigint/],
          [() => c.query(v, { filter: 'lang = en' }), 'INVALID_ARGUMENT', /filter must be a filter object/],
          [() => c.query(v, { filter: [{ lang: 'en' }] }), 'INVALID_ARGUMENT', /filter must be a filter object/],
          // Unknown options, anywhere.
          [() => c.query(v, { topk: 3 }), 'INVALID_ARGUMENT', /unknown option 'topk'/],
          [() => c.query(v, { allow: [1] }), 'INVALID_ARGUMENT', /option 'allow' does not apply/],
          [() => c.query(v, { where: { lang: 'en' } }), 'INVALID_ARGUMENT', /unknown option 'where'/],
          [() => c.query(v, kind === 'hnsw' ? { probes: 2 } : { ef: 10 }), 'INVALID_ARGUMENT', /does not apply here/],
          [() => c.upsert([{ id: 'n', values: v, meta: {} }]), 'INVALID_ARGUMENT', /record 0: unknown option 'meta'/],
          [() => c.upsert([{ id: 'n', vector: v }]), 'INVALID_ARGUMENT', /unknown option 'vector'/],
          [() => c.upsert([{ values: v }]), 'INVALID_ARGUMENT', /record 0 has no id/],
          [() => c.upsert([{ id: 'n' }]), 'INVALID_ARGUMENT', /has no values/],
          [() => c.upsert({ id: 'n', values: v }), 'INVALID_ARGUMENT', /records must be an array/],
          [() => c.upsert([null]), 'INVALID_ARGUMENT', /record 0 must be an object/],
          // Dimensions and values.
          [() => c.query(v.subarray(1)), 'DIMENSION_MISMATCH', /query has 7 values/],
          [() => c.query([...v, 1]), 'DIMENSION_MISMATCH'],
          [
            () =>
              c.upsert([
                { id: 'n', values: v },
                { id: 'm', values: v.subarray(2) },
              ]),
            'DIMENSION_MISMATCH',
            /record 1 \(id "m"\) has 6 values/,
          ],
          [
            () =>
              c.upsert([
                { id: 'n', values: v },
                { id: 'm', values: [...v.subarray(1), NaN] },
              ]),
            'NON_FINITE',
          ],
          [() => c.upsert([{ id: 'n', values: [...v.subarray(1), Infinity] }]), 'NON_FINITE'],
          [() => c.upsert([{ id: 'n', values: [...v.subarray(1), 'x'] }]), 'INVALID_ARGUMENT'],
          [() => c.query([...v.subarray(1), NaN]), 'NON_FINITE'],
          [() => c.query(v, { topK: 0 }), 'INVALID_K'],
          [() => c.query(v, { topK: 1.5 }), 'INVALID_K'],
          [() => c.query(v, { topK: 2 ** 32 }), 'INVALID_K'],
          // Metadata: a declared field of the wrong type, null, nested objects, limits.
          [() => c.upsert([{ id: 'n', values: v, metadata: { year: '2020' } }]), 'INVALID_ARGUMENT', /declared number/],
          [() => c.upsert([{ id: 'n', values: v, metadata: { tags: [1] } }]), 'INVALID_ARGUMENT'],
          [() => c.upsert([{ id: 'n', values: v, metadata: { x: null } }]), 'INVALID_ARGUMENT', /null/],
          [() => c.upsert([{ id: 'n', values: v, metadata: { x: { y: 1 } } }]), 'INVALID_ARGUMENT', /nested/],
          [() => c.upsert([{ id: 'n', values: v, metadata: { x: NaN } }]), 'INVALID_ARGUMENT', /NaN/],
          [() => c.upsert([{ id: 'n', values: v, metadata: { $x: 1 } }]), 'INVALID_ARGUMENT', /'\$'/],
          [() => c.upsert([{ id: 'n', values: v, metadata: { x: 'y'.repeat(10300) } }]), 'INVALID_ARGUMENT', /10240/],
          [() => c.upsert([{ id: 'n', values: v, metadata: [1] }]), 'INVALID_ARGUMENT', /metadata must be an object/],
          [
            () => c.upsert([{ id: 'n', values: v, metadata: 'lang=en' }]),
            'INVALID_ARGUMENT',
            /metadata must be an object/,
          ],
          [() => c.upsert([{ id: 'n', values: v, namespace: 5 }]), 'INVALID_ARGUMENT', /namespace must be a string/],
        ];
        if (kind === 'hnsw') refusals.push([() => c.query(v, { ef: 2 ** 21 }), 'INVALID_ARGUMENT', /ef/]);
        if (kind === 'quantized') refusals.push([() => c.query(v, { rerank: -1 }), 'INVALID_ARGUMENT', /rerank/]);
        const cyclic = { a: 1 };
        cyclic.self = cyclic;
        refusals.push([() => c.upsert([{ id: 'n', values: v, metadata: cyclic }]), 'INVALID_ARGUMENT', /JSON/]);
        for (const [call, code, pattern] of refusals) assert.throws(call, is(code, pattern), `${kind}: ${call}`);
        const after = JSON.stringify([
          c.size,
          c.query(probe, { topK: 40, returnMetadata: true }),
          c.getByIds(docs.map((d) => d.id)),
        ]);
        assert.equal(after, before, kind);
        c.dispose();
      }
    });

    test('a batch larger than one piece of JSON is still one all-or-nothing write', async () => {
      const q = await load(variant);
      const c = q.Collection.create({ dim: 4, index: 'flat', metric: 'l2', fields: { n: 'number' } });
      const n = 2500;
      const pad = 'ü'.repeat(400); // 800 bytes of UTF-8 each: ~2 MiB of JSON in all
      const records = Array.from({ length: n }, (_, i) => ({
        id: `record-${i}`,
        values: [i, 1, 2, 3],
        metadata: { n: i, pad },
      }));
      records[n - 1].metadata = { n: 'last' }; // wrong type, in the last piece
      assert.throws(() => c.upsert(records), is('INVALID_ARGUMENT', /record 2499/));
      assert.equal(c.size, 0);
      records[n - 1].metadata = { n: n - 1, pad };
      c.upsert(records);
      assert.equal(c.size, n);
      assert.equal(c.query([0, 1, 2, 3], { filter: { n: { $gte: 2000 } }, topK: 1 }).matches[0].id, 'record-2000');
      const ids = records.map((r) => r.id);
      const got = c.getByIds(ids, { returnValues: true });
      assert.equal(got.length, n);
      assert.ok(got.every((r, i) => r.id === ids[i] && r.metadata.pad === pad && r.values[0] === i));
      assert.throws(() => c.deleteByIds([...ids, 'missing']), is('UNKNOWN_ID'));
      assert.equal(c.size, n);
      c.deleteByIds(ids);
      assert.equal(c.size, 0);
      assert.ok(q.stagingBytes() <= 8 * 2 ** 20);
      c.dispose();
    });

    test('approximate kinds at 3,000 records: recall against the exact filtered top 10 at every selectivity', async () => {
      const q = await load(variant);
      const n = 3000;
      const dim = 16;
      const fields = { bucket: 'number', tag: 'tags', lang: 'string' };
      const records = Array.from({ length: n }, (_, i) => ({
        id: i % 3 ? `r${i}` : i,
        values: gaussianRow(50_000 + i, dim),
        metadata: { bucket: (i * 37) % 100, tag: [`t${i % 20}`], lang: i % 2 ? 'en' : 'de' },
      }));
      const ref = new Reference('cosine', fields);
      ref.write(records, false);
      const filters = [
        undefined,
        { bucket: 0 }, // 1 %
        { tag: 't3' }, // 5 %
        { bucket: { $lt: 10 } }, // 10 %
        { $and: [{ lang: 'en' }, { bucket: { $gte: 50 } }] }, // 25 %
        { lang: 'de' }, // 50 %
        { $not: { bucket: 7 } }, // 99 %
      ];
      for (const [kind, options, search] of [
        ['hnsw', { M: 12, efConstruction: 100 }, {}],
        ['quantized', {}, { rerank: 4 }],
      ]) {
        const c = q.Collection.create({ dim, index: kind, options, fields });
        c.upsert(records);
        for (const filter of filters) {
          let sum = 0;
          const queries = 20;
          for (let j = 0; j < queries; j++) {
            const vector = gaussianRow(90_000 + j, dim);
            const r = c.query(vector, { topK: 10, filter, ...search });
            sum += checkAnswer(r, ref.ranked(vector, filter), 10, {
              exact: false,
              exactDistances: true,
              context: `${kind} ${JSON.stringify(filter)}`,
            });
          }
          assert.ok(sum / queries >= 0.9, `${kind} ${JSON.stringify(filter)}: recall ${sum / queries}`);
        }
        c.dispose();
      }
    });

    test('30,000 refused calls and 300 create-fill-dispose cycles leave the module working, its memory flat', async () => {
      const q = await load(variant);
      const c = q.Collection.create({ dim: 4, index: 'hnsw', fields: { lang: 'string', year: 'number' } });
      const records = Array.from({ length: 50 }, (_, i) => ({
        id: i % 2 ? `d${i}` : i,
        values: gaussianRow(i + 1, 4),
        metadata: { lang: i % 3 ? 'en' : 'de', year: i },
      }));
      c.upsert(records);
      const v = gaussianRow(100, 4);
      const expected = c.query(v, { topK: 5, filter: { lang: 'de' }, returnMetadata: true });
      // Each one reaches C++ and fails there (the binding records the error and returns).
      const failures = [
        [() => c.query(v, { filter: { lang: { $regex: 'e' } } }), 'INVALID_ARGUMENT'],
        [() => c.query(v, { filter: { nope: 1 } }), 'INVALID_ARGUMENT'],
        [() => c.insert([{ id: 0, values: v }]), 'DUPLICATE_ID'],
        [() => c.deleteByIds(['d1', 'missing']), 'UNKNOWN_ID'],
        [() => c.upsert([{ id: 'x', values: [NaN, 0, 0, 0] }]), 'NON_FINITE'],
        [() => c.upsert([{ id: 'x', values: v, metadata: { year: 'y' } }]), 'INVALID_ARGUMENT'],
        [() => c.upsert([{ id: '', values: v }]), 'INVALID_ARGUMENT'],
        [() => c.getByIds(['x'.repeat(300)]), 'INVALID_ARGUMENT'],
        [() => q.Collection.create({ dim: 4, fields: { $x: 'string' } }), 'INVALID_ARGUMENT'],
      ];
      const run = (n) => {
        for (let i = 0; i < n; i++) {
          const [call, code] = failures[i % failures.length];
          assert.throws(call, (e) => e instanceof QuiverError && e.code === code);
        }
      };
      run(10 * failures.length); // warm-up: what the error path keeps for good
      const heap = q.heapBytes();
      run(30_000);
      assert.equal(q.heapBytes(), heap, 'the wasm memory did not grow');
      assert.deepEqual(c.query(v, { topK: 5, filter: { lang: 'de' }, returnMetadata: true }), expected);
      assert.equal(c.size, 50);
      for (let i = 0; i < 300; i++) {
        const d = q.Collection.create({
          dim: 4,
          index: ['flat', 'quantized', 'hnsw'][i % 3],
          fields: { lang: 'string' },
        });
        d.upsert(records.slice(0, 20).map((r) => ({ ...r, metadata: { lang: r.metadata.lang } })));
        d.query(v, { filter: { lang: 'en' } });
        d.dispose();
      }
      assert.ok(
        q.heapBytes() <= heap + 16 * 2 ** 20,
        `heap ${q.heapBytes()} after create-dispose cycles (was ${heap})`,
      );
      c.dispose();
    });

    test('serialize and load: the same records, answers and bytes, in every kind; bad files are refused', async () => {
      const q = await load(variant);
      const docs = documents();
      const without = (d) => ({ ...d, memory: undefined });
      for (const [kind, options] of KEEPING) {
        const c = q.Collection.create({ dim: DIM, index: kind, options, metric: 'l2', fields: DOC_FIELDS });
        c.upsert(docs);
        c.deleteByIds([4, 'doc-5']);
        c.upsert([{ id: 'doc-7', values: gaussianRow(7, DIM), metadata: { lang: 'xx' } }]);
        const bytes = c.serialize();
        const back = q.Collection.load(bytes);
        const context = `${kind} ${JSON.stringify(options)}`;
        assert.ok(back instanceof q.Collection && back instanceof Collection);
        assert.deepEqual([back.index, back.metric, back.dim, back.size], [kind, 'l2', DIM, c.size], context);
        assert.deepEqual(without(back.describe()), without(c.describe()), context);
        assert.deepEqual(back.serialize(), bytes, `${context}: serialize() after load gives the same bytes`);
        const ids = docs.map((d) => d.id);
        assert.deepEqual(back.getByIds(ids), c.getByIds(ids), context);
        for (const filter of [undefined, { lang: 'de' }, { $or: [{ tags: 'news' }, { year: { $lt: 2018 } }] }]) {
          const options = { topK: 7, filter, returnMetadata: true, ...exactly(kind) };
          for (const namespace of [undefined, 'archive']) {
            const v = gaussianRow(31, DIM);
            assert.deepEqual(back.query(v, { ...options, namespace }), c.query(v, { ...options, namespace }), context);
          }
        }
        // The loaded collection takes writes like any other.
        back.insert([{ id: 'new', values: gaussianRow(8, DIM), metadata: { lang: 'en' } }]);
        back.deleteByIds(['doc-7']);
        assert.equal(back.size, c.size);
        // An index reader loads the same file as a plain index of the kind.
        const plain = q.load(bytes);
        assert.equal(plain.size, c.size);
        plain.dispose();
        back.dispose();
        c.dispose();
      }
      const c = q.Collection.create({ dim: 4, index: 'flat' });
      c.upsert([{ id: 'a', values: [1, 2, 3, 4] }]);
      const bytes = c.serialize();
      c.dispose();
      const flipped = bytes.slice();
      flipped[flipped.length - 20] ^= 1;
      const plainFile = new q.FlatIndex({ dim: 4 });
      const refused = [
        [plainFile.serialize(), 'INVALID_ARGUMENT', /holds no collection/],
        [bytes.subarray(0, bytes.length - 3), 'TRUNCATED'],
        [new Uint8Array(100), 'BAD_MAGIC'],
        [flipped, 'CHECKSUM_MISMATCH'],
        ['bytes', 'INVALID_ARGUMENT'],
      ];
      plainFile.dispose();
      const heap = q.heapBytes();
      for (let round = 0; round < 20; round++) {
        for (const [file, code, pattern] of refused) assert.throws(() => q.Collection.load(file), is(code, pattern));
      }
      assert.ok(q.heapBytes() <= heap + 2 ** 20, 'refused loads keep nothing');
      const back = await Collection.load(bytes.buffer, { quiver: q });
      assert.deepEqual(
        back.getByIds(['a'], { returnValues: true })[0].values,
        new Float32Array([1, 2, 3, 4]).map((x) => x / Math.sqrt(30)),
      );
      back.dispose();
    });

    test('dispose: once, then DISPOSED everywhere; Symbol.dispose', async () => {
      const q = await load(variant);
      const c = q.Collection.create({ dim: 2 });
      c.upsert([{ id: 1, values: [1, 0] }]);
      assert.equal(c.disposed, false);
      c.dispose();
      c.dispose();
      assert.equal(c.disposed, true);
      for (const call of [
        () => c.size,
        () => c.dim,
        () => c.memoryBytes,
        () => c.index,
        () => c.upsert([]),
        () => c.insert([]),
        () => c.getByIds([]),
        () => c.deleteByIds([]),
        () => c.query([1, 0]),
        () => c.describe(),
        () => c.serialize(),
      ]) {
        assert.throws(call, is('DISPOSED'));
      }
      const d = q.Collection.create({ dim: 2 });
      d[Symbol.dispose]();
      assert.equal(d.disposed, true);
    });
  });
}

// The property: a collection and the plain-JS reference under the same random operations
// (tests/js/collection-support.mjs). Every kind in simd; fewer runs in simd-mt and baseline.
const BASE_SEED = Number(process.env.QUIVER_PROPERTY_SEED ?? 20261202);
const SCALE = Number(process.env.QUIVER_PROPERTY_RUNS ?? 1);
const PLAN = [
  { variant: 'simd', runs: 60, maxSteps: 30 },
  { variant: 'simd-mt', runs: 15, maxSteps: 30 },
  { variant: 'baseline', runs: 15, maxSteps: 30 },
];
for (const { variant, runs, maxSteps } of PLAN) {
  describe(`property: collections against a plain-JS reference (${variant})`, () => {
    KINDS.forEach((kind, i) => {
      const numRuns = Math.max(1, Math.round(runs * SCALE));
      test(`${kind}: ${numRuns} random sequences of up to ${maxSteps} steps`, async () => {
        const q = await load(variant);
        const stats = newStats();
        fc.assert(collectionProperty(q, kind, maxSteps, stats), {
          seed: BASE_SEED + 100 * PLAN.findIndex((p) => p.variant === variant) + i,
          numRuns,
        });
        assert.ok(stats.sequences >= numRuns);
        assert.ok(stats.refused > 0, 'no bad query was sent');
        for (const [mode, r] of Object.entries(stats.recall)) {
          assert.ok(
            r.sum / r.n >= RECALL_FLOORS[mode],
            `${mode}: mean recall ${(r.sum / r.n).toFixed(3)} over ${r.n} queries`,
          );
        }
        if (kind !== 'flat') assert.ok(Object.keys(stats.recall).length > 0);
      });
    });
  });
}
