// Quiver — vector search for the edge. ES module entry.
//
//   import { Quiver } from 'quiver';
//   const q = await Quiver.init();                 // picks simd-mt / simd / baseline
//   const index = new q.FlatIndex({ dim: 384, metric: 'cosine' });
//   index.add(ids, vectors);                      // Float32Array n x dim
//   const { ids, distances } = index.search(query, 10);
//   index.dispose(); q.terminate();
import { QuiverError } from './errors.js';
import { loadModule, chooseVariant, VARIANTS } from './loader.js';
import { Staging } from './staging.js';
import { makeFlatIndexClass, withHeapBytes, FROM_NATIVE } from './flat-index.js';
import { rethrowing } from './errors.js';

async function init(options = {}) {
  const { mod, variant } = await loadModule(options);
  const staging = new Staging(mod);
  const FlatIndex = makeFlatIndexClass(mod, staging, variant);
  let terminated = false;
  return {
    variant,
    version: mod.version(),
    isa: mod.activeIsa(),
    availableIsas: mod.availableIsas().split(','),
    FlatIndex,
    // Reads index file bytes (Uint8Array/ArrayBuffer) and returns an index of the class the
    // file holds (FlatIndex for now). Corrupt bytes throw QuiverError (BAD_MAGIC, TRUNCATED,
    // CHECKSUM_MISMATCH, UNSUPPORTED_VERSION, CORRUPT, UNKNOWN_INDEX_KIND).
    load(bytes) {
      return withHeapBytes(mod, staging, bytes, (ptr, n) => {
        const kind = rethrowing(() => mod.indexKindOf(ptr, n));
        if (kind === 'flat') return new FlatIndex({ [FROM_NATIVE]: rethrowing(() => mod.FlatIndex.load(ptr, n)) });
        throw new QuiverError('UNKNOWN_INDEX_KIND', `the ${kind} index is not available yet in this build of quiver`);
      });
    },
    // Bytes of wasm memory currently reserved by the module.
    heapBytes() {
      return (mod.wasmMemory ? mod.wasmMemory.buffer : mod.HEAPU8.buffer).byteLength;
    },
    // The deterministic unit-Gaussian workload (same floats as the native generator).
    unitGaussianVectors(n, dim, seed) {
      const ptr = staging.reserve('workload', n * dim * 4);
      mod.fillUnitGaussian(n, dim, seed, ptr);
      return staging.f32.slice(ptr >>> 2, (ptr >>> 2) + n * dim);
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

// Quiver.load(bytes, initOptions): the index in `bytes`, in a module shared by every
// Quiver.load call with the same variant (index.dispose() frees the index;
// (await Quiver.shared(options)).terminate() ends the shared module's threads).
const sharedModules = new Map();
function shared(options = {}) {
  const key = chooseVariant(options.variant ?? 'auto');
  if (!sharedModules.has(key)) sharedModules.set(key, init({ ...options, variant: key }));
  return sharedModules.get(key);
}
async function load(bytes, options = {}) {
  return (await shared(options)).load(bytes);
}

export const Quiver = { init, load, shared, chooseVariant, VARIANTS };
export { init, QuiverError, chooseVariant, VARIANTS };
export default Quiver;
