// A shard's durable state in its Durable Object's SQLite storage (ctx.storage.sql): a
// write-ahead log of the writes since the last snapshot, and the snapshot — the collection's
// file (Collection.serialize()) in parts. docs/sharded.md, "Durability", is the contract:
//
//   meta(key, value)                     'layout': the layout the shard was first written with
//                                        (JSON); 'snapshot': { parts, bytes, through } or absent
//   log(write, part, op, head, vectors)  one logged write per `write` number, in parts of at
//                                        most LOG_PART_BYTES: op 'upsert' (head: JSON
//                                        [{ id, metadata?, namespace? }], vectors: the rows as
//                                        float32 bytes) or 'delete' (head: JSON [ids])
//   snapshot(part, bytes)                the collection's file, SNAPSHOT_PART_BYTES a part
//
// Every change is one transactionSync: a write's log rows go in whole or not at all, and a
// compaction replaces the snapshot and drops the log it covers in one step, so the storage
// is always "snapshot + log" of acknowledged writes. Cloudflare holds a SQLite row to 2 MB;
// the parts stay well under it.

export const SNAPSHOT_PART_BYTES = 1 << 20;
export const LOG_PART_BYTES = 1 << 20;

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS quiver_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  `CREATE TABLE IF NOT EXISTS quiver_log (write INTEGER NOT NULL, part INTEGER NOT NULL, op TEXT NOT NULL,
     head TEXT NOT NULL, vectors BLOB, PRIMARY KEY (write, part))`,
  'CREATE TABLE IF NOT EXISTS quiver_snapshot (part INTEGER PRIMARY KEY, bytes BLOB NOT NULL)',
];

// The parts of an upsert's records: [[start, end)] with at most LOG_PART_BYTES of head JSON
// and of vectors in each (one record at least; a record is at most ~1.1 MiB: 10 KiB of
// metadata and dim <= 2^18 floats).
function upsertParts(heads, rowBytes) {
  const parts = [];
  let start = 0;
  let text = 0;
  for (let i = 0; i < heads.length; i++) {
    const t = heads[i].length * 3 + 1;
    if (i > start && (text + t > LOG_PART_BYTES || (i - start + 1) * rowBytes > LOG_PART_BYTES)) {
      parts.push([start, i]);
      start = i;
      text = 0;
    }
    text += t;
  }
  if (start < heads.length) parts.push([start, heads.length]);
  return parts;
}

export class ShardStore {
  #storage;
  #sql;
  #lastWrite = 0;
  #logBytes = 0;
  #logWrites = 0;
  #snapshotBytes = 0;

  constructor(storage) {
    this.#storage = storage;
    this.#sql = storage.sql;
    for (const statement of SCHEMA) this.#sql.exec(statement);
    const last = this.#sql
      .exec(
        'SELECT max(write) AS w, sum(length(head) + ifnull(length(vectors), 0)) AS b, count(DISTINCT write) AS n FROM quiver_log',
      )
      .one();
    const snapshot = this.snapshotInfo();
    this.#lastWrite = Math.max(last.w ?? 0, snapshot?.through ?? 0);
    this.#logBytes = last.b ?? 0;
    this.#logWrites = last.n ?? 0;
    this.#snapshotBytes = snapshot?.bytes ?? 0;
  }

