// Chooses and instantiates one of the four wasm builds:
//   simd-mt       SIMD128 + pthreads   needs SharedArrayBuffer (cross-origin isolation in browsers)
//   relaxed-simd  SIMD128 + relaxed    one thread; engines that validate relaxed SIMD (Chromium;
//                                      Node 20 behind --experimental-wasm-relaxed-simd)
//   simd          SIMD128              any engine that validates SIMD128
//   baseline      neither              everything else
// relaxed-simd gives simd's answers bit for bit (it uses relaxed instructions only where they
// are exact); with threads simd-mt still wins, since a parallel batch beats a faster kernel.
// A wasm module cannot probe for instructions at run time (an engine rejects a whole module
// that holds an opcode it lacks), so the choice is made here, before loading.
//
// Where the .wasm comes from (first that applies):
//   wasmModule   what the runtime's `import wasm from '…/quiver.wasm'` gives: a compiled
//                WebAssembly.Module (workerd, Deno's `import source`; instantiated through
//                Emscripten's instantiateWasm hook, so nothing is fetched or compiled from
//                bytes), or a file path (Bun gives the path as a string), read like wasmUrl
//   wasmBinary   the bytes (ArrayBuffer / typed array)
//   wasmUrl      a URL or path (string or URL) of the .wasm
//   locateFile   (file, prefix) => URL of any file the module asks for (quiver.wasm, and
//                pthread-worker.js, the start-up script of simd-mt's pthread workers)
//   default      next to this file: wasm/<variant>/quiver.wasm
// Node (and Deno, Bun) read file: URLs from disk themselves: the Emscripten 3.1.6 glue
// predates Node's global fetch (TOOLCHAIN.md). Node built-ins are reached through
// process.getBuiltinModule, never an import, so browser bundles (esbuild, Vite) hold none.
// No URL is built unless a file has to be found: workerd has no import.meta.url.
import { QuiverError } from './core/errors.js';
import { INIT_OPTIONS, readOptions } from './core/options.js';

export const VARIANTS = ['simd-mt', 'relaxed-simd', 'simd', 'baseline'];

// Node, Deno and Bun (all three set process.versions.node and have worker_threads).
const isNode = typeof process === 'object' && !!(process.versions && process.versions.node);
const nodeBuiltin = (name) => process.getBuiltinModule(name);

// Start-up of a module that never settles (a pthread worker that never reports) is bounded.
export const DEFAULT_TIMEOUT_MS = 30_000;
// The longest setTimeout can wait (a longer delay fires at once); a longer timeout is no bound.
export const MAX_TIMER_MS = 2 ** 31 - 1;

// The smallest module that uses a SIMD128 opcode (v128.const + drop in a function body).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 23, 1, 21, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 26, 11,
]);

export function hasSimd() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// The smallest module that uses a relaxed-SIMD opcode (i8x16.relaxed_swizzle, 0xfd 0x100, of
// two v128.const in a function body): engines that lack relaxed SIMD reject it.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 44, 1, 42, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 253, 128, 2, 26, 11,
]);

export function hasRelaxedSimd() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

// What the simd-mt build needs: shared wasm memory, Atomics, and somewhere to start threads
// (worker_threads, or a global Worker). workerd, for one, has SharedArrayBuffer but no Worker.
export function hasThreads() {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined') return false;
  // Browsers hand out SharedArrayBuffer only to cross-origin-isolated pages.
  if (typeof crossOriginIsolated !== 'undefined' && !crossOriginIsolated) return false;
  if (!isNode && typeof Worker !== 'function') return false;
  try {
    return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    return false;
  }
}

// The variant an entry with these builds loads: `requested` if it carries it, else (auto) the
// one chooseVariant() picks among the three, or an entry's only build — if this engine can run
// it (a one-build entry on an engine without SIMD128 or threads fails here with LOAD_FAILED
// naming the entry to use, not later with a compile error).
export function variantOf(requested, builds, entry) {
  const carried = Object.keys(builds);
  if (carried.length === VARIANTS.length) return chooseVariant(requested);
  const only = carried[0];
  if (requested !== 'auto' && requested !== only) {
    if (!VARIANTS.includes(requested)) chooseVariant(requested); // the unknown-variant message
    throw new QuiverError(
      'INVALID_ARGUMENT',
      `${entry} carries only the ${only} build; import 'quiver-vector' (every build) or 'quiver-vector/${requested}' for ${requested}`,
    );
  }
  const missing =
    only !== 'baseline' && !hasSimd() ? 'SIMD128' : only === 'simd-mt' && !hasThreads() ? 'threads' : null;
  if (missing) {
    throw new QuiverError(
      'LOAD_FAILED',
      `${entry} carries only the ${only} build, and this engine has no ${missing} (${missing === 'threads' ? 'SharedArrayBuffer, cross-origin isolation or workers' : 'WebAssembly SIMD'}): import 'quiver-vector' or 'quiver-vector/${missing === 'threads' ? 'simd' : 'baseline'}'`,
    );
  }
  return only;
}

