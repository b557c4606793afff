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
import { makeFlatIndexClass } from './flat-index.js';

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

export const Quiver = { init, chooseVariant, VARIANTS };
export { init, QuiverError, chooseVariant, VARIANTS };
export default Quiver;
