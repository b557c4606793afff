// What every index class of the package shares: ownership of the C++ object (dispose,
// Symbol.dispose), input conversion and staging for add/remove/search, reading results out
// of the heap, serialize() and loading from bytes. FlatIndex (flat-index.js) and
// QuantizedIndex (quantized-index.js) extend the class made here and add only what differs.
import { QuiverError, checked } from './errors.js';
import { checkK, toIds, toLookupId, toVectors } from './inputs.js';
import { NEIGHBOR_BYTES, heapAlloc } from './staging.js';
import { loadFromBytes } from './stream-load.js';

export { NEIGHBOR_BYTES, checkK };
// new SomeIndex({ [FROM_NATIVE]: handle }) wraps a C++ index made by a loader.
export const FROM_NATIVE = Symbol('fromNative');

// Index file bytes from a Uint8Array, an ArrayBuffer or any other typed array view.
export function toBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && bytes instanceof SharedArrayBuffer)) {
    return new Uint8Array(bytes);
  }
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new QuiverError('INVALID_ARGUMENT', 'index bytes must be a Uint8Array, an ArrayBuffer or a typed array');
}

// Copies bytes into a temporary heap block for fn(ptr, length), then frees it.
export function withHeapBytes(mod, staging, bytes, fn) {
  const data = toBytes(bytes);
  const ptr = heapAlloc(mod, data.length, 'the index file');
  if (!ptr) throw new QuiverError('OUT_OF_MEMORY', `out of memory copying ${data.length} bytes into the module`);
  try {
    staging.putBytes(ptr, data);
    return fn(ptr, data.length);
  } finally {
    mod._free(ptr);
  }
}

// Warns (once per object) about an index that was garbage-collected without dispose(): its
// C++ memory stays allocated in the wasm heap until the module ends. Only a warning, never a
// free: the collector runs at unpredictable times, on objects other code may still reach
// through the module.
const leaks = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((what) => {
    console.warn(`quiver: a ${what} was garbage-collected without dispose(); its wasm memory leaked (call index.dispose() or use \`using\`)`);
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

    get dim() { return this.live().dim(); }
    get metric() { return this.live().metric(); }
    get isa() { return this.live().isa(); }
    get variant() { return variantName; }
    get size() { return this.live().size(); }
    get memoryBytes() { return this.live().memoryBytes(); }

    add(ids, vectors) {
      this.addWith(ids, vectors, (native, idPtr, vecPtr, n) => native.add(idPtr, vecPtr, n));
    }

    // Converts and stages ids and vectors, checks that their counts agree, then lets
    // call(native, idsPtr, vectorsPtr, n) run the C++ add (subclasses pass extra options).
    addWith(ids, vectors, call) {
      const native = this.live();
      const idArray = toIds(ids);
      const data = toVectors(vectors, native.dim());
      if (data.length !== idArray.length * native.dim()) {
        throw new QuiverError('DIMENSION_MISMATCH',
          `${idArray.length} ids but ${data.length / native.dim()} vectors of dimension ${native.dim()}`);
      }
      staging.addInSlices(native, idArray, data, native.dim(), call);  // bounded staging, all or nothing
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

    // One query: stages it, lets call(queryPtr, k', outPtr) run the C++ search with
    // k' = min(k, size) (results never exceed it, so neither the staging nor the C++ search
    // context is sized by a huge k), and returns the real hits { ids: Float64Array,
    // distances: Float32Array }, closest first, ties by id (at most k of them).
    searchWith(query, k, call) {
      const native = this.live();
      checkK(k);
      const q = toVectors(query, native.dim(), 'query');
      if (q.length !== native.dim()) {
        throw new QuiverError('DIMENSION_MISMATCH',
          `query has ${q.length} values, the index dimension is ${native.dim()}`);
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

    // A subclass's static load(bytes): a file of that kind, fed to the C++ stream loader a
    // slice at a time (stream-load.js), so the file is never copied whole into the heap.
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

    get disposed() { return this.#native === null; }
  }
  // `using index = new FlatIndex(...)` where the engine has explicit resource management.
  if (Symbol.dispose) IndexBase.prototype[Symbol.dispose] = IndexBase.prototype.dispose;
  return IndexBase;
}
