// The concurrency benchmarks' knobs keep the reference's names (THREADS, DURATION_S, ...), which
// cmake/wasm-node-env.js does not copy (it copies QUIVER_* only): copy them into Emscripten's
// ENV so getenv() sees them in the wasm build too.
Module['preRun'] = (Module['preRun'] || []).concat([
  function () {
    if (typeof process === 'undefined' || !process.env) return;
    var names = [
      'THREADS',
      'DURATION_S',
      'WARMUP_S',
      'LOOKUP_ONLY_S',
      'LATENCY_SAMPLES',
      'MIN_SECONDS',
      'CORPUS_ROWS',
      'DIM',
      'QUERY_POOL',
      'K',
      'BIT_WIDTH',
      'MODE',
      'INDEX',
    ];
    for (var i = 0; i < names.length; ++i) {
      if (process.env[names[i]] !== undefined) ENV[names[i]] = process.env[names[i]];
    }
  },
]);
