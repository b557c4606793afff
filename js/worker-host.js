// The worker side of the async API (spawn.js): one Quiver module per worker and the indexes
// created in it, addressed by handle. Messages are { id, op, ... }; every reply is
// { id, ok: true, value } or { id, ok: false, error: { code, message } }, with the typed
// arrays of a result transferred (not copied) back.
import { QuiverError } from './errors.js';
import { init } from './index.js';

const CLASS_BY_KIND = { flat: 'FlatIndex', quantized: 'QuantizedIndex', hnsw: 'HnswIndex' };
// What a caller may invoke on an index through the worker (never live(), constructors, ...).
const METHODS = new Set(['add', 'remove', 'has', 'search', 'searchBatch', 'serialize', 'compact']);
const PROPERTIES = new Set(['size', 'memoryBytes', 'dim', 'metric', 'isa', 'variant', 'bits', 'seed', 'keepVectors',
  'M', 'efConstruction', 'efSearch', 'maxLevel', 'nodeBytes', 'storage', 'bytesPerVector']);

function transferables(value, out = []) {
  if (ArrayBuffer.isView(value)) {
    out.push(value.buffer);
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const v of Object.values(value)) if (ArrayBuffer.isView(v)) out.push(v.buffer);
  }
  return [...new Set(out)];
}

function kindOf(q, index) {
  for (const [kind, name] of Object.entries(CLASS_BY_KIND)) if (q[name] && index instanceof q[name]) return kind;
  return 'unknown';
}

// post(message, transfer) sends to the caller; returns the handler for incoming messages.
export function serve(post) {
  let q = null;
  const indexes = new Map();
  let nextHandle = 1;

  function describe(handle) {
    const index = indexes.get(handle);
    return { handle, kind: kindOf(q, index), dim: index.dim, metric: index.metric, isa: index.isa, variant: index.variant };
  }
  function adopt(index) {
    const handle = nextHandle++;
    indexes.set(handle, index);
    return describe(handle);
  }
  function lookup(handle) {
    const index = indexes.get(handle);
    if (!index) throw new QuiverError('DISPOSED', 'this index has been disposed');
    return index;
  }

  const ops = {
    async init({ options }) {
      q = await init(options);
      return { variant: q.variant, version: q.version, isa: q.isa, availableIsas: q.availableIsas };
    },
    create({ kind, options }) {
      const Cls = q[CLASS_BY_KIND[kind]];
      if (!Cls) {
        throw new QuiverError('INVALID_ARGUMENT',
          `unknown index kind '${kind}' (this build has ${Object.keys(CLASS_BY_KIND).filter((k) => q[CLASS_BY_KIND[k]]).join(', ')})`);
      }
      return adopt(new Cls(options));
    },
    load({ bytes }) { return adopt(q.load(bytes)); },
    call({ handle, method, args }) {
      const index = lookup(handle);
      if (!METHODS.has(method) || typeof index[method] !== 'function') {
        throw new QuiverError('INVALID_ARGUMENT', `a ${kindOf(q, index)} index has no method ${method}()`);
      }
      return index[method](...args);
    },
    get({ handle, property }) {
      const index = lookup(handle);
      if (!PROPERTIES.has(property) || !(property in index)) {
        throw new QuiverError('INVALID_ARGUMENT', `a ${kindOf(q, index)} index has no property ${property}`);
      }
      return index[property];
    },
    dispose({ handle }) {
      indexes.get(handle)?.dispose();
      indexes.delete(handle);
    },
    threadPool() { return q.threadPool(); },
    unitGaussianVectors({ n, dim, seed }) { return q.unitGaussianVectors(n, dim, seed); },
    terminate() {
      for (const index of indexes.values()) index.dispose();
      indexes.clear();
      q?.terminate();
    },
  };

  return async function onMessage(message) {
    const { id, op } = message;
    try {
      if (!ops[op]) throw new QuiverError('INVALID_ARGUMENT', `unknown worker operation ${op}`);
      if (!q && op !== 'init') throw new QuiverError('INVALID_ARGUMENT', 'the worker has not been initialised');
      const value = await ops[op](message);
      post({ id, ok: true, value }, transferables(value));
    } catch (e) {
      const code = e instanceof QuiverError ? e.code : 'INTERNAL';
      const text = e instanceof QuiverError ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
      post({ id, ok: false, error: { code, message: text } }, []);
    }
  };
}
