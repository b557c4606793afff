// Property-based test of the public JS API (not a test file itself: tests/js/property.test.mjs
// runs it bounded, scripts/fuzz-js.mjs runs it long). fast-check generates a configuration and a
// random sequence of operations — add, remove, search, searchBatch, has, serialize + load,
// dispose, compact — with good and bad values (wrong types, NaN, huge numbers, out-of-range
// ids, wrong shapes, k = 0 / negative / fractional / past 2^32, bad ef / rerank / allow). Each
// step runs on the real index and on a plain-JS model of the live set, and must agree with it:
//   - a call the model says is valid succeeds; an invalid one throws a QuiverError whose code
//     names one of the input's faults, and changes nothing (size, has(), a probe search);
//   - nothing else is ever thrown (no RuntimeError, TypeError, BindingError);
//   - flat results are the exact answer (ties by id); quantised and HNSW results hold only live,
//     allowed, distinct ids in distance order, exact distances where the kind promises them,
//     and reach a recall floor against the exact answer;
//   - searchBatch rows equal search() of the same query, padded with id -1 / Infinity;
//   - serialize + load gives an index that answers the same; the wasm heap stays bounded;
//   - an option key the call does not take (a misspelling, another kind's option, a random
//     string) is refused with INVALID_ARGUMENT, on search, searchBatch, add and construction,
//     and changes nothing; null options and null option values mean "not given".
// Everything is seeded (fast-check prints the seed and the shrunk sequence of a failure).
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { QuiverError } from '../../js/index.js';

export const KINDS = ['flat', 'quantized', 'hnsw-f32', 'hnsw-sq8'];

const MAX_ID = Number.MAX_SAFE_INTEGER;
const MAX_K = 4294967295;
const MAX_EF = 1048576;
const MAX_DIM = 16;
const ID_POOL = 40; // ids 0..ID_POOL: collisions (duplicates, unknown ids) are frequent
// Rows of the squared norm past 2^100 are refused under l2/ip (NON_FINITE); 1e30 is past it.
const HUGE = 1e30;

export const KNOWN_CODES = new Set([
  'INVALID_ARGUMENT',
  'DIMENSION_MISMATCH',
  'NON_FINITE',
  'DUPLICATE_ID',
  'UNKNOWN_ID',
  'INVALID_K',
  'EMPTY_INDEX',
  'OUT_OF_MEMORY',
  'UNSUPPORTED_ISA',
  'CORRUPT',
  'TRUNCATED',
  'CHECKSUM_MISMATCH',
  'BAD_MAGIC',
  'UNSUPPORTED_VERSION',
  'UNKNOWN_INDEX_KIND',
  'IO_ERROR',
  'DISPOSED',
]);

// Mean recall against the exact answer (an id tied with the k-th neighbour counts), over all
// the searches of a run, that an approximate kind must reach. Tiny indexes of 1..16 dimensions:
// runs measure 0.98-1.0, so these are generous floors that a broken search (wrong ids, stale
// rows) falls far below. HNSW with M >= 4 is held to its floor in every sequence (runs of exact
// duplicates included: every copy stays reachable); the quantised kinds, and HNSW with M = 2,
// over a whole run only. With 8-bit codes a sequence of a dozen searches over many exact
// duplicates can legitimately sit lower. With M = 2 (four level-0 links) the selection
// heuristic can leave a far outlier with no level-0 link pointing at it: e.g. dim 1, M 2,
// efConstruction 2, seed 0, adds [4, 0] then [0, -1, 1] then [0]: the lists of the two first
// zeros fill up with closer nodes and drop the 4, which no other node links to, so a search for
// 0 with k = 6 >= size finds 5 of the 6 (HnswIndex::search documents that a beam may not reach
// every node). That is a property of HNSW, not a lost duplicate. Every search is still held to
// the exact rules above.
export const RECALL_FLOORS = {
  'quantized-rerank': 0.9,
  'quantized-codes': 0.7,
  'hnsw-f32': 0.9,
  'hnsw-sq8': 0.85,
};
const PER_SEQUENCE_FLOOR = new Set(['hnsw-f32', 'hnsw-sq8']);

// ---------- generators ----------

const arbIdValue = fc.oneof(
  { weight: 16, arbitrary: fc.integer({ min: 0, max: ID_POOL }) },
  { weight: 3, arbitrary: fc.bigInt({ min: 0n, max: BigInt(ID_POOL) }) },
  { weight: 1, arbitrary: fc.constantFrom(MAX_ID, 2 ** 32 + 5, 2 ** 32 - 1) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      -1,
      1.5,
      NaN,
      Infinity,
      2 ** 53,
      2 ** 64,
      -1n,
      2n ** 53n,
      2n ** 64n - 1n,
      '3',
      null,
      undefined,
      true,
      {},
    ),
  },
);
const arbIdForm = fc.constantFrom('array', 'array', 'f64', 'u32', 'u64', 'single');
const arbIds = (maxLength) => fc.record({ form: arbIdForm, values: fc.array(arbIdValue, { maxLength }) });

