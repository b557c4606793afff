// Quiver in an edge function: a fetch handler that answers nearest-neighbour queries from an
// index loaded from bytes. Edge runtimes have no SharedArrayBuffer and many refuse to compile
// wasm from bytes at run time, so it uses the single-threaded `simd` build — its entry,
// 'quiver-vector/simd', so the bundle carries that build's glue alone — imported by the
// platform as a precompiled WebAssembly.Module:
//
//   // worker.mjs — the platform entry (Cloudflare Workers style; .wasm imports give a Module)
//   import wasm from 'quiver-vector/wasm/simd/quiver.wasm';
//   import handler from './handler.mjs';
//   export default { fetch: (request, env) => handler.fetch(request, { ...env, QUIVER_WASM: wasm }) };
//
// env.QUIVER_WASM  the WebAssembly.Module of js/wasm/simd/quiver.wasm
// env.INDEX        the index file: bytes (ArrayBuffer / Uint8Array: a data binding, KV, a static
//                  asset) or a stream (an R2 object's body, a fetch Response), which loadFrom
//                  copies into the wasm heap chunk by chunk without holding it whole in JS
//
//   POST /search  {"vector": [...], "k": 5}  ->  {"ids": [...], "distances": [...]}
//   GET  /health                             ->  {"variant": "simd", "auto": "simd", "size": 1000, ...}
//   (auto: the build Quiver.init() would choose here on its own; heapBytes: the wasm memory)
import { Quiver, chooseVariant } from 'quiver-vector/simd';

// One module and one index per isolate, made on the first request and reused after.
let state = null;
function ready(env) {
  state ??= (async () => {
    const q = await Quiver.init({ wasmModule: env.QUIVER_WASM });
    return { q, index: await q.loadFrom(env.INDEX) };
  })();
  return state;
}

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export default {
  async fetch(request, env) {
    const { q, index } = await ready(env);
    const { pathname } = new URL(request.url);
    if (request.method === 'GET' && pathname === '/health') {
      return json({
        variant: q.variant,
        auto: chooseVariant(),
        size: index.size,
        dim: index.dim,
        kind: index.constructor.name,
        heapBytes: q.heapBytes(),
      });
    }
    if (request.method === 'POST' && pathname === '/search') {
      try {
        const { vector, k = 10 } = await request.json();
        const { ids, distances } = index.search(Float32Array.from(vector), k);
        return json({ ids: [...ids], distances: [...distances] });
      } catch (e) {
        // QuiverError carries a stable code (DIMENSION_MISMATCH, INVALID_K, ...).
        return json({ error: e.code ?? 'BAD_REQUEST', message: e.message }, 400);
      }
    }
    return json({ error: 'NOT_FOUND' }, 404);
  },
};
