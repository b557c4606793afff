// The start-up script of each pthread worker of the simd-mt build, used instead of the
// classic quiver.worker.js that Emscripten 3.1.6 generates. It is an ES module with no
// imports of its own, so that it runs unchanged where the generated one failed:
//   - module Workers in browsers, also when a dev server (Vite) adds imports to every script
//     it serves (a classic worker dies on them with a SyntaxError);
//   - Node worker_threads (no CommonJS, no require of built-ins at module level);
//   - Deno and Bun, whose worker_threads run on a web worker global that has read-only
//     properties (`location`): nothing is assigned to the global that already exists there.
// The loader hands it the glue's URL in the first message; the protocol (load, run, cancel,
// processThreadQueue, processProxyingQueue) is the one of the generated glue's PThread code.
const nodeThreads =
  typeof process === 'object' &&
  process.versions &&
  process.versions.node &&
  typeof process.getBuiltinModule === 'function'
    ? process.getBuiltinModule('node:worker_threads')
    : null;
const parentPort = nodeThreads && !nodeThreads.isMainThread ? nodeThreads.parentPort : null;

// The glue posts to its parent through the global postMessage; a worker_thread has none
// (Node) or one that is not the parent port (Deno's web worker global): route it.
if (parentPort) {
  const post = (message, transfer) => parentPort.postMessage(message, transfer);
  Object.defineProperty(globalThis, 'postMessage', { value: post, writable: true, configurable: true });
  if (typeof globalThis.self === 'undefined') globalThis.self = globalThis;
}

let Module = {};
let runtimeReady = false;
const report = (...parts) => console.error(...parts);

function onMessage(data) {
  try {
    if (data.cmd === 'load') {
      Module.wasmModule = data.wasmModule;
      Module.wasmMemory = data.wasmMemory;
      Module.buffer = data.wasmMemory.buffer;
      Module.ENVIRONMENT_IS_PTHREAD = true;
      // Instantiate the module the main thread compiled (no fetch, no compile here).
      Module.instantiateWasm = (imports, receiveInstance) => {
        const instance = new WebAssembly.Instance(Module.wasmModule, imports);
        receiveInstance(instance);
        Module.wasmModule = null;
        return instance.exports;
      };
      import(data.urlOrBlob)
        .then((glue) => glue.default(Module))
        .then((instance) => {
          Module = instance;
        })
        .catch((e) => {
          report('quiver pthread worker: the glue did not load:', e);
          throw e;
        });
    } else if (data.cmd === 'run') {
      Module.__performance_now_clock_drift = performance.now() - data.time;
      Module.__emscripten_thread_init(data.threadInfoStruct, 0, 0, 1);
      Module.establishStackSpace();
      Module.PThread.receiveObjectTransfer(data);
      Module.PThread.threadInit();
      if (!runtimeReady) {
        Module.___embind_register_native_and_builtin_types();
        runtimeReady = true;
      }
      try {
        const result = Module.invokeEntryPoint(data.start_routine, data.arg);
        if (Module.keepRuntimeAlive()) Module.PThread.setExitStatus(result);
        else Module.__emscripten_thread_exit(result);
      } catch (e) {
        if (e === 'unwind') return;
        if (!(e instanceof Module.ExitStatus)) throw e;
        if (!Module.keepRuntimeAlive()) Module.__emscripten_thread_exit(e.status);
      }
    } else if (data.cmd === 'cancel') {
      if (Module._pthread_self()) Module.__emscripten_thread_exit(-1);
    } else if (data.target === 'setimmediate') {
      // Node's setImmediate polyfill messages: nothing to do.
    } else if (data.cmd === 'processThreadQueue') {
      if (Module._pthread_self()) Module._emscripten_current_thread_process_queued_calls();
    } else if (data.cmd === 'processProxyingQueue') {
      if (Module._pthread_self()) Module._emscripten_proxy_execute_queue(data.queue);
    } else {
      report('quiver pthread worker: unknown command', data.cmd);
    }
  } catch (e) {
    report('quiver pthread worker: uncaught exception:', e);
    if (Module.__emscripten_thread_crashed) Module.__emscripten_thread_crashed();
    throw e;
  }
}

if (parentPort) parentPort.on('message', onMessage);
else self.onmessage = (event) => onMessage(event.data);
