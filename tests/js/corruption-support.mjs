// The JS-side corruption sweep (not a test file itself: tests/js/corruption-sweep.test.mjs runs
// it bounded, `node scripts/fuzz-js.mjs --corruption` densely). Index files of every kind and
// storage, empty ones included, are damaged — truncated at every length, single bits flipped,
// header and section-table fields edited with the checksums recomputed (so the edit reaches the
// loader's own checks instead of stopping at the CRC), section payloads edited with their CRCs
// recomputed — and each result goes through q.load(). Every load must either throw a QuiverError
// with a known code, or give an index that answers search / searchBatch / has / serialize without
// anything else being thrown, returning only distinct ids it says it holds. The module must stay
// usable, and the wasm heap bounded.
import assert from 'node:assert/strict';
import { QuiverError } from '../../js/index.js';
import { crc32c } from './support.mjs';
import { KNOWN_CODES } from './property-support.mjs';

// Byte layout (src/container/format.hpp): 16-byte preamble (magic, versions, header size H), the
// header, S section-table entries of 32 bytes, then the CRC-32C of everything before it.
const PREAMBLE = 16;
const TABLE_ENTRY = 32;
const HEADER_FIELDS = [
  // [name, offset from the header start, bytes]
  ['kind', 0, 4],
  ['metric', 4, 4],
  ['dim', 8, 8],
  ['count', 16, 8],
  ['seed', 24, 8],
  ['fileSize', 32, 8],
  ['sectionCount', 40, 4],
  ['flags', 44, 4],
  ...Array.from({ length: 8 }, (_, i) => [`param${i}`, 48 + 8 * i, 8]),
];
const PREAMBLE_FIELDS = [
  ['major', 8, 2],
  ['minor', 10, 2],
  ['headerSize', 12, 4],
];
const ENTRY_FIELDS = [
  ['tag', 0, 4],
  ['flags', 4, 4],
  ['offset', 8, 8],
  ['size', 16, 8],
  ['crc', 24, 4],
  ['reserved', 28, 4],
];

function layout(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = view.getUint32(12, true);
  const sections = view.getUint32(PREAMBLE + 40, true);
  const table = PREAMBLE + headerSize;
  const crcAt = table + sections * TABLE_ENTRY;
  const entries = Array.from({ length: sections }, (_, i) => {
    const at = table + i * TABLE_ENTRY;
    return { at, offset: Number(view.getBigUint64(at + 8, true)), size: Number(view.getBigUint64(at + 16, true)) };
  });
  return { headerSize, sections, table, crcAt, entries };
}

function readField(view, at, width) {
  if (width === 2) return BigInt(view.getUint16(at, true));
  if (width === 4) return BigInt(view.getUint32(at, true));
  return view.getBigUint64(at, true);
}
function writeField(view, at, width, value) {
  const v = BigInt.asUintN(width * 8, value);
  if (width === 2) view.setUint16(at, Number(v), true);
  else if (width === 4) view.setUint32(at, Number(v), true);
  else view.setBigUint64(at, v, true);
}

// Recomputes the section CRCs named in `sections` (indexes) and the container CRC.
function fixChecksums(bytes, sections = []) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let lay;
  try {
    lay = layout(bytes);
  } catch {
    return bytes;
  }
  if (lay.crcAt + 4 > bytes.length) return bytes;
  for (const i of sections) {
    const e = lay.entries[i];
    if (e.offset + e.size <= bytes.length)
      view.setUint32(e.at + 24, crc32c(bytes.subarray(e.offset, e.offset + e.size)), true);
  }
  view.setUint32(lay.crcAt, crc32c(bytes.subarray(0, lay.crcAt)), true);
  return bytes;
}

// Values an attacker would try in a field of `width` bytes holding `old`.
function fieldValues(old, width) {
  const max = (1n << BigInt(width * 8)) - 1n;
  const out = new Set([
    0n,
    1n,
    2n,
    3n,
    4n,
    7n,
    255n,
    256n,
    65535n,
    max,
    max - 1n,
    max >> 1n,
    (max >> 1n) + 1n,
    old + 1n,
    old - 1n,
    old * 2n,
    old + 64n,
    old - 64n,
    old << 8n,
    1n << 31n,
    1n << 32n,
    (1n << 32n) - 1n,
  ]);
  return [...out].map((v) => BigInt.asUintN(width * 8, v)).filter((v) => v !== old);
}

