# cmake -DGLUE=<quiver.mjs> -P patch-glue.cmake
# Small edits to the simd-mt glue Emscripten 3.1.6 generates. Each one must apply (or have been
# applied already): a changed glue stops the build instead of shipping unpatched code.
#  1. The pthread workers start from js/pthread-worker.js, an ES module, so they are created as
#     module Workers ({type: "module"}; Node's worker_threads ignores the option and loads the
#     file as ESM by its package type). The branch without locateFile goes through locateFile
#     too: bundlers (Vite) would otherwise see `new Worker(new URL("quiver.worker.js",
#     import.meta.url))` and try to bundle the generated classic worker.
#  2. A worker that fails to start (a script that does not load, a SyntaxError) is reported to
#     Module.quiverWorkerError, so the loader can reject with LOAD_FAILED at once. The generated
#     handler rethrows, which in Node is an uncaught exception that ends the process, and in a
#     browser leaves Quiver.init() waiting forever for the worker to say "loaded". The glue sets
#     that handler only once the wasm is instantiated, so a worker that fails sooner (a quick
#     404) went unnoticed: Module.quiverNewWorker (the loader) creates each worker and listens
#     for its errors from the start.
#  3. The CPU count comes from navigator.hardwareConcurrency where there is one (browsers, Deno,
#     Bun, Node 21+) before os.cpus(): Deno asks for a --allow-sys permission for the latter.
file(READ "${GLUE}" text)

function(patch from to)
  string(FIND "${text}" "${from}" at)
  if(at EQUAL -1)
    string(FIND "${text}" "${to}" done)
    if(done EQUAL -1)
      message(FATAL_ERROR "patch-glue.cmake: ${GLUE} has changed and no longer holds: ${from}")
    endif()
  else()
    string(REPLACE "${from}" "${to}" text "${text}")
    set(text "${text}" PARENT_SCOPE)
  endif()
endfunction()

patch("new Worker(new URL(\"quiver.worker.js\",import.meta.url))"
      "new Worker(locateFile(\"quiver.worker.js\"),{type:\"module\"})")
patch("new Worker(pthreadMainJs)"
      "(Module[\"quiverNewWorker\"]?Module[\"quiverNewWorker\"](pthreadMainJs):new Worker(pthreadMainJs,{type:\"module\"}))")
patch("worker.onerror=(e=>{var message=\"worker sent an error!\";"
      "worker.onerror=(e=>{if(Module[\"quiverWorkerError\"]){Module[\"quiverWorkerError\"](e);return}var message=\"worker sent an error!\";")

patch("function _emscripten_num_logical_cores(){if(ENVIRONMENT_IS_NODE)return require(\"os\").cpus().length;"
      "function _emscripten_num_logical_cores(){if(typeof navigator==\"object\"&&navigator[\"hardwareConcurrency\"])return navigator[\"hardwareConcurrency\"];if(ENVIRONMENT_IS_NODE)return require(\"os\").cpus().length;")

file(WRITE "${GLUE}" "${text}")
