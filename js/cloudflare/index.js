// quiver-vector/cloudflare: a sharded collection on Durable Objects (docs/sharded.md).
//   QuiverShard          the Durable Object class of a shard (export it from your Worker and
//                        bind it: durable_objects / new_sqlite_classes in wrangler.toml)
//   QuiverRouter         places records, fans queries out and merges them, in any Worker
//   handleRouterRequest  the router as a JSON-over-HTTP API for a fetch handler
//   shardOf, idKey       the placement function (for load scripts and re-sharding)
export { QuiverShard } from './shard.js';
export { QuiverRouter } from './router.js';
export { handleRouterRequest } from './http.js';
export { shardOf, idKey } from './placement.js';
export { mergeTopK } from './merge.js';
export { QuiverError } from '../core/errors.js';
