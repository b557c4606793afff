// A plain-JS reference of a collection (not a test file itself: tests/js/collection.test.mjs
// uses it): the records by id, the filter language evaluated the way
// include/quiver/collection.hpp documents it, exact distances, the exact filtered top k — and
// the fast-check property that drives a real collection and this reference with the same random
// operations (upserts, inserts, deletes, filters, queries, bad input) and compares them.
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { QuiverError } from '../../js/index.js';

// ---- ids, vectors ----------------------------------------------------------------------------

// The reference's key for an id: 7 and '7' are different ids.
export const keyOf = (id) => (typeof id === 'number' ? `n${id}` : `s${id}`);

// A small deterministic generator (mulberry32) and Gaussian rows from it (Box-Muller).
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export function gaussianRow(seed, dim) {
  const next = rng(seed);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) {
    const u = 1 - next();
    out[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  }
  return out;
}

// The index's distance (smaller is closer): squared L2; cosine and ip 1 - similarity.
export function distance(metric, a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  let l2 = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
    l2 += (a[i] - b[i]) ** 2;
  }
  if (metric === 'l2') return l2;
  if (metric === 'ip') return 1 - dot;
  return 1 - dot / Math.sqrt(na * nb);
}

// ---- the filter language ---------------------------------------------------------------------

const utf8 = (s) => Buffer.from(s, 'utf8');
// Strings compare by their UTF-8 bytes.
const compareText = (a, b) => Buffer.compare(utf8(a), utf8(b));

// Whether a record's metadata passes `filter` (fields: name -> declared type). A record without
// the field matches only $ne and $nin (and $not of what it fails).
export function matches(filter, metadata, fields) {
  for (const [key, v] of Object.entries(filter)) {
    if (key === '$and') {
      if (!v.every((f) => matches(f, metadata, fields))) return false;
    } else if (key === '$or') {
      if (!v.some((f) => matches(f, metadata, fields))) return false;
    } else if (key === '$not') {
      if (matches(v, metadata, fields)) return false;
    } else {
      const type = fields[key];
      const ops = typeof v === 'object' && !Array.isArray(v) ? v : { [type === 'tags' ? '$contains' : '$eq']: v };
      for (const [op, operand] of Object.entries(ops)) {
        if (!condition(type, op, operand, metadata[key])) return false;
      }
    }
  }
  return true;
}

function condition(type, op, operand, value) {
  if (type === 'tags') {
    const tags = value === undefined ? [] : typeof value === 'string' ? [value] : value;
    const set = op === '$contains' ? [operand] : operand;
    const hit = tags.some((t) => set.includes(t));
    return op === '$nin' ? !hit : hit;
  }
  if (value === undefined) return op === '$ne' || op === '$nin';
  const eq = (a, b) => (type === 'string' ? compareText(a, b) === 0 : a === b);
  const cmp = (a, b) => (type === 'string' ? compareText(a, b) : a - b);
  switch (op) {
    case '$eq':
      return eq(value, operand);
    case '$ne':
      return !eq(value, operand);
    case '$in':
      return operand.some((x) => eq(value, x));
    case '$nin':
      return !operand.some((x) => eq(value, x));
    case '$lt':
      return cmp(value, operand) < 0;
    case '$lte':
      return cmp(value, operand) <= 0;
    case '$gt':
      return cmp(value, operand) > 0;
    case '$gte':
      return cmp(value, operand) >= 0;
  }
  throw new Error(`reference: unknown operator ${op}`);
}

// ---- the reference collection ------------------------------------------------------------------

