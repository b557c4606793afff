// What every index class of the package shares: ownership of the C++ object (dispose,
// Symbol.dispose), input conversion and staging for add/remove/search, the search options
// every kind reads the same way, reading results out of the heap, serialize() and loading
// from bytes. FlatIndex (flat-index.js), QuantizedIndex (quantized-index.js) and HnswIndex
// (hnsw-index.js) extend the class made here and add only their constructor, the search
// options they take (a static list) and their own properties. The C++ side is one binding
// template for every kind (bindings/quiver_bindings.cpp), so every call has one shape.
import { QuiverError, checked } from '../core/errors.js';
import { checkK, toIds, toLookupId, toVectors } from '../core/inputs.js';
import { readOptions } from '../core/options.js';
import { NEIGHBOR_BYTES } from '../core/staging.js';
import { loadFromBytes } from '../io/stream-load.js';

// The rerank option (checked by the kind's search schema, options.js) as the binding takes it:
// -1 for absent (the kind's default), else the depth; HnswIndex's older switch true / false
// means absent / 0.
export function rerankDepth(rerank) {
  if (rerank === undefined || rerank === true) return -1;
  if (rerank === false) return 0;
  return rerank;
}
// new SomeIndex({ [FROM_NATIVE]: handle }) wraps a C++ index made by a loader.
export const FROM_NATIVE = Symbol('fromNative');

// Index file bytes from a Uint8Array, an ArrayBuffer or any other typed array view.
export function toBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (
    bytes instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && bytes instanceof SharedArrayBuffer)
  ) {
    return new Uint8Array(bytes);
  }
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new QuiverError('INVALID_ARGUMENT', 'index bytes must be a Uint8Array, an ArrayBuffer or a typed array');
}

// Warns (once per object) about an index that was garbage-collected without dispose(): its
// C++ memory stays allocated in the wasm heap until the module ends. Only a warning, never a
// free: the collector runs at unpredictable times, on objects other code may still reach
// through the module.
const leaks =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((what) => {
        console.warn(
          `quiver: a ${what} was garbage-collected without dispose(); its wasm memory leaked (call index.dispose() or use \`using\`)`,
        );
      })
    : null;

