// The worker side of the async API (spawn.js): one Quiver module per worker and the indexes
// and collections created in it, addressed by handle. Messages are { id, op, ... }; every reply is
// { id, ok: true, value } or { id, ok: false, error: { code, message } }, with the typed
// arrays of a result transferred (not copied) back.
import { QuiverError } from '../core/errors.js';
import { init } from '../index.js';
import { toIds, toVectors } from '../core/inputs.js';
import { KINDS } from '../kinds/kind-table.js';

const CLASS_BY_KIND = Object.fromEntries(KINDS.map((k) => [k.name, k.className]));
// What a caller may invoke on an index through the worker (never live(), constructors, ...).
const METHODS = new Set(['add', 'remove', 'has', 'search', 'searchBatch', 'serialize', 'compact']);
// What a caller may invoke and read on a collection through the worker.
const COLLECTION_METHODS = new Set(['upsert', 'insert', 'getByIds', 'deleteByIds', 'query', 'describe', 'serialize']);
const COLLECTION_PROPERTIES = new Set(['size', 'memoryBytes', 'dim', 'metric', 'index', 'variant']);
const PROPERTIES = new Set([
  'size',
  'memoryBytes',
  'dim',
  'metric',
  'isa',
  'variant',
  'bits',
  'seed',
  'keepVectors',
  'neighborCodes',
  'M',
  'efConstruction',
  'efSearch',
  'maxLevel',
  'nodeBytes',
  'storage',
  'bytesPerVector',
  'refineBits',
  'lists',
  'listsOption',
  'defaultProbes',
]);

function transferables(value, out = []) {
  if (ArrayBuffer.isView(value)) {
    out.push(value.buffer);
  } else if (Array.isArray(value)) {
    // A collection's getByIds(): records (or null), each with its own values array.
    for (const r of value) if (ArrayBuffer.isView(r?.values)) out.push(r.values.buffer);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) if (ArrayBuffer.isView(v)) out.push(v.buffer);
    // A collection's query(): its matches' values.
    if (Array.isArray(value.matches)) transferables(value.matches, out);
  }
  return [...new Set(out)];
}

function kindOf(q, index) {
  for (const [kind, name] of Object.entries(CLASS_BY_KIND)) if (q[name] && index instanceof q[name]) return kind;
  return 'unknown';
}

// Rows per add() chunk when the caller asked for progress or cancellation.
const DEFAULT_CHUNK_ROWS = 1024;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// Kinds whose remove() is an exact inverse of add(): after removing the rows an add put in,
// serialize() gives the same bytes as before it (and later adds the same bytes as without
// it). The flat index is one. The others are not: the quantised index keeps removed slots on
// its free list, and a partitioned one may have been re-trained by the add (500 vectors in 1
// list can come back in 16); HNSW keeps removed nodes as tombstones and their links changed
// the graph.
const EXACT_REMOVE = new Set(['flat']);