export class Reference {
  constructor(metric, fields) {
    this.metric = metric;
    this.fields = fields;
    this.records = new Map(); // key -> { id, values, metadata, namespace }
  }
  get size() {
    return this.records.size;
  }
  // The error code a write of `records` must fail with, or null (then it is applied).
  write(records, mustBeNew) {
    const seen = new Set();
    for (const r of records) {
      const key = keyOf(r.id);
      if (seen.has(key) || (mustBeNew && this.records.has(key))) return 'DUPLICATE_ID';
      seen.add(key);
    }
    for (const r of records) {
      this.records.set(keyOf(r.id), {
        id: r.id,
        values: r.values,
        metadata: r.metadata ?? {},
        namespace: r.namespace ?? '',
      });
    }
    return null;
  }
  remove(ids) {
    const seen = new Set();
    for (const id of ids) {
      const key = keyOf(id);
      if (seen.has(key)) return 'DUPLICATE_ID';
      if (!this.records.has(key)) return 'UNKNOWN_ID';
      seen.add(key);
    }
    for (const id of ids) this.records.delete(keyOf(id));
    return null;
  }
  // The records the filter and namespace admit.
  matching(filter, namespace) {
    return [...this.records.values()].filter(
      (r) =>
        (namespace === undefined || r.namespace === namespace) && (!filter || matches(filter, r.metadata, this.fields)),
    );
  }
  // Every admitted record with its exact distance, closest first.
  ranked(vector, filter, namespace) {
    return this.matching(filter, namespace)
      .map((r) => ({ r, d: distance(this.metric, vector, r.values) }))
      .sort((a, b) => a.d - b.d);
  }
}

// Distances from the index (float32, SIMD sums, vectors normalised in float32 under cosine)
// against the reference's float64: equal within this.
export const TOLERANCE = 2e-4;
const close = (a, b) => Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(b));

// Checks one query answer against the reference. Returns its recall against the exact top k
// (an id tied with the k-th within TOLERANCE counts). exactDistances: the kind's distances are
// exact (flat; HNSW f32; quantised with rerank), so each must equal the reference's.
export function checkAnswer(result, ranked, topK, { exact, exactDistances, context }) {
  const want = Math.min(topK, ranked.length);
  assert.equal(result.plan.matching, ranked.length, `plan.matching ${context}`);
  assert.equal(result.matches.length, want, `never fewer than min(topK, matching) ${context}`);
  const byKey = new Map(ranked.map((x) => [keyOf(x.r.id), x]));
  const seen = new Set();
  let previous = -Infinity;
  let hits = 0;
  const kth = want > 0 ? ranked[want - 1].d : 0;
  for (const m of result.matches) {
    const key = keyOf(m.id);
    const ref = byKey.get(key);
    assert.ok(ref, `match ${JSON.stringify(m.id)} is not admitted by the filter ${context}`);
    assert.ok(!seen.has(key), `match ${JSON.stringify(m.id)} twice ${context}`);
    seen.add(key);
    assert.ok(m.distance >= previous - 1e-6, `distances ascending ${context}`);
    previous = m.distance;
    if (exactDistances) assert.ok(close(m.distance, ref.d), `distance of ${key}: ${m.distance} vs ${ref.d} ${context}`);
    assert.equal(m.namespace ?? '', ref.r.namespace, `namespace of ${key} ${context}`);
    if (ref.d <= kth + TOLERANCE * Math.max(1, Math.abs(kth))) hits++;
  }
  if (exact) assert.equal(hits, want, `the exact filtered top ${topK} ${context}`);
  return want === 0 ? 1 : hits / want;
}

// ---- the property ------------------------------------------------------------------------------

export const FIELDS = { g: 'number', c: 'string', b: 'boolean', t: 'tags' };
const WORDS = ['a', 'b', 'c', 'é', 'z', 'ab'];
const TAGS = ['x', 'y', 'z', 'w'];
const NAMESPACES = ['', '', 'one', 'two'];

const arbId = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 12 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 12 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('doc-1', 'doc-2', 'ü', Number.MAX_SAFE_INTEGER) },
);
const arbMetadata = fc.option(
  fc.record(
    {
      g: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(2.5, -1)),
      c: fc.constantFrom(...WORDS),
      b: fc.boolean(),
      t: fc.oneof(fc.array(fc.constantFrom(...TAGS), { maxLength: 3 }), fc.constantFrom(...TAGS)),
      note: fc.string({ unit: 'grapheme-ascii', maxLength: 4 }),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined, freq: 5 },
);
// A fault that makes a record invalid (and the whole write fail, changing nothing).
const arbRecordFault = fc.oneof(
  { weight: 20, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('nan', 'short', 'badType', 'nullField', 'nested', 'badId', 'unknownKey', 'badNs'),
  },
);
const arbRecord = fc.record({
  id: arbId,
  seed: fc.nat(),
  copy: fc.option(fc.nat(20), { freq: 6, nil: undefined }),
  metadata: arbMetadata,
  namespace: fc.option(fc.constantFrom(...NAMESPACES), { nil: undefined }),
  fault: arbRecordFault,
});