// Every mutation of one file, as [label, bytes] pairs. stride: 1 tries every truncation
// length and one bit per byte; n tries every n-th (always including the header and table).
export function* mutations(original, { stride = 1, allBits = false } = {}) {
  const lay = layout(original);
  const dense = lay.crcAt + 4; // the container region: always every byte
  for (let len = 0; len < original.length; len++) {
    if (len < dense || len % stride === 0 || len === original.length - 1)
      yield [`truncate ${len}`, original.slice(0, len)];
  }
  for (let i = 0; i < original.length; i++) {
    if (!(i < dense || i % stride === 0)) continue;
    const bits = allBits || i < dense ? [0, 1, 2, 3, 4, 5, 6, 7] : [i % 8];
    for (const bit of bits) {
      const b = original.slice();
      b[i] ^= 1 << bit;
      yield [`flip byte ${i} bit ${bit}`, b];
    }
  }
  const fields = [
    ...PREAMBLE_FIELDS.map(([name, at, w]) => [name, at, w]),
    ...HEADER_FIELDS.map(([name, at, w]) => [name, PREAMBLE + at, w]),
    ...lay.entries.flatMap((e, s) => ENTRY_FIELDS.map(([name, at, w]) => [`section${s}.${name}`, e.at + at, w])),
  ];
  for (const [name, at, width] of fields) {
    const view0 = new DataView(original.buffer, original.byteOffset, original.byteLength);
    const old = readField(view0, at, width);
    for (const value of fieldValues(old, width)) {
      const b = original.slice();
      writeField(new DataView(b.buffer), at, width, value);
      // A section's own CRC is what is being edited: keep the edit; otherwise fix it up.
      yield [`${name} = ${value} (checksums fixed)`, fixChecksums(b)];
    }
  }
  // Payload edits with the section CRC recomputed: the loader's own validation is all that stands.
  for (const [s, e] of lay.entries.entries()) {
    if (e.size === 0) continue;
    const picks = new Set([0, e.size - 1, e.size >> 1, 4, 8, 12, 16]);
    for (let j = 0; j < e.size; j += Math.max(1, stride * 4)) picks.add(j);
    for (const j of picks) {
      if (j >= e.size) continue;
      for (const value of [0x00, 0xff, 0x7f, 0x80]) {
        const b = original.slice();
        if (b[e.offset + j] === value) continue;
        b[e.offset + j] = value;
        yield [`section${s} payload byte ${j} = ${value} (checksums fixed)`, fixChecksums(b, [s])];
      }
    }
  }
}

// Loads one damaged file and uses whatever comes back. Returns 'rejected' or 'loaded'.
export function tryLoad(q, bytes, dim, label) {
  let index;
  try {
    index = q.load(bytes);
  } catch (e) {
    if (!(e instanceof QuiverError)) assert.fail(`${label}: load threw ${e?.constructor?.name}: ${e?.stack ?? e}`);
    assert.ok(KNOWN_CODES.has(e.code), `${label}: unknown code ${e.code}: ${e.message}`);
    return 'rejected';
  }
  try {
    const d = index.dim;
    const use = (what, fn) => {
      try {
        return fn();
      } catch (e) {
        if (!(e instanceof QuiverError))
          assert.fail(`${label}: ${what} on the loaded index threw ${e?.constructor?.name}: ${e?.stack ?? e}`);
        assert.ok(KNOWN_CODES.has(e.code), `${label}: ${what}: unknown code ${e.code}`);
        return null;
      }
    };
    const size = index.size;
    assert.ok(Number.isInteger(size) && size >= 0, `${label}: size ${size}`);
    if (d <= 4096) {
      // a larger (edited) dim is answered too, but the test's own queries stay small
      const query = new Float32Array(d).map((_, i) => ((i % 5) - 2) / 3 + 0.1);
      // Exact distances where the kind has them: a quantised index with kept vectors reranks.
      const quantized = index instanceof q.QuantizedIndex;
      const exact = quantized
        ? index.keepVectors
        : index instanceof q.FlatIndex || index.storage === 'f32' || index.keepVectors;
      const r = use('search', () =>
        quantized && exact ? index.search(query, 5, { rerank: 4 }) : index.search(query, 5),
      );
      if (r) {
        assert.ok(r.ids.length <= Math.min(5, size), `${label}: ${r.ids.length} results from ${size} vectors`);
        assert.equal(new Set(r.ids).size, r.ids.length, `${label}: repeated ids`);
        for (const id of r.ids) assert.equal(index.has(id), true, `${label}: returned id ${id} that has() denies`);
        // What a metric can return at all: a distance outside it means rows that break the
        // kind's invariants (e.g. non-unit rows in a cosine file) were accepted.
        const metric = index.metric;
        for (const d of r.distances) {
          assert.ok(!Number.isNaN(d), `${label}: NaN distance`);
          if (!exact) continue; // estimates from codes may stray outside the metric's range
          if (metric === 'cosine')
            assert.ok(d >= -1e-3 && d <= 2 + 1e-3, `${label}: cosine distance ${d} outside [0, 2]`);
          if (metric === 'l2') assert.ok(d >= -1e-3, `${label}: negative l2 distance ${d}`);
        }
      }
      const batch = use('searchBatch', () => index.searchBatch(new Float32Array(2 * d).fill(0.25), 3));
      if (batch) assert.equal(batch.count, 2, `${label}: batch count`);
    }
    use('serialize', () => index.serialize());
    use('has', () => index.has(0));
    return 'loaded';
  } finally {
    index.dispose();
  }
}