// add() in chunks, all or nothing: after each chunk a progress message goes out and queued
// messages (a cancel) get their turn. A cancel, or a chunk the index rejects, puts the index
// back as it was before the add, byte for byte (serialize() gives the same file):
//   - a flat index removes the rows already added (remove() is its exact inverse);
//   - any other kind, when the add takes more than one chunk, first keeps a snapshot —
//     serialize(), about the size of the index file, in the worker's JS memory for as long as
//     the add runs — and a rollback loads the snapshot into a new index (so the wasm heap holds
//     the grown index and the restored one for a moment) that replaces the changed one under
//     the same handle (`replace`). A one-chunk add needs neither: add() is all or nothing.
async function addInChunks(
  index,
  [ids, vectors, options],
  { kind, chunkRows = DEFAULT_CHUNK_ROWS, job, progress, replace, observe },
) {
  const idArray = toIds(ids);
  const data = toVectors(vectors, index.dim);
  const dim = index.dim;
  if (data.length !== idArray.length * dim) {
    throw new QuiverError(
      'DIMENSION_MISMATCH',
      `${idArray.length} ids but ${data.length / dim} vectors of dimension ${dim}`,
    );
  }
  if (!Number.isInteger(chunkRows) || chunkRows < 1) {
    throw new QuiverError('INVALID_ARGUMENT', `chunkSize must be a positive integer, got ${chunkRows}`);
  }
  const total = idArray.length;
  const cancelled = () => job.cancelled || (job.flag !== null && Atomics.load(job.flag, 0) !== 0);
  const snapshot = total > chunkRows && !EXACT_REMOVE.has(kind) ? index.serialize() : null;
  let done = 0;
  try {
    while (done < total) {
      if (cancelled()) throw new QuiverError('ABORTED', 'add() was cancelled; the index holds what it held before');
      const end = Math.min(total, done + chunkRows);
      const chunk = [idArray.subarray(done, end), data.subarray(done * dim, end * dim)];
      // Inside the chunk, a training step reports its pieces (q.setWorkObserver) and stops at
      // a cancel: the flag is shared memory, since the cancel message waits for the call.
      observe(({ step, done: stepDone, total: stepTotal }) => {
        progress({ done, total, step: { name: step, done: stepDone, total: stepTotal } });
        return !cancelled();
      });
      try {
        if (options === undefined) index.add(...chunk);
        else index.add(...chunk, options);
      } finally {
        observe(null);
      }
      done = end;
      progress({ done, total });
      await nextTask();
    }
  } catch (e) {
    if (done > 0) {
      if (snapshot) replace(snapshot);
      else index.remove(idArray.subarray(0, done));
    }
    // A cancel seen inside a chunk (the C++ step stopped) reads as one seen between chunks.
    if (e?.code === 'ABORTED')
      throw new QuiverError('ABORTED', 'add() was cancelled; the index holds what it held before');
    throw e;
  }
}

