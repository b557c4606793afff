#!/usr/bin/env node
// Loads a vector file into a sharded collection through its router (README.md here):
//   node load.mjs BASE [--url http://127.0.0.1:8787] [--records docs.jsonl] [--batch 500]
//                      [--parallel 2] [--limit N]
// BASE is .fbin (uint32 rows, uint32 dim, then float32 rows) or .fvecs (each row: int32 dim,
// then the floats) — what `quiver gen` writes. Without --records the ids are the row numbers;
// with it, line i of the JSONL file is row i's { "id", "metadata"?, "namespace"? }. Each batch
// is one POST /upsert; a refused batch stops the load with the router's error (what was
// acknowledged before it is stored). Progress goes to stderr.
import { openSync, readSync, closeSync, fstatSync, readFileSync } from 'node:fs';

function parseArgs(argv) {
  const o = { url: 'http://127.0.0.1:8787', batch: 500, parallel: 2, limit: Infinity };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--url') o.url = value();
    else if (a === '--records') o.records = value();
    else if (a === '--batch') o.batch = Number(value());
    else if (a === '--parallel') o.parallel = Number(value());
    else if (a === '--limit') o.limit = Number(value());
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else rest.push(a);
  }
  if (rest.length !== 1)
    throw new Error(
      'usage: node load.mjs BASE [--url URL] [--records docs.jsonl] [--batch N] [--parallel N] [--limit N]',
    );
  for (const k of ['batch', 'parallel']) {
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new Error(`--${k} must be a positive integer`);
  }
  return { ...o, base: rest[0] };
}

// { rows, dim, row(i) -> Float32Array } over the file, read a batch at a time.
function openVectors(path) {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(8);
  readSync(fd, head, 0, 8, 0);
  if (path.endsWith('.fvecs')) {
    const dim = head.readInt32LE(0);
    const stride = 4 + dim * 4;
    if (dim < 1 || size % stride) throw new Error(`${path}: not an .fvecs file of one dimension`);
    return {
      rows: size / stride,
      dim,
      read(start, n) {
        const buf = Buffer.alloc(n * stride);
        readSync(fd, buf, 0, buf.length, start * stride);
        const out = new Float32Array(n * dim);
        for (let i = 0; i < n; i++) {
          out.set(new Float32Array(buf.buffer, buf.byteOffset + i * stride + 4, dim), i * dim);
        }
        return out;
      },
      close: () => closeSync(fd),
    };
  }
  const rows = head.readUInt32LE(0);
  const dim = head.readUInt32LE(4);
  if (8 + rows * dim * 4 !== size)
    throw new Error(`${path}: not an .fbin file (${rows} x ${dim} floats, ${size} bytes)`);
  return {
    rows,
    dim,
    read(start, n) {
      const buf = Buffer.alloc(n * dim * 4);
      readSync(fd, buf, 0, buf.length, 8 + start * dim * 4);
      return new Float32Array(buf.buffer, buf.byteOffset, n * dim);
    },
    close: () => closeSync(fd),
  };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const file = openVectors(o.base);
  const records = o.records
    ? readFileSync(o.records, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
    : null;
  const rows = Math.min(file.rows, o.limit, records ? records.length : Infinity);
  const started = Date.now();
  let done = 0;
  let next = 0;
  const send = async () => {
    while (next < rows) {
      const start = next;
      const n = Math.min(o.batch, rows - start);
      next += n;
      const floats = file.read(start, n);
      const batch = Array.from({ length: n }, (_, i) => ({
        ...(records ? records[start + i] : { id: start + i }),
        values: Array.from(floats.subarray(i * file.dim, (i + 1) * file.dim)),
      }));
      const r = await fetch(new URL('/upsert', o.url), { method: 'POST', body: JSON.stringify({ records: batch }) });
      const body = await r.json();
      if (r.status !== 200)
        throw new Error(`rows ${start}..${start + n - 1}: ${r.status} ${body.error}: ${body.message}`);
      done += n;
      const s = (Date.now() - started) / 1000;
      process.stderr.write(`\r${done} / ${rows} vectors  ${(done / s).toFixed(0)}/s  `);
    }
  };
  await Promise.all(Array.from({ length: o.parallel }, send));
  file.close();
  process.stderr.write('\n');
  const described = await (await fetch(new URL('/describe', o.url))).json();
  console.log(
    JSON.stringify({
      loaded: done,
      seconds: (Date.now() - started) / 1000,
      size: described.size,
      shards: described.perShard?.map((s) => s.size),
    }),
  );
}

main().catch((e) => {
  console.error(`load.mjs: ${e.message}`);
  process.exit(1);
});
