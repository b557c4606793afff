// Collection: a vector store over any index kind (the C++ quiver::Collection,
// include/quiver/collection.hpp, through bindings/collection_bindings.cpp). String or integer
// ids, a small JSON metadata record per vector stored in C++, typed column indexes for the
// fields declared filterable, namespaces, and queries whose filter is applied first.
//
//   const docs = q.Collection.create({ dim: 384, metric: 'cosine', index: 'hnsw',
//                                      fields: { lang: 'string', year: 'number', tags: 'tags' } });
//   docs.upsert([{ id: 'doc-1', values, metadata: { lang: 'en', year: 2024, tags: ['news'] } }]);
//   const { matches, plan } = docs.query(vector, { topK: 5, filter: { lang: 'en', year: { $gte: 2020 } } });
//
// What crosses to C++: each record's vector through a staging buffer (n x dim floats), and its
// id, metadata and namespace as JSON text; results come back as JSON text, vectors through a
// staged output buffer. Every option object is checked by its schema (core/options.js): a key
// a call does not take — in create(), query(), getByIds() or a record — is INVALID_ARGUMENT
// naming it, never ignored. Filters are checked by C++ (an unknown operator or an undeclared
// field is INVALID_ARGUMENT). Every call validates first: a refused call changes nothing.
import { QuiverError, checked } from '../core/errors.js';
import { toVectors } from '../core/inputs.js';
import {
  COLLECTION_GET_OPTIONS,
  COLLECTION_INDEX_OPTIONS,
  COLLECTION_OPTIONS,
  COLLECTION_QUERY_OPTIONS,
  FIELD_TYPES,
  readOptions,
  readRecord,
} from '../core/options.js';
import { ADD_SLICE_BYTES, heapAlloc } from '../core/staging.js';
import { rerankDepth, toBytes } from './index-base.js';

const invalid = (message) => new QuiverError('INVALID_ARGUMENT', message);

// The C++ parser reads at most 1 MiB of JSON in one piece (src/collection/json.hpp), so a batch
// goes to C++ in pieces (the binding gathers them into one all-or-nothing write). Text from
// JSON.stringify takes at most 3 UTF-8 bytes per UTF-16 unit (it escapes lone surrogates).
const JSON_PIECE_BYTES = 2 ** 20 - 16;
const utf8Length = (s) => new TextEncoder().encode(s).length;

// The [start, end) ranges of `texts` (JSON texts, one per item) that go to C++ in one piece:
// at most JSON_PIECE_BYTES of JSON (with the brackets and commas) and `rowBytes` x rows of
// staged vectors at most ADD_SLICE_BYTES; at least one item each. tooLong(i) is the error for an
// item that cannot fit on its own.
function pieces(texts, rowBytes, tooLong) {
  const out = [];
  const maxRows = rowBytes > 0 ? Math.max(1, Math.floor(ADD_SLICE_BYTES / rowBytes)) : Infinity;
  let start = 0;
  let bytes = 2;
  for (let i = 0; i < texts.length; i++) {
    let b = 3 * texts[i].length + 1;
    if (b + 2 > JSON_PIECE_BYTES) {
      b = utf8Length(texts[i]) + 1;
      if (b + 2 > JSON_PIECE_BYTES) throw tooLong(i);
    }
    if (i > start && (bytes + b > JSON_PIECE_BYTES || i - start >= maxRows)) {
      out.push([start, i]);
      start = i;
      bytes = 2;
    }
    bytes += b;
  }
  if (start < texts.length) out.push([start, texts.length]);
  return out;
}

const describeValue = (value) =>
  typeof value === 'string'
    ? `'${value}'`
    : value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? (value.constructor?.name ?? 'an object')
          : String(value);

const idText = (id) => (typeof id === 'string' ? JSON.stringify(id) : String(id));