// post(message, transfer) sends to the caller; returns the handler for incoming messages.
export function serve(post) {
  let q = null;
  const indexes = new Map();
  const collections = new Map(); // handles share one sequence with the indexes
  const jobs = new Map(); // id of a chunked add or a streamed load -> { cancelled, abort? }
  const queued = new Set(); // ids of messages waiting in the queue (not started yet)
  const cancelledEarly = new Set(); // cancels that arrived while their job was still queued
  let nextHandle = 1;
  // Operations run one after another (a chunked add yields between chunks; nothing else may
  // see the index half-way). Only a cancel overtakes the queue.
  let queue = Promise.resolve();

  function describe(handle) {
    const index = indexes.get(handle);
    return {
      handle,
      kind: kindOf(q, index),
      dim: index.dim,
      metric: index.metric,
      isa: index.isa,
      variant: index.variant,
    };
  }
  function adopt(index) {
    const handle = nextHandle++;
    indexes.set(handle, index);
    return describe(handle);
  }
  function adoptCollection(collection) {
    const handle = nextHandle++;
    collections.set(handle, collection);
    return {
      handle,
      index: collection.index,
      dim: collection.dim,
      metric: collection.metric,
      variant: collection.variant,
    };
  }
  function lookup(handle) {
    const index = indexes.get(handle);
    if (!index) throw new QuiverError('DISPOSED', 'this index has been disposed');
    return index;
  }

  const ops = {
    async init({ options }) {
      q = await init(options);
      return {
        variant: q.variant,
        version: q.version,
        isa: q.isa,
        availableIsas: q.availableIsas,
        kernelFeatures: q.kernelFeatures,
      };
    },
    // A new collection (q.Collection.create: kinds/collection.js).
    createCollection({ options }) {
      return adoptCollection(q.Collection.create(options));
    },
    loadCollection({ bytes }) {
      return adoptCollection(q.Collection.load(bytes));
    },
    create({ kind, options }) {
      const Cls = q[CLASS_BY_KIND[kind]];
      if (!Cls) {
        throw new QuiverError(
          'INVALID_ARGUMENT',
          `unknown index kind '${kind}' (this build has ${Object.keys(CLASS_BY_KIND)
            .filter((k) => q[CLASS_BY_KIND[k]])
            .join(', ')})`,
        );
      }
      return adopt(new Cls(options));
    },
    // bytes, or `source` (a ReadableStream transferred here, or a Blob) read into the heap
    // chunk by chunk with progress (`chunked`) and a cancel that stops the read.
    load({ id, bytes, source, size, chunked }) {
      if (source === undefined) return adopt(q.load(bytes));
      const controller = new AbortController();
      const job = { cancelled: cancelledEarly.delete(id), abort: () => controller.abort() };
      if (job.cancelled) controller.abort();
      jobs.set(id, job);
      const onProgress = chunked ? (p) => post({ id, progress: p }, []) : undefined;
      return q
        .loadFrom(source, { size, onProgress, signal: controller.signal })
        .then(adopt)
        .finally(() => jobs.delete(id));
    },
    call({ id, handle, method, args, chunked }) {
      const collection = collections.get(handle);
      if (collection) {
        if (!COLLECTION_METHODS.has(method))
          throw new QuiverError('INVALID_ARGUMENT', `a collection has no method ${method}()`);
        return collection[method](...args);
      }
      const index = lookup(handle);
      if (!METHODS.has(method) || typeof index[method] !== 'function') {
        throw new QuiverError('INVALID_ARGUMENT', `a ${kindOf(q, index)} index has no method ${method}()`);
      }
      if (method === 'add' && chunked) {
        const job = { cancelled: cancelledEarly.delete(id), flag: chunked.cancelFlag ?? null };
        jobs.set(id, job);
        const progress = (p) => post({ id, progress: p }, []);
        // The snapshot back in place of the changed index, under the same handle.
        const replace = (bytes) => {
          const restored = q.load(bytes);
          indexes.set(handle, restored);
          index.dispose();
        };
        return addInChunks(index, args, {
          kind: kindOf(q, index),
          chunkRows: chunked.chunkSize ?? DEFAULT_CHUNK_ROWS,
          job,
          progress,
          replace,
          observe: (fn) => q.setWorkObserver(fn),
        }).finally(() => jobs.delete(id));
      }
      return index[method](...args);
    },
    get({ handle, property }) {
      const collection = collections.get(handle);
      if (collection) {
        if (!COLLECTION_PROPERTIES.has(property)) {
          throw new QuiverError('INVALID_ARGUMENT', `a collection has no property ${property}`);
        }
        return collection[property];
      }
      const index = lookup(handle);
      if (!PROPERTIES.has(property) || !(property in index)) {
        throw new QuiverError('INVALID_ARGUMENT', `a ${kindOf(q, index)} index has no property ${property}`);
      }
      return index[property];
    },
    dispose({ handle }) {
      indexes.get(handle)?.dispose();
      indexes.delete(handle);
      collections.get(handle)?.dispose();
      collections.delete(handle);
    },
    threadPool() {
      return q.threadPool();
    },
    unitGaussianVectors({ n, dim, seed }) {
      return q.unitGaussianVectors(n, dim, seed);
    },
    terminate() {
      for (const index of indexes.values()) index.dispose();
      indexes.clear();
      for (const collection of collections.values()) collection.dispose();
      collections.clear();
      q?.terminate();
    },
  };

  async function run(message) {
    const { id, op } = message;
    queued.delete(id);
    try {
      if (!ops[op]) throw new QuiverError('INVALID_ARGUMENT', `unknown worker operation ${op}`);
      if (!q && op !== 'init') throw new QuiverError('INVALID_ARGUMENT', 'the worker has not been initialised');
      const value = await ops[op](message);
      post({ id, ok: true, value }, transferables(value));
    } catch (e) {
      const code = e instanceof QuiverError ? e.code : 'INTERNAL';
      const text = e instanceof QuiverError ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
      post({ id, ok: false, error: { code, message: text } }, []);
    } finally {
      cancelledEarly.delete(id); // a cancel for a call that took none (not an add or a load)
    }
  }

  // A cancel for a running job stops it; one for a call still queued is kept until that call
  // starts (and dropped when it ends); one for a call that has finished (its reply may be on
  // its way) or was never sent is ignored, so nothing is kept for ever.
  function onMessage(message) {
    if (message.op === 'cancel') {
      const job = jobs.get(message.target);
      if (job) {
        job.cancelled = true;
        job.abort?.();
      } else if (queued.has(message.target)) cancelledEarly.add(message.target);
      return queue;
    }
    queued.add(message.id);
    queue = queue.then(() => run(message));
    return queue;
  }
  // What the host holds between calls (for tests: every count is 0 once the caller is idle).
  onMessage.pending = () => ({ queued: queued.size, jobs: jobs.size, cancels: cancelledEarly.size });
  return onMessage;
}
