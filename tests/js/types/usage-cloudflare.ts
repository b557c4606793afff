// Compiled (never run) by tests/js/types.test.mjs: quiver-vector/cloudflare as a Worker uses it
// (docs/sharded.md), resolved through package.json "exports".
import {
  QuiverShard,
  QuiverRouter,
  QuiverError,
  handleRouterRequest,
  shardOf,
  idKey,
  type RouterQueryResult,
  type MissingShard,
  type ShardNamespace,
} from 'quiver-vector/cloudflare';

export class Shard extends QuiverShard {
  compactLogBytes = 1 << 20;
}

export async function handle(request: Request, env: { SHARDS: ShardNamespace }): Promise<Response> {
  const docs = new QuiverRouter(env.SHARDS, {
    name: 'docs',
    shards: 8,
    collection: { dim: 4, index: 'flat', fields: { lang: 'string' } },
    onPartial: 'partial',
    deadlineMs: 2000,
  });
  await docs.upsert([{ id: 'doc-1', values: [1, 0, 0, 0], metadata: { lang: 'en' } }]);
  const result: RouterQueryResult = await docs.query([1, 0, 0, 0], { topK: 3, filter: { lang: 'en' } });
  const missing: MissingShard[] = result.missing;
  const first: string | number | undefined = result.matches[0]?.id;
  const where: number = shardOf(idKey('doc-1'), docs.shards) + docs.shardFor('doc-1');
  try {
    await docs.deleteByIds(['doc-1']);
  } catch (e) {
    if (e instanceof QuiverError && e.code === 'SHARD_UNAVAILABLE') return new Response(String(missing.length));
  }
  // @ts-expect-error onPartial is 'error' or 'partial'
  await docs.query([1, 0, 0, 0], { onPartial: 'ignore' });
  // @ts-expect-error the shard count is required
  new QuiverRouter(env.SHARDS, { name: 'docs', collection: { dim: 4 } });
  return (await handleRouterRequest(request, docs)) ?? new Response(`${first} ${where}`);
}
