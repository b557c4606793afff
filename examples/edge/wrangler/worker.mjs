// The wrangler entry of examples/edge/handler.mjs: the .wasm import is a compiled
// WebAssembly.Module, and ./index.qvr a data module (an ArrayBuffer, by the rule in
// wrangler.toml) — the index file the worker serves: write one beside this file first, e.g.
// `quiver build vectors.fbin --index hnsw -o index.qvr` or `index.serialize()` in Node.
import wasm from 'quiver-vector/wasm/simd/quiver.wasm';
import index from './index.qvr';
import handler from '../handler.mjs';

export default {
  fetch: (request, env) => handler.fetch(request, { ...env, QUIVER_WASM: wasm, INDEX: index }),
};
