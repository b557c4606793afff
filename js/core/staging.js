// Persistent staging buffers in the wasm heap. Typed arrays from the caller are copied into
// them, the C++ side reads them by pointer, results are copied out: no per-call allocation
// once a buffer is big enough, and no std::vector or JS array crosses the boundary.
//
// Heap addresses are unsigned: past 2 GiB a wasm32 pointer comes back from an export as a
// negative i32, so every pointer is taken `>>> 0` and byte counts are plain numbers (never
// `| 0`, which wraps past 2^31).
import { QuiverError, checked } from './errors.js';

// The most one block can hold: wasm32 memory ends at 4 GiB (minus the module's own data).
export const MAX_BLOCK_BYTES = 2 ** 32 - 2 ** 16;
// What staging may keep between calls, all blocks together; the rest is handed back to the
// C++ heap after the call that needed it, so one big batch does not keep memory away from
// the indexes for the life of the module.
const KEEP_BYTES = 8 * 2 ** 20;
// Slack for buffers that grow a little from call to call, capped so that a big request does
// not grow the (never shrinking) wasm memory by half again.
const MAX_SLACK_BYTES = 2 ** 20;
// An add() whose vectors take more than this reaches wasm in slices of at most this size (see
// addInSlices), so staging never holds a whole large batch beside the index it grows.
export const ADD_SLICE_BYTES = 4 * 2 ** 20;
const MAX_ID = 2 ** 53 - 1;
// 16-byte {u64 id, f32 distance, 4 bytes padding} records written by the C++ search.
export const NEIGHBOR_BYTES = 16;
const NO_ID_WORD = 0xffffffff; // both halves of kNoId (UINT64_MAX): a padded slot

// malloc(bytes) as an unsigned address, or 0. Refuses sizes the heap cannot hold before
// they reach malloc (whose size_t argument would wrap modulo 2^32).
export function heapAlloc(mod, bytes, what) {
  if (!(bytes >= 0) || !Number.isFinite(bytes)) {
    throw new QuiverError('INVALID_ARGUMENT', `${what}: ${bytes} is not a byte count`);
  }
  if (bytes > MAX_BLOCK_BYTES) {
    throw new QuiverError(
      'OUT_OF_MEMORY',
      `${what} needs ${bytes} bytes, more than a wasm32 heap (4 GiB) can hold; nothing was changed`,
    );
  }
  return mod._malloc(Math.max(1, bytes)) >>> 0;
}

export class Staging {
  constructor(mod) {
    this.mod = mod;
    this.slots = new Map(); // name -> { ptr, bytes }
  }

  // A heap block of at least `bytes` for `name`, 16-byte aligned (malloc's guarantee).
  // Throws QuiverError OUT_OF_MEMORY (and keeps no stale block) if the heap cannot give it.
  reserve(name, bytes) {
    const slot = this.slots.get(name);
    if (slot && slot.bytes >= bytes) return slot.ptr;
    const what = `staging ${name}`;
    if (slot) {
      this.slots.delete(name);
      this.mod._free(slot.ptr);
    }
    const wanted = Math.max(64, bytes);
    const roomy = Math.min(MAX_BLOCK_BYTES, wanted + Math.min(Math.ceil(wanted / 2), MAX_SLACK_BYTES));
    let ptr = heapAlloc(this.mod, roomy, what);
    let size = roomy;
    if (!ptr) {
      ptr = heapAlloc(this.mod, wanted, what);
      size = wanted;
    }
    if (!ptr) {
      throw new QuiverError('OUT_OF_MEMORY', `out of memory reserving ${bytes} bytes for ${what}; nothing was changed`);
    }
    this.slots.set(name, { ptr, bytes: size });
    return ptr;
  }

  // Bytes held by the blocks kept now.
  keptBytes() {
    let total = 0;
    for (const { bytes } of this.slots.values()) total += bytes;
    return total;
  }

  // Frees blocks, largest first, until what stays kept is at most KEEP_BYTES in all: one
  // call may stage several large blocks (queries, results, an allow-list), each under the
  // limit on its own. Every public call ends with this (in a finally, so a refused call too).
  trim() {
    let kept = this.keptBytes();
    if (kept <= KEEP_BYTES) return;
    const largestFirst = [...this.slots].sort((a, b) => b[1].bytes - a[1].bytes);
    for (const [name, slot] of largestFirst) {
      if (kept <= KEEP_BYTES) break;
      this.slots.delete(name);
      this.mod._free(slot.ptr);
      kept -= slot.bytes;
    }
  }

