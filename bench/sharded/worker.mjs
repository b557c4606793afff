// The worker bench/sharded/run.mjs measures: the package's QuiverShard and router (as the
// example deploys them), plus one bulk route the loader uses so that 200k-1M vectors need not
// go through JSON: POST /bulk?start=S with n x dim float32 bytes upserts ids S..S+n-1 through
// the router (the same checks, RPCs and durable log as /upsert).
import { QuiverRouter, handleRouterRequest } from 'quiver-vector/cloudflare';

export { QuiverShard } from 'quiver-vector/cloudflare';

export default {
  async fetch(request, env) {
    const router = new QuiverRouter(env.SHARDS, env.QUIVER);
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/bulk') {
      const start = Number(url.searchParams.get('start'));
      const floats = new Float32Array(await request.arrayBuffer());
      const dim = router.dim;
      const n = floats.length / dim;
      const records = Array.from({ length: n }, (_, i) => ({
        id: start + i,
        values: floats.subarray(i * dim, (i + 1) * dim),
      }));
      try {
        return Response.json(await router.upsert(records, { deadlineMs: 600000 }));
      } catch (e) {
        return Response.json({ error: e.code, message: e.message }, { status: 400 });
      }
    }
    return (await handleRouterRequest(request, router)) ?? new Response('not found', { status: 404 });
  },
};