// A vector row: 16 small half-integers (the index uses the first dim), so exact ties happen,
// or a copy of a live vector (exact ties on purpose).
const arbRow = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      vals: fc.array(fc.integer({ min: -4, max: 4 }), { minLength: MAX_DIM, maxLength: MAX_DIM }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ copy: fc.nat(40) }) },
);
const arbRowFault = fc.oneof(
  { weight: 12, arbitrary: fc.constant('ok') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('nan', 'inf', 'huge', 'zero', 'short', 'long', 'string', 'rows', 'badrow', 'extra'),
  },
);

const arbK = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 1, max: 30 }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(0, -1, 1.5, NaN, Infinity, MAX_K, MAX_K + 1, 2 ** 32 + 3, 1e8, 178956971, '5', 5n, null),
  },
);
const arbEf = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, MAX_EF, MAX_EF + 1, 2 ** 32, '8', NaN) },
);
const arbAllow = fc.option(arbIds(8), { freq: 3 });

// An option key that a call may not take: misspellings, options of other calls and kinds,
// keys that name Object.prototype members, and random strings; with a value that is never
// null or undefined (those mean "not given"). Injected into search, searchBatch, add and a
// construction; refused with INVALID_ARGUMENT unless the call does take that key (then the
// key is left out: a valid key with a random value is the other generators' job).
const arbExtraOption = fc.record({
  key: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'alow',
        'allowed',
        'probe',
        'probes',
        'ef',
        'efs',
        'Ef',
        'rerank_',
        'reRank',
        'refine_bits',
        'refineBits',
        'threads',
        'thread',
        'm',
        'M',
        'list',
        'lists',
        'bits',
        'seed',
        'dim',
        'metric',
        'storage',
        'transfer',
        'signal',
        'chunkSize',
        'k',
        'size',
        'constructor',
        'toString',
        '__proto__',
        'hasOwnProperty',
      ),
    },
    { weight: 1, arbitrary: fc.string({ minLength: 0, maxLength: 6 }) },
  ),
  value: fc.constantFrom(0, 1, 3, 'x', true, false, [1], {}, -1, NaN),
});
const arbMaybeExtra = fc.option(arbExtraOption, { freq: 4, nil: undefined });

// The keys each call takes, per kind (js/core/options.js): the model's copy of the schemas.
const TAKES = {
  search: { flat: ['allow', 'rerank'], quantized: ['allow', 'rerank', 'probes'], hnsw: ['allow', 'ef', 'rerank'] },
  add: { flat: [], quantized: [], hnsw: ['threads'] },
  construct: {
    flat: ['dim', 'metric'],
    quantized: ['dim', 'metric', 'bits', 'seed', 'keepVectors', 'refineBits', 'lists'],
    hnsw: ['dim', 'metric', 'M', 'efConstruction', 'efSearch', 'seed', 'storage', 'keepVectors', 'neighborCodes'],
  },
};
const family = (kind) => (kind.startsWith('hnsw') ? 'hnsw' : kind);
// Whether `extra` is a key the call refuses (and so must be injected and fail).
const refuses = (call, kind, extra) => extra !== undefined && !TAKES[call][family(kind)].includes(extra.key);
// options with the extra key added: an own property, even for '__proto__'.
function withExtra(options, extra) {
  const out = options === null || options === undefined ? {} : { ...options };
  Object.defineProperty(out, extra.key, { value: extra.value, enumerable: true, writable: true, configurable: true });
  return out;
}

function arbSearchOptions(kind) {
  const fields = { allow: arbAllow };
  if (kind === 'quantized') {
    fields.rerank = fc.option(
      fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 0, max: 4 }) },
        { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, '2', true) },
      ),
      { freq: 2, nil: undefined },
    );
  }
  if (kind.startsWith('hnsw')) {
    fields.ef = fc.option(arbEf, { freq: 2, nil: undefined });
    // A depth as in every kind, or true / false (the older switch: absent / 0).
    fields.rerank = fc.option(
      fc.oneof(
        { weight: 3, arbitrary: fc.boolean() },
        { weight: 3, arbitrary: fc.integer({ min: 0, max: 3 }) },
        { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, 'yes', null) },
      ),
      { freq: 2, nil: undefined },
    );
  }
  return fc.oneof(
    { weight: 12, arbitrary: fc.record(fields, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.constantFrom(null, 'fast', 7) },
  );
}

