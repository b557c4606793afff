// QuiverRouter: the front of a sharded collection, in any Worker — it places records on the
// shards (QuiverShard Durable Objects) by a stable hash, fans queries out to them in parallel
// and merges their answers. It loads no WebAssembly: the shards do the work. docs/sharded.md.
//
//   const docs = new QuiverRouter(env.SHARDS, { name: 'docs', shards: 8,
//     collection: { dim: 384, index: 'hnsw', fields: { lang: 'string' } } });
//   await docs.upsert([{ id: 'doc-1', values, metadata: { lang: 'en' } }]);
//   const { matches, partial, missing } = await docs.query(vector, { topK: 5, filter: { lang: 'en' } });
//
// Make one per request (or keep one per isolate: it holds no I/O objects; a Durable Object
// stub is made for each call, since a stub belongs to the request that made it).
import { QuiverError } from '../core/errors.js';
import {
  COLLECTION_OPTIONS,
  ROUTER_DELETE_OPTIONS,
  ROUTER_GET_OPTIONS,
  ROUTER_OPTIONS,
  ROUTER_QUERY_OPTIONS,
  ROUTER_WRITE_OPTIONS,
  readOptions,
  readRecord,
} from '../core/options.js';
import { idKey, shardOf } from './placement.js';
import { mergeTopK } from './merge.js';

const invalid = (message) => new QuiverError('INVALID_ARGUMENT', message);
// Codes a shard reports for its own failure (not the caller's input): the shard counts as not
// answering, like one that threw or timed out.
const SHARD_FAULTS = new Set(['INTERNAL', 'OUT_OF_MEMORY']);

function unavailable(missing, what) {
  const names = missing.map((m) => `shard ${m.shard} (${m.reason}: ${m.message})`).join(', ');
  const e = new QuiverError('SHARD_UNAVAILABLE', `${what}: no answer from ${names}`);
  e.missing = missing;
  return e;
}

function toValues(values, dim, call, name) {
  let out;
  if (values instanceof Float32Array) out = values;
  else if (Array.isArray(values) || ArrayBuffer.isView(values)) out = Float32Array.from(values);
  else throw invalid(`${call}: ${name} must be an array or a typed array of ${dim} numbers`);
  if (out.length !== dim) {
    throw new QuiverError(
      'DIMENSION_MISMATCH',
      `${call}: ${name} has ${out.length} values, the collection's dimension is ${dim}`,
    );
  }
  return out;
}

export class QuiverRouter {
  #namespace;
  #name;
  #shards;
  #collection;
  #placement;
  #deadlineMs;
  #onPartial;