// JSON text of `value` for C++, refusing what JSON would change silently: a number that is not
// finite (JSON.stringify writes null), a bigint, a function or a symbol, and — when `strict`
// (filters) — undefined, which JSON.stringify drops (a filter { lang: undefined } would match
// everything). In metadata an undefined field is left out, as JSON.stringify does.
function toJson(value, what, strict) {
  try {
    return JSON.stringify(value, function (key, v) {
      const t = typeof v;
      const name = key === '' ? what : `${what}: '${key}'`;
      if (t === 'number' && !Number.isFinite(v)) throw invalid(`${name} is ${v} (numbers must be finite)`);
      if (t === 'bigint') throw invalid(`${name} is a bigint (use a number)`);
      if (t === 'function' || t === 'symbol') throw invalid(`${name} is a ${t}, which JSON cannot hold`);
      if (strict && v === undefined) throw invalid(`${name} is undefined (leave it out, or give a value)`);
      return v;
    });
  } catch (e) {
    if (e instanceof QuiverError) throw e;
    throw invalid(`${what} cannot be written as JSON: ${e.message}`);
  }
}

// Ids of getByIds / deleteByIds: an array of strings and integers in [0, 2^53 - 1].
function toRecordIds(ids, call) {
  if (!Array.isArray(ids))
    throw invalid(`${call}: ids must be an array of strings and numbers, got ${describeValue(ids)}`);
  return ids.map((id, i) => {
    if (typeof id === 'string') return JSON.stringify(id);
    if (typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= Number.MAX_SAFE_INTEGER) return String(id);
    throw invalid(
      `${call}: id at position ${i} must be a string or an integer in [0, 2^53 - 1], got ${describeValue(id)}`,
    );
  });
}

// A kind's knob as C++ names it: efConstruction -> ef_construction (M stays M).
const knobName = (key) => key.replace(/[A-Z]/g, (c, at) => (at === 0 ? c : `_${c.toLowerCase()}`));

// Warns (once per object) about a collection that was garbage-collected without dispose(): its
// C++ memory stays allocated in the wasm heap until the module ends (as index-base.js does for
// indexes; never a free).
const leaks =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((what) => {
        console.warn(
          `quiver: a ${what} was garbage-collected without dispose(); its wasm memory leaked (call collection.dispose() or use \`using\`)`,
        );
      })
    : null;

