// Quiver in WebAssembly under Node, through the package (js/ in this repository, imported by
// path), variant simd or simd-mt (options.variant): flat, quantised 4-bit (rerank depth swept;
// 0 = codes only), HNSW with f32 and sq8 storage (ef swept; sq8 keeps the f32 vectors and
// rescores the final candidates), and codes only: HNSW sq8 without the f32 copy and the
// partitioned quantised index (4 + 3 bits, lists auto; probes swept).
import os from 'node:os';
import { EF_CONSTRUCTION, EF_VALUES, M, PROBE_VALUES } from './common.mjs';

export async function open(ctx) {
  const { Quiver } = await import('../../../js/index.js');
  const variant = ctx.options.variant;
  const q = await Quiver.init({ variant });
  const { base } = ctx.wl;
  const dim = ctx.dim,
    n = ctx.rows;
  const ids = Float64Array.from({ length: n }, (_, i) => i);
  const all = variant === 'simd-mt' ? os.cpus().length : 1;
  const heapBefore = q.heapBytes();
  const wrap = (index, searchOpts) => {
    let value;
    return {
      // What the index says it holds, and the size of the wasm memory (which never shrinks).
      memoryBytes: () => index.memoryBytes,
      heapBytes: () => q.heapBytes(),
      set: (v) => {
        value = v;
      },
      search: (query, k) => index.search(query, k, searchOpts(value)).ids,
      batch: (qs, nq, k) => {
        const r = index.searchBatch(qs, k, searchOpts(value));
        return Array.from({ length: nq }, (_, i) => r.ids.subarray(i * r.k, (i + 1) * r.k));
      },
      dispose: () => index.dispose(),
    };
  };
  const configs = [
    {
      name: 'flat',
      param: null,
      values: [null],
      buildThreads: [1],
      build: () => {
        const x = new q.FlatIndex({ dim, metric: 'l2' });
        x.add(ids, base.data);
        return wrap(x, () => ({}));
      },
    },
    {
      name: 'quantized 4-bit',
      param: 'rerank',
      values: [0, 1, 2, 4, 8, 16],
      buildThreads: [1],
      build: () => {
        const x = new q.QuantizedIndex({ dim, metric: 'l2', bits: 4 });
        x.add(ids, base.data);
        return wrap(x, (v) => ({ rerank: v }));
      },
    },
    ...['f32', 'sq8'].map((storage) => ({
      name: `hnsw ${storage}`,
      param: 'ef',
      values: EF_VALUES,
      buildThreads: all > 1 ? [1, all] : [1],
      build: (threads) => {
        const x = new q.HnswIndex({ dim, metric: 'l2', M, efConstruction: EF_CONSTRUCTION, storage });
        x.add(ids, base.data, { threads });
        return wrap(x, (v) => ({ ef: v }));
      },
    })),
    // Codes only (no f32 copy anywhere): the graph on sq8 codes, and the partitioned quantised
    // index (lists auto, 4-bit codes + 3-bit refine plane), probes swept.
    {
      name: 'hnsw sq8 codes only',
      param: 'ef',
      values: EF_VALUES,
      buildThreads: all > 1 ? [1, all] : [1],
      build: (threads) => {
        const x = new q.HnswIndex({
          dim,
          metric: 'l2',
          M,
          efConstruction: EF_CONSTRUCTION,
          storage: 'sq8',
          keepVectors: false,
        });
        x.add(ids, base.data, { threads });
        return wrap(x, (v) => ({ ef: v }));
      },
    },
    {
      name: 'partitioned 4+3-bit codes only',
      param: 'probes',
      values: PROBE_VALUES,
      buildThreads: [1],
      build: () => {
        const x = new q.QuantizedIndex({
          dim,
          metric: 'l2',
          bits: 4,
          refineBits: 3,
          lists: 'auto',
          keepVectors: false,
        });
        x.add(ids, base.data);
        return wrap(x, (v) => ({ probes: v }));
      },
    },
  ];
  for (const c of configs) c.batchThreads = [all];
  return {
    library: 'quiver',
    version: 'this commit',
    target: `wasm ${variant} (Node ${process.version})`,
    notes: [
      `batch = searchBatch on the module's pool: ${all} thread(s) in ${variant}`,
      `wasm heap before the first index: ${heapBefore} bytes`,
    ],
    configs,
    close: () => {
      ctx.log(`  wasm heap at the end: ${q.heapBytes()} bytes`);
      q.terminate?.();
    },
  };
}