  // namespace: the Durable Object namespace binding of the QuiverShard class (env.SHARDS).
  // options: { name, shards, collection, placement = 'id', deadlineMs = 10000, onPartial = 'error' }
  constructor(namespace, options) {
    if (!namespace || typeof namespace.idFromName !== 'function' || typeof namespace.get !== 'function') {
      throw invalid('new QuiverRouter(): the first argument must be a Durable Object namespace binding (env.SHARDS)');
    }
    const o = readOptions(options, ROUTER_OPTIONS);
    for (const key of ['name', 'shards', 'collection']) {
      if (o[key] === undefined) throw invalid(`new QuiverRouter(): ${key} is required`);
    }
    const c = readOptions(o.collection, COLLECTION_OPTIONS);
    if (c.dim === undefined) throw invalid('new QuiverRouter(): collection.dim is required');
    this.#namespace = namespace;
    this.#name = o.name;
    this.#shards = o.shards;
    // Every default spelt out, so that every shard is given (and stores) the same layout.
    this.#collection = {
      dim: c.dim,
      metric: c.metric ?? 'cosine',
      index: c.index ?? 'hnsw',
      options: c.options ?? {},
      fields: c.fields ?? {},
    };
    this.#placement = o.placement ?? 'id';
    this.#deadlineMs = o.deadlineMs ?? 10000;
    this.#onPartial = o.onPartial ?? 'error';
  }

  get name() {
    return this.#name;
  }
  get shards() {
    return this.#shards;
  }
  get placement() {
    return this.#placement;
  }
  get dim() {
    return this.#collection.dim;
  }

  // The shard that holds a record with this id (and namespace, under placement 'namespace').
  shardFor(id, namespace) {
    return shardOf(this.#placement === 'namespace' ? `ns:${namespace ?? ''}` : idKey(id), this.#shards);
  }

  #layout(shard) {
    return { name: this.#name, shard, shards: this.#shards, collection: this.#collection };
  }

  // One RPC to one shard within `deadlineMs`:
  //   { shard, ok } | { shard, refused: { code, message } } | { shard, missing: { shard, reason, message } }
  async #call(shard, method, args, deadlineMs) {
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(
        () => resolve({ shard, missing: { shard, reason: 'deadline', message: `no answer within ${deadlineMs} ms` } }),
        deadlineMs,
      );
    });
    const stub = this.#namespace.get(this.#namespace.idFromName(`${this.#name}/${shard}`));
    const answer = stub[method](this.#layout(shard), ...args).then(
      (r) => {
        if (!r?.error) return { shard, ok: r?.ok };
        if (SHARD_FAULTS.has(r.error.code)) {
          return { shard, missing: { shard, reason: 'error', message: `${r.error.code}: ${r.error.message}` } };
        }
        return { shard, refused: r.error };
      },
      (e) => ({ shard, missing: { shard, reason: 'error', message: String(e?.message ?? e) } }),
    );
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  // The answers of a fan-out, or the first refusal / the missing shards as a QuiverError.
  static #settle(answers, what) {
    const refused = answers.find((a) => a.refused);
    if (refused) throw new QuiverError(refused.refused.code, refused.refused.message);
    const missing = answers.filter((a) => a.missing).map((a) => a.missing);
    if (missing.length) throw unavailable(missing, what);
    return answers;
  }

  // Adds or replaces the records. Validated whole before any shard writes: a batch that spans
  // several shards is first checked by each of them (nothing written), then written; each
  // shard's part is atomic and durable when this resolves. If a shard fails between the two
  // steps the error is PARTIAL_WRITE, naming the shards that wrote (upsert is idempotent:
  // send the batch again). Resolves to { count, shards }.
  async upsert(records, options) {
    return this.#write('upsert', records, options);
  }
  // As upsert, but an id already present is DUPLICATE_ID and nothing is written.
  async insert(records, options) {
    return this.#write('insert', records, options);
  }

  async #write(op, records, options) {
    const call = `QuiverRouter ${op}()`;
    const deadlineMs = readOptions(options, ROUTER_WRITE_OPTIONS).deadlineMs ?? this.#deadlineMs;
    if (!Array.isArray(records))
      throw invalid(`${call}: records must be an array of { id, values, metadata?, namespace? }`);
    const groups = new Map();
    records.forEach((record, i) => {
      const r = readRecord(record, i, call);
      if (r.values === undefined) throw invalid(`${call}: record ${i} has no values`);
      const out = { id: r.id, values: toValues(r.values, this.#collection.dim, call, `record ${i} values`) };
      if (r.metadata !== undefined) out.metadata = r.metadata;
      if (r.namespace !== undefined) out.namespace = r.namespace;
      const shard = this.shardFor(r.id, r.namespace);
      if (!groups.has(shard)) groups.set(shard, []);
      groups.get(shard).push(out);
    });
    const parts = [...groups].sort((a, b) => a[0] - b[0]);
    if (parts.length > 1) {
      QuiverRouter.#settle(
        await Promise.all(parts.map(([shard, part]) => this.#call(shard, 'check', [op, part], deadlineMs))),
        call,
      );
    }
    await this.#apply(call, parts, op, deadlineMs);
    return { count: records.length, shards: parts.map(([shard]) => shard) };
  }

  // The second step of a write: every shard's part, in parallel.
  async #apply(call, parts, method, deadlineMs) {
    const done = await Promise.all(parts.map(([shard, part]) => this.#call(shard, method, [part], deadlineMs)));
    const applied = done.filter((d) => 'ok' in d).map((d) => d.shard);
    if (applied.length === done.length) return;
    if (applied.length === 0) QuiverRouter.#settle(done, call);
    const failed = done.filter((d) => !('ok' in d));
    const why = failed
      .map(
        (d) =>
          `shard ${d.shard}: ${d.refused ? `${d.refused.code}: ${d.refused.message}` : `${d.missing.reason}: ${d.missing.message}`}`,
      )
      .join('; ');
    const e = new QuiverError(
      'PARTIAL_WRITE',
      `${call}: shards ${applied.join(', ')} wrote their part, ${failed.map((d) => d.shard).join(', ')} did not (${why})`,
    );
    e.applied = applied;
    e.failed = failed.map((d) => d.shard);
    throw e;
  }

  // The ids' shards: [[shard, [{ id, at }]]] (at: the position in `ids`).
  #placeIds(ids, namespace, call) {
    if (!Array.isArray(ids)) throw invalid(`${call}: ids must be an array of strings and integers`);
    if (namespace !== undefined && this.#placement !== 'namespace') {
      throw invalid(`${call}: option 'namespace' applies with placement 'namespace' only (this router places by id)`);
    }
    const groups = new Map();
    ids.forEach((id, at) => {
      const ok =
        typeof id === 'string' ||
        (typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= Number.MAX_SAFE_INTEGER);
      if (!ok) throw invalid(`${call}: id at position ${at} must be a string or an integer in [0, 2^53 - 1]`);
      const shard = this.shardFor(id, namespace);
      if (!groups.has(shard)) groups.set(shard, []);
      groups.get(shard).push({ id, at });
    });
    return [...groups].sort((a, b) => a[0] - b[0]);
  }

  // Removes the records; an id not present (or repeated) is UNKNOWN_ID (DUPLICATE_ID), checked
  // on every shard before any removes (the same two steps as upsert).
  async deleteByIds(ids, options) {
    const call = 'QuiverRouter deleteByIds()';
    const o = readOptions(options, ROUTER_DELETE_OPTIONS);
    const deadlineMs = o.deadlineMs ?? this.#deadlineMs;
    const parts = this.#placeIds(ids, o.namespace, call).map(([shard, list]) => [shard, list.map((e) => e.id)]);
    if (parts.length > 1) {
      QuiverRouter.#settle(
        await Promise.all(parts.map(([shard, part]) => this.#call(shard, 'check', ['delete', part], deadlineMs))),
        call,
      );
    }
    await this.#apply(call, parts, 'remove', deadlineMs);
    return { count: ids.length, shards: parts.map(([shard]) => shard) };
  }

  // The records with these ids, in their order (null for an id not present), as
  // Collection.getByIds() gives them.
  async getByIds(ids, options) {
    const call = 'QuiverRouter getByIds()';
    const { namespace, deadlineMs, ...rest } = readOptions(options, ROUTER_GET_OPTIONS);
    const parts = this.#placeIds(ids, namespace, call);
    const answers = QuiverRouter.#settle(
      await Promise.all(
        parts.map(([shard, list]) =>
          this.#call(shard, 'get', [list.map((e) => e.id), rest], deadlineMs ?? this.#deadlineMs),
        ),
      ),
      call,
    );
    const out = new Array(ids.length).fill(null);
    answers.forEach((a, p) => parts[p][1].forEach((e, i) => (out[e.at] = a.ok[i])));
    return out;
  }

  // { matches, plan, partial, missing }: the topK nearest of the records the filter and
  // namespace admit across the shards, exactly as one collection holding them all would rank
  // them. Every shard is asked (under placement 'namespace' with a namespace given, only its
  // shard). A shard that does not answer within deadlineMs — or fails — is, by onPartial:
  // 'error' a QuiverError SHARD_UNAVAILABLE (error.missing names the shards), 'partial' an
  // answer from the others with partial: true and missing: [{ shard, reason, message }].
  // A refusal (a bad filter, a wrong dimension) is thrown whatever onPartial says.
  async query(vector, options) {
    const kind = this.#collection.index;
    const { deadlineMs, onPartial, ...rest } = readOptions(options, ROUTER_QUERY_OPTIONS[kind]);
    const q = toValues(vector, this.#collection.dim, 'QuiverRouter query()', 'the query');
    const targets =
      this.#placement === 'namespace' && rest.namespace !== undefined
        ? [this.shardFor(null, rest.namespace)]
        : Array.from({ length: this.#shards }, (_, s) => s);
    const answers = await Promise.all(
      targets.map((shard) => this.#call(shard, 'query', [q, rest], deadlineMs ?? this.#deadlineMs)),
    );
    const refused = answers.find((a) => a.refused);
    if (refused) throw new QuiverError(refused.refused.code, refused.refused.message);
    const missing = answers.filter((a) => a.missing).map((a) => a.missing);
    if (missing.length && (onPartial ?? this.#onPartial) === 'error')
      throw unavailable(missing, 'QuiverRouter query()');
    const merged = mergeTopK(
      answers.filter((a) => 'ok' in a).map((a) => ({ shard: a.shard, result: a.ok })),
      rest.topK ?? 10,
    );
    return { ...merged, partial: missing.length > 0, missing };
  }

  // { name, shards, placement, collection, size, memoryBytes, perShard: [shard's describe()] }.
  async describe(options) {
    const deadlineMs = readOptions(options, ROUTER_WRITE_OPTIONS).deadlineMs ?? this.#deadlineMs;
    const answers = QuiverRouter.#settle(
      await Promise.all(Array.from({ length: this.#shards }, (_, s) => this.#call(s, 'describe', [], deadlineMs))),
      'QuiverRouter describe()',
    );
    const perShard = answers.map((a) => a.ok);
    return {
      name: this.#name,
      shards: this.#shards,
      placement: this.#placement,
      collection: this.#collection,
      size: perShard.reduce((n, d) => n + d.size, 0),
      memoryBytes: perShard.reduce((n, d) => n + d.memory.total, 0),
      perShard,
    };
  }

  // Every shard writes its snapshot now and drops its log (shards also do it on their own
  // when the log grows); resolves to each shard's { parts, bytes, through } (null: never written).
  async compact(options) {
    const deadlineMs = readOptions(options, ROUTER_WRITE_OPTIONS).deadlineMs ?? this.#deadlineMs;
    const answers = QuiverRouter.#settle(
      await Promise.all(Array.from({ length: this.#shards }, (_, s) => this.#call(s, 'compact', [], deadlineMs))),
      'QuiverRouter compact()',
    );
    return answers.map((a) => a.ok);
  }
}
