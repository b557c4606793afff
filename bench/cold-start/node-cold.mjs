// One cold start in Node, in its own process: import 'quiver-vector/simd', init, read the file,
// load it from its bytes, answer one query. Prints one JSON line of phase times (ms, from
// performance.now(), whose origin is this process's start).
//   node bench/cold-start/node-cold.mjs FILE
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.argv[2];
const t0 = performance.now();
const { Quiver } = await import('quiver-vector/simd');
const t1 = performance.now();
const q = await Quiver.init();
const t2 = performance.now();
const bytes = readFileSync(file);
const t3 = performance.now();
const index = q.load(bytes);
const t4 = performance.now();
const query = new Float32Array(index.dim).map((_, i) => Math.sin(i + 1));
const { ids } = index.search(query, 10);
const t5 = performance.now();
const warm = [];
for (let i = 0; i < 20; i++) {
  const s = performance.now();
  index.search(query, 10);
  warm.push(performance.now() - s);
}
warm.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    process_start_to_script_ms: t0,
    import_ms: t1 - t0,
    init_ms: t2 - t1,
    read_ms: t3 - t2,
    load_ms: t4 - t3,
    first_search_ms: t5 - t4,
    bytes_to_answer_ms: t5 - t3,
    init_to_answer_ms: t5 - t1,
    warm_search_ms: warm[10],
    file_bytes: bytes.length,
    size: index.size,
    kind: index.constructor.name,
    found: ids.length,
  }),
);
