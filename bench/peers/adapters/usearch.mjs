// usearch (Unum USearch, C++ addon). Quirks: keys are BigInt (BigUint64Array); metric 'l2sq';
// expansion_search is fixed when the Index object is made (no setter), so the sweep saves the
// built graph once and loads it into a new Index per value (the recall changing with the value
// is the check that the setting is used); add() and batch search() take a thread count.
import { createRequire } from 'node:module';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { EF_CONSTRUCTION, EF_VALUES, M, versionOf } from './common.mjs';

const require = createRequire(import.meta.url);

export async function open(ctx) {
  const usearch = require('usearch');
  const { Index, MetricKind } = usearch;
  const { base } = ctx.wl;
  const dim = ctx.dim,
    n = ctx.rows;
  const all = os.cpus().length;
  const keys = BigUint64Array.from({ length: n }, (_, i) => BigInt(i));
  const make = (ef) =>
    new Index({
      dimensions: dim,
      metric: MetricKind.L2sq,
      connectivity: M,
      expansion_add: EF_CONSTRUCTION,
      expansion_search: ef,
    });
  const dir = `${ctx.tmpDir}/usearch-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/index.usearch`;
  const toIds = (keysArr) => Array.from(keysArr, Number);
  return {
    library: 'usearch',
    version: versionOf('usearch'),
    target: 'native (Node addon)',
    notes: [
      'BigInt keys; expansion_search fixed per Index object: the graph is saved once and reloaded per ef',
      'library-reported size: the saved index file',
    ],
    configs: [
      {
        name: 'hnsw',
        param: 'ef',
        values: EF_VALUES,
        buildThreads: [1, all],
        batchThreads: [1, all],
        build: (threads) => {
          let index = make(64);
          index.add(keys, base.data, threads);
          index.save(file);
          const bytes = statSync(file).size;
          return {
            memoryBytes: () => bytes,
            set: (ef) => {
              index = make(ef);
              index.load(file);
            },
            search: (q, k) => toIds(index.search(q, k, 1).keys),
            batch: (qs, nq, k, threads) => {
              const r = index.search(qs, k, threads);
              return Array.from({ length: nq }, (_, i) => toIds(r.keys.subarray(i * k, (i + 1) * k)));
            },
            dispose: () => {},
          };
        },
      },
    ],
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
