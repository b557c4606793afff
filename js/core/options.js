// Every options object the package takes, as one schema per call: a small table of
// key -> check. readOptions() refuses a key the table does not list (a typo such as `alow`,
// or an option of another call or kind, such as `probes` on a flat index) with
// QuiverError INVALID_ARGUMENT naming the key, checks the type of every key it lists, and
// returns the values as the call uses them. Nothing is ignored silently.
//
// null means "not given", everywhere: an option whose value is null or undefined is the same
// as an option left out (its default applies), and an options argument of null or undefined is
// the same as {}. Positional arguments (k, ids, vectors, a query, index bytes) are not options:
// null there is refused as before.
import { QuiverError } from './errors.js';
import { toIds } from './inputs.js';

export const MAX_EF = 1048576; // 2^20: the C++ bound on ef, efSearch and efConstruction
const MAX_U32 = 4294967295;

function describe(value) {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return value.constructor?.name ?? 'an object';
  return String(value);
}

const invalid = (message) => new QuiverError('INVALID_ARGUMENT', message);

// ---- checks: (value, key) => the value as the call uses it, or a thrown INVALID_ARGUMENT ----

// An integer in [min, max] (a number; no '3', no 3n).
export const integer =
  (min, max, note = '') =>
  (value, key) => {
    if (!Number.isInteger(value) || value < min || value > max) {
      throw invalid(`${key} must be an integer in [${min}, ${max}]${note}, got ${describe(value)}`);
    }
    return value;
  };
export const count = (max = MAX_U32) => integer(0, max);
export const boolean = () => (value, key) => {
  if (typeof value !== 'boolean') throw invalid(`${key} must be true or false, got ${describe(value)}`);
  return value;
};
export const oneOf =
  (...choices) =>
  (value, key) => {
    if (!choices.includes(value)) {
      throw invalid(
        `${key} must be ${choices.map((c) => (typeof c === 'string' ? `'${c}'` : String(c))).join(', ')}, got ${describe(value)}`,
      );
    }
    return value;
  };
export const func = () => (value, key) => {
  if (typeof value !== 'function') throw invalid(`${key} must be a function, got ${describe(value)}`);
  return value;
};
// A seed: an integer in [0, 2^53 - 1], a number or a bigint (returned as a number).
export const seed = () => (value, key) => {
  const s = typeof value === 'bigint' && value >= 0n && value <= 9007199254740991n ? Number(value) : value;
  if (!Number.isSafeInteger(s) || s < 0)
    throw invalid(`${key} must be an integer in [0, 2^53 - 1], got ${describe(value)}`);
  return s;
};
// Ids (the allow list): converted by the ids rule (inputs.js), to a Float64Array.
export const ids = () => (value, key) => {
  try {
    return toIds(value);
  } catch (e) {
    throw invalid(`${key}: ${e.message}`);
  }
};
export const signal = () => (value, key) => {
  if (typeof value !== 'object' || typeof value.aborted !== 'boolean' || typeof value.addEventListener !== 'function') {
    throw invalid(`${key} must be an AbortSignal, got ${describe(value)}`);
  }
  return value;
};
// A URL or a non-empty string.
export const location = () => (value, key) => {
  if (value instanceof URL || (typeof value === 'string' && value !== '')) return value;
  throw invalid(`${key} must be a URL or a non-empty string, got ${describe(value)}`);
};
export const bytes = () => (value, key) => {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value;
  throw invalid(`${key} must be an ArrayBuffer or a typed array, got ${describe(value)}`);
};
export const name = () => (value, key) => {
  if (typeof value !== 'string' || value === '')
    throw invalid(`${key} must be a non-empty string, got ${describe(value)}`);
  return value;
};
// Anything the call itself checks (a value handed on, e.g. `quiver`).
export const object = (what) => (value, key) => {
  if (typeof value !== 'object') throw invalid(`${key} must be ${what}, got ${describe(value)}`);
  return value;
};
export const either =
  (...checks) =>
  (value, key) => {
    let first;
    for (const check of checks) {
      try {
        return check(value, key);
      } catch (e) {
        first ??= e;
      }
    }
    throw first;
  };

// ---- schemas ---------------------------------------------------------------------------------

// Every key any schema knows, so that an option of another call or kind is told apart from a
// typo in the message.
const everyKey = new Set();

// schema('FlatIndex search()', { allow: ids(), ... }): a named table.
export function schema(call, fields) {
  for (const key of Object.keys(fields)) everyKey.add(key);
  return Object.freeze({ call, fields: Object.freeze({ ...fields }) });
}
// One schema from several (e.g. a kind's search options plus the worker's `transfer`).
export function extend(call, ...parts) {
  const fields = {};
  for (const part of parts) Object.assign(fields, part.fields ?? part);
  return schema(call, fields);
}