// The module still answers correctly: a fresh exact index gives the expected neighbour.
export function checkModuleUsable(q, label) {
  const index = new q.FlatIndex({ dim: 4 });
  try {
    index.add([1, 2, 3], new Float32Array([0, 0, 0, 0, 1, 1, 1, 1, 5, 5, 5, 5]));
    const r = index.search(new Float32Array([1, 1, 1, 0.9]), 2);
    assert.deepEqual([...r.ids], [2, 1], `${label}: the module answers wrongly after the sweep`);
  } finally {
    index.dispose();
  }
}

// Index files of every kind and storage, small (12 vectors of dimension 8), plus empty ones.
export function sampleFiles(q) {
  const dim = 8;
  const vectors = new Float32Array(12 * dim).map((_, i) => Math.sin(i * 0.91) + (i % 3) * 0.2);
  const ids = Array.from({ length: 12 }, (_, i) => i * 3 + 1);
  const specs = [
    ['flat l2', () => new q.FlatIndex({ dim, metric: 'l2' })],
    ['flat cosine', () => new q.FlatIndex({ dim, metric: 'cosine' })],
    ['quantized 4-bit kept vectors', () => new q.QuantizedIndex({ dim, metric: 'ip', bits: 4, keepVectors: true })],
    ['quantized 2-bit codes only', () => new q.QuantizedIndex({ dim, metric: 'l2', bits: 2, keepVectors: false })],
    [
      'quantized cosine kept vectors',
      () => new q.QuantizedIndex({ dim, metric: 'cosine', bits: 4, keepVectors: true }),
    ],
    ['hnsw f32', () => new q.HnswIndex({ dim, metric: 'l2', M: 4, efConstruction: 16 })],
    ['hnsw f32 cosine', () => new q.HnswIndex({ dim, metric: 'cosine', M: 4, efConstruction: 16 })],
    [
      'hnsw sq8 kept vectors',
      () => new q.HnswIndex({ dim, metric: 'l2', M: 4, efConstruction: 16, storage: 'sq8', keepVectors: true }),
    ],
    [
      'hnsw sq8 codes only',
      () => new q.HnswIndex({ dim, metric: 'ip', M: 4, efConstruction: 16, storage: 'sq8', keepVectors: false }),
    ],
  ];
  const files = [];
  for (const [name, make] of specs) {
    for (const filled of [true, false]) {
      const index = make();
      try {
        if (filled) {
          index.add(ids, vectors);
          index.remove([ids[4]]); // a removed id: tombstones (HNSW) and free slots in the file
        }
        files.push({ name: `${name}${filled ? '' : ' (empty)'}`, bytes: index.serialize(), dim });
      } finally {
        index.dispose();
      }
    }
  }
  return files;
}

// Runs the sweep of `files` on module q; returns { loads, rejected, loaded, failures } where
// failures lists every mutation whose load or use broke a rule (the sweep goes on after one, so
// a run reports all it finds). The module's usability is checked after each file.
export function sweep(q, files, options = {}) {
  const counts = { loads: 0, rejected: 0, loaded: 0, failures: [] };
  for (const file of files) {
    for (const [what, bytes] of mutations(file.bytes, options)) {
      const label = `${file.name}: ${what}`;
      counts.loads += 1;
      try {
        counts[tryLoad(q, bytes, file.dim, label)] += 1;
      } catch (e) {
        counts.failures.push(String(e?.message ?? e).split('\n')[0]);
      }
    }
    checkModuleUsable(q, file.name);
  }
  return counts;
}

// Failures grouped by what went wrong (the text after the mutation's label), with one example.
export function summarize(failures) {
  const groups = new Map();
  for (const f of failures) {
    const key = f.replace(/^[^:]*: [^:]*: /, '').replace(/\d{3,}/g, 'N');
    if (!groups.has(key)) groups.set(key, { count: 0, example: f });
    groups.get(key).count += 1;
  }
  return [...groups.entries()].map(([key, g]) => `${g.count} x ${key}  (e.g. ${g.example})`);
}
