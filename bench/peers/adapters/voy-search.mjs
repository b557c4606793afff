// voy-search (Rust compiled to WebAssembly, a k-d tree). Quirks: published for bundlers (its
// entry imports the .wasm as an ES module, which Node does not do), so the adapter instantiates
// voy_search_bg.wasm itself with the glue's imports; each embedding is a number[] inside a
// { id, title, url, embeddings } object and ids are strings; no parameters (no M, no ef); the
// whole collection is indexed in one call.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { versionOf } from './common.mjs';

const require = createRequire(import.meta.url);

export async function open(ctx) {
  const dir = require.resolve('voy-search/package.json').replace(/package\.json$/, '');
  const glue = await import(`${dir}voy_search_bg.js`);
  const { instance } = await WebAssembly.instantiate(readFileSync(`${dir}voy_search_bg.wasm`), {
    './voy_search_bg.js': glue,
  });
  glue.__wbg_set_wasm(instance.exports);
  const { base } = ctx.wl;
  const dim = ctx.dim,
    n = ctx.rows;
  return {
    library: 'voy-search',
    version: versionOf('voy-search'),
    target: `wasm (Node ${process.version})`,
    notes: [
      'k-d tree, no search-time parameter',
      'number[] embeddings and string ids',
      'single-threaded; no reported size',
      'its build needs ~18 KB of wasm memory per 384-d vector (1.03 GiB at 60,000) and throws unwrap_throw at 80,000',
    ],
    configs: [
      {
        name: 'k-d tree',
        param: null,
        values: [null],
        buildThreads: [1],
        build: () => {
          const embeddings = Array.from({ length: n }, (_, i) => ({
            id: String(i),
            title: '',
            url: '',
            embeddings: Array.from(base.data.subarray(i * dim, (i + 1) * dim)),
          }));
          const voy = new glue.Voy({ embeddings });
          return {
            search: (q, k) => voy.search(q, k).neighbors.map((h) => Number(h.id)),
            dispose: () => voy.free(),
          };
        },
      },
    ],
  };
}