// The checked options: an object holding only the keys `spec` lists that were given (not
// null / undefined), each as its check returned it. Refuses a non-object options argument, an
// unknown or inapplicable key, and a value of the wrong type, all with INVALID_ARGUMENT naming
// the call and the key; nothing is read from the options afterwards by the caller.
export function readOptions(options, spec) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalid(
      `${spec.call}: options must be an object (${Object.keys(spec.fields).join(', ') || 'no options'}), got ${describe(options)}`,
    );
  }
  const out = {};
  for (const key of Object.keys(options)) {
    const check = spec.fields[key];
    if (!check || !Object.prototype.hasOwnProperty.call(spec.fields, key)) {
      const known = Object.keys(spec.fields);
      const takes = known.length ? `it takes ${known.join(', ')}` : 'it takes no options';
      throw invalid(
        everyKey.has(key)
          ? `${spec.call}: option '${key}' does not apply here (${takes})`
          : `${spec.call}: unknown option '${key}' (${takes})`,
      );
    }
    const value = options[key];
    if (value === undefined || value === null) continue;
    out[key] = check(value, key);
  }
  return out;
}

// ---- the package's calls ---------------------------------------------------------------------

const dim = () => integer(1, 16777216);
const metric = () => (value, key) => {
  // Which names exist is the C++ side's to say; the type is checked here.
  if (typeof value !== 'string') throw invalid(`${key} must be 'l2', 'cosine' or 'ip', got ${describe(value)}`);
  return value;
};
const rerank = () => integer(0, Number.MAX_SAFE_INTEGER, ' (with k x rerank at most 2^31 - 1)');
const lists = () => either(oneOf('auto'), integer(0, 65536));

export const INDEX_OPTIONS = {
  flat: schema('new FlatIndex()', { dim: dim(), metric: metric() }),
  quantized: schema('new QuantizedIndex()', {
    dim: dim(),
    metric: metric(),
    bits: oneOf(2, 4),
    seed: seed(),
    keepVectors: boolean(),
    refineBits: integer(0, 5),
    lists: lists(),
  }),
  hnsw: schema('new HnswIndex()', {
    dim: dim(),
    metric: metric(),
    M: count(),
    efConstruction: count(MAX_EF),
    efSearch: count(MAX_EF),
    seed: seed(),
    storage: oneOf('f32', 'sq8'),
    keepVectors: boolean(),
    neighborCodes: boolean(),
  }),
};

export const SEARCH_OPTIONS = {
  flat: schema('FlatIndex search()', { allow: ids(), rerank: rerank() }),
  quantized: schema('QuantizedIndex search()', { allow: ids(), rerank: rerank(), probes: count() }),
  // rerank: a depth, or true / false (the older switch: absent / 0).
  hnsw: schema('HnswIndex search()', { allow: ids(), ef: count(MAX_EF), rerank: either(rerank(), boolean()) }),
};

export const ADD_OPTIONS = {
  flat: schema('FlatIndex add()', {}),
  quantized: schema('QuantizedIndex add()', {}),
  hnsw: schema('HnswIndex add()', { threads: count() }),
};

// Quiver.init(), Quiver.shared() and the loader.
export const INIT_FIELDS = {
  variant: oneOf('auto', 'simd-mt', 'relaxed-simd', 'simd', 'baseline'),
  threads: integer(1, 256),
  timeout: (value, key) => {
    if (typeof value !== 'number' || !(value > 0)) {
      throw invalid(`${key} must be a positive number of milliseconds (or Infinity), got ${describe(value)}`);
    }
    return value;
  },
  wasmUrl: location(),
  locateFile: func(),
  wasmBinary: bytes(),
  wasmModule: (value, key) => {
    if (value instanceof WebAssembly.Module || value instanceof URL || typeof value === 'string') return value;
    throw invalid(`${key} must be a WebAssembly.Module or the path/URL of the .wasm, got ${describe(value)}`);
  },
};
export const INIT_OPTIONS = schema('Quiver.init()', INIT_FIELDS);

// A byte length given by the caller (a hint for a stream without one).
const size = () => integer(0, Number.MAX_SAFE_INTEGER);

// q.loadFrom(source, options): a stream's length, progress and cancellation.
export const LOAD_FROM_FIELDS = { size: size(), onProgress: func(), signal: signal() };
export const LOAD_FROM_OPTIONS = schema('loadFrom()', LOAD_FROM_FIELDS);
// Quiver.load(source, options): the init options of the shared module plus loadFrom's.
export const QUIVER_LOAD_OPTIONS = extend('Quiver.load()', INIT_FIELDS, LOAD_FROM_FIELDS);

