// QuiverShard: one shard of a sharded collection — a Durable Object that holds one Collection
// in memory and keeps it in its own SQLite storage (shard-store.js). docs/sharded.md.
//
// Its methods are the router's RPC calls (router.js); each takes the router's `layout` ({ name,
// shard, shards, collection }) and returns { ok } or { error: { code, message } } — a refusal
// (bad input, an unknown id, a layout that differs from the one the shard holds) is a value,
// so that the router can tell it from a shard that failed (a thrown error, a timeout).
//
// Writes: validated and applied to the in-memory collection (all or nothing), then logged in
// one storage transaction, in the same synchronous step. The reply waits for the storage to
// commit (the Durable Object's output gate), so a write the router saw acknowledged is on disk,
// and one that was not is either wholly logged or not at all. When the log outgrows
// compactLogBytes / compactLogWrites the shard writes a new snapshot and drops the log.
// Start (a new object, an evicted one, a restarted process): the snapshot is loaded and the log
// replayed before any call is answered (blockConcurrencyWhile).
import { DurableObject } from 'cloudflare:workers';
import wasmModule from 'quiver-vector/wasm/simd/quiver.wasm';
import { Quiver } from '../simd.js';
import { QuiverError } from '../core/errors.js';
import { ShardStore } from './shard-store.js';
import { sameLayout } from './layout.js';

// The simd build alone (workerd runs one thread; a bundle then carries one glue and one .wasm).
// One Quiver module per isolate, shared by the shards it hosts (workerd runs the objects of a
// namespace in one isolate; each shard's collection is its own C++ object in that heap).
let loading = null;
const quiver = () => (loading ??= Quiver.init({ variant: 'simd', wasmModule }));

