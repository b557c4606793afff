// The knobs of concurrent_knn and scaling_batch with the reference's names and defaults, read
// from the environment: one list for bench/concurrent/run.mjs (native, wasm under Node) and
// bench/browser/run.mjs (the page in Chromium), so both targets run the same workload.
export function concurrentKnobs(env = process.env) {
  const get = (name, fallback) => env[name] ?? fallback;
  return {
    THREADS: get('THREADS', '1 2 4 8 16'),
    DURATION_S: get('DURATION_S', '5'),
    CORPUS_ROWS: get('CORPUS_ROWS', '10000'),
    DIM: get('DIM', '384'),
    QUERY_POOL: get('QUERY_POOL', '256'),
    K: get('K', '10'),
    BIT_WIDTH: get('BIT_WIDTH', '4'),
    INDEX: get('INDEX', 'flat'),
    WARMUP_S: get('WARMUP_S', '0.2'),
    LOOKUP_ONLY_S: get('LOOKUP_ONLY_S', '0.5'),
    MIN_SECONDS: get('MIN_SECONDS', '1'),
  };
}