// spawn(): the init options (locateFile cannot cross to the worker) plus the worker script.
export const SPAWN_OPTIONS = extend('spawn()', INIT_FIELDS, {
  locateFile: (value, key) => {
    throw invalid(`spawn() cannot send a ${key} function to the worker: pass wasmUrl instead`);
  },
  workerUrl: (value, key) => {
    if (value instanceof URL || (typeof value === 'string' && value !== '')) return value;
    throw invalid(
      `${key} must be a URL or a non-empty string (the worker script, e.g. a bundle of quiver-vector/worker-entry)`,
    );
  },
});

// The worker-hosted calls: the local call's options plus the worker's own.
const TRANSFER = { transfer: boolean() };
const PROGRESS = { onProgress: func(), signal: signal(), chunkSize: integer(1, MAX_U32) };
const KIND_NAMES = { flat: 'FlatIndex', quantized: 'QuantizedIndex', hnsw: 'HnswIndex' };
export const REMOTE_SEARCH_OPTIONS = Object.fromEntries(
  Object.entries(SEARCH_OPTIONS).map(([kind, s]) => [kind, extend(`remote ${KIND_NAMES[kind]} search()`, s, TRANSFER)]),
);
export const REMOTE_ADD_OPTIONS = Object.fromEntries(
  Object.entries(ADD_OPTIONS).map(([kind, s]) => [
    kind,
    extend(`remote ${KIND_NAMES[kind]} add()`, s, TRANSFER, PROGRESS),
  ]),
);
export const REMOTE_LOAD_OPTIONS = schema('remote load()', {
  ...TRANSFER,
  signal: signal(),
  onProgress: func(),
  size: size(),
});

// Persistence helpers.
const quiver = () => object('a module from Quiver.init() or a worker from spawn()');
export const LOAD_FROM_FILE_OPTIONS = schema('loadFromFile()', { quiver: quiver() });
export const OPFS_LOAD_OPTIONS = schema('loadFromOpfs()', { quiver: quiver() });
export const IDB_OPTIONS = schema('IndexedDB helpers', { database: name(), store: name() });
export const IDB_LOAD_OPTIONS = schema('loadFromIndexedDB()', { quiver: quiver(), database: name(), store: name() });

// ---- collections (kinds/collection.js) ---------------------------------------------------------

// A plain object (not an array, null or a typed array): filters, metadata, a collection's fields
// and its index options. What is inside is checked by the call (and by the C++ side).
export const plainObject = (what) => (value, key) => {
  if (typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw invalid(`${key} must be ${what}, got ${describe(value)}`);
  }
  return value;
};
// A string ('' allowed: the namespace '' is "none").
export const text = () => (value, key) => {
  if (typeof value !== 'string') throw invalid(`${key} must be a string, got ${describe(value)}`);
  return value;
};
// A record id: a string, or an integer in [0, 2^53 - 1] (7 and '7' are different ids).
export const recordId = () => (value, key) => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER) {
    return value;
  }
  throw invalid(`${key} must be a string or an integer in [0, 2^53 - 1], got ${describe(value)}`);
};
// topK: as the k of an index search (INVALID_K, like the C++ check).
const topK = () => (value, key) => {
  if (!Number.isInteger(value) || value < 1 || value > MAX_U32) {
    throw new QuiverError('INVALID_K', `${key} must be an integer in [1, 2^32 - 1], got ${describe(value)}`);
  }
  return value;
};

