// hnswlib-wasm: hnswlib compiled to WebAssembly (Emscripten, no threads). Quirks: the package
// has only a bundler "module" field (no "main"/"exports"), so Node imports dist/hnswlib.js by
// path; the module is built for browsers only and starts in Node once `window` is defined; HierarchicalNSW needs a third
// argument (an auto-save file name, '' for none); addPoints() takes an array of rows; searchKnn
// needs the filter argument (undefined); single-threaded build and search, no batch call.
import { EF_CONSTRUCTION, EF_VALUES, M, row, versionOf } from './common.mjs';

export async function open(ctx) {
  // Built for the web only (ENVIRONMENT=web): it refuses to start unless `window` exists. Its
  // wasm is inlined (base64), so a `window` alias is all it needs in Node.
  globalThis.window ??= globalThis;
  const { loadHnswlib } = await import('hnswlib-wasm/dist/hnswlib.js');
  const lib = await loadHnswlib();
  const { base } = ctx.wl;
  const dim = ctx.dim,
    n = ctx.rows;
  const heap = () => (lib.HEAPU8 ?? lib.HEAP8)?.buffer?.byteLength ?? null;
  return {
    library: 'hnswlib-wasm',
    version: versionOf('hnswlib-wasm'),
    target: `wasm (Node ${process.version})`,
    notes: [
      'single-threaded (no threaded build, no batch)',
      'reports no size: the wasm heap after the build is listed instead',
    ],
    configs: [
      {
        name: 'hnsw',
        param: 'ef',
        values: EF_VALUES,
        buildThreads: [1],
        build: () => {
          const index = new lib.HierarchicalNSW('l2', dim, '');
          index.initIndex(n, M, EF_CONSTRUCTION, 100);
          const chunk = 1000;
          for (let at = 0; at < n; at += chunk) {
            const m = Math.min(chunk, n - at);
            const rows = Array.from({ length: m }, (_, i) => row(base.data, dim, at + i));
            index.addPoints(
              rows,
              Array.from({ length: m }, (_, i) => at + i),
              false,
            );
          }
          return {
            heapBytes: heap,
            set: (ef) => index.setEfSearch(ef),
            search: (q, k) => index.searchKnn(q, k, undefined).neighbors,
            dispose: () => index.delete?.(),
          };
        },
      },
    ],
  };
}