const arbNumberCond = fc.oneof(
  fc.integer({ min: 0, max: 5 }),
  fc
    .record({ op: fc.constantFrom('$eq', '$ne', '$lt', '$lte', '$gt', '$gte'), v: fc.integer({ min: -1, max: 6 }) })
    .map(({ op, v }) => ({ [op]: v })),
  fc
    .record({ op: fc.constantFrom('$in', '$nin'), v: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }) })
    .map(({ op, v }) => ({ [op]: v })),
  fc
    .record({ lo: fc.integer({ min: 0, max: 3 }), hi: fc.integer({ min: 2, max: 6 }) })
    .map(({ lo, hi }) => ({ $gte: lo, $lt: hi })),
);
const arbStringCond = fc.oneof(
  fc.constantFrom(...WORDS),
  fc
    .record({ op: fc.constantFrom('$eq', '$ne', '$lt', '$lte', '$gt', '$gte'), v: fc.constantFrom(...WORDS, 'd') })
    .map(({ op, v }) => ({ [op]: v })),
  fc
    .record({ op: fc.constantFrom('$in', '$nin'), v: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }) })
    .map(({ op, v }) => ({ [op]: v })),
);
const arbBoolCond = fc.oneof(
  fc.boolean(),
  fc.record({ op: fc.constantFrom('$eq', '$ne'), v: fc.boolean() }).map(({ op, v }) => ({ [op]: v })),
  fc
    .record({ op: fc.constantFrom('$in', '$nin'), v: fc.array(fc.boolean(), { maxLength: 2 }) })
    .map(({ op, v }) => ({ [op]: v })),
);
const arbTagsCond = fc.oneof(
  fc.constantFrom(...TAGS),
  fc.constantFrom(...TAGS).map((t) => ({ $contains: t })),
  fc
    .record({ op: fc.constantFrom('$in', '$nin'), v: fc.array(fc.constantFrom(...TAGS, 'v'), { maxLength: 3 }) })
    .map(({ op, v }) => ({ [op]: v })),
);
const arbLeaf = fc.oneof(
  arbNumberCond.map((c) => ({ g: c })),
  arbStringCond.map((c) => ({ c })),
  arbBoolCond.map((c) => ({ b: c })),
  arbTagsCond.map((c) => ({ t: c })),
);
const { filter: arbFilter } = fc.letrec((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: arbLeaf },
    { weight: 1, arbitrary: fc.tuple(arbLeaf, arbLeaf).map(([a, b]) => ({ ...b, ...a })) },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((fs) => ({ $and: fs })) },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((fs) => ({ $or: fs })) },
    { weight: 1, arbitrary: tie('filter').map((f) => ({ $not: f })) },
  ),
}));
// A filter C++ must refuse (INVALID_ARGUMENT): an unknown operator, an undeclared field, a value
// of the wrong type, a malformed logical operator, or what JSON cannot hold.
const arbBadFilter = fc.constantFrom(
  { g: { $regex: 'x' } },
  { nope: 1 },
  { g: 'three' },
  { c: 3 },
  { b: { $lt: true } },
  { t: { $eq: 'x' } },
  { $and: [] },
  { $or: {} },
  { $xor: [{ g: 1 }] },
  { g: { $in: 3 } },
  { g: {} },
  { g: undefined },
  { g: NaN },
  { c: { eq: 'a' } },
);