function arbOp(kind) {
  const ops = [
    // An add pairs each id with its row (a count mismatch is the 'extra' / 'short' faults' job).
    // Mostly-valid adds too, so indexes grow to a few dozen vectors between the bad calls.
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant('add'),
        form: fc.constantFrom('array', 'u32', 'f64'),
        items: fc.uniqueArray(fc.record({ id: fc.integer({ min: 0, max: ID_POOL }), row: arbRow }), {
          selector: (it) => it.id,
          maxLength: 12,
          size: 'max',
        }),
        fault: fc.constant('ok'),
      }),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant('add'),
        form: arbIdForm,
        items: fc.array(fc.record({ id: arbIdValue, row: arbRow }), { maxLength: 6, size: 'max' }),
        fault: arbRowFault,
        extra: arbMaybeExtra,
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('construct'), extra: arbExtraOption }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('remove'), ids: arbIds(4) }) },
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant('search'),
        row: arbRow,
        fault: arbRowFault,
        k: arbK,
        options: arbSearchOptions(kind),
        extra: arbMaybeExtra,
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant('searchBatch'),
        rows: fc.array(arbRow, { maxLength: 4 }),
        fault: arbRowFault,
        k: arbK,
        options: arbSearchOptions(kind),
        extra: arbMaybeExtra,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('has'), id: fc.oneof(arbIdValue, fc.constantFrom('1', [1], 1n)) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('reload'), how: fc.constantFrom('module', 'class', 'buffer', 'copy') }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('dispose') }) },
  ];
  if (kind.startsWith('hnsw')) ops.push({ weight: 1, arbitrary: fc.record({ op: fc.constant('compact') }) });
  return fc.oneof(...ops);
}

export function arbConfig(kind) {
  return fc.record({
    kind: fc.constant(kind),
    dim: fc.integer({ min: 1, max: MAX_DIM }),
    metric: fc.constantFrom('l2', 'ip', 'cosine'),
    bits: fc.constantFrom(2, 4),
    keepVectors: fc.boolean(),
    M: fc.integer({ min: 2, max: 8 }),
    efConstruction: fc.integer({ min: 2, max: 40 }),
    seed: fc.nat(1000),
  });
}

export function arbSequence(kind, maxSteps) {
  return fc.array(arbOp(kind), { minLength: 1, maxLength: maxSteps, size: 'max' });
}

// ---------- the reference model ----------

function distance(metric, a, b) {
  let dot = 0,
    aa = 0,
    bb = 0,
    l2 = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
    l2 += (a[i] - b[i]) ** 2;
  }
  if (metric === 'l2') return l2;
  if (metric === 'ip') return -dot;
  return 1 - dot / Math.sqrt(aa * bb);
}
const close = (x, y) => Math.abs(x - y) <= 1e-3 * (1 + Math.abs(y));

// ids as the caller passes them, and what the library must make of them:
// { arg, ids: number[] | null (null: some id is not an integer in [0, 2^53 - 1]) }.
function buildIds(spec) {
  const { form, values } = spec;
  if (form === 'single' && values.length === 1) {
    const v = values[0];
    return { arg: v, ids: validId(v) ? [Number(v)] : null };
  }
  if (form === 'f64') {
    const arr = Float64Array.from(values, (v) => (typeof v === 'bigint' ? Number(v) : Number(v)));
    return { arg: arr, ids: [...arr].every(validId) ? [...arr] : null };
  }
  if (form === 'u32') {
    const arr = Uint32Array.from(values, (v) => (typeof v === 'bigint' ? Number(BigInt.asUintN(32, v)) : Number(v)));
    return { arg: arr, ids: [...arr] };
  }
  if (form === 'u64') {
    const arr = BigUint64Array.from(values, (v) =>
      BigInt.asUintN(64, typeof v === 'bigint' ? v : Number.isFinite(Number(v)) ? BigInt(Math.trunc(Number(v))) : 0n),
    );
    return { arg: arr, ids: [...arr].every(validId) ? [...arr].map(Number) : null };
  }
  return { arg: [...values], ids: values.every(validId) ? values.map(Number) : null };
}
function validId(v) {
  if (typeof v === 'bigint') return v >= 0n && v <= BigInt(MAX_ID);
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_ID;
}
const hasDuplicates = (ids) => new Set(ids).size !== ids.length;

