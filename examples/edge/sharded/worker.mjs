// A sharded Quiver collection on Cloudflare Workers (README.md here; docs/sharded.md):
// QuiverShard is the Durable Object class of the shards (exported so the platform can find
// it), and the fetch handler is the router, as the JSON API of handleRouterRequest:
//   POST /upsert {"records": [...]}, /insert, /delete {"ids"}, /get {"ids"}, /query {"vector", ...},
//   GET /describe, POST /compact.
// The collection — its name, shard count and Collection.create() options — is the QUIVER var
// (wrangler.toml [vars], or a json binding in config.capnp).
import { QuiverRouter, handleRouterRequest } from 'quiver-vector/cloudflare';

export { QuiverShard } from 'quiver-vector/cloudflare';

export default {
  async fetch(request, env) {
    const config = typeof env.QUIVER === 'string' ? JSON.parse(env.QUIVER) : env.QUIVER;
    const router = new QuiverRouter(env.SHARDS, config);
    return (await handleRouterRequest(request, router)) ?? new Response('not found', { status: 404 });
  },
};