// Many records at once (so the approximate kinds hold enough vectors to be approximate): ids
// `bulk-<n>` and n + 1000 (alternating) from `start`, metadata and namespace drawn from `seed`.
function bulkRecords({ start, count, seed }, dim) {
  const next = rng(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  return Array.from({ length: count }, (_, i) => {
    const n = start + i;
    const metadata = {};
    if (next() < 0.9) metadata.g = Math.floor(next() * 6);
    if (next() < 0.9) metadata.c = pick(WORDS);
    if (next() < 0.8) metadata.b = next() < 0.5;
    if (next() < 0.8) metadata.t = TAGS.filter(() => next() < 0.4);
    const r = { id: n % 2 ? `bulk-${n}` : n + 1000, values: gaussianRow(seed + 7919 * i, dim), metadata };
    const ns = pick(NAMESPACES);
    if (ns !== '' || next() < 0.5) r.namespace = ns;
    return r;
  });
}

const arbStep = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('bulk'),
      start: fc.nat(400),
      count: fc.integer({ min: 20, max: 300 }),
      seed: fc.nat(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant('upsert'), records: fc.array(arbRecord, { minLength: 1, maxLength: 5 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('insert'), records: fc.array(arbRecord, { minLength: 1, maxLength: 3 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('delete'), ids: fc.array(arbId, { minLength: 1, maxLength: 3 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('get'), ids: fc.array(arbId, { maxLength: 4 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('deleteSome'),
      seed: fc.nat(),
      share: fc.double({ min: 0.05, max: 0.6, noNaN: true }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('query'),
      seed: fc.nat(),
      topK: fc.integer({ min: 1, max: 12 }),
      filter: fc.option(arbFilter, { freq: 4, nil: undefined }),
      namespace: fc.option(fc.constantFrom(...NAMESPACES, 'none'), { freq: 4, nil: undefined }),
      rerank: fc.boolean(),
      returnMetadata: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('badQuery'), filter: arbBadFilter, extra: fc.boolean() }) },
);

// The real record for a generated one (values from its seed or a copy of an earlier row: exact
// ties), and what fault, if any, it carries.
function makeRecord(g, dim, rows) {
  const values = g.copy !== undefined && rows.length > 0 ? rows[g.copy % rows.length] : gaussianRow(g.seed, dim);
  rows.push(values);
  const r = { id: g.id, values };
  if (g.metadata !== undefined) r.metadata = { ...g.metadata };
  if (g.namespace !== undefined) r.namespace = g.namespace;
  switch (g.fault) {
    case 'nan':
      r.values = Float32Array.from(values, (v, i) => (i === 0 ? NaN : v));
      return [r, 'NON_FINITE'];
    case 'short':
      r.values = values.subarray(1);
      return [r, 'DIMENSION_MISMATCH'];
    case 'badType':
      r.metadata = { ...r.metadata, g: 'five' };
      return [r, 'INVALID_ARGUMENT'];
    case 'nullField':
      r.metadata = { ...r.metadata, c: null };
      return [r, 'INVALID_ARGUMENT'];
    case 'nested':
      r.metadata = { ...r.metadata, note: { deep: 1 } };
      return [r, 'INVALID_ARGUMENT'];
    case 'badId':
      r.id = [-1, 1.5, 2 ** 53, '', 'x'.repeat(257)][g.seed % 5];
      return [r, 'INVALID_ARGUMENT'];
    case 'unknownKey':
      r.vector = values;
      return [r, 'INVALID_ARGUMENT'];
    case 'badNs':
      r.namespace = 'n'.repeat(65);
      return [r, 'INVALID_ARGUMENT'];
  }
  return [r, null];
}

const codeOf = (fn) => {
  try {
    fn();
    return null;
  } catch (e) {
    assert.ok(e instanceof QuiverError, `not a QuiverError: ${e?.stack ?? e}`);
    return e.code;
  }
};

// Every record the reference holds is in the collection, with its metadata and namespace.
function checkSame(c, ref, context) {
  assert.equal(c.size, ref.size, `size ${context}`);
  const all = [...ref.records.values()];
  const got = c.getByIds(all.map((r) => r.id));
  got.forEach((g, i) => {
    assert.ok(g, `${JSON.stringify(all[i].id)} is present ${context}`);
    assert.deepEqual(g.metadata, all[i].metadata, `metadata of ${JSON.stringify(all[i].id)} ${context}`);
    assert.equal(g.namespace ?? '', all[i].namespace, `namespace of ${JSON.stringify(all[i].id)} ${context}`);
  });
}

// Mean recall of the approximate kinds over a whole run, against the exact filtered top k
// (every query is still held to min(topK, matching) results, all admitted, distinct, in
// distance order): HNSW and the quantised index with rerank 0.9; the quantised index from its
// 4-bit codes alone (no rerank: its default) 0.7, the floor the index property holds it to.
export const RECALL_FLOORS = { hnsw: 0.9, 'quantized-rerank': 0.9, 'quantized-codes': 0.7 };
export const newStats = () => ({ sequences: 0, refused: 0, recall: {} });

// The property for one kind: `stats` collects recall across runs.
export function collectionProperty(q, kind, maxSteps, stats) {
  return fc.property(
    fc.record({
      metric: fc.constantFrom('l2', 'cosine'),
      dim: fc.integer({ min: 2, max: 12 }),
      steps: fc.array(arbStep, { minLength: 1, maxLength: maxSteps, size: 'medium' }),
    }),
    ({ metric, dim, steps }) => {
      const options = kind === 'hnsw' ? { M: 8, efConstruction: 64 } : {};
      const c = q.Collection.create({ dim, metric, index: kind, options, fields: FIELDS });
      const ref = new Reference(metric, FIELDS);
      const rows = [];
      try {
        steps.forEach((step, n) => {
          const context = `(step ${n}: ${step.op})`;
          if (step.op === 'bulk') {
            const records = bulkRecords(step, dim);
            c.upsert(records);
            ref.write(records, false);
            assert.equal(c.size, ref.size, context);
          } else if (step.op === 'upsert' || step.op === 'insert') {
            const made = step.records.map((g) => makeRecord(g, dim, rows));
            const records = made.map(([r]) => r);
            const faults = made.map(([, f]) => f).filter(Boolean);
            const code = codeOf(() => c[step.op](records));
            if (faults.length > 0) {
              // A batch with a faulty record fails with one of its faults' codes — or with
              // DUPLICATE_ID when a repeated id comes first — and changes nothing.
              assert.ok(code === 'DUPLICATE_ID' || faults.includes(code), `${code} for faults ${faults} ${context}`);
            } else {
              const expected = ref.write(records, step.op === 'insert');
              assert.equal(code, expected, context);
            }
            checkSame(c, ref, context);
          } else if (step.op === 'deleteSome') {
            // A share of what is there, in a random order.
            const next = rng(step.seed);
            const ids = [...ref.records.values()].filter(() => next() < step.share).map((r) => r.id);
            ids.sort(() => next() - 0.5);
            c.deleteByIds(ids);
            assert.equal(ref.remove(ids), null, context);
            assert.equal(c.size, ref.size, context);
          } else if (step.op === 'delete') {
            const expected = ref.remove(step.ids);
            assert.equal(
              codeOf(() => c.deleteByIds(step.ids)),
              expected,
              context,
            );
            checkSame(c, ref, context);
          } else if (step.op === 'get') {
            const got = c.getByIds(step.ids);
            step.ids.forEach((id, i) => {
              const r = ref.records.get(keyOf(id));
              if (!r) assert.equal(got[i], null, context);
              else assert.deepEqual([got[i].id, got[i].metadata], [r.id, r.metadata], context);
            });
          } else if (step.op === 'query') {
            const vector = gaussianRow(step.seed, dim);
            const rerank = kind === 'quantized' && step.rerank ? 4 : undefined;
            const result = c.query(vector, {
              topK: step.topK,
              filter: step.filter,
              namespace: step.namespace,
              rerank,
              returnMetadata: step.returnMetadata,
            });
            const ranked = ref.ranked(vector, step.filter, step.namespace);
            const recall = checkAnswer(result, ranked, step.topK, {
              exact: kind === 'flat',
              exactDistances: kind !== 'quantized' || rerank !== undefined,
              context: `${context} ${JSON.stringify(step.filter)} ns ${step.namespace}`,
            });
            if (kind !== 'flat') {
              const mode = kind === 'quantized' ? (rerank ? 'quantized-rerank' : 'quantized-codes') : kind;
              stats.recall[mode] ??= { sum: 0, n: 0 };
              stats.recall[mode].sum += recall;
              stats.recall[mode].n++;
            }
            if (step.returnMetadata) {
              for (const m of result.matches)
                assert.deepEqual(m.metadata, ref.records.get(keyOf(m.id)).metadata, context);
            } else {
              for (const m of result.matches) assert.equal(m.metadata, undefined, context);
            }
          } else if (step.op === 'badQuery') {
            const vector = gaussianRow(n, dim);
            const options = step.extra ? { topK: 3, filter: { g: 1 }, efs: 4 } : { filter: step.filter };
            assert.equal(
              codeOf(() => c.query(vector, options)),
              'INVALID_ARGUMENT',
              `${context} ${JSON.stringify(options)}`,
            );
            stats.refused++;
            checkSame(c, ref, context);
          }
        });
      } finally {
        c.dispose();
      }
      stats.sequences++;
    },
  );
}
