// hnswlib-node: hnswlib (C++) as a Node addon. Quirks: points and queries must be number[]
// (a Float32Array is rejected), so every call converts; addPoint() is one point per call and
// single-threaded (there is no parallel build); the 'l2' space returns squared L2.
import { createRequire } from 'node:module';
import { EF_CONSTRUCTION, EF_VALUES, M, row, versionOf } from './common.mjs';

const require = createRequire(import.meta.url);

export async function open(ctx) {
  const { HierarchicalNSW } = require('hnswlib-node');
  const { base } = ctx.wl;
  const dim = ctx.dim,
    n = ctx.rows;
  return {
    library: 'hnswlib-node',
    version: versionOf('hnswlib-node'),
    target: 'native (Node addon)',
    notes: [
      'number[] inputs only: each query is converted with Array.from inside the timed call',
      'no parallel build (addPoint one at a time); no batch search; library reports no memory size',
    ],
    configs: [
      {
        name: 'hnsw',
        param: 'ef',
        values: EF_VALUES,
        buildThreads: [1],
        build: () => {
          const index = new HierarchicalNSW('l2', dim);
          index.initIndex(n, M, EF_CONSTRUCTION, 100);
          for (let i = 0; i < n; i++) index.addPoint(Array.from(row(base.data, dim, i)), i);
          return {
            set: (ef) => index.setEf(ef),
            search: (q, k) => index.searchKnn(Array.from(q), k).neighbors,
            dispose: () => {},
          };
        },
      },
    ],
  };
}
