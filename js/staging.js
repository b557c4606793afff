// Persistent staging buffers in the wasm heap. Typed arrays from the caller are copied into
// them, the C++ side reads them by pointer, results are copied out: no per-call allocation
// once a buffer is big enough, and no std::vector or JS array crosses the boundary.
export class Staging {
  constructor(mod) {
    this.mod = mod;
    this.slots = new Map(); // name -> { ptr, bytes }
  }

  // A heap block of at least `bytes` for `name`, 16-byte aligned (malloc's guarantee).
  reserve(name, bytes) {
    let slot = this.slots.get(name);
    if (slot && slot.bytes >= bytes) return slot.ptr;
    if (slot) this.mod._free(slot.ptr);
    const size = Math.max(64, bytes * 1.5) | 0;
    const ptr = this.mod._malloc(size);
    if (!ptr) throw new Error('out of memory reserving a staging buffer');
    this.slots.set(name, { ptr, bytes: size });
    return ptr;
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

  get u8() { return this.#views().u8; }
  get u32() { return this.#views().u32; }
  get f32() { return this.#views().f32; }
  get f64() { return this.#views().f64; }

  putFloat32(name, data) {
    const ptr = this.reserve(name, data.length * 4);
    this.f32.set(data, ptr >>> 2);
    return ptr;
  }

  putFloat64(name, data) {
    const ptr = this.reserve(name, data.length * 8);
    this.f64.set(data, ptr >>> 3);
    return ptr;
  }

  // Reads `count` 16-byte {u64 id, f32 distance} records at ptr.
  readNeighbors(ptr, count) {
    const ids = new Float64Array(count);
    const distances = new Float32Array(count);
    const u32 = this.u32;
    const f32 = this.f32;
    let w = ptr >>> 2;
    for (let i = 0; i < count; i++, w += 4) {
      ids[i] = u32[w + 1] * 4294967296 + u32[w];
      distances[i] = f32[w + 2];
    }
    return { ids, distances };
  }

  dispose() {
    for (const { ptr } of this.slots.values()) this.mod._free(ptr);
    this.slots.clear();
  }
}
