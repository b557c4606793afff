// The router over HTTP with JSON bodies, for a Worker's fetch handler (the example and the
// tests use it; an app with its own API calls QuiverRouter directly):
//   POST /upsert  {"records": [{"id", "values", "metadata", "namespace"}]} -> {"count", "shards"}
//   POST /insert  the same; an id already present is DUPLICATE_ID
//   POST /delete  {"ids": [...], "namespace"?}                           -> {"count", "shards"}
//   POST /get     {"ids": [...], "returnValues"?, "namespace"?}          -> [record | null]
//   POST /query   {"vector": [...], ...query options}                    -> {"matches", "plan", "partial", "missing"}
//   GET  /describe                                                       -> the router's describe()
//   POST /compact                                                        -> each shard's snapshot
// A refusal is 400 {"error": <QuiverError code>, "message"}; a shard that did not answer (or a
// write that only some shards made) is 503 with "missing" (or "applied" and "failed").
// Vectors (values) come back as arrays of numbers.
import { QuiverError } from '../core/errors.js';

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const invalid = (message) => new QuiverError('INVALID_ARGUMENT', message);

// The body's keys must be `required` plus any of `optional` (the rest of the body is handed on
// when `rest` is set).
function fields(body, required, optional = [], rest = false) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the body must be a JSON object');
  for (const key of required) if (!(key in body)) throw invalid(`the body has no '${key}'`);
  if (!rest) {
    for (const key of Object.keys(body)) {
      if (!required.includes(key) && !optional.includes(key)) {
        throw invalid(`unknown field '${key}' in the body (it takes ${[...required, ...optional].join(', ')})`);
      }
    }
  }
  return body;
}

const plainValues = (records) => {
  for (const r of records) if (r?.values) r.values = Array.from(r.values);
  for (const r of records) if (r?.metadata === undefined && r) delete r.metadata;
  return records;
};

async function route(request, router) {
  const { pathname } = new URL(request.url);
  if (request.method === 'GET' && pathname === '/describe') return router.describe();
  if (request.method !== 'POST') return null;
  if (pathname === '/compact') return router.compact();
  let body;
  try {
    body = await request.json();
  } catch (e) {
    throw invalid(`the body is not JSON: ${e.message}`);
  }
  switch (pathname) {
    case '/upsert':
      return router.upsert(fields(body, ['records']).records);
    case '/insert':
      return router.insert(fields(body, ['records']).records);
    case '/delete': {
      const { ids, namespace } = fields(body, ['ids'], ['namespace']);
      return router.deleteByIds(ids, { namespace });
    }
    case '/get': {
      const { ids, ...options } = fields(body, ['ids'], [], true);
      return plainValues(await router.getByIds(ids, options));
    }
    case '/query': {
      const { vector, ...options } = fields(body, ['vector'], [], true);
      const result = await router.query(vector, options);
      plainValues(result.matches);
      return result;
    }
    default:
      return null;
  }
}

// The response to `request` (null for a path this API does not have, so the caller can serve
// others).
export async function handleRouterRequest(request, router) {
  try {
    const result = await route(request, router);
    return result === null ? null : json(result);
  } catch (e) {
    if (!(e instanceof QuiverError)) throw e;
    const status = e.code === 'SHARD_UNAVAILABLE' || e.code === 'PARTIAL_WRITE' ? 503 : 400;
    const body = { error: e.code, message: e.message };
    if (e.missing) body.missing = e.missing;
    if (e.applied) Object.assign(body, { applied: e.applied, failed: e.failed });
    return json(body, status);
  }
}
