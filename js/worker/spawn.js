// The worker-hosted async API: spawn() starts a Worker (browser) or worker_thread (Node) with
// its own Quiver module and returns a proxy whose methods post a message and return a
// Promise. Indexes live in the worker; results come back as transferred typed arrays.
//
//   const w = await spawn({ variant: 'simd-mt', threads: 4 });
//   const index = await w.create('hnsw', { dim: 384, metric: 'cosine' });
//   await index.add(ids, vectors, { transfer: true });   // moves the buffers instead of copying
//   const { ids, distances } = await index.search(query, 10, { ef: 64 });
//   await index.dispose(); await w.terminate();
import { QuiverError } from '../core/errors.js';
import { isStreamSource } from '../io/stream-load.js';
import { MAX_TIMER_MS, checkTimeout } from '../loader.js';
import {
  REMOTE_COLLECTION_QUERY_OPTIONS,
  REMOTE_COLLECTION_WRITE_OPTIONS,
  REMOTE_ADD_OPTIONS,
  REMOTE_LOAD_OPTIONS,
  REMOTE_SEARCH_OPTIONS,
  SPAWN_OPTIONS,
  readOptions,
} from '../core/options.js';

const NODE_WORKER = './worker-node.js';
const isNode = typeof process === 'object' && !!(process.versions && process.versions.node);

function toError(error) {
  return new QuiverError(error.code, error.message);
}

// How much longer than the worker's own start-up bound (`timeout`) spawn() waits for its answer.
const START_MARGIN_MS = 5_000;

const aborted = (what) => new QuiverError('ABORTED', `${what} was cancelled before it started`);

// The load message for a Response / ReadableStream / Blob: a stream is transferred (moved),
// a Blob is cloned (it is a handle, not the bytes).
function streamMessage(source, size) {
  if (typeof Blob === 'function' && source instanceof Blob) {
    return { message: { op: 'load', source, size: size ?? source.size }, transferList: [] };
  }
  let stream = source;
  if (typeof Response === 'function' && source instanceof Response) {
    if (!source.ok) throw new QuiverError('IO_ERROR', `the index response failed: HTTP ${source.status}`);
    const declared = Number(source.headers.get('content-length'));
    size ??= declared > 0 ? declared : undefined;
    stream = source.body ?? new ReadableStream({ start: (c) => c.close() });
  }
  return { message: { op: 'load', source: stream, size }, transferList: [stream] };
}

// Buffers a caller asked to move into the worker ({ transfer: true }): those of typed arrays
// and ArrayBuffers among `values`.
function buffersOf(values) {
  const out = new Set();
  for (const v of values) {
    if (ArrayBuffer.isView(v)) out.add(v.buffer);
    else if (v instanceof ArrayBuffer) out.add(v);
  }
  return [...out];
}

