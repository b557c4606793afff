// Chooses and instantiates one of the three wasm builds:
//   simd-mt   SIMD128 + pthreads   needs SharedArrayBuffer (cross-origin isolation in browsers)
//   simd      SIMD128              any engine that validates SIMD128
//   baseline  neither              everything else
// A wasm module cannot probe for instructions at run time (an engine rejects a whole module
// that holds an opcode it lacks), so the choice is made here, before loading.
//
// Where the .wasm comes from (first that applies):
//   wasmModule   a compiled WebAssembly.Module (edge runtimes that import .wasm as a module
//                and refuse to compile bytes); instantiated through Emscripten's
//                instantiateWasm hook, so nothing is fetched or compiled from bytes
//   wasmBinary   the bytes (ArrayBuffer / typed array)
//   wasmUrl      a URL or path (string or URL) of the .wasm
//   locateFile   (file, prefix) => URL of any file the module asks for (quiver.wasm, and
//                quiver.worker.js for simd-mt)
//   default      next to this file: wasm/<variant>/quiver.wasm
// Node reads file: URLs from disk itself: the Emscripten 3.1.6 glue predates Node's global
// fetch (TOOLCHAIN.md).
import { QuiverError } from './errors.js';

export const VARIANTS = ['simd-mt', 'simd', 'baseline'];

const isNode = typeof process === 'object' && !!(process.versions && process.versions.node);

// The literal paths below (not built from the variant name) let bundlers such as Vite see
// every module and asset the package needs and copy them into the build.
const BUILDS = {
  'simd-mt': {
    glue: () => import('./wasm/simd-mt/quiver.mjs'),
    wasm: () => new URL('./wasm/simd-mt/quiver.wasm', import.meta.url),
    worker: () => new URL('./wasm/simd-mt/quiver.worker.js', import.meta.url),
    // What each pthread worker imports: the glue as a file of its own (a bundler may have
    // merged the glue loaded above into a chunk the worker cannot find).
    script: () => new URL('./wasm/simd-mt/quiver.mjs', import.meta.url),
  },
  simd: {
    glue: () => import('./wasm/simd/quiver.mjs'),
    wasm: () => new URL('./wasm/simd/quiver.wasm', import.meta.url),
  },
  baseline: {
    glue: () => import('./wasm/baseline/quiver.mjs'),
    wasm: () => new URL('./wasm/baseline/quiver.wasm', import.meta.url),
  },
};

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

function checkThreads(threads) {
  if (threads === undefined) return undefined;
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
    throw new QuiverError('INVALID_ARGUMENT', `threads must be an integer in [1, 256], got ${threads}`);
  }
  return threads;
}

function toUrl(location, base) {
  if (location instanceof URL) return location;
  if (typeof location !== 'string') {
    throw new QuiverError('INVALID_ARGUMENT', 'wasmUrl must be a string or a URL');
  }
  // A bare filesystem path in Node ("/x/quiver.wasm", "C:\\x"), else a URL relative to base.
  if (isNode && !/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !location.startsWith('data:')) {
    return new URL(`file://${location.startsWith('/') ? '' : '/'}${location.replace(/\\/g, '/')}`);
  }
  return new URL(location, base);
}

async function readWasm(url) {
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return readFile(url).catch((e) => { throw new QuiverError('IO_ERROR', `reading ${url.href}: ${e.message}`); });
  }
  const response = await fetch(url).catch((e) => { throw new QuiverError('IO_ERROR', `fetching ${url.href}: ${e.message}`); });
  if (!response.ok) throw new QuiverError('IO_ERROR', `fetching ${url.href} failed: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Bundlers may inline the small pthread worker script as a data: URL. A worker started from
// one gets an opaque origin and cannot import the glue, so start it from a same-origin Blob.
function workerHref(url, href) {
  if (url.protocol !== 'data:') return href(url);
  const [, meta, data] = url.href.match(/^data:([^,]*),(.*)$/s);
  const text = meta.endsWith(';base64') ? atob(data) : decodeURIComponent(data);
  return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}

async function wasmBytesOrModule(options, build) {
  const { wasmModule, wasmBinary, wasmUrl, locateFile } = options;
  if (wasmModule !== undefined) {
    if (!(wasmModule instanceof WebAssembly.Module)) {
      throw new QuiverError('INVALID_ARGUMENT', 'wasmModule must be a WebAssembly.Module');
    }
    return { module: wasmModule };
  }
  if (wasmBinary !== undefined) {
    if (!(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary)) {
      throw new QuiverError('INVALID_ARGUMENT', 'wasmBinary must be an ArrayBuffer or a typed array');
    }
    return { bytes: wasmBinary };
  }
  if (wasmUrl !== undefined) return { url: toUrl(wasmUrl, build.wasm()) };
  if (locateFile) return { url: toUrl(String(locateFile('quiver.wasm', build.wasm().href.replace(/[^/]*$/, ''))), build.wasm()) };
  return { url: build.wasm() };
}

export async function loadModule(options = {}) {
  const variant = chooseVariant(options.variant ?? 'auto');
  const threads = checkThreads(options.threads);
  const build = BUILDS[variant];
  const source = await wasmBytesOrModule(options, build);
  const moduleOptions = {};
  if (build.script) moduleOptions.mainScriptUrlOrBlob = build.script().href;
  if (threads !== undefined) moduleOptions.quiverThreads = threads;
  // Every file the glue asks for: the caller's locateFile, else next to this package.
  // Node's Worker (used by the glue for pthreads) takes a path, not a file: URL string.
  const toPath = isNode ? (await import('node:url')).fileURLToPath : null;
  const href = (url) => (toPath && url.protocol === 'file:' ? toPath(url) : url.href);
  moduleOptions.locateFile = (file, prefix) => {
    if (options.locateFile) return String(options.locateFile(file, prefix));
    if (file.endsWith('.wasm')) return href(source.url ?? build.wasm());
    if (file.endsWith('.worker.js') && build.worker) return workerHref(build.worker(), href);
    return prefix + file;
  };
  // instantiateWasm has no error channel into the glue: a failure rejects `failure`.
  let rejectLoad;
  const failure = new Promise((_, reject) => { rejectLoad = reject; });
  if (source.module) {
    const compiled = source.module;
    moduleOptions.instantiateWasm = (imports, receiveInstance) => {
      // receiveInstance keeps the module so simd-mt can hand it to its pthread workers.
      WebAssembly.instantiate(compiled, imports).then((instance) => receiveInstance(instance, compiled), rejectLoad);
      return {};
    };
  } else if (source.bytes) {
    moduleOptions.wasmBinary = source.bytes;
  } else if (isNode) {
    moduleOptions.wasmBinary = await readWasm(source.url);
  }
  const { default: createQuiverModule } = await build.glue();
  const mod = await Promise.race([createQuiverModule(moduleOptions), failure]).catch((e) => {
    throw new QuiverError('LOAD_FAILED', `the ${variant} wasm module did not load: ${e?.message ?? e}`);
  });
  return { mod, variant, threads: threads ?? null };
}
