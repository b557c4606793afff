// EdgeVec (Rust compiled to WebAssembly, wasm-bindgen "web" target). Quirks: in Node the default
// init() tries to fetch() its .wasm from a file URL, which Node's fetch refuses, so the bytes are
// passed to initSync(); ef_search is a property of the config the index is made with (there is
// no per-search or setter knob), so each swept value builds the index again (fewer values are
// swept for that reason); ids are assigned by the library (insertBatchFlat returns them), and
// results are mapped back to row numbers; single-threaded. Its build slows steeply with size
// (2,000 rows took ~50x hnswlib's time here), so rows go in by chunks of 1,000 under a time
// budget (PEER_BUILD_BUDGET_S): past it the job fails with how far it got.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { buildWithinBudget, EF_CONSTRUCTION, M, versionOf } from './common.mjs';

const require = createRequire(import.meta.url);

export async function open(ctx) {
  const mod = await import('edgevec');
  const wasmPath = require.resolve('edgevec').replace(/[^/]*$/, 'edgevec_bg.wasm');
  mod.initSync({ module: readFileSync(wasmPath) });
  const { EdgeVec, EdgeVecConfig } = mod;
  const { base } = ctx.wl;
  const dim = ctx.dim,
    n = ctx.rows;
  let current = null;
  const build = (ef) => {
    current?.index.free();
    const config = new EdgeVecConfig(dim);
    config.metric = 'l2';
    config.m = M;
    config.m0 = 2 * M;
    config.ef_construction = EF_CONSTRUCTION;
    config.ef_search = ef;
    const index = new EdgeVec(config);
    const rowOf = new Map();
    buildWithinBudget(
      n,
      1000,
      (at, count) => {
        const assigned = index.insertBatchFlat(base.data.subarray(at * dim, (at + count) * dim), count);
        assigned.forEach((id, i) => rowOf.set(id, at + i));
      },
      'edgevec',
    );
    current = { index, rowOf, ef };
    return current;
  };
  return {
    library: 'edgevec',
    version: versionOf('edgevec'),
    target: `wasm (Node ${process.version})`,
    notes: [
      'ef_search fixed at construction: the index is rebuilt for each swept ef (build time from the first build)',
      'ids assigned by the library, mapped back to rows',
      'single-threaded; library-reported size: memoryUsage()',
    ],
    configs: [
      {
        name: 'hnsw',
        param: 'ef',
        values: ctx.quick ? [16, 64, 256] : [16, 32, 64, 128, 256],
        buildThreads: [1],
        build: () => {
          build(16);
          return {
            memoryBytes: () => current.index.memoryUsage(),
            set: (ef) => {
              if (ef !== current.ef) build(ef);
            },
            search: (q, k) => current.index.search(q, k).map((h) => current.rowOf.get(h.id)),
            dispose: () => {
              current?.index.free();
              current = null;
            },
          };
        },
      },
    ],
  };
}
