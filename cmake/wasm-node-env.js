// Node's environment is not visible to getenv() in Emscripten 3.1.6 programs: copy the
// variables Quiver reads (QUIVER_*) and GoogleTest's sharding (GTEST_TOTAL_SHARDS,
// GTEST_SHARD_INDEX) into Emscripten's ENV before main() runs.
Module['preRun'] = (Module['preRun'] || []).concat([function () {
  if (typeof process === 'undefined' || !process.env) return;
  for (var name in process.env) {
    if (name.indexOf('QUIVER_') === 0 || name === 'GTEST_TOTAL_SHARDS' || name === 'GTEST_SHARD_INDEX') {
      ENV[name] = process.env[name];
    }
  }
}]);
