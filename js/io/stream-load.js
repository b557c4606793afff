// Loading an index file — from bytes, a Response (fetch, R2, the Cache API), a ReadableStream
// or a Blob — through the C++ stream loader (src/container/stream_loader.hpp, bindings/index_stream.hpp):
// the bytes go into the wasm heap one bounded slice at a time (the stream's own 256 KiB staging
// block), never as a whole file. A flat index is decoded straight into its storage as the
// slices arrive, so the heap holds the index and one slice; the quantised and HNSW kinds are
// still gathered into one block before their loader reads it (the file + the index at the peak).
//
// All or nothing: a truncated, damaged or cut-off source rejects with the code the same bytes
// give to q.load(bytes) (BAD_MAGIC, TRUNCATED, CHECKSUM_MISMATCH, CORRUPT, ...) and leaves
// nothing allocated. A fault of the file's head stops the read at once (the stream is
// cancelled); other faults are reported when the source ends, because a later fault can
// outrank them (a truncated file is TRUNCATED whatever else is wrong with it).
import { QuiverError, checked } from '../core/errors.js';
import { MAX_BLOCK_BYTES } from '../core/staging.js';

export function isStreamSource(source) {
  return (
    (typeof Response === 'function' && source instanceof Response) ||
    (typeof ReadableStream === 'function' && source instanceof ReadableStream) ||
    (typeof Blob === 'function' && source instanceof Blob)
  );
}

// { stream, exact, hint }: the source as a ReadableStream and what is known of its length —
// exact (a Blob's size) or a hint (Content-Length, which a compressed body exceeds; the `size`
// option).
function streamOf(source, size) {
  if (size !== undefined && size > MAX_BLOCK_BYTES) {
    throw new QuiverError(
      'OUT_OF_MEMORY',
      `an index file of ${size} bytes cannot fit in a wasm32 heap (4 GiB); nothing was loaded`,
    );
  }
  if (typeof Response === 'function' && source instanceof Response) {
    if (!source.ok) throw new QuiverError('IO_ERROR', `the index response failed: HTTP ${source.status}`);
    const declared = Number(source.headers.get('content-length'));
    return { stream: source.body, hint: size ?? (declared > 0 ? declared : undefined) };
  }
  if (typeof Blob === 'function' && source instanceof Blob) {
    return { stream: source.stream(), exact: size === undefined ? source.size : undefined, hint: size };
  }
  return { stream: source, hint: size };
}

// A stream chunk as bytes: a Uint8Array, another typed array or DataView (its bytes), or an
// ArrayBuffer. Anything else (a string, a number, an array of numbers) is refused with
// INVALID_ARGUMENT rather than converted into bytes it does not hold.
function chunkBytes(value, n) {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (
    value instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)
  ) {
    return new Uint8Array(value);
  }
  const what =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? (value.constructor?.name ?? 'an object')
          : typeof value;
  throw new QuiverError(
    'INVALID_ARGUMENT',
    `stream chunk ${n} is ${what}, not bytes (a Uint8Array, a typed array or an ArrayBuffer); nothing was loaded`,
  );
}

function heapU8(mod) {
  return new Uint8Array(mod.wasmMemory ? mod.wasmMemory.buffer : mod.HEAPU8.buffer);
}

// A C++ IndexStream; the caller deletes it.
function open(mod, { expected, exact, hint }) {
  return checked(mod, mod.IndexStream.create(expected ?? '', exact ?? -1, hint ?? -1));
}

// Copies `bytes` into the stream slice by slice. Throws QuiverError once the load has surely
// failed.
function push(mod, stream, bytes) {
  const capacity = stream.capacity();
  const base = stream.buffer() >>> 0;
  for (let at = 0; at < bytes.length; at += capacity) {
    const slice = bytes.subarray(at, Math.min(at + capacity, bytes.length));
    heapU8(mod).set(slice, base);
    checked(mod, stream.push(slice.length));
  }
}

// The index the stream holds, as an instance of its class. `classes` maps a kind to
// [JS class, native class]; the JS class wraps the C++ index (IndexBase.fromNative), so this
// file needs nothing from the index classes (they import it for their static load()).
function finish(mod, classes, stream) {
  const kind = checked(mod, stream.finish());
  const entry = classes[kind];
  if (!entry) throw new QuiverError('UNKNOWN_INDEX_KIND', `the ${kind} index is not available in this build`);
  const [Cls, nativeClass] = entry;
  return Cls.fromNative(checked(mod, nativeClass.fromStream(stream)));
}

// The index in `bytes` (a Uint8Array), synchronously: the bytes stay in JS and go into the heap
// a slice at a time. `expected`: the kind the file must hold ('' or undefined for any).
export function loadFromBytes(mod, classes, bytes, expected) {
  const stream = open(mod, { expected, exact: bytes.length });
  try {
    push(mod, stream, bytes);
    return finish(mod, classes, stream);
  } finally {
    stream.delete();
  }
}

// The index in `source` (Response, ReadableStream or Blob). Options: size (the length, when
// the source does not say), onProgress({ done, total }) after each chunk (total: the known
// length, else undefined), signal (an AbortSignal that stops the read: ABORTED, nothing loaded).
export async function loadFromSource(mod, classes, source, { size, onProgress, signal, expected } = {}) {
  if (signal?.aborted) throw new QuiverError('ABORTED', 'the load was cancelled before it started');
  const { stream: body, exact, hint } = streamOf(source, size);
  const total = exact ?? hint;
  const stream = open(mod, { expected, exact, hint });
  let reader;
  try {
    if (body) {
      reader = body.getReader();
      let done = 0;
      let chunks = 0;
      for (;;) {
        if (signal?.aborted)
          throw new QuiverError('ABORTED', `the load was cancelled after ${done} bytes; nothing was loaded`);
        let next;
        try {
          next = await reader.read();
        } catch (e) {
          throw new QuiverError('IO_ERROR', `reading the index stream: ${e?.message ?? e}`);
        }
        if (next.done) {
          reader = null;
          break;
        }
        const chunk = chunkBytes(next.value, chunks++);
        push(mod, stream, chunk);
        done += chunk.length;
        onProgress?.({ done, total });
      }
    }
    return finish(mod, classes, stream);
  } catch (e) {
    throw e instanceof QuiverError ? e : new QuiverError('IO_ERROR', `reading the index stream: ${e?.message ?? e}`);
  } finally {
    if (reader) await reader.cancel().catch(() => {});
    stream.delete();
  }
}