  // Heap views, rebuilt whenever memory has grown. With threads another thread can grow the
  // shared memory, so compare against the memory's current buffer rather than trusting
  // Emscripten's main-thread views.
  #views() {
    const buffer = this.mod.wasmMemory ? this.mod.wasmMemory.buffer : this.mod.HEAPU8.buffer;
    if (this.buffer !== buffer || this.viewBytes !== buffer.byteLength) {
      this.buffer = buffer;
      this.viewBytes = buffer.byteLength;
      this.views = {
        u8: new Uint8Array(buffer),
        u32: new Uint32Array(buffer),
        f32: new Float32Array(buffer),
        f64: new Float64Array(buffer),
      };
    }
    return this.views;
  }

  get u8() {
    return this.#views().u8;
  }
  get u32() {
    return this.#views().u32;
  }
  get f32() {
    return this.#views().f32;
  }
  get f64() {
    return this.#views().f64;
  }

  putFloat32(name, data) {
    const ptr = this.reserve(name, data.length * 4);
    this.f32.set(data, ptr / 4);
    return ptr;
  }

  putFloat64(name, data) {
    const ptr = this.reserve(name, data.length * 8);
    this.f64.set(data, ptr / 8);
    return ptr;
  }

  // A copy of n heap bytes at ptr.
  copyBytes(ptr, n) {
    const start = ptr >>> 0;
    return this.u8.slice(start, start + n);
  }

  // Reads `count` 16-byte {u64 id, f32 distance} records at ptr (all real hits).
  readNeighbors(ptr, count) {
    const ids = new Float64Array(count);
    const distances = new Float32Array(count);
    const u32 = this.u32;
    const f32 = this.f32;
    let w = (ptr >>> 0) / 4;
    for (let i = 0; i < count; i++, w += 4) {
      ids[i] = u32[w + 1] * 4294967296 + u32[w];
      distances[i] = f32[w + 2];
    }
    return { ids, distances };
  }

  // Reads nq rows of `width` records that start `stride` records apart at ptr. A padded slot
  // (id kNoId, the C++ "no result") reads as id -1 and distance Infinity; counts[q] is the
  // number of real hits in row q (they come first).
  readRows(ptr, nq, stride, width) {
    const ids = new Float64Array(nq * width);
    const distances = new Float32Array(nq * width);
    const counts = new Uint32Array(nq);
    const u32 = this.u32;
    const f32 = this.f32;
    const base = (ptr >>> 0) / 4;
    for (let q = 0; q < nq; q++) {
      let w = base + q * stride * 4;
      let hits = 0;
      for (let j = 0, o = q * width; j < width; j++, o++, w += 4) {
        const lo = u32[w];
        const hi = u32[w + 1];
        if (lo === NO_ID_WORD && hi === NO_ID_WORD) {
          ids[o] = -1;
          distances[o] = Infinity;
        } else {
          ids[o] = hi * 4294967296 + lo;
          distances[o] = f32[w + 2];
          hits++;
        }
      }
      counts[q] = hits;
    }
    return { ids, distances, counts };
  }

  dispose() {
    for (const { ptr } of this.slots.values()) this.mod._free(ptr);
    this.slots.clear();
  }

  // add(ids, vectors) of n rows of `dim` floats to `native`, with `call(native, idsPtr,
  // vectorsPtr, count)` running the C++ add of one staged piece. Up to `sliceBytes` of vectors
  // go in one call, as before. A larger batch goes in slices of at most sliceBytes, all or
  // nothing all the same:
  //   1. every slice's vectors are checked by the C++ rule of add() (checkVectors: NaN/Inf, the
  //      norm bound, zero under cosine) before anything is added;
  //   2. every id is checked: an integer in [0, 2^53 - 1], not repeated, not already present;
  //   3. the slices are added in order. With all input valid, only running out of memory can
  //      fail a slice now; then the rows already added are removed again, last first (the
  //      flat index is then exactly as before; the quantised index keeps their slots on its
  //      free list and HNSW as tombstones, as after any remove).
  // Staging holds one slice at a time, instead of the whole batch beside the index it grows.
  addInSlices(native, ids, vectors, dim, call, sliceBytes = ADD_SLICE_BYTES) {
    const n = ids.length;
    const rows = Math.max(1, Math.floor(sliceBytes / (dim * 4)));
    try {
      if (n <= rows) {
        const idPtr = this.putFloat64('ids', ids);
        const vecPtr = this.putFloat32('vectors', vectors);
        checked(this.mod, call(native, idPtr, vecPtr, n));
        return;
      }
      const metric = native.metric();
      for (let first = 0; first < n; first += rows) {
        const count = Math.min(rows, n - first);
        const vecPtr = this.putFloat32('vectors', vectors.subarray(first * dim, (first + count) * dim));
        checked(this.mod, this.mod.checkVectors(vecPtr, count, dim, metric, first));
      }
      const seen = new Set();
      for (let i = 0; i < n; i++) {
        const id = ids[i];
        if (!(Number.isInteger(id) && id >= 0 && id <= MAX_ID)) {
          throw new QuiverError('INVALID_ARGUMENT', `id at position ${i} is not an integer in [0, 2^53 - 1]`);
        }
        if (seen.has(id) || native.has(id)) {
          throw new QuiverError(
            'DUPLICATE_ID',
            seen.has(id) ? `id ${id} appears twice in one add` : `id ${id} is already in the index`,
          );
        }
        seen.add(id);
      }
      let added = 0;
      try {
        for (; added < n; added += rows) {
          const count = Math.min(rows, n - added);
          const idPtr = this.putFloat64('ids', ids.subarray(added, added + count));
          const vecPtr = this.putFloat32('vectors', vectors.subarray(added * dim, (added + count) * dim));
          checked(this.mod, call(native, idPtr, vecPtr, count));
        }
      } catch (e) {
        if (added > 0) {
          const undo = ids.slice(0, added).reverse();
          for (let at = 0; at < undo.length; at += rows) {
            const part = undo.subarray(at, Math.min(at + rows, undo.length));
            native.remove(this.putFloat64('ids', part), part.length);
          }
        }
        throw e;
      }
    } finally {
      this.trim();
    }
  }
}
