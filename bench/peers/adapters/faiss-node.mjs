// faiss-node (Faiss as a Node addon). Quirks: vectors and queries are number[] only; there is
// no way to set efSearch or efConstruction (no ParameterSpace binding), so the HNSW index is
// Faiss's factory "HNSW16,Flat" with its defaults (efConstruction 40, efSearch 16): one point,
// not a sweep; search() of many queries at once is the batch call (Faiss spreads it over its
// OpenMP threads, all cores: the thread count passed by the harness is only the label). A
// one-query search also enters an OpenMP region, so on a loaded machine waking the pool can
// dominate its latency.
import { createRequire } from 'node:module';
import os from 'node:os';
import { versionOf } from './common.mjs';

const require = createRequire(import.meta.url);

export async function open(ctx) {
  const faiss = require('faiss-node');
  const { base } = ctx.wl;
  const dim = ctx.dim;
  const wrap = (index) => ({
    memoryBytes: () => index.toBuffer().length,
    search: (q, k) => index.search(Array.from(q), k).labels,
    batch: (qs, nq, k) => {
      const r = index.search(Array.from(qs), k);
      return Array.from({ length: nq }, (_, i) => r.labels.slice(i * k, (i + 1) * k));
    },
    dispose: () => {},
  });
  const add = (index) => {
    index.add(Array.from(base.data));
    return index;
  };
  return {
    library: 'faiss-node',
    version: versionOf('faiss-node'),
    target: 'native (Node addon, Debian libfaiss)',
    notes: [
      'number[] inputs only',
      'HNSW: efSearch/efConstruction cannot be set from JS (factory defaults 40 / 16)',
      'library-reported size: the serialized index (toBuffer)',
    ],
    configs: [
      {
        name: 'flat',
        param: null,
        values: [null],
        buildThreads: [1],
        batchThreads: [os.cpus().length],
        build: () => wrap(add(new faiss.IndexFlatL2(dim))),
      },
      {
        name: 'hnsw (HNSW16,Flat, defaults)',
        param: null,
        values: [null],
        buildThreads: [1],
        batchThreads: [os.cpus().length],
        build: () => wrap(add(faiss.Index.fromFactory(dim, 'HNSW16,Flat', faiss.MetricType.METRIC_L2))),
      },
    ],
  };
}