class Model {
  constructor(config) {
    this.config = config;
    this.live = new Map(); // id -> Float32Array
  }
  get size() {
    return this.live.size;
  }
  liveIds() {
    return [...this.live.keys()].sort((a, b) => a - b);
  }
  // A row of dim values from a generated row spec (copies reuse a live vector).
  row(spec) {
    const { dim } = this.config;
    if (spec.copy !== undefined && this.live.size > 0) {
      const ids = this.liveIds();
      return Float32Array.from(this.live.get(ids[spec.copy % ids.length]));
    }
    const vals = spec.vals ?? new Array(MAX_DIM).fill(1);
    const out = Float32Array.from(vals.slice(0, dim), (x) => x / 2);
    if (this.config.metric === 'cosine' && out.every((x) => x === 0)) out[0] = 0.5; // zero is a fault of its own
    return out;
  }
  // Vectors as the caller passes them and the faults the library must report:
  // { arg, rows: the Float32Array rows the library sees, faults: Set<code> }. expectedRows:
  // how many rows the call needs (the ids of an add, 1 for search, any for searchBatch).
  vectors(rowSpecs, fault, expectedRows) {
    const { dim, metric } = this.config;
    const rows = rowSpecs.map((r) => this.row(r));
    const faults = new Set();
    if (dim === 1 && (fault === 'short' || fault === 'long')) fault = 'extra'; // n +- 1 values are still whole rows
    if (rows.length > 0) {
      const last = rows[rows.length - 1];
      if (fault === 'nan') last[dim - 1] = NaN;
      if (fault === 'inf') last[dim - 1] = -Infinity;
      if (fault === 'huge') last[dim - 1] = HUGE;
      if (fault === 'zero') last.fill(0);
      if (fault === 'nan' || fault === 'inf') faults.add('NON_FINITE');
      if (fault === 'huge' && metric !== 'cosine') faults.add('NON_FINITE');
      if (fault === 'zero' && metric === 'cosine') faults.add('INVALID_ARGUMENT');
    }
    if (fault === 'extra') rows.push(new Float32Array(dim).fill(0.5));
    const flat = new Float32Array(rows.length * dim);
    rows.forEach((r, i) => flat.set(r, i * dim));
    let arg = flat;
    let shapeOk = true;
    if (fault === 'short' && flat.length > 0) {
      arg = flat.subarray(0, flat.length - 1);
      shapeOk = false;
    } else if (fault === 'long') {
      arg = new Float32Array(flat.length + 1).fill(0.5);
      arg.set(flat);
      shapeOk = false;
    } else if (fault === 'string' && flat.length > 0) {
      arg = [...flat];
      arg[0] = String(arg[0]);
      // Not a number; or, as the first element of an array, read as a row that is not dim long.
      faults.add('INVALID_ARGUMENT');
      faults.add('DIMENSION_MISMATCH');
    } else if (fault === 'rows') {
      arg = rows.map((r) => [...r]);
    } else if (fault === 'badrow' && rows.length > 0) {
      arg = rows.map((r) => [...r]);
      arg[0].push(0.5);
      shapeOk = false;
    }
    if (!shapeOk) faults.add('DIMENSION_MISMATCH');
    else if (expectedRows !== undefined && rows.length !== expectedRows) faults.add('DIMENSION_MISMATCH');
    return { arg, rows, faults };
  }
  // The exact answer: allowed live ids by (distance, id).
  exact(query, allowed) {
    const { metric } = this.config;
    const out = [];
    for (const [id, v] of this.live) {
      if (allowed && !allowed.has(id)) continue;
      out.push({ id, d: distance(metric, query, v) });
    }
    out.sort((a, b) => a.d - b.d || a.id - b.id);
    return out;
  }
}

// ---------- one sequence ----------

function makeIndex(q, config) {
  const { kind, dim, metric, bits, keepVectors, M, efConstruction, seed } = config;
  if (kind === 'flat') return new q.FlatIndex({ dim, metric });
  if (kind === 'quantized') return new q.QuantizedIndex({ dim, metric, bits, seed, keepVectors });
  return new q.HnswIndex({
    dim,
    metric,
    M,
    efConstruction,
    efSearch: 16,
    seed,
    storage: kind === 'hnsw-sq8' ? 'sq8' : 'f32',
    keepVectors,
  });
}

// Runs fn and returns ['ok', value] or ['error', QuiverError]; anything else thrown fails.
function attempt(what, fn) {
  try {
    return ['ok', fn()];
  } catch (e) {
    if (!(e instanceof QuiverError)) {
      assert.fail(`${what} threw ${e?.constructor?.name ?? typeof e} (not a QuiverError): ${e?.stack ?? e}`);
    }
    assert.ok(KNOWN_CODES.has(e.code), `${what}: unknown error code ${e.code}: ${e.message}`);
    return ['error', e];
  }
}

