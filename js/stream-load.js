// Loading an index file from a Response (fetch, R2, the Cache API), a ReadableStream or a Blob
// without holding the whole file in JS: the chunks are copied into one wasm heap block as they
// arrive, the C++ loader reads the block, and the block is freed. When the length is known
// (Content-Length, Blob.size, or the `size` option) the block has that size from the start;
// otherwise it grows by half again when full (a heap-to-heap copy).
//
// Peak memory of a load: the file once in the wasm heap plus the index the C++ loader builds
// from it (plus one network chunk in JS), instead of the file in JS + a heap copy + the index.
import { QuiverError, checked } from './errors.js';
import { heapAlloc } from './staging.js';
import { FROM_NATIVE } from './index-base.js';

const UNKNOWN_LENGTH_START = 1 << 20;

export function isStreamSource(source) {
  return (typeof Response === 'function' && source instanceof Response)
    || (typeof ReadableStream === 'function' && source instanceof ReadableStream)
    || (typeof Blob === 'function' && source instanceof Blob);
}

function streamOf(source, size) {
  if (typeof Response === 'function' && source instanceof Response) {
    if (!source.ok) throw new QuiverError('IO_ERROR', `the index response failed: HTTP ${source.status}`);
    if (!source.body) return { stream: null, size: 0 };
    // A compressed body is longer than its Content-Length: then the block grows as needed.
    const declared = Number(source.headers.get('content-length'));
    return { stream: source.body, size: size ?? (declared > 0 ? declared : undefined) };
  }
  if (typeof Blob === 'function' && source instanceof Blob) return { stream: source.stream(), size: size ?? source.size };
  return { stream: source, size };
}

function heapU8(mod) {
  return new Uint8Array(mod.wasmMemory ? mod.wasmMemory.buffer : mod.HEAPU8.buffer);
}

// heapAlloc refuses a size past the wasm32 heap before malloc (its size_t argument would
// wrap: a declared size of 2^32 + 64 gave a 64-byte block that the stream then overran).
function malloc(mod, bytes) {
  const ptr = heapAlloc(mod, bytes, 'an index file');
  if (!ptr) throw new QuiverError('OUT_OF_MEMORY', `out of memory reserving ${bytes} bytes for an index file`);
  return ptr;
}

// { ptr, length }: the whole stream in one heap block (the caller frees ptr).
// onProgress({ done, total }) after each chunk (total: the known length, else undefined);
// signal: an AbortSignal that stops the read (the stream is cancelled, the block freed).
export async function readIntoHeap(mod, source, { size, onProgress, signal } = {}) {
  if (signal?.aborted) throw new QuiverError('ABORTED', 'the load was cancelled before it started');
  const { stream, size: known } = streamOf(source, size);
  let capacity = known ?? UNKNOWN_LENGTH_START;
  let ptr = malloc(mod, capacity);
  let length = 0;
  try {
    if (stream) {
      const reader = stream.getReader();
      for (;;) {
        if (signal?.aborted) {
          await reader.cancel().catch(() => {});
          throw new QuiverError('ABORTED', `the load was cancelled after ${length} bytes; nothing was loaded`);
        }
        const { done, value } = await reader.read();
        if (done) break;
        const chunk = value instanceof Uint8Array ? value : new Uint8Array(value);
        if (length + chunk.length > capacity) {
          const grown = Math.max(length + chunk.length, Math.ceil(capacity * 1.5));
          const next = malloc(mod, grown);
          heapU8(mod).copyWithin(next, ptr, ptr + length);
          mod._free(ptr);
          ptr = next;
          capacity = grown;
        }
        heapU8(mod).set(chunk, ptr + length);
        length += chunk.length;
        onProgress?.({ done: length, total: known });
      }
    }
  } catch (e) {
    mod._free(ptr);
    throw e instanceof QuiverError ? e : new QuiverError('IO_ERROR', `reading the index stream: ${e?.message ?? e}`);
  }
  return { ptr, length };
}

// The index in `source`, as an instance of the class the file holds. `classes` maps the
// file's kind to [JS class, native class].
export async function loadFromSource(mod, classes, source, options) {
  const { ptr, length } = await readIntoHeap(mod, source, options);
  try {
    const kind = checked(mod, mod.indexKindOf(ptr, length));
    const entry = classes[kind];
    if (!entry) throw new QuiverError('UNKNOWN_INDEX_KIND', `the ${kind} index is not available in this build`);
    const [Cls, nativeClass] = entry;
    return new Cls({ [FROM_NATIVE]: checked(mod, nativeClass.load(ptr, length)) });
  } finally {
    mod._free(ptr);
  }
}
