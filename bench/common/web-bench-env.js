// Browser build of the concurrency benchmarks (examples/bench/): the page passes the knobs as
// Module.benchEnv ({THREADS: '1 2 4', MODE: 'mutex', ...}); copy them into Emscripten's ENV
// before main() runs so the programs' getenv() sees them, as wasm-bench-env.js does in Node.
Module['preRun'] = (Module['preRun'] || []).concat([
  function () {
    var env = Module['benchEnv'] || {};
    for (var name in env) ENV[name] = String(env[name]);
  },
]);
