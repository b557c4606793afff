// workerd worker of bench/edge-memory/workerd.mjs: loads the index from a service binding
// (a stream, as from R2 or fetch) on the first request, runs 10 searches, and reports the wasm
// memory of the module (which never shrinks, so it is the peak of the load) and the index's
// own memoryBytes.
import wasm from 'quiver-vector/wasm/simd/quiver.wasm';
import { Quiver } from 'quiver-vector';

let state;
export default {
  async fetch(request, env) {
    try {
      state ??= (async () => {
        const q = await Quiver.init({ variant: 'simd', wasmModule: wasm });
        const response = await env.FILES.fetch('http://files/index.qvr');
        const index = await q.loadFrom(response);
        const query = new Float32Array(index.dim).fill(1 / Math.sqrt(index.dim));
        for (let i = 0; i < 10; i++) index.search(query, 10);
        return { q, index };
      })();
      const { q, index } = await state;
      return Response.json({ size: index.size, memoryBytes: index.memoryBytes, heapBytes: q.heapBytes() });
    } catch (e) {
      return Response.json({ error: e.code ?? e.name, message: e.message }, { status: 500 });
    }
  },
};
