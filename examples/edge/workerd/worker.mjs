// The workerd (Cloudflare Workers) entry of examples/edge/handler.mjs. The .wasm import is a
// compiled WebAssembly.Module: wrangler bundles it that way, and config.capnp binds it as a
// wasm module of this name. env.INDEX is the index file (a data binding in config.capnp;
// KV, R2 or a static asset on Cloudflare).
import wasm from 'quiver-vector/wasm/simd/quiver.wasm';
import handler from '../handler.mjs';

export default {
  fetch: (request, env) => handler.fetch(request, { ...env, QUIVER_WASM: wasm }),
};