// The Collection class of one loaded module (q.Collection), a subclass of `Base` (index.js's
// Collection, whose static create() is the async one that picks a module).
export function makeCollectionClass(mod, staging, variantName, Base) {
  const token = Symbol('Collection');

  class Collection extends Base {
    #native;
    #kind;
    #metric;
    #querySchema;

    constructor(key, native, kind, metric) {
      super();
      if (key !== token) throw invalid('make a collection with Collection.create(options)');
      this.#native = native;
      this.#kind = kind;
      this.#metric = metric;
      this.#querySchema = COLLECTION_QUERY_OPTIONS[kind];
      leaks?.register(this, `Collection (${kind}, dim ${native.dim()})`, this);
    }

    // Collection.create({ dim, metric = 'cosine', index = 'hnsw', options, fields }):
    //   index    the kind underneath: 'flat' (exact), 'quantized' or 'hnsw'
    //   options  that kind's options, as its class takes them (M, efConstruction, bits, lists,
    //            ...; not dim or metric)
    //   fields   the filterable fields and their types: 'string', 'number', 'boolean', 'tags'
    static create(options) {
      const o = readOptions(options, COLLECTION_OPTIONS);
      if (o.dim === undefined) throw invalid('Collection.create(): dim is required');
      const kind = o.index ?? 'hnsw';
      const metric = o.metric ?? 'cosine';
      const knobs = {};
      for (const [key, value] of Object.entries(readOptions(o.options, COLLECTION_INDEX_OPTIONS[kind]))) {
        knobs[knobName(key)] = value;
      }
      const fields = {};
      for (const [name, type] of Object.entries(o.fields ?? {})) {
        if (type === undefined || type === null) continue;
        if (!FIELD_TYPES.includes(type)) {
          throw invalid(
            `Collection.create(): field '${name}' has type ${describeValue(type)}; the types are ${FIELD_TYPES.join(', ')}`,
          );
        }
        fields[name] = type;
      }
      const json = JSON.stringify({ dim: o.dim, metric, index: kind, knobs, fields });
      return new this(token, checked(mod, mod.Collection.create(json)), kind, metric);
    }

    // A collection from its file (what serialize() or the native library writes: the index's
    // file plus the ids, metadata and field declarations; docs/file-format.md). Everything is
    // validated before it is handed out: CORRUPT, TRUNCATED, CHECKSUM_MISMATCH, ..., and
    // INVALID_ARGUMENT for an index file that holds no collection. The bytes are copied into
    // the heap whole for the load (and freed after it).
    static load(bytes) {
      const data = toBytes(bytes);
      return this.loadParts(data.length, [data]);
    }

    // As load(), from the file in parts: `parts` is an iterable of byte chunks (Uint8Array,
    // ArrayBuffer or a view), consumed one at a time, whose lengths add up to `totalBytes`. Each
    // part is copied into the heap as it comes, so the caller never holds the whole file — a
    // Durable Object shard reads its snapshot from storage this way (js/cloudflare). Parts that
    // add up to less than totalBytes are TRUNCATED, to more CORRUPT; nothing is kept either way.
    static loadParts(totalBytes, parts) {
      if (!Number.isSafeInteger(totalBytes) || totalBytes < 0) {
        throw invalid(`Collection.loadParts(): totalBytes must be a byte count, got ${describeValue(totalBytes)}`);
      }
      if (parts === null || typeof parts !== 'object' || typeof parts[Symbol.iterator] !== 'function') {
        throw invalid(`Collection.loadParts(): parts must be an iterable of byte chunks, got ${describeValue(parts)}`);
      }
      const ptr = heapAlloc(mod, totalBytes, 'a collection file');
      if (!ptr) {
        throw new QuiverError('OUT_OF_MEMORY', `out of memory copying ${totalBytes} bytes of a collection file`);
      }
      let native = null;
      try {
        let at = 0;
        for (const part of parts) {
          const data = toBytes(part);
          if (at + data.length > totalBytes) {
            throw new QuiverError(
              'CORRUPT',
              `the parts hold more than the ${totalBytes} bytes the file was said to have`,
            );
          }
          staging.u8.set(data, ptr + at);
          at += data.length;
        }
        if (at !== totalBytes) {
          throw new QuiverError('TRUNCATED', `the parts hold ${at} of the file's ${totalBytes} bytes`);
        }
        native = checked(mod, mod.Collection.load(ptr, totalBytes));
        const { index, metric } = JSON.parse(checked(mod, native.describe()));
        if (!COLLECTION_QUERY_OPTIONS[index]) {
          throw new QuiverError('UNKNOWN_INDEX_KIND', `the collection's index kind '${index}' has no JS class`);
        }
        const collection = new this(token, native, index, metric);
        native = null;
        return collection;
      } finally {
        native?.delete();
        mod._free(ptr);
      }
    }

    #live() {
      if (!this.#native) throw new QuiverError('DISPOSED', 'this collection has been disposed');
      return this.#native;
    }

    get dim() {
      return this.#live().dim();
    }
    get size() {
      return checked(mod, this.#live().size());
    }
    // Bytes of the index, the ids, the stored metadata and the column indexes (describe().memory).
    get memoryBytes() {
      return checked(mod, this.#live().memoryBytes());
    }
    get metric() {
      this.#live();
      return this.#metric;
    }
    // The index kind underneath: 'flat', 'quantized' or 'hnsw'.
    get index() {
      this.#live();
      return this.#kind;
    }
    get variant() {
      return variantName;
    }

    // Adds the records, replacing those whose id is present (vector, metadata and namespace).
    // records: [{ id, values, metadata?, namespace? }]. All or nothing.
    upsert(records) {
      this.#write(records, 'upsert');
    }
    // As upsert, but an id already present is DUPLICATE_ID (and nothing is added).
    insert(records) {
      this.#write(records, 'insert');
    }

    #write(records, op) {
      const native = this.#live();
      const dim = native.dim();
      const call = `Collection ${op}()`;
      if (!Array.isArray(records)) {
        throw invalid(
          `${call}: records must be an array of { id, values, metadata?, namespace? }, got ${describeValue(records)}`,
        );
      }
      const texts = new Array(records.length);
      const rows = new Array(records.length);
      records.forEach((record, i) => {
        const r = readRecord(record, i, call);
        const name = `record ${i} (id ${idText(r.id)})`;
        if (r.values === undefined) throw invalid(`${call}: ${name} has no values`);
        const flat = (ArrayBuffer.isView(r.values) || Array.isArray(r.values)) && typeof r.values[0] !== 'object';
        const values = flat && r.values.length !== dim ? r.values : toVectors(r.values, dim, `${call}: ${name} values`);
        if (values.length !== dim) {
          throw new QuiverError(
            'DIMENSION_MISMATCH',
            `${call}: ${name} has ${values.length} values, the collection's dimension is ${dim}`,
          );
        }
        rows[i] = values;
        const meta = r.metadata === undefined ? '' : `,"metadata":${toJson(r.metadata, `${name} metadata`, false)}`;
        const ns = r.namespace === undefined ? '' : `,"namespace":${JSON.stringify(r.namespace)}`;
        texts[i] = `{"id":${typeof r.id === 'string' ? JSON.stringify(r.id) : String(r.id)}${meta}${ns}}`;
      });
      if (records.length === 0) return;
      const parts = pieces(texts, dim * 4, (i) =>
        invalid(`${call}: record ${i} is over 1 MiB as JSON (metadata holds at most 10 KiB)`),
      );
      try {
        for (const [start, end] of parts) {
          const n = end - start;
          const ptr = staging.reserve('vectors', n * dim * 4);
          const f32 = staging.f32;
          for (let i = 0; i < n; i++) f32.set(rows[start + i], ptr / 4 + i * dim);
          checked(mod, native.stageRecords(`[${texts.slice(start, end).join(',')}]`, ptr, n, start));
        }
        checked(mod, native[op]());
      } finally {
        native.clearPending();
        staging.trim();
      }
    }

    // The records with these ids, in their order: { id, metadata, namespace?, values? } ({}
    // for a record without metadata; namespace only when it has one), or null for an id not
    // present. returnValues: the stored vectors (Float32Array; normalised under cosine), from
    // a kind that keeps its f32 vectors (flat; HNSW f32 or sq8 with keepVectors; quantised with
    // keepVectors); one that keeps only codes is INVALID_ARGUMENT.
    getByIds(ids, options) {
      const native = this.#live();
      const { returnValues = false } = readOptions(options, COLLECTION_GET_OPTIONS);
      const texts = toRecordIds(ids, 'Collection getByIds()');
      const dim = native.dim();
      const out = [];
      const parts = pieces(texts, returnValues ? dim * 4 : 0, (i) =>
        invalid(`getByIds(): id at position ${i} is too long`),
      );
      try {
        for (const [start, end] of parts) {
          const n = end - start;
          checked(mod, native.stageIds(`[${texts.slice(start, end).join(',')}]`, start));
          const ptr = returnValues ? staging.reserve('out', n * dim * 4) : 0;
          const found = JSON.parse(checked(mod, native.get(returnValues, ptr, returnValues ? n : 0)));
          if (returnValues) {
            const f32 = staging.f32;
            found.forEach((r, i) => {
              if (r) r.values = f32.slice(ptr / 4 + i * dim, ptr / 4 + (i + 1) * dim);
            });
          }
          for (const r of found) out.push(r);
        }
      } finally {
        native.clearPending();
        staging.trim();
      }
      return out;
    }

    // Removes the records; an id not present (or repeated) is UNKNOWN_ID (DUPLICATE_ID) and
    // removes nothing.
    deleteByIds(ids) {
      const native = this.#live();
      const texts = toRecordIds(ids, 'Collection deleteByIds()');
      const parts = pieces(texts, 0, (i) => invalid(`deleteByIds(): id at position ${i} is too long`));
      try {
        for (const [start, end] of parts)
          checked(mod, native.stageIds(`[${texts.slice(start, end).join(',')}]`, start));
        checked(mod, native.remove());
      } finally {
        native.clearPending();
        staging.trim();
      }
    }

    // { matches: [{ id, distance, namespace?, metadata?, values? }], plan: { strategy,
    // matching, total } }: the topK nearest of the records the filter and namespace admit,
    // closest first, never fewer than min(topK, matching). Options: topK (default 10), filter,
    // namespace ('' = the records without one), returnValues, returnMetadata, and the kind's
    // search knobs (ef on hnsw, probes on quantized, rerank).
    query(vector, options) {
      const native = this.#live();
      const o = readOptions(options, this.#querySchema);
      const dim = native.dim();
      const topK = o.topK ?? 10;
      const q = toVectors(vector, dim, 'query');
      if (q.length !== dim) {
        throw new QuiverError(
          'DIMENSION_MISMATCH',
          `query has ${q.length} values, the collection's dimension is ${dim}`,
        );
      }
      const filter = o.filter === undefined ? '' : toJson(o.filter, 'filter', true);
      const returnValues = o.returnValues ?? false;
      const rows = returnValues ? Math.max(1, Math.min(topK, checked(mod, native.size()))) : 0;
      try {
        const qPtr = staging.putFloat32('query', q);
        const outPtr = returnValues ? staging.reserve('out', rows * dim * 4) : 0;
        const text = checked(
          mod,
          native.query(
            qPtr,
            q.length,
            topK,
            filter,
            o.namespace !== undefined,
            o.namespace ?? '',
            returnValues,
            o.returnMetadata ?? false,
            o.ef ?? 0,
            rerankDepth(o.rerank),
            o.probes ?? 0,
            outPtr,
            rows,
          ),
        );
        const result = JSON.parse(text);
        if (returnValues) {
          const f32 = staging.f32;
          result.matches.forEach((m, i) => {
            m.values = f32.slice(outPtr / 4 + i * dim, outPtr / 4 + (i + 1) * dim);
          });
        }
        return result;
      } finally {
        staging.trim();
      }
    }

    // The collection's file (Uint8Array): the same bytes as Collection::serialize() natively;
    // Collection.load(bytes) here or the native library (quiver collection query) reads it.
    serialize() {
      const native = this.#live();
      const n = checked(mod, native.serialize());
      try {
        return staging.copyBytes(native.serializedBytes(), n);
      } finally {
        native.releaseSerialized();
      }
    }

    // The same file as serialize(), handed to onPart(bytes) in parts of at most partBytes (each
    // a fresh Uint8Array), so the caller never holds the whole file in JS — a shard writes its
    // snapshot to storage this way (js/cloudflare). Returns the file's length. If onPart
    // throws, the rest is not handed out and the error propagates.
    serializeParts(partBytes, onPart) {
      if (!Number.isSafeInteger(partBytes) || partBytes < 1) {
        throw invalid(`serializeParts(): partBytes must be a positive integer, got ${describeValue(partBytes)}`);
      }
      if (typeof onPart !== 'function') throw invalid('serializeParts(): onPart must be a function');
      const native = this.#live();
      const n = checked(mod, native.serialize());
      try {
        const ptr = native.serializedBytes();
        for (let at = 0; at < n; at += partBytes) onPart(staging.copyBytes(ptr + at, Math.min(partBytes, n - at)));
        return n;
      } finally {
        native.releaseSerialized();
      }
    }

    // { size, dim, metric, index, indexDetail, fields: { name: type }, namespaces,
    //   memory: { index, ids, metadata, columns, total } } (bytes).
    describe() {
      return JSON.parse(checked(mod, this.#live().describe()));
    }

    // Frees the C++ collection. Calling it again does nothing; any other use afterwards throws
    // QuiverError DISPOSED.
    dispose() {
      if (this.#native) {
        leaks?.unregister(this);
        this.#native.delete();
        this.#native = null;
      }
    }

    get disposed() {
      return this.#native === null;
    }
  }
  // `using docs = q.Collection.create(...)` where the engine has explicit resource management.
  if (Symbol.dispose) Collection.prototype[Symbol.dispose] = Collection.prototype.dispose;
  return Collection;
}
