// Chooses and instantiates one of the three wasm builds:
//   simd-mt   SIMD128 + pthreads   needs SharedArrayBuffer (cross-origin isolation in browsers)
//   simd      SIMD128              any engine that validates SIMD128
//   baseline  neither              everything else
// A wasm module cannot probe for instructions at run time (an engine rejects a whole module
// that holds an opcode it lacks), so the choice is made here, before loading.
import { QuiverError } from './errors.js';

export const VARIANTS = ['simd-mt', 'simd', 'baseline'];

const isNode = typeof process === 'object' && !!(process.versions && process.versions.node);

// The smallest module that uses a SIMD128 opcode (v128.const + drop in a function body).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 23, 1, 21, 0, 253, 12,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 26, 11,
]);

export function hasSimd() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

export function hasThreads() {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  // Browsers hand out SharedArrayBuffer only to cross-origin-isolated pages.
  if (typeof crossOriginIsolated !== 'undefined' && !crossOriginIsolated) return false;
  return true;
}

export function chooseVariant(requested = 'auto') {
  if (requested !== 'auto') {
    if (!VARIANTS.includes(requested)) {
      throw new QuiverError('INVALID_ARGUMENT',
        `unknown variant '${requested}' (expected auto, ${VARIANTS.join(', ')})`);
    }
    return requested;
  }
  if (!hasSimd()) return 'baseline';
  return hasThreads() ? 'simd-mt' : 'simd';
}

export async function loadModule(options = {}) {
  const variant = chooseVariant(options.variant ?? 'auto');
  const base = new URL(`./wasm/${variant}/`, import.meta.url);
  const { default: createQuiverModule } = await import(new URL('quiver.mjs', base).href);
  const moduleOptions = {};
  if (options.threads !== undefined) moduleOptions.quiverThreads = options.threads;
  if (options.wasmBinary) {
    moduleOptions.wasmBinary = options.wasmBinary;
  } else if (isNode) {
    // Emscripten 3.1.6 predates Node's global fetch: hand it the bytes instead.
    const { readFile } = await import('node:fs/promises');
    moduleOptions.wasmBinary = await readFile(new URL('quiver.wasm', base));
  }
  if (options.locateFile) moduleOptions.locateFile = options.locateFile;
  const mod = await createQuiverModule(moduleOptions);
  return { mod, variant };
}