function expectOutcome(what, result, faults) {
  const [status, value] = result;
  if (faults.size === 0) {
    assert.equal(status, 'ok', `${what} should succeed, threw ${value?.code}: ${value?.message}`);
  } else {
    assert.equal(status, 'error', `${what} should fail with one of ${[...faults]}, it succeeded`);
    assert.ok(faults.has(value.code), `${what}: code ${value.code} (${value.message}), expected one of ${[...faults]}`);
  }
  return status === 'ok';
}

function searchFaults(model, kind, k, options) {
  const faults = new Set();
  if (k !== undefined && !(Number.isInteger(k) && k >= 1 && k <= MAX_K)) faults.add('INVALID_K');
  let allowed = null;
  if (options === null) options = {}; // null options are no options (null = not given)
  if (typeof options !== 'object') {
    faults.add('INVALID_ARGUMENT');
    return { faults, allowed };
  }
  if (options.allow !== undefined && options.allow !== null) {
    const built = buildIds(options.allow);
    options = { ...options, allow: built.arg };
    // allow: null or undefined (a 'single' form of either) means no filter.
    if (built.arg !== null && built.arg !== undefined) {
      if (built.ids === null) faults.add('INVALID_ARGUMENT');
      else allowed = new Set(built.ids);
    }
  }
  if (kind === 'quantized' && options.rerank !== undefined && options.rerank !== null) {
    const r = options.rerank;
    if (!(Number.isInteger(r) && r >= 0)) faults.add('INVALID_ARGUMENT');
    else if (r > 0 && !model.config.keepVectors) faults.add('INVALID_ARGUMENT');
  }
  if (kind.startsWith('hnsw')) {
    const { ef, rerank } = options;
    if (ef !== undefined && !(Number.isInteger(ef) && ef >= 0 && ef <= MAX_EF)) faults.add('INVALID_ARGUMENT');
    if (
      rerank !== undefined &&
      rerank !== null &&
      typeof rerank !== 'boolean' &&
      !(Number.isInteger(rerank) && rerank >= 0)
    ) {
      faults.add('INVALID_ARGUMENT');
    } else if (Number.isInteger(rerank) && rerank > 0 && kind === 'hnsw-sq8' && !model.config.keepVectors) {
      faults.add('INVALID_ARGUMENT'); // a depth needs the kept f32 vectors
    }
  }
  if (model.size === 0) faults.add('EMPTY_INDEX');
  return { faults, allowed, options };
}

// Which distances are exact for this kind and these options.
function exactDistances(config, options) {
  if (config.kind === 'flat' || config.kind === 'hnsw-f32') return true;
  if (config.kind === 'quantized') return config.keepVectors && (options?.rerank ?? 0) > 0;
  return config.keepVectors && options?.rerank !== false && options?.rerank !== 0; // hnsw-sq8
}