const refusal = (e) => {
  if (e instanceof QuiverError) return { error: { code: e.code, message: e.message } };
  throw e;
};
const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export class QuiverShard extends DurableObject {
  // Compact when the log holds more bytes than this and than the snapshot (so that the bytes
  // written to snapshots stay proportional to the bytes written: each compaction at least
  // doubles what the log held), or more writes than compactLogWrites. A subclass may change
  // them; a smaller log is a faster cold start (the log is replayed record by record, the
  // snapshot is loaded as one file).
  compactLogBytes = 8 << 20;
  compactLogWrites = 2000;

  #q = null;
  #store = null;
  #docs = null; // the collection (null until the shard has a layout)
  #layout = null; // the stored layout, or the layout of the first read before any write
  #stored = false; // whether #layout is in storage
  #opening = null; // the open in progress or done; null: open again on the next call
  #coldStart = null;

  constructor(ctx, env) {
    super(ctx, env);
    this.#startOpening();
  }

  #startOpening() {
    this.#opening = this.ctx.blockConcurrencyWhile(() => this.#open());
    this.#opening.catch(() => {}); // seen by the next call (#ready), not unhandled meanwhile
  }

  async #open() {
    const t0 = now();
    this.#q = await quiver();
    const t1 = now();
    this.#store = new ShardStore(this.ctx.storage);
    const layout = this.#store.layout();
    let snapshotBytes = 0;
    let replayedWrites = 0;
    let t2 = t1;
    if (layout) {
      const snapshot = this.#store.snapshotParts();
      const docs = snapshot
        ? this.#q.Collection.loadParts(snapshot.bytes, snapshot.parts)
        : this.#q.Collection.create(layout.collection);
      snapshotBytes = snapshot?.bytes ?? 0;
      t2 = now();
      replayedWrites = this.#store.replay((w) =>
        w.op === 'delete' ? docs.deleteByIds(w.ids) : docs.upsert(w.records),
      );
      this.#docs = docs;
      this.#layout = layout;
      this.#stored = true;
    }
    const t3 = now();
    this.#coldStart = {
      moduleMs: t1 - t0,
      snapshotBytes,
      snapshotMs: t2 - t1,
      replayedWrites,
      replayMs: t3 - t2,
      totalMs: t3 - t0,
    };
  }

  // The shard ready for `layout`: opened (again, after a failed write), and holding a
  // collection made from `layout` if it had none. A layout other than the one it holds is
  // LAYOUT_MISMATCH.
  async #ready(layout) {
    if (!this.#opening) this.#startOpening();
    try {
      await this.#opening;
    } catch (e) {
      // A shard that cannot start (its storage unreadable, its snapshot refused) has failed —
      // not the caller's input: a plain Error, which the router counts as a shard that did not
      // answer. The next call tries again.
      this.#opening = null;
      throw new Error(
        `shard ${layout.shard} of '${layout.name}' could not start: ${e.code ? `${e.code}: ` : ''}${e.message}`,
        { cause: e },
      );
    }
    if (this.#layout && !this.#stored && !sameLayout(this.#layout, layout)) {
      // Nothing written yet: the empty collection a read made gives way to this layout.
      this.#docs.dispose();
      this.#docs = null;
      this.#layout = null;
    }
    if (this.#layout) {
      if (!sameLayout(this.#layout, layout)) {
        throw new QuiverError(
          'LAYOUT_MISMATCH',
          `shard ${layout.shard} of '${layout.name}' holds ${JSON.stringify(this.#layout)}, the router asked with ${JSON.stringify(layout)}` +
            ' (a different shard count or collection needs a re-shard: docs/sharded.md)',
        );
      }
    } else {
      this.#docs = this.#q.Collection.create(layout.collection);
      this.#layout = layout;
    }
    return this.#docs;
  }

  // A write that could not be logged leaves memory ahead of storage: drop it all and reopen
  // from storage on the next call.
  #reset() {
    this.#docs?.dispose();
    this.#docs = null;
    this.#store = null;
    this.#layout = null;
    this.#stored = false;
    this.#opening = null;
  }

  #logged(write) {
    try {
      write(this.#stored ? null : this.#layout);
      this.#stored = true;
    } catch (e) {
      this.#reset();
      throw e;
    }
    const store = this.#store;
    if (
      store.logBytes > Math.max(this.compactLogBytes, store.snapshotBytes) ||
      store.logWrites > this.compactLogWrites
    ) {
      this.#compact();
    }
  }

  #compact() {
    try {
      return this.#store.writeSnapshot((partBytes, onPart) => this.#docs.serializeParts(partBytes, onPart));
    } catch (e) {
      this.#reset();
      throw e;
    }
  }

  // Checks that upsert / insert of `records`, or delete of `ids`, would be accepted, and
  // changes nothing (the router's first phase when a write spans shards).
  async check(layout, op, payload) {
    try {
      const docs = await this.#ready(layout);
      if (op === 'delete') {
        const seen = new Set();
        const found = docs.getByIds(payload);
        payload.forEach((id, i) => {
          const key = `${typeof id}:${id}`;
          if (seen.has(key)) throw new QuiverError('DUPLICATE_ID', `id ${JSON.stringify(id)} is repeated`);
          seen.add(key);
          if (!found[i]) throw new QuiverError('UNKNOWN_ID', `id ${JSON.stringify(id)} is not in the collection`);
        });
        return { ok: true };
      }
      if (op === 'insert') {
        const found = docs.getByIds(payload.map((r) => r.id));
        const at = found.findIndex(Boolean);
        if (at >= 0)
          throw new QuiverError('DUPLICATE_ID', `id ${JSON.stringify(payload[at].id)} is already in the collection`);
      }
      // What a record is checked for does not depend on the index kind or on what is stored:
      // an empty flat collection of the same dimension, metric and fields takes it or not.
      const { dim, metric, fields } = layout.collection;
      const scratch = this.#q.Collection.create({ dim, metric, index: 'flat', fields });
      try {
        scratch.upsert(payload);
      } finally {
        scratch.dispose();
      }
      return { ok: true };
    } catch (e) {
      return refusal(e);
    }
  }

  async upsert(layout, records) {
    return this.#write(layout, records, 'upsert');
  }
  async insert(layout, records) {
    return this.#write(layout, records, 'insert');
  }

  async #write(layout, records, op) {
    try {
      const docs = await this.#ready(layout);
      docs[op](records);
      this.#logged((first) => this.#store.logUpsert(records, docs.dim, first));
      return { ok: { size: docs.size } };
    } catch (e) {
      return refusal(e);
    }
  }

  async remove(layout, ids) {
    try {
      const docs = await this.#ready(layout);
      docs.deleteByIds(ids);
      this.#logged(() => this.#store.logDelete(ids));
      return { ok: { size: docs.size } };
    } catch (e) {
      return refusal(e);
    }
  }

  async get(layout, ids, options) {
    try {
      return { ok: (await this.#ready(layout)).getByIds(ids, options) };
    } catch (e) {
      return refusal(e);
    }
  }

  async query(layout, vector, options) {
    try {
      return { ok: (await this.#ready(layout)).query(vector, options) };
    } catch (e) {
      return refusal(e);
    }
  }

  // Writes a snapshot now and drops the log (the router's compact()).
  async compact(layout) {
    try {
      await this.#ready(layout);
      if (!this.#stored) return { ok: null };
      return { ok: this.#compact() };
    } catch (e) {
      return refusal(e);
    }
  }

  async describe(layout) {
    try {
      const docs = await this.#ready(layout);
      return {
        ok: {
          shard: layout.shard,
          ...docs.describe(),
          stored: this.#stored,
          log: { bytes: this.#store.logBytes, writes: this.#store.logWrites },
          snapshot: this.#store.snapshotInfo(),
          coldStart: this.#coldStart,
        },
      };
    } catch (e) {
      return refusal(e);
    }
  }
}
