// The API of an entry over the wasm builds it carries: init, load, shared and Collection.
// 'quiver-vector' (index.js) makes it over all three builds and picks one per engine;
// 'quiver-vector/simd', '/simd-mt' and '/baseline' (simd.js, ...) over one, so a bundle of such
// an entry carries one glue and one .wasm. `builds`: { variant: build } (build-<variant>.js);
// `entry`: the entry's name, for messages.
import { QuiverError } from './core/errors.js';
import { loadModule, variantOf } from './loader.js';
import { Staging } from './core/staging.js';
import { makeIndexBase, toBytes } from './kinds/index-base.js';
import { makeKindClasses } from './kinds/kind-table.js';
import { makeCollectionClass } from './kinds/collection.js';
import { checked } from './core/errors.js';
import { isStreamSource, loadFromBytes, loadFromSource } from './io/stream-load.js';
import {
  COLLECTION_TARGET_OPTIONS,
  INIT_FIELDS,
  INIT_OPTIONS,
  LOAD_FROM_OPTIONS,
  QUIVER_LOAD_OPTIONS,
  readOptions,
} from './core/options.js';

export function makeQuiver(builds, entry) {
  // Options (options.js INIT_OPTIONS): variant, threads, timeout, wasmUrl, locateFile,
  // wasmBinary, wasmModule; any other key is refused with INVALID_ARGUMENT, null = not given.
  async function init(options) {
    const { mod, variant } = await loadModule(options, builds, entry);
    const staging = new Staging(mod);
    const IndexBase = makeIndexBase(mod, staging, variant);
    // One class per kind of the module's registry (kinds/kind-table.js).
    const { byClassName, classes } = makeKindClasses(mod, staging, variant, IndexBase);
    const { FlatIndex, QuantizedIndex, HnswIndex } = byClassName;
    const ModuleCollection = makeCollectionClass(mod, staging, variant, Collection);
    let terminated = false;
    return {
      variant,
      version: mod.version(),
      isa: checked(mod, mod.activeIsa()),
      availableIsas: mod.availableIsas().split(','),
      // Kernel paths past the ISA level in use here: ['relaxed-dot'] where the relaxed-simd
      // variant's engine computes relaxed_dot exactly (the coarse step's 8-bit scores), else [].
      kernelFeatures: mod.kernelFeatures().split(',').filter(Boolean),
      FlatIndex,
      QuantizedIndex,
      HnswIndex,
      // Collections in this module: q.Collection.create(options) (kinds/collection.js).
      Collection: ModuleCollection,
      // Reads index file bytes (Uint8Array/ArrayBuffer) and returns an index of the class the
      // file holds (FlatIndex, QuantizedIndex or HnswIndex). Corrupt bytes throw QuiverError (BAD_MAGIC,
      // TRUNCATED, CHECKSUM_MISMATCH, UNSUPPORTED_VERSION, CORRUPT, UNKNOWN_INDEX_KIND).
      // The bytes stay in JS and reach the C++ stream loader a slice at a time (stream-load.js).
      load(bytes) {
        return loadFromBytes(mod, classes, toBytes(bytes));
      },
      // The same from a Response, a ReadableStream or a Blob (or bytes): the file goes into the
      // wasm heap chunk by chunk, never whole in JS (stream-load.js). Options: size (its length,
      // when the source does not say: a non-negative integer), onProgress({ done, total }),
      // signal (an AbortSignal: ABORTED, nothing loaded); any other key is refused.
      async loadFrom(source, options) {
        const o = readOptions(options, LOAD_FROM_OPTIONS);
        return isStreamSource(source) ? loadFromSource(mod, classes, source, o) : this.load(source);
      },
      // Progress of the long steps inside one call, and a way to stop them: fn({ step, done,
      // total }) is called between the pieces of the k-means training ('training') and the
      // re-assignment ('assigning') that an add() of a partitioned quantised index runs when it
      // passes a training threshold — seconds inside one call at 100k vectors. Returning false
      // stops that add() with QuiverError ABORTED, the index as it was. One observer per module
      // (null removes it); it must not call the index it observes. An observer that throws
      // stops the call too, and its error is rethrown asynchronously. The worker API uses it for
      // add()'s onProgress and signal (worker-host.js).
      setWorkObserver(fn) {
        if (fn !== null && fn !== undefined && typeof fn !== 'function') {
          throw new QuiverError('INVALID_ARGUMENT', 'setWorkObserver(): give a function, or null to remove it');
        }
        const wrapped = fn
          ? (step, done, total) => {
              try {
                return fn({ step, done, total }) !== false;
              } catch (e) {
                queueMicrotask(() => {
                  throw e;
                });
                return false;
              }
            }
          : null;
        checked(mod, mod.setWorkObserver(wrapped));
      },
      // Bytes of wasm memory currently reserved by the module.
      heapBytes() {
        return (mod.wasmMemory ? mod.wasmMemory.buffer : mod.HEAPU8.buffer).byteLength;
      },
      // Bytes the staging buffers hold between calls (at most 8 MiB: staging.js), part of
      // what heapBytes() counts beside the indexes.
      stagingBytes() {
        return staging.keptBytes();
      },
      // The deterministic unit-Gaussian workload (same floats as the native generator).
      unitGaussianVectors(n, dim, seed) {
        for (const [name, value] of [
          ['n', n],
          ['dim', dim],
          ['seed', seed],
        ]) {
          if (!Number.isSafeInteger(value) || value < 0 || (name !== 'seed' && value > 4294967295)) {
            throw new QuiverError('INVALID_ARGUMENT', `${name} must be a non-negative integer, got ${value}`);
          }
        }
        try {
          const ptr = staging.reserve('workload', n * dim * 4);
          checked(mod, mod.fillUnitGaussian(n, dim, seed, ptr));
          return staging.f32.slice(ptr / 4, ptr / 4 + n * dim);
        } finally {
          staging.trim();
        }
      },
      // The pthread workers of simd-mt: `workers` pre-spawned (the `threads` option, else the
      // CPU count), `running` of them hosting a thread now. Both 0 in single-threaded variants.
      threadPool() {
        const p = mod.PThread;
        if (!p || variant !== 'simd-mt') return { workers: 0, running: 0 };
        return { workers: p.unusedWorkers.length + p.runningWorkers.length, running: p.runningWorkers.length };
      },
      // Ends the module's pthread workers so a Node process can exit (no-op without threads).
      terminate() {
        if (terminated) return;
        terminated = true;
        staging.dispose();
        if (mod.PThread) mod.PThread.terminateAllThreads();
      },
    };
  }

  // Quiver.load(bytes | Response | ReadableStream | Blob, initOptions): the index in it, in a module shared by every
  // Quiver.load call with the same variant (index.dispose() frees the index;
  // (await Quiver.shared(options)).terminate() ends the shared module's threads).
  const sharedModules = new Map();
  async function shared(options) {
    const o = readOptions(options, INIT_OPTIONS);
    const key = variantOf(o.variant ?? 'auto', builds, entry);
    if (!sharedModules.has(key)) sharedModules.set(key, init({ ...o, variant: key }));
    return sharedModules.get(key);
  }
  // options: those of init (for the shared module) and of loadFrom (size, onProgress, signal).
  async function load(source, options) {
    const o = readOptions(options, QUIVER_LOAD_OPTIONS);
    const initOptions = {};
    const loadOptions = {};
    for (const [key, value] of Object.entries(o)) (key in INIT_FIELDS ? initOptions : loadOptions)[key] = value;
    return (await shared(initOptions)).loadFrom(source, loadOptions);
  }

  // Collection: what every module's collections are instances of (q.Collection is a subclass
  // bound to that module). Collection.create(options, { quiver }) makes one in `quiver` — a
  // module from init() (synchronously there: q.Collection.create(options)) or a worker from
  // spawn() (a worker-hosted collection) — or, without it, in the module Quiver.load shares
  // (Quiver.shared()); it returns a Promise. Collection.load(bytes, { quiver }) the same for a file.
  // The Collection class of `target.quiver` (a module from init() or a worker from spawn()), or
  // of the shared module; INVALID_ARGUMENT for anything without Collection[method].
  async function collectionsOf(target, method) {
    const { quiver } = readOptions(target, COLLECTION_TARGET_OPTIONS);
    const q = quiver ?? (await shared());
    if (!q.Collection || typeof q.Collection[method] !== 'function') {
      throw new QuiverError('INVALID_ARGUMENT', 'quiver must be a module from Quiver.init() or a worker from spawn()');
    }
    return q.Collection;
  }

  class Collection {
    constructor() {
      if (new.target === Collection) {
        throw new QuiverError(
          'INVALID_ARGUMENT',
          'make a collection with Collection.create(options) (or q.Collection.create(options) in a module)',
        );
      }
    }

    static async create(options, target) {
      return (await collectionsOf(target, 'create')).create(options);
    }

    // Collection.load(bytes, { quiver }): the collection in a file (serialize(), the native
    // library or `quiver collection build`), in `quiver` or the shared module.
    static async load(bytes, target) {
      return (await collectionsOf(target, 'load')).load(bytes);
    }
  }

  return { init, load, shared, Collection };
}