  #meta(key) {
    const rows = this.#sql.exec('SELECT value FROM quiver_meta WHERE key = ?', key).toArray();
    return rows.length ? JSON.parse(rows[0].value) : null;
  }
  #setMeta(key, value) {
    this.#sql.exec('INSERT OR REPLACE INTO quiver_meta (key, value) VALUES (?, ?)', key, JSON.stringify(value));
  }

  layout() {
    return this.#meta('layout');
  }
  snapshotInfo() {
    return this.#meta('snapshot');
  }
  get logBytes() {
    return this.#logBytes;
  }
  get logWrites() {
    return this.#logWrites;
  }
  get snapshotBytes() {
    return this.#snapshotBytes;
  }

  // The snapshot as { bytes, parts }: its length and an iterator over its parts in order, each
  // read from storage as it is asked for (so that Collection.loadParts never needs the whole
  // file in JS); null when there is none.
  snapshotParts() {
    const info = this.snapshotInfo();
    if (!info) return null;
    const sql = this.#sql;
    function* parts() {
      let n = 0;
      for (const row of sql.exec('SELECT bytes FROM quiver_snapshot ORDER BY part')) {
        n++;
        yield new Uint8Array(row.bytes);
      }
      if (n !== info.parts) throw new Error(`the shard's snapshot is damaged: ${n} of its ${info.parts} parts`);
    }
    return { bytes: info.bytes, parts: parts() };
  }

  // The logged writes after the snapshot, in order: calls apply({ op, records | ids }) per part.
  replay(apply) {
    const after = this.snapshotInfo()?.through ?? 0;
    let writes = 0;
    let last = -1;
    for (const row of this.#sql.exec(
      'SELECT write, op, head, vectors FROM quiver_log WHERE write > ? ORDER BY write, part',
      after,
    )) {
      if (row.write !== last) {
        writes++;
        last = row.write;
      }
      const head = JSON.parse(row.head);
      if (row.op === 'delete') {
        apply({ op: 'delete', ids: head });
        continue;
      }
      const floats = new Float32Array(row.vectors);
      const dim = floats.length / head.length;
      apply({
        op: 'upsert',
        records: head.map((r, i) => ({ ...r, values: floats.subarray(i * dim, (i + 1) * dim) })),
      });
    }
    return writes;
  }

  // Logs one write durably (the storage commits it before the Durable Object's reply leaves:
  // its output gate). `layout` is stored with the first write.
  logUpsert(records, dim, layout) {
    const heads = records.map(({ id, metadata, namespace }) =>
      JSON.stringify(namespace === undefined ? { id, metadata } : { id, metadata, namespace }),
    );
    const parts = upsertParts(heads, dim * 4);
    this.#storage.transactionSync(() => {
      if (layout) this.#setMeta('layout', layout);
      const write = this.#lastWrite + 1;
      parts.forEach(([start, end], part) => {
        const floats = new Float32Array((end - start) * dim);
        for (let i = start; i < end; i++) floats.set(records[i].values, (i - start) * dim);
        const head = `[${heads.slice(start, end).join(',')}]`;
        this.#sql.exec(
          'INSERT INTO quiver_log (write, part, op, head, vectors) VALUES (?, ?, ?, ?, ?)',
          write,
          part,
          'upsert',
          head,
          floats.buffer,
        );
        this.#logBytes += head.length + floats.byteLength;
      });
      this.#lastWrite = write;
      this.#logWrites++;
    });
  }

  logDelete(ids) {
    this.#storage.transactionSync(() => {
      const write = this.#lastWrite + 1;
      // Ids are short (a string id is at most 64 bytes): 8,192 a part is well under a row.
      for (let at = 0, part = 0; at < ids.length; at += 8192, part++) {
        const head = JSON.stringify(ids.slice(at, at + 8192));
        this.#sql.exec(
          'INSERT INTO quiver_log (write, part, op, head, vectors) VALUES (?, ?, ?, ?, NULL)',
          write,
          part,
          'delete',
          head,
        );
        this.#logBytes += head.length;
      }
      this.#lastWrite = write;
      this.#logWrites++;
    });
  }

  // Replaces the snapshot with the collection's file as of the last logged write and drops the
  // log it covers, in one transaction. serialize(partBytes, onPart) hands the file over in parts
  // (Collection.serializeParts), each written as it comes.
  writeSnapshot(serialize) {
    const through = this.#lastWrite;
    let parts = 0;
    let bytes = 0;
    this.#storage.transactionSync(() => {
      this.#sql.exec('DELETE FROM quiver_snapshot');
      bytes = serialize(SNAPSHOT_PART_BYTES, (piece) => {
        this.#sql.exec('INSERT INTO quiver_snapshot (part, bytes) VALUES (?, ?)', parts++, piece.buffer);
      });
      this.#setMeta('snapshot', { parts, bytes, through });
      this.#sql.exec('DELETE FROM quiver_log WHERE write <= ?', through);
    });
    this.#logBytes = 0;
    this.#logWrites = 0;
    this.#snapshotBytes = bytes;
    return { parts, bytes, through };
  }
}