// Whether an ArrayBuffer has been detached (transferred or structuredClone'd away): Node 20
// lacks ArrayBuffer.prototype.detached, but constructing a view on a detached buffer throws.
function isDetached(buffer) {
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

// The transfer list that can really be posted. postMessage() silently drops a message whose
// transfer list holds a detached buffer (the call would never settle), so that is refused
// here; a SharedArrayBuffer cannot be transferred (postMessage would throw) and need not be —
// the worker sees the same memory — so it is sent without transfer. Other transferables (a
// ReadableStream) pass as they are.
function transferList(buffers) {
  const out = [];
  for (const buffer of buffers) {
    if (typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer) continue;
    if (buffer instanceof ArrayBuffer && isDetached(buffer)) {
      throw new QuiverError(
        'INVALID_ARGUMENT',
        'an input buffer is detached (already transferred elsewhere, e.g. by an earlier { transfer: true } call); nothing was sent',
      );
    }
    out.push(buffer);
  }
  return out;
}

// A call's options checked by its schema (options.js) before anything is posted — an unknown
// key or a wrong type rejects here with INVALID_ARGUMENT — split into `transfer` and the rest.
// A kind this side has no schema for (none today) sends its options for the worker to check.
function remoteOptions(options, spec) {
  if (!spec) return [options, false];
  const { transfer = false, ...rest } = readOptions(options, spec);
  return [rest, transfer];
}

// fn() as a promise: a synchronous throw (a refused option) becomes a rejection.
function settle(fn) {
  try {
    return fn();
  } catch (e) {
    return Promise.reject(e);
  }
}

// Where spawn() looks for the worker script when no workerUrl is given: beside this file.
// The browser's `new Worker(new URL(…, import.meta.url))` is written out literally below so
// that Vite finds the worker and bundles it; esbuild does not follow it (docs/api.md: bundlers).
const defaultWorkerHref = () => new URL(isNode ? NODE_WORKER : './worker-browser.js', import.meta.url).href;

// Browser Worker or Node worker_thread behind one { post, onMessage, onExit, ref, unref,
// terminate } shape. workerUrl: the worker script, when it is not beside this file.
async function startWorker(workerUrl) {
  if (isNode) {
    // Reached through getBuiltinModule, not import: browser bundles must hold no node: import.
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    // The worker inherits the process's Node options except --input-type, which is only
    // valid with --eval (a script run by `node --input-type=module -e` would fail to start it).
    const execArgv = process.execArgv.filter((a) => !a.startsWith('--input-type'));
    // Held in a variable so bundlers do not take this Node-only worker for a browser one.
    const worker = new Worker(workerUrl ?? new URL(NODE_WORKER, import.meta.url), { execArgv });
    return {
      post: (m, transfer) => worker.postMessage(m, transfer),
      onMessage: (fn) => worker.on('message', fn),
      onExit: (fn) => {
        worker.on('error', (e) => fn(`the worker failed: ${e.message}`));
        worker.on('exit', (code) => fn(`the worker exited (code ${code})`));
      },
      // An idle worker must not keep the Node process alive; a pending call must.
      ref: () => worker.ref(),
      unref: () => worker.unref(),
      terminate: () => worker.terminate(),
    };
  }
  if (typeof Worker !== 'function')
    throw new QuiverError('LOAD_FAILED', 'spawn() needs Worker, which this runtime does not have');
  const worker =
    workerUrl !== undefined
      ? new Worker(workerUrl, { type: 'module' })
      : new Worker(new URL('./worker-browser.js', import.meta.url), { type: 'module' });
  return {
    post: (m, transfer) => worker.postMessage(m, transfer),
    onMessage: (fn) => worker.addEventListener('message', (e) => fn(e.data)),
    // A script that cannot be fetched or parsed fires a plain Event (no message).
    onExit: (fn) =>
      worker.addEventListener('error', (e) => fn(`the worker failed: ${e.message ?? 'its script did not load'}`)),
    ref: () => {},
    unref: () => {},
    terminate: async () => worker.terminate(),
  };
}

class RemoteIndex {
  #call;
  #handle;
  #disposed = false;

  constructor(call, info) {
    this.#call = call;
    this.#handle = info.handle;
    this.kind = info.kind;
    this.dim = info.dim;
    this.metric = info.metric;
    this.isa = info.isa;
    this.variant = info.variant;
  }

  #invoke(method, args, transfer = [], extra = {}, control = {}) {
    if (this.#disposed) return Promise.reject(new QuiverError('DISPOSED', 'this index has been disposed'));
    return this.#call({ op: 'call', handle: this.#handle, method, args, ...extra }, transfer, control);
  }
  #get(property) {
    if (this.#disposed) return Promise.reject(new QuiverError('DISPOSED', 'this index has been disposed'));
    return this.#call({ op: 'get', handle: this.#handle, property });
  }

  get size() {
    return this.#get('size');
  }
  get memoryBytes() {
    return this.#get('memoryBytes');
  }
  // Any other read-only property of the index in the worker (bits, M, maxLevel, ...).
  property(name) {
    return this.#get(name);
  }

  // options: the index's add options, plus
  //   transfer    move the buffers into the worker instead of copying them
  //   onProgress  ({ done, total, step? }) => void after each chunk of rows, and during a long
  //               step inside a chunk (the k-means training and re-assignment of a partitioned
  //               index): step = { name: 'training' | 'assigning', done, total }
  //   signal      an AbortSignal: the add stops and the index holds what it held before,
  //               byte for byte; the promise rejects with QuiverError ABORTED. It stops within
  //               a training step too where the worker can share memory (Node, Deno, Bun, a
  //               cross-origin isolated page); elsewhere at the end of the chunk
  //   chunkSize   rows per chunk (default 1024) when onProgress or signal is given
  // With onProgress or signal the worker adds in chunks, all or nothing (a rejected or
  // cancelled add restores the index: worker-host.js addInChunks, which for every kind but
  // flat keeps a snapshot of the index file while a multi-chunk add runs); without them it is
  // one call, as locally.
  add(ids, vectors, options) {
    return settle(() => {
      const [rest, transfer] = remoteOptions(options, REMOTE_ADD_OPTIONS[this.kind]);
      const { onProgress, signal, chunkSize, ...addOptions } = rest ?? {};
      if (signal?.aborted) return Promise.reject(aborted('add()'));
      const args = Object.keys(addOptions).length ? [ids, vectors, addOptions] : [ids, vectors];
      const chunked = onProgress || signal || chunkSize !== undefined ? { chunked: { chunkSize } } : {};
      return this.#invoke('add', args, transfer ? buffersOf([ids, vectors]) : [], chunked, { onProgress, signal });
    });
  }
  remove(ids) {
    return this.#invoke('remove', [ids]);
  }
  has(id) {
    return this.#invoke('has', [id]);
  }
  // options: the kind's search options (checked here and again in the worker), plus transfer.
  search(query, k = 10, options) {
    return settle(() => {
      const [rest, transfer] = remoteOptions(options, REMOTE_SEARCH_OPTIONS[this.kind]);
      return this.#invoke('search', [query, k, rest], transfer ? buffersOf([query]) : []);
    });
  }
  searchBatch(queries, k = 10, options) {
    return settle(() => {
      const [rest, transfer] = remoteOptions(options, REMOTE_SEARCH_OPTIONS[this.kind]);
      return this.#invoke('searchBatch', [queries, k, rest], transfer ? buffersOf([queries]) : []);
    });
  }
  serialize() {
    return this.#invoke('serialize', []);
  }
  compact(...args) {
    return this.#invoke('compact', args);
  }

  // Frees the index in the worker; again is a no-op.
  async dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#call({ op: 'dispose', handle: this.#handle });
  }
}
if (Symbol.asyncDispose) RemoteIndex.prototype[Symbol.asyncDispose] = RemoteIndex.prototype.dispose;