// The base class for one loaded module. Subclasses construct with `super(native)` and reach
// the C++ object through `this.live()` (which throws DISPOSED after dispose()).
export function makeIndexBase(mod, staging, variantName) {
  class IndexBase {
    #native;

    constructor(native) {
      this.#native = native;
      leaks?.register(this, `${new.target.name} (dim ${native.dim()})`, this);
    }

    live() {
      if (!this.#native) throw new QuiverError('DISPOSED', 'this index has been disposed');
      return this.#native;
    }

    get dim() {
      return this.live().dim();
    }
    get metric() {
      return this.live().metric();
    }
    get isa() {
      return this.live().isa();
    }
    get variant() {
      return variantName;
    }
    get size() {
      return this.live().size();
    }
    get memoryBytes() {
      return this.live().memoryBytes();
    }

    // All-or-nothing: a bad id or vector throws and adds nothing. Options: the kind's add
    // schema (options.js); HnswIndex takes threads (pool workers the insertion may use, 0 or
    // absent: all), the others none — any key is refused.
    add(ids, vectors, options) {
      const native = this.live();
      const { threads = 0 } = readOptions(options, this.constructor.addSchema);
      const idArray = toIds(ids);
      const data = toVectors(vectors, native.dim());
      if (data.length !== idArray.length * native.dim()) {
        throw new QuiverError(
          'DIMENSION_MISMATCH',
          `${idArray.length} ids but ${data.length / native.dim()} vectors of dimension ${native.dim()}`,
        );
      }
      // Bounded staging, all or nothing (staging.js).
      staging.addInSlices(native, idArray, data, native.dim(), (n, idPtr, vecPtr, count) =>
        n.add(idPtr, vecPtr, count, threads),
      );
    }

    remove(ids) {
      const native = this.live();
      const idArray = toIds(ids);
      try {
        const idPtr = staging.putFloat64('ids', idArray);
        checked(mod, native.remove(idPtr, idArray.length));
      } finally {
        staging.trim();
      }
    }

    // A number or bigint; other types throw INVALID_ARGUMENT (no coercion of '1' to 1).
    has(id) {
      const native = this.live();
      return native.has(toLookupId(id));
    }

    // The search options the binding takes, in its order: [ef, rerank, probes, allowPtr,
    // allowCount]. The kind's search schema (static searchSchema, options.js) says which keys
    // it takes and checks them: any other key is refused, never ignored. The allow list goes to
    // its own staging slot.
    stageSearchOptions(options) {
      const o = readOptions(options, this.constructor.searchSchema);
      const ef = o.ef ?? 0;
      const rerank = rerankDepth(o.rerank);
      const probes = o.probes ?? 0;
      if (o.allow === undefined) return [ef, rerank, probes, 0, 0];
      return [ef, rerank, probes, staging.putFloat64('allow', o.allow), o.allow.length];
    }

    // { ids: Float64Array, distances: Float32Array }: the real hits, closest first, ties by id
    // (at most k; fewer only if `allow` admits fewer). The options a kind takes are in its
    // class (searchOptions) and the package types (index.d.ts).
    search(query, k = 10, options) {
      const native = this.live();
      try {
        const opts = this.stageSearchOptions(options);
        return this.searchWith(query, k, (q, kk, out) => native.search(q, kk, out, ...opts));
      } finally {
        staging.trim(); // also when the query or k is refused after the allow-list was staged
      }
    }

    // { ids, distances, k, count, counts }: every row has k = min(k, size) slots, its hits
    // first, then padding (id -1, distance Infinity); counts[q] = hits in row q. Parallel in
    // simd-mt.
    searchBatch(queries, k = 10, options) {
      const native = this.live();
      try {
        const opts = this.stageSearchOptions(options);
        return this.searchBatchWith(queries, k, (qs, nq, kk, out) => native.searchBatch(qs, nq, kk, out, ...opts));
      } finally {
        staging.trim();
      }
    }

    // One query: stages it, lets call(queryPtr, k', outPtr) run the C++ search with
    // k' = min(k, size) (results never exceed it, so neither the staging nor the C++ search
    // context is sized by a huge k), and returns the real hits { ids: Float64Array,
    // distances: Float32Array }, closest first, ties by id (at most k of them).
    searchWith(query, k, call) {
      const native = this.live();
      checkK(k);
      const q = toVectors(query, native.dim(), 'query');
      if (q.length !== native.dim()) {
        throw new QuiverError(
          'DIMENSION_MISMATCH',
          `query has ${q.length} values, the index dimension is ${native.dim()}`,
        );
      }
      const kk = Math.max(1, Math.min(k, native.size()));
      try {
        const qPtr = staging.putFloat32('query', q);
        const outPtr = staging.reserve('out', kk * NEIGHBOR_BYTES);
        const count = checked(mod, call(qPtr, kk, outPtr));
        return staging.readNeighbors(outPtr, count);
      } finally {
        staging.trim();
      }
    }

    // nq queries: call(queriesPtr, nq, k', outPtr) runs the C++ batch with k' = min(k, size)
    // and returns k'. Every row has k' slots: its hits first, closest first, then padding
    // (id -1, distance Infinity) where the row has fewer (a filter, or a graph that could not
    // reach k' nodes). Row q occupies [q * k', (q + 1) * k') of ids and distances and
    // counts[q] is its number of hits; returns { ids, distances, k: k', count: nq, counts }.
    searchBatchWith(queries, k, call) {
      const native = this.live();
      const dim = native.dim();
      checkK(k);
      const qs = toVectors(queries, dim, 'queries');
      const nq = qs.length / dim;
      const kk = Math.max(1, Math.min(k, native.size()));
      try {
        const qPtr = staging.putFloat32('queries', qs);
        const outPtr = staging.reserve('out', nq * kk * NEIGHBOR_BYTES);
        const width = checked(mod, call(qPtr, nq, kk, outPtr));
        const { ids, distances, counts } = staging.readRows(outPtr, nq, kk, width);
        return { ids, distances, k: width, count: nq, counts };
      } finally {
        staging.trim();
      }
    }

    // The index file (Uint8Array): the same bytes as serialize() natively.
    serialize() {
      const native = this.live();
      const n = checked(mod, native.serialize());
      try {
        return staging.copyBytes(native.serializedBytes(), n);
      } finally {
        native.releaseSerialized();
      }
    }

    // An instance of the class it is called on around a C++ index a loader made (stream-load.js).
    static fromNative(native) {
      return new this({ [FROM_NATIVE]: native });
    }

    // Reads index file bytes written by serialize() or natively (quiver build, save()) into
    // the subclass it is called on (FlatIndex.load(bytes), ...); its static nativeClass names
    // the C++ class that reads them.
    static load(bytes) {
      return this.loadAs(this, this.nativeClass, bytes);
    }

    // Cls.load(bytes) through the C++ class `nativeClass`: a file of that kind, fed to the C++
    // stream loader a slice at a time (stream-load.js), so the file is never copied whole into
    // the heap.
    static loadAs(Cls, nativeClass, bytes) {
      const kind = nativeClass === mod.FlatIndex ? 'flat' : nativeClass === mod.QuantizedIndex ? 'quantized' : 'hnsw';
      return loadFromBytes(mod, { [kind]: [Cls, nativeClass] }, toBytes(bytes), kind);
    }

    // Frees the C++ index. Calling it again does nothing; any other use afterwards throws
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
  // What a subclass overrides: its search and add option schemas (options.js) and its C++
  // class (for load).
  IndexBase.searchSchema = null;
  IndexBase.addSchema = null;
  IndexBase.nativeClass = null;
  // `using index = new FlatIndex(...)` where the engine has explicit resource management.
  if (Symbol.dispose) IndexBase.prototype[Symbol.dispose] = IndexBase.prototype.dispose;
  return IndexBase;
}