// The index kinds a collection can sit on, and the options of each: those of the kind's class
// (INDEX_OPTIONS) but dim and metric, which are the collection's own.
const without = (fields, ...keys) => Object.fromEntries(Object.entries(fields).filter(([k]) => !keys.includes(k)));
export const COLLECTION_KINDS = Object.freeze(Object.keys(INDEX_OPTIONS));
export const COLLECTION_INDEX_OPTIONS = Object.fromEntries(
  COLLECTION_KINDS.map((kind) => [
    kind,
    schema(`Collection.create() options of a ${kind} index`, without(INDEX_OPTIONS[kind].fields, 'dim', 'metric')),
  ]),
);
export const FIELD_TYPES = Object.freeze(['string', 'number', 'boolean', 'tags']);
export const COLLECTION_OPTIONS = schema('Collection.create()', {
  dim: dim(),
  metric: metric(),
  index: oneOf(...COLLECTION_KINDS),
  options: plainObject("an object of the index kind's options"),
  fields: plainObject('an object of field name -> type (string, number, boolean, tags)'),
});
// One record of upsert() / insert(); values are checked by the call (inputs.js toVectors).
export const COLLECTION_RECORD = schema('a Collection record', {
  id: recordId(),
  values: (value) => value,
  metadata: plainObject('an object'),
  namespace: text(),
});
// Record i of an upsert / insert (`call` names it in messages): an object of COLLECTION_RECORD's
// keys that has an id; its values' shape is the caller's to check. Used by the collection and by
// the sharded router, so both refuse the same records with the same words.
export function readRecord(record, i, call) {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw invalid(
      `${call}: record ${i} must be an object { id, values, metadata?, namespace? }, got ${describe(record)}`,
    );
  }
  let r;
  try {
    r = readOptions(record, COLLECTION_RECORD);
  } catch (e) {
    // The schema's own name ('a Collection record: ') gives way to the record's position.
    throw new QuiverError(e.code, `${call}: record ${i}: ${e.message.replace(/^a Collection record: /, '')}`);
  }
  if (r.id === undefined) throw invalid(`${call}: record ${i} has no id`);
  return r;
}
export const COLLECTION_GET_OPTIONS = schema('Collection getByIds()', { returnValues: boolean() });
// query(): the collection's options plus the search knobs of its kind (SEARCH_OPTIONS but
// allow: the filter sets the allow list).
const QUERY_FIELDS = {
  topK: topK(),
  filter: plainObject('a filter object'),
  namespace: text(),
  returnValues: boolean(),
  returnMetadata: boolean(),
};
export const COLLECTION_QUERY_OPTIONS = Object.fromEntries(
  COLLECTION_KINDS.map((kind) => [
    kind,
    schema(`Collection query() on a ${kind} index`, {
      ...QUERY_FIELDS,
      ...without(SEARCH_OPTIONS[kind].fields, 'allow'),
    }),
  ]),
);
// The worker-hosted calls: the same plus `transfer`.
export const REMOTE_COLLECTION_QUERY_OPTIONS = Object.fromEntries(
  Object.entries(COLLECTION_QUERY_OPTIONS).map(([kind, s]) => [
    kind,
    extend(`remote Collection query() on a ${kind} index`, s, TRANSFER),
  ]),
);
export const REMOTE_COLLECTION_WRITE_OPTIONS = schema('remote Collection upsert() / insert() / load()', TRANSFER);
// Collection.create(options, target): where the collection goes.
export const COLLECTION_TARGET_OPTIONS = schema('Collection.create() target', {
  quiver: object('a module from Quiver.init() or a worker from spawn()'),
});

// ---- the sharded collection (js/cloudflare) ---------------------------------------------------

// What a query does when a shard does not answer in time: 'error' (QuiverError
// SHARD_UNAVAILABLE naming the shards) or 'partial' (the merged answer of the others, marked).
const onPartial = () => oneOf('error', 'partial');
const deadlineMs = () => integer(1, 3600000);
// new QuiverRouter(namespace, options): the collection's name (the shards are the Durable
// Objects named "<name>/<shard>"), the shard count, the collection every shard holds
// (Collection.create()'s options) and how records are placed.
export const ROUTER_OPTIONS = schema('new QuiverRouter()', {
  name: name(),
  shards: integer(1, 1024),
  collection: plainObject("an object of Collection.create()'s options"),
  placement: oneOf('id', 'namespace'),
  deadlineMs: deadlineMs(),
  onPartial: onPartial(),
});
export const ROUTER_DEADLINE_OPTIONS = { deadlineMs: deadlineMs(), onPartial: onPartial() };
// query(): the collection's query options of the kind plus the deadline's.
export const ROUTER_QUERY_OPTIONS = Object.fromEntries(
  COLLECTION_KINDS.map((kind) => [
    kind,
    extend(`QuiverRouter query() on a ${kind} index`, COLLECTION_QUERY_OPTIONS[kind], ROUTER_DEADLINE_OPTIONS),
  ]),
);
// getByIds() / deleteByIds(): the namespace the ids are in (placement 'namespace' only).
export const ROUTER_GET_OPTIONS = schema('QuiverRouter getByIds()', {
  returnValues: boolean(),
  namespace: text(),
  deadlineMs: deadlineMs(),
});
export const ROUTER_DELETE_OPTIONS = schema('QuiverRouter deleteByIds()', {
  namespace: text(),
  deadlineMs: deadlineMs(),
});
export const ROUTER_WRITE_OPTIONS = schema('QuiverRouter upsert() / insert()', { deadlineMs: deadlineMs() });