// A collection living in the worker (kinds/collection.js there): the same methods as a local
// one, returning Promises; options are checked here first (an unknown key rejects before
// anything is posted) and again in the worker. upsert / insert take { transfer: true } (the
// records' values buffers move into the worker) and query takes it in its options (the query's).
class RemoteCollection {
  #call;
  #handle;
  #disposed = false;

  constructor(call, info) {
    this.#call = call;
    this.#handle = info.handle;
    this.index = info.index;
    this.dim = info.dim;
    this.metric = info.metric;
    this.variant = info.variant;
  }

  #invoke(method, args, transfer = []) {
    if (this.#disposed) return Promise.reject(new QuiverError('DISPOSED', 'this collection has been disposed'));
    return this.#call({ op: 'call', handle: this.#handle, method, args }, transfer);
  }
  #get(property) {
    if (this.#disposed) return Promise.reject(new QuiverError('DISPOSED', 'this collection has been disposed'));
    return this.#call({ op: 'get', handle: this.#handle, property });
  }

  get size() {
    return this.#get('size');
  }
  get memoryBytes() {
    return this.#get('memoryBytes');
  }

  #write(method, records, options) {
    return settle(() => {
      const { transfer = false } = readOptions(options, REMOTE_COLLECTION_WRITE_OPTIONS);
      const values = transfer && Array.isArray(records) ? records.map((r) => r?.values) : [];
      return this.#invoke(method, [records], buffersOf(values));
    });
  }
  upsert(records, options) {
    return this.#write('upsert', records, options);
  }
  insert(records, options) {
    return this.#write('insert', records, options);
  }
  getByIds(ids, options) {
    return this.#invoke('getByIds', options === undefined ? [ids] : [ids, options]);
  }
  deleteByIds(ids) {
    return this.#invoke('deleteByIds', [ids]);
  }
  query(vector, options) {
    return settle(() => {
      const [rest, transfer] = remoteOptions(options, REMOTE_COLLECTION_QUERY_OPTIONS[this.index]);
      return this.#invoke('query', [vector, rest], transfer ? buffersOf([vector]) : []);
    });
  }
  describe() {
    return this.#invoke('describe', []);
  }
  // The collection's file (a Uint8Array transferred back).
  serialize() {
    return this.#invoke('serialize', []);
  }

  // Frees the collection in the worker; again is a no-op.
  async dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#call({ op: 'dispose', handle: this.#handle });
  }
}
if (Symbol.asyncDispose) RemoteCollection.prototype[Symbol.asyncDispose] = RemoteCollection.prototype.dispose;

