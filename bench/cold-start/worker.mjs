// workerd worker of bench/cold-start/run.mjs: on the first request, init the simd build from the
// module the platform compiled, load the index streamed through a service binding (as from R2)
// and answer the query; later requests answer from the loaded index. Times are taken outside
// (workerd's clock does not advance during computation).
import wasm from 'quiver-vector/wasm/simd/quiver.wasm';
import { Quiver } from 'quiver-vector/simd';

let state;
export default {
  async fetch(request, env) {
    try {
      state ??= (async () => {
        const q = await Quiver.init({ wasmModule: wasm });
        const index = await q.loadFrom(await env.FILES.fetch('http://files/index.qvr'));
        return { index, query: new Float32Array(index.dim).map((_, i) => Math.sin(i + 1)) };
      })();
      const { index, query } = await state;
      const { ids } = index.search(query, 10);
      return Response.json({ size: index.size, found: ids.length, kind: index.constructor.name });
    } catch (e) {
      return Response.json({ error: e.code ?? e.name, message: e.message }, { status: 500 });
    }
  },
};