function checkHits(ctx, what, query, k, allowed, options, hits) {
  const { model, config, stats } = ctx;
  const kk = k ?? 10;
  const truth = model.exact(query, allowed);
  const want = Math.min(kk, truth.length);
  const { ids, distances } = hits;
  assert.ok(ids instanceof Float64Array && distances instanceof Float32Array, `${what}: result types`);
  assert.equal(ids.length, distances.length, `${what}: ids and distances differ in length`);
  const n = ids.length;
  if (config.kind === 'flat' || config.kind === 'quantized') {
    assert.equal(n, want, `${what}: ${n} results, expected min(k, allowed live) = ${want}`);
  } else {
    assert.ok(n <= want, `${what}: ${n} results, more than min(k, allowed live) = ${want}`);
    if (want > 0) assert.ok(n > 0, `${what}: no result although ${truth.length} allowed ids are live`);
  }
  const truthById = new Map(truth.map((t) => [t.id, t.d]));
  const seen = new Set();
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    assert.ok(truthById.has(id), `${what}: id ${id} at ${i} is not a live, allowed id`);
    assert.ok(!seen.has(id), `${what}: id ${id} returned twice`);
    seen.add(id);
    assert.ok(!Number.isNaN(distances[i]), `${what}: NaN distance for id ${id}`);
    if (i > 0) {
      assert.ok(
        distances[i - 1] <= distances[i],
        `${what}: distances out of order at ${i}: ${distances[i - 1]} > ${distances[i]}`,
      );
      if (distances[i - 1] === distances[i]) {
        assert.ok(
          ids[i - 1] < ids[i],
          `${what}: equal distances ${distances[i]} but id ${ids[i - 1]} before ${ids[i]} (ties go by id)`,
        );
      }
    }
    if (exactDistances(config, options)) {
      assert.ok(
        close(distances[i], truthById.get(id)),
        `${what}: id ${id} distance ${distances[i]}, exact ${truthById.get(id)}`,
      );
    }
  }
  if (config.kind === 'flat') {
    // Exact: nothing left out is closer than the last hit (within float rounding).
    const last = n > 0 ? distances[n - 1] : -Infinity;
    for (const t of truth) {
      if (!seen.has(t.id))
        assert.ok(
          t.d >= last - 1e-3 * (1 + Math.abs(last)),
          `${what}: id ${t.id} at ${t.d} left out, last hit ${last}`,
        );
    }
  }
  if (config.kind === 'flat' || config.kind === 'quantized') {
    // Identical vectors tie exactly: the smaller id must win the cut.
    for (const t of truth) {
      if (seen.has(t.id)) continue;
      const v = model.live.get(t.id);
      for (const id of seen) {
        if (id > t.id && sameVector(v, model.live.get(id))) {
          assert.fail(`${what}: ids ${t.id} and ${id} hold the same vector; ${id} returned and ${t.id} left out`);
        }
      }
    }
  } else if (want > 0) {
    const hit = tieAwareHits(truth, want, seen, truthById);
    const key = config.kind;
    stats.recall[key] ??= { sum: 0, n: 0 };
    stats.recall[key].sum += hit / want;
    stats.recall[key].n += 1;
  }
  if (config.kind === 'quantized' && want > 0) {
    const hit = tieAwareHits(truth, want, seen, truthById);
    const key = exactDistances(config, options) ? 'quantized-rerank' : 'quantized-codes';
    stats.recall[key] ??= { sum: 0, n: 0 };
    stats.recall[key].sum += hit / want;
    stats.recall[key].n += 1;
  }
}
// Recall's numerator: returned ids no farther than the want-th exact neighbour (so an id that
// ties with it counts, whichever of the tied ids an approximate search happened to reach).
function tieAwareHits(truth, want, seen, truthById) {
  const cut = truth[want - 1].d;
  let n = 0;
  for (const id of seen) n += truthById.get(id) <= cut + 1e-6 * (1 + Math.abs(cut)) ? 1 : 0;
  return n;
}
function sameVector(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function snapshot(ctx) {
  const { index, model } = ctx;
  if (model.size === 0) return null;
  const probe = new Float32Array(model.config.dim).map((_, i) => ((i * 7) % 5) / 2 - 1 + 0.25);
  const r = index.search(probe, model.size + 1);
  return { ids: [...r.ids], distances: [...r.distances] };
}

function checkState(ctx, what) {
  const { index, model } = ctx;
  assert.equal(index.size, model.size, `${what}: size ${index.size}, model ${model.size}`);
  for (let id = 0; id <= ID_POOL; id++) {
    assert.equal(index.has(id), model.live.has(id), `${what}: has(${id})`);
  }
  for (const id of model.live.keys()) {
    assert.equal(index.has(id), true, `${what}: has(${id})`);
    assert.equal(index.has(BigInt(id)), true, `${what}: has(${id}n)`);
  }
  for (const id of [MAX_ID, 2 ** 32 + 5, 2 ** 32 - 1])
    assert.equal(index.has(id), model.live.has(id), `${what}: has(${id})`);
}

// The options a call is sent: `options` plus the extra key when the call refuses it (then
// INVALID_ARGUMENT joins the faults; options that are not an object are refused anyway and
// get no key). Counts the injections in stats.unknownOptions.
function injectExtra(ctx, call, options, extra, faults) {
  if (!refuses(call, ctx.config.kind, extra)) return options;
  if (options !== null && options !== undefined && typeof options !== 'object') return options;
  faults.add('INVALID_ARGUMENT');
  ctx.stats.unknownOptions = (ctx.stats.unknownOptions ?? 0) + 1;
  return withExtra(options, extra);
}

function step(ctx, op, label) {
  const { q, model, config } = ctx;
  const { kind } = config;
  const before = snapshot(ctx);
  let accepted = true;
  switch (op.op) {
    case 'add': {
      const built = buildIds({ form: op.form, values: op.items.map((it) => it.id) });
      const vec = model.vectors(
        op.items.map((it) => it.row),
        op.fault,
        op.items.length,
      );
      const faults = new Set(vec.faults);
      if (built.ids === null) faults.add('INVALID_ARGUMENT');
      else {
        if (hasDuplicates(built.ids) || built.ids.some((id) => model.live.has(id))) faults.add('DUPLICATE_ID');
      }
      // Rows count against ids: the JS layer reports a mismatch before the C++ sees either.
      const sent = op.extra === undefined ? undefined : injectExtra(ctx, 'add', undefined, op.extra, faults);
      accepted = expectOutcome(
        label,
        attempt(label, () =>
          sent === undefined ? ctx.index.add(built.arg, vec.arg) : ctx.index.add(built.arg, vec.arg, sent),
        ),
        faults,
      );
      if (accepted) built.ids.forEach((id, i) => model.live.set(id, vec.rows[i]));
      break;
    }
    case 'remove': {
      const built = buildIds(op.ids);
      const faults = new Set();
      if (built.ids === null) faults.add('INVALID_ARGUMENT');
      else {
        if (built.ids.some((id) => !model.live.has(id))) faults.add('UNKNOWN_ID');
        if (hasDuplicates(built.ids)) faults.add('DUPLICATE_ID');
      }
      accepted = expectOutcome(
        label,
        attempt(label, () => ctx.index.remove(built.arg)),
        faults,
      );
      if (accepted) built.ids.forEach((id) => model.live.delete(id));
      break;
    }
    case 'search': {
      const vec = model.vectors([op.row], op.fault, 1);
      const { faults, allowed, options } = searchFaults(model, kind, op.k, op.options);
      for (const f of vec.faults) faults.add(f);
      const sent = injectExtra(ctx, 'search', options ?? op.options, op.extra, faults);
      const result = attempt(label, () => ctx.index.search(vec.arg, op.k, sent));
      accepted = expectOutcome(label, result, faults);
      if (accepted) checkHits(ctx, label, vec.rows[0], op.k, allowed, options, result[1]);
      break;
    }
    case 'searchBatch': {
      const vec = model.vectors(op.rows, op.fault);
      const { faults, allowed, options } = searchFaults(model, kind, op.k, op.options);
      for (const f of vec.faults) faults.add(f);
      const sent = injectExtra(ctx, 'search', options ?? op.options, op.extra, faults);
      const result = attempt(label, () => ctx.index.searchBatch(vec.arg, op.k, sent));
      accepted = expectOutcome(label, result, faults);
      if (accepted) checkBatch(ctx, label, vec.rows, op.k, allowed, options, result[1]);
      break;
    }
    case 'has': {
      const valid = typeof op.id === 'number' || typeof op.id === 'bigint';
      const result = attempt(label, () => ctx.index.has(op.id));
      accepted = expectOutcome(label, result, valid ? new Set() : new Set(['INVALID_ARGUMENT']));
      if (accepted)
        assert.equal(result[1], validId(op.id) && model.live.has(Number(op.id)), `${label}: has(${String(op.id)})`);
      break;
    }
    case 'reload': {
      const bytes = ctx.index.serialize();
      assert.ok(bytes instanceof Uint8Array && bytes.length > 0, `${label}: serialize()`);
      const input = op.how === 'buffer' ? bytes.slice().buffer : op.how === 'copy' ? Uint8Array.from(bytes) : bytes;
      const Cls = kind === 'flat' ? q.FlatIndex : kind === 'quantized' ? q.QuantizedIndex : q.HnswIndex;
      const loaded = op.how === 'class' ? Cls.load(input) : q.load(input);
      assert.ok(loaded instanceof Cls, `${label}: loaded as ${loaded?.constructor?.name}`);
      const old = ctx.index;
      ctx.index = loaded;
      old.dispose();
      checkState(ctx, `${label} (loaded)`);
      const after = snapshot(ctx);
      assert.deepEqual(after, before, `${label}: the loaded index answers differently`);
      assert.deepEqual(ctx.index.serialize(), bytes, `${label}: serialize -> load -> serialize changed the bytes`);
      break;
    }
    case 'dispose': {
      const bytes = ctx.index.serialize();
      ctx.index.dispose();
      ctx.index.dispose(); // again: a no-op
      assert.equal(ctx.index.disposed, true);
      for (const [what, fn] of [
        ['size', () => ctx.index.size],
        ['search', () => ctx.index.search(new Float32Array(config.dim), 1)],
        ['add', () => ctx.index.add([1], new Float32Array(config.dim).fill(1))],
        ['serialize', () => ctx.index.serialize()],
      ]) {
        const [status, e] = attempt(`${label}: ${what} after dispose`, fn);
        assert.equal(status, 'error', `${label}: ${what} after dispose succeeded`);
        assert.equal(e.code, 'DISPOSED', `${label}: ${what} after dispose: ${e.code}`);
      }
      ctx.index = q.load(bytes);
      break;
    }
    case 'compact': {
      ctx.index.compact();
      break;
    }
    case 'construct': {
      // A new index of this kind with the sequence's options plus a key it does not take:
      // refused (INVALID_ARGUMENT naming the key), nothing created; the current index is untouched.
      const Cls = kind === 'flat' ? q.FlatIndex : kind === 'quantized' ? q.QuantizedIndex : q.HnswIndex;
      if (!refuses('construct', kind, op.extra)) break;
      const base = { dim: config.dim, metric: config.metric };
      const result = attempt(label, () => new Cls(withExtra(base, op.extra)));
      if (result[0] === 'ok') result[1].dispose();
      accepted = expectOutcome(label, result, new Set(['INVALID_ARGUMENT']));
      assert.ok(
        result[1].message.includes(`'${op.extra.key}'`),
        `${label}: the message does not name '${op.extra.key}': ${result[1].message}`,
      );
      ctx.stats.unknownOptions = (ctx.stats.unknownOptions ?? 0) + 1;
      break;
    }
    default:
      throw new Error(`unknown op ${op.op}`);
  }
  checkState(ctx, label);
  ctx.stats.accepted = (ctx.stats.accepted ?? 0) + (accepted ? 1 : 0);
  ctx.stats.rejected = (ctx.stats.rejected ?? 0) + (accepted ? 0 : 1);
  ctx.stats.liveSum = (ctx.stats.liveSum ?? 0) + model.size;
  if (!accepted) {
    assert.deepEqual(snapshot(ctx), before, `${label}: a rejected call changed the answers`);
  }
  if (op.op === 'search' || op.op === 'searchBatch' || op.op === 'has') {
    assert.deepEqual(snapshot(ctx), before, `${label}: a read-only call changed the answers`);
  }
}

function checkBatch(ctx, what, rows, k, allowed, options, batch) {
  const { model } = ctx;
  const kk = k ?? 10;
  const width = Math.min(kk, model.size);
  assert.equal(batch.count, rows.length, `${what}: count`);
  assert.equal(batch.k, width, `${what}: row width k = min(k, size)`);
  assert.ok(batch.counts && batch.counts.length === rows.length, `${what}: counts per row`);
  assert.equal(batch.ids.length, rows.length * width, `${what}: ids length`);
  assert.equal(batch.distances.length, rows.length * width, `${what}: distances length`);
  for (let r = 0; r < rows.length; r++) {
    const c = batch.counts[r];
    assert.ok(Number.isInteger(c) && c >= 0 && c <= width, `${what}: counts[${r}] = ${c}`);
    const ids = batch.ids.subarray(r * width, r * width + c);
    const distances = batch.distances.subarray(r * width, r * width + c);
    for (let j = c; j < width; j++) {
      assert.equal(batch.ids[r * width + j], -1, `${what}: row ${r} padding id at ${j}`);
      assert.equal(batch.distances[r * width + j], Infinity, `${what}: row ${r} padding distance at ${j}`);
    }
    checkHits(ctx, `${what} row ${r}`, rows[r], k, allowed, options, {
      ids: Float64Array.from(ids),
      distances: Float32Array.from(distances),
    });
    const single = ctx.index.search(rows[r], k, options);
    assert.deepEqual([...single.ids], [...ids], `${what}: row ${r} differs from search() of the same query`);
    assert.deepEqual([...single.distances], [...distances], `${what}: row ${r} distances differ from search()`);
  }
}

// Runs one generated sequence on module q. Returns the number of steps run; throws (an
// assertion) at the first disagreement. stats collects recall per kind across sequences.
export function runSequence(q, config, ops, stats) {
  const ctx = { q, config, model: new Model(config), index: makeIndex(q, config), stats };
  const local = { recall: {} };
  ctx.stats = local;
  try {
    checkState(ctx, 'new index');
    ops.forEach((op, i) => step(ctx, op, `step ${i} ${op.op}`));
  } finally {
    ctx.index.dispose();
    for (const [key, r] of Object.entries(local.recall)) {
      stats.recall[key] ??= { sum: 0, n: 0 };
      stats.recall[key].sum += r.sum;
      stats.recall[key].n += r.n;
    }
    stats.steps += ops.length;
    stats.sequences += 1;
    for (const key of ['accepted', 'rejected', 'liveSum', 'unknownOptions'])
      stats[key] = (stats[key] ?? 0) + (local[key] ?? 0);
  }
  for (const key of PER_SEQUENCE_FLOOR) {
    const r = local.recall[key];
    if (r && config.M >= 4 && r.sum / r.n < RECALL_FLOORS[key]) {
      assert.fail(`${key}: mean recall ${(r.sum / r.n).toFixed(3)} over the ${r.n} searches of this sequence`);
    }
  }
  return ops.length;
}

export function newStats() {
  return { sequences: 0, steps: 0, recall: {} };
}

// The fast-check property for one kind on module q; heapLimit: bytes the wasm heap may reach.
export function property(q, kind, maxSteps, stats, heapLimit) {
  return fc.property(arbConfig(kind), arbSequence(kind, maxSteps), (config, ops) => {
    runSequence(q, config, ops, stats);
    const heap = q.heapBytes();
    assert.ok(heap <= heapLimit, `wasm heap ${heap} bytes, above the bound ${heapLimit}`);
  });
}