// spawn(options): the init options of Quiver.init (variant, threads, wasmUrl, ...) apply in
// the worker, plus workerUrl (where the worker script is, when a bundler did not put it
// beside this file). Resolves once the worker's module is ready; a worker that cannot start,
// or does not answer within `timeout` (as Quiver.init, default 30 s), rejects with LOAD_FAILED.
export async function spawn(options) {
  // Every key checked (options.js SPAWN_OPTIONS: the init options but locateFile, and
  // workerUrl); null = not given; anything unknown is refused before a worker starts.
  const { wasmModule, workerUrl, ...rest } = readOptions(options, SPAWN_OPTIONS);
  const startTimeout = checkTimeout(rest.timeout);
  const port = await startWorker(workerUrl);
  const pending = new Map();
  let nextId = 1;
  let closed = null; // why no more calls are possible
  let terminating = null; // terminate()'s promise, once called

  port.unref();
  port.onMessage(({ id, ok, value, error, progress }) => {
    const p = pending.get(id);
    if (!p) return;
    if (progress) {
      // The caller's callback must not break the call (its errors are its own).
      try {
        p.onProgress?.(progress);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
      return;
    }
    pending.delete(id);
    p.cleanup?.();
    if (pending.size === 0) port.unref();
    if (ok) p.resolve(value);
    else p.reject(toError(error));
  });
  port.onExit((why) => {
    if (!closed) closed = why;
    for (const p of pending.values()) {
      p.cleanup?.();
      p.reject(new QuiverError('WORKER_EXITED', closed));
    }
    pending.clear();
    port.unref();
  });

  // control: { onProgress, signal } of a call that reports progress and can be cancelled.
  function call(message, transfer = [], { onProgress, signal } = {}) {
    if (closed) return Promise.reject(new QuiverError('WORKER_EXITED', closed));
    try {
      transfer = transferList(transfer);
    } catch (e) {
      return Promise.reject(e);
    }
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) port.ref();
      const entry = { resolve, reject, onProgress };
      if (signal) {
        // A chunked add also gets a shared flag, where the runtime can share memory with the
        // worker: the worker reads it while the add runs inside wasm (a k-means training), when
        // the cancel message cannot reach it until the call returns.
        const flag =
          message.chunked && typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false
            ? new Int32Array(new SharedArrayBuffer(4))
            : null;
        if (flag) message = { ...message, chunked: { ...message.chunked, cancelFlag: flag } };
        const cancel = () => {
          if (flag) Atomics.store(flag, 0, 1);
          if (!closed) port.post({ op: 'cancel', target: id }, []);
        };
        signal.addEventListener('abort', cancel, { once: true });
        entry.cleanup = () => signal.removeEventListener('abort', cancel);
      }
      pending.set(id, entry);
      try {
        port.post({ ...message, id }, transfer);
      } catch (e) {
        pending.delete(id);
        if (pending.size === 0) port.unref();
        reject(new QuiverError('INVALID_ARGUMENT', `could not send to the worker: ${e.message}`));
      }
    });
  }

  // A compiled module can be posted to a worker (structured clone) but not bytes of a file
  // the worker cannot reach otherwise; everything else is plain data.
  const initOptions = wasmModule ? { ...rest, wasmModule } : rest;
  let info;
  let timer;
  try {
    // The worker's own loader bounds the module's start-up; this bounds a script that runs
    // but never answers (not the worker entry, say). Its margin lets the loader speak first.
    const silent = new Promise((_, reject) => {
      if (startTimeout + START_MARGIN_MS > MAX_TIMER_MS) return;
      timer = setTimeout(
        () => reject(new QuiverError('WORKER_EXITED', `no answer within ${startTimeout + START_MARGIN_MS} ms`)),
        startTimeout + START_MARGIN_MS,
      );
    });
    info = await Promise.race([call({ op: 'init', options: initOptions }), silent]);
  } catch (e) {
    closed = 'the worker failed to start';
    await port.terminate();
    // A worker that died or never answered: say which script it ran and how to point at another.
    if (e.code === 'WORKER_EXITED') {
      const href = workerUrl === undefined ? defaultWorkerHref() : String(workerUrl);
      throw new QuiverError(
        'LOAD_FAILED',
        `the worker script ${href} did not start (${e.message}): ` +
          'if a bundler did not copy it, bundle quiver-vector/worker-entry and pass its URL as spawn({ workerUrl })',
      );
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }

  return {
    ...info,
    // create('flat' | 'quantized' | 'hnsw', options): a new empty index in the worker.
    async create(kind, indexOptions = {}) {
      return new RemoteIndex(call, await call({ op: 'create', kind, options: indexOptions }));
    },
    // Collection.create(options) in the worker (as q.Collection.create): a RemoteCollection.
    Collection: {
      async create(options) {
        return new RemoteCollection(call, await call({ op: 'createCollection', options }));
      },
      // A collection file's bytes (as Collection.load); { transfer: true } moves the buffer.
      async load(bytes, options) {
        const { transfer = false } = readOptions(options, REMOTE_COLLECTION_WRITE_OPTIONS);
        return new RemoteCollection(
          call,
          await call({ op: 'loadCollection', bytes }, transfer ? buffersOf([bytes]) : []),
        );
      },
    },
    // Index file bytes (as Quiver.load); { transfer: true } moves the buffer into the worker.
    // A Response, ReadableStream or Blob goes to the worker as a stream (never whole in this
    // thread), which reads it into its heap chunk by chunk: onProgress({ done, total }) in
    // bytes after each chunk, and signal stops the read (ABORTED; nothing is loaded). With
    // bytes, a load that finishes after the signal fired is freed (ABORTED).
    async load(source, options) {
      const { transfer = false, signal, onProgress, size } = readOptions(options, REMOTE_LOAD_OPTIONS);
      if (signal?.aborted) throw aborted('load()');
      if (isStreamSource(source)) {
        const { message, transferList } = streamMessage(source, size);
        const info = await call({ ...message, chunked: !!onProgress }, transferList, { onProgress, signal });
        return new RemoteIndex(call, info);
      }
      const info = await call({ op: 'load', bytes: source }, transfer ? buffersOf([source]) : []);
      const index = new RemoteIndex(call, info);
      if (signal?.aborted) {
        await index.dispose();
        throw new QuiverError('ABORTED', 'load() was cancelled; the loaded index was freed');
      }
      return index;
    },
    threadPool() {
      return call({ op: 'threadPool' });
    },
    unitGaussianVectors(n, dim, seed) {
      return call({ op: 'unitGaussianVectors', n, dim, seed });
    },
    // Stops the worker at once — from this side (worker_threads terminate() / Worker
    // terminate()), not by a message that would wait behind a running add or build — and with
    // it every index it holds. Every pending call and every later one rejects with
    // WORKER_EXITED. Again is a no-op.
    terminate() {
      if (!terminating) {
        closed ??= 'the worker was terminated';
        const error = new QuiverError('WORKER_EXITED', closed);
        for (const p of pending.values()) {
          p.cleanup?.();
          p.reject(error);
        }
        pending.clear();
        port.unref();
        terminating = Promise.resolve(port.terminate()).then(
          () => {},
          () => {},
        );
      }
      return terminating;
    },
  };
}