export function chooseVariant(requested = 'auto') {
  if (requested !== 'auto') {
    if (!VARIANTS.includes(requested)) {
      throw new QuiverError(
        'INVALID_ARGUMENT',
        `unknown variant '${requested}' (expected auto, ${VARIANTS.join(', ')})`,
      );
    }
    return requested;
  }
  if (!hasSimd()) return 'baseline';
  if (hasThreads()) return 'simd-mt';
  return hasRelaxedSimd() ? 'relaxed-simd' : 'simd';
}

function checkThreads(threads) {
  if (threads === undefined) return undefined;
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
    throw new QuiverError('INVALID_ARGUMENT', `threads must be an integer in [1, 256], got ${threads}`);
  }
  return threads;
}

export function checkTimeout(timeout) {
  if (timeout === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof timeout !== 'number' || !(timeout > 0)) {
    throw new QuiverError(
      'INVALID_ARGUMENT',
      `timeout must be a positive number of milliseconds (or Infinity), got ${timeout}`,
    );
  }
  return timeout;
}

function toUrl(location, base, what = 'wasmUrl') {
  if (location instanceof URL) return location;
  if (typeof location !== 'string') {
    throw new QuiverError('INVALID_ARGUMENT', `${what} must be a string or a URL`);
  }
  // A bare filesystem path in Node ("/x/quiver.wasm", "C:\\x"), else a URL relative to base.
  if (isNode && !/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !location.startsWith('data:')) {
    return new URL(`file://${location.startsWith('/') ? '' : '/'}${location.replace(/\\/g, '/')}`);
  }
  return new URL(location, base());
}

// The .wasm bytes. A module that cannot be read is a module that did not load: LOAD_FAILED
// (as the error table in docs/api.md says), with the reason, like every other start-up failure.
async function readWasm(url) {
  const failed = (what) => new QuiverError('LOAD_FAILED', `the wasm module did not load: ${what}`);
  if (url.protocol === 'file:') {
    const { readFile } = nodeBuiltin('node:fs/promises');
    return readFile(url).catch((e) => {
      throw failed(`reading ${url.href}: ${e.message}`);
    });
  }
  const response = await fetch(url).catch((e) => {
    throw failed(`fetching ${url.href}: ${e.message}`);
  });
  if (!response.ok) throw failed(`fetching ${url.href} failed: HTTP ${response.status}`);
  return new Uint8Array(
    await response.arrayBuffer().catch((e) => {
      throw failed(`reading ${url.href}: ${e.message}`);
    }),
  );
}

// Bundlers may inline the small pthread worker script as a data: URL. A worker started from
// one gets an opaque origin and cannot import the glue, so start it from a same-origin Blob.
function workerHref(url, href) {
  if (url.protocol !== 'data:') return href(url);
  const [, meta, data] = url.href.match(/^data:([^,]*),(.*)$/s);
  const text = meta.endsWith(';base64') ? atob(data) : decodeURIComponent(data);
  return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}

// { module } | { bytes } | { url }; URLs are computed only here, and only when needed.
function wasmSource(options, build) {
  const { wasmModule, wasmBinary, wasmUrl, locateFile } = options;
  if (wasmModule !== undefined) {
    if (wasmModule instanceof WebAssembly.Module) return { module: wasmModule };
    // Bun's `import wasm from '…/quiver.wasm'` is the file's path.
    if (typeof wasmModule === 'string' || wasmModule instanceof URL)
      return { url: toUrl(wasmModule, build.wasm, 'wasmModule') };
    throw new QuiverError('INVALID_ARGUMENT', 'wasmModule must be a WebAssembly.Module or the path/URL of the .wasm');
  }
  if (wasmBinary !== undefined) {
    if (!(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary)) {
      throw new QuiverError('INVALID_ARGUMENT', 'wasmBinary must be an ArrayBuffer or a typed array');
    }
    return { bytes: wasmBinary };
  }
  if (wasmUrl !== undefined) return { url: toUrl(wasmUrl, build.wasm) };
  if (locateFile)
    return { url: toUrl(String(locateFile('quiver.wasm', build.wasm().href.replace(/[^/]*$/, ''))), build.wasm) };
  return { url: build.wasm() };
}

// In Node an idle pthread worker must not keep the process alive: a script that forgets
// terminate() still exits. Calls into the module are synchronous (the caller blocks while
// threads work), so nothing ever waits on an unreferenced worker.
function unrefThreads(mod) {
  const p = mod.PThread;
  if (!isNode || !p) return;
  for (const worker of [...p.unusedWorkers, ...p.runningWorkers]) worker.unref?.();
}

// `builds`: the builds the calling entry carries, by variant (build-<variant>.js: every one for
// 'quiver-vector', one for 'quiver-vector/<variant>'); `entry` names that entry in messages.
export async function loadModule(initOptions, builds, entry) {
  // Every key checked (options.js); null = not given; anything unknown is refused.
  const options = readOptions(initOptions, INIT_OPTIONS);
  const variant = variantOf(options.variant ?? 'auto', builds, entry);
  const threads = checkThreads(options.threads);
  const timeout = checkTimeout(options.timeout);
  const build = builds[variant];
  const source = wasmSource(options, build);
  const moduleOptions = {};
  if (build.script) moduleOptions.mainScriptUrlOrBlob = build.script().href;
  if (threads !== undefined) moduleOptions.quiverThreads = threads;
  // Every file the glue asks for: the caller's locateFile, else next to this package.
  // Node's Worker (used by the glue for pthreads) takes a path, not a file: URL string.
  const href = (url) => (isNode && url.protocol === 'file:' ? nodeBuiltin('node:url').fileURLToPath(url) : url.href);
  moduleOptions.locateFile = (file, prefix) => {
    const asked = file.endsWith('.worker.js') ? 'pthread-worker.js' : file;
    if (options.locateFile) return String(options.locateFile(asked, prefix));
    if (asked === 'pthread-worker.js' && build.worker) return workerHref(build.worker(), href);
    // With a module or bytes in hand the glue never reads this name: do not build a URL.
    if (file.endsWith('.wasm')) return source.url ? href(source.url) : file;
    return prefix + file;
  };
  // Failures with no channel into the glue (instantiateWasm, a pthread worker that does not
  // start, a start-up that never ends) reject `failure`.
  let rejectLoad;
  const failure = new Promise((_, reject) => {
    rejectLoad = reject;
  });
  moduleOptions.quiverWorkerError = (e) =>
    rejectLoad(new Error(`a pthread worker failed to start: ${e?.message ?? e}`));
  // The glue listens for a worker's errors only once the wasm is instantiated; a worker whose
  // script fails sooner must not go unnoticed (nor, in Node, throw as an unhandled 'error').
  let starting = true;
  moduleOptions.quiverNewWorker = (url) => {
    const worker = isNode ? new (nodeBuiltin('node:worker_threads').Worker)(url) : new Worker(url, { type: 'module' });
    const report = (e) => {
      if (starting) moduleOptions.quiverWorkerError(e);
    };
    if (isNode) worker.on('error', report);
    else worker.addEventListener('error', report);
    return worker;
  };
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
  let timer;
  if (timeout <= MAX_TIMER_MS) {
    timer = setTimeout(() => rejectLoad(new Error(`start-up did not finish within ${timeout} ms`)), timeout);
  }
  try {
    const started = build.glue().then(({ default: createQuiverModule }) => createQuiverModule(moduleOptions));
    const mod = await Promise.race([started, failure]).catch((e) => {
      // Whatever did start (pthread workers) must not outlive the failed load.
      moduleOptions.PThread?.terminateAllThreads();
      started.then(
        (late) => late.PThread?.terminateAllThreads(),
        () => {},
      );
      throw new QuiverError('LOAD_FAILED', `the ${variant} wasm module did not load: ${e?.message ?? e}`);
    });
    // From now on a failing pthread worker is reported, not thrown (in Node a throw from the
    // glue's handler would end the process).
    starting = false;
    mod.quiverWorkerError = (e) => console.error(`quiver: a pthread worker failed: ${e?.message ?? e}`);
    unrefThreads(mod);
    return { mod, variant, threads: threads ?? null };
  } finally {
    clearTimeout(timer);
  }
}
