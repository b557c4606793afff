// Index files through the npm package, in every wasm variant: serialize/load round trips,
// byte-identical files across variants and with the native build, a table of bad files
// (one per error code), and files crossing between the native CLI and JS in both directions.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Quiver, QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { cli, crc32c, fnv1a, moduleLoader, readFbin, requireCli, runCli, workDir, writeFbin } from './support.mjs';

const work = workDir('quiver-io-test-');
const load = moduleLoader();

// Recomputes the table CRCs and the header CRC of an edited file (layout: src/container/format.hpp).
function fixCrcs(b) {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const hb = v.getUint32(12, true);
  const n = v.getUint32(16 + 40, true);
  for (let i = 0; i < n; i++) {
    const e = 16 + hb + 32 * i;
    const off = Number(v.getBigUint64(e + 8, true)),
      size = Number(v.getBigUint64(e + 16, true));
    if (off + size <= b.length) v.setUint32(e + 24, crc32c(b.subarray(off, off + size)), true);
  }
  const end = 16 + hb + 32 * n;
  v.setUint32(end, crc32c(b.subarray(0, end)), true);
  return b;
}
function edit(good, fn) {
  const b = good.slice();
  fn(new DataView(b.buffer), b);
  return b;
}

function smallIndex(q, metric = 'l2') {
  const index = new q.FlatIndex({ dim: 3, metric });
  index.add(
    [100, 107, 114, 121, 128],
    [
      [0.25, -0.25, -0.75],
      [1.25, 0.75, 0.25],
      [2.25, 1.75, 1.25],
      [3.25, 2.75, 2.25],
      [4.25, 3.75, 3.25],
    ],
  );
  return index;
}

// A table: one damaged file per row (name, how the bytes are damaged, code, message).
// prettier-ignore
const badFiles = [
  ['empty', () => new Uint8Array(0), 'TRUNCATED', 'shorter than the 16-byte preamble'],
  ['wrong magic', (g) => edit(g, (v, b) => { b[1] = 0x58; }), 'BAD_MAGIC', 'not a quiver index'],
  ['truncated', (g) => g.slice(0, g.length - 5), 'TRUNCATED', 'truncated: the header declares'],
  ['flipped byte in the header', (g) => edit(g, (v, b) => { b[24] ^= 0x10; }), 'CHECKSUM_MISMATCH', 'header checksum mismatch'],
  ['flipped byte in the vectors', (g) => edit(g, (v, b) => { b[b.length - 3] ^= 0x10; }), 'CHECKSUM_MISMATCH', 'section VECS checksum mismatch'],
  ['newer major version', (g) => edit(g, (v) => v.setUint16(8, 2, true)), 'UNSUPPORTED_VERSION', 'format version 2.0 is not supported'],
  ['unknown index kind', (g) => fixCrcs(edit(g, (v) => v.setUint32(16, 9, true))), 'UNKNOWN_INDEX_KIND', 'unknown index kind 9'],
  ['impossible vector count', (g) => fixCrcs(edit(g, (v) => v.setBigUint64(32, 1n << 40n, true))), 'CORRUPT', 'impossible vector count'],
  ['impossible header size', (g) => edit(g, (v) => v.setUint32(12, 0xfffffff0, true)), 'CORRUPT', 'impossible header size'],
  ['trailing bytes', (g) => { const b = new Uint8Array(g.length + 1); b.set(g); return b; }, 'CORRUPT', 'unexpected bytes after the declared end'],
];

for (const variant of VARIANTS) {
  describe(`index files, variant ${variant}`, () => {
    test('serialize and load round-trip every metric', async () => {
      const q = await load(variant);
      for (const metric of ['l2', 'ip', 'cosine']) {
        const index = smallIndex(q, metric);
        const bytes = index.serialize();
        assert.ok(bytes instanceof Uint8Array);
        const loaded = q.load(bytes);
        assert.ok(loaded instanceof q.FlatIndex);
        assert.equal(loaded.size, 5);
        assert.equal(loaded.dim, 3);
        assert.equal(loaded.metric, metric);
        const a = index.search([1, 1, 1], 5),
          b = loaded.search([1, 1, 1], 5);
        assert.deepEqual([...b.ids], [...a.ids]);
        assert.deepEqual([...b.distances], [...a.distances]);
        assert.deepEqual(loaded.serialize(), bytes);
        // ArrayBuffer and FlatIndex.load work too
        const fromBuffer = q.FlatIndex.load(bytes.buffer.slice(0));
        assert.equal(fromBuffer.size, 5);
        fromBuffer.dispose();
        index.dispose();
        loaded.dispose();
      }
    });

    test('Quiver.load returns the right class', async () => {
      const q = await load(variant);
      const index = smallIndex(q);
      const loaded = await Quiver.load(index.serialize(), { variant });
      assert.equal(loaded.constructor.name, 'FlatIndex');
      assert.deepEqual([...loaded.search([0, 0, 0], 2).ids], [100, 107]);
      loaded.dispose();
      index.dispose();
    });

    test('the same data gives the same bytes as the native build', async () => {
      const q = await load(variant);
      const n = 300,
        dim = 384;
      const base = q.unitGaussianVectors(n, dim, 42);
      const ids = Float64Array.from({ length: n }, (_, i) => i * 3 + 1);
      const l2 = new q.FlatIndex({ dim, metric: 'l2' });
      l2.add(ids, base);
      const cosine = new q.FlatIndex({ dim, metric: 'cosine' });
      cosine.add(ids, base);
      const a = l2.serialize(),
        c = cosine.serialize();
      // The constants of tests/cpp/test_io.cpp (IndexFile.ByteIdenticalEverywhere).
      assert.equal(a.length, 463488);
      assert.equal(crc32c(a), 0xe5dd2925);
      assert.equal(fnv1a(a), 0x743521054982b6fen);
      assert.equal(fnv1a(c), 0x93035da6bdb884fn);
      l2.dispose();
      cosine.dispose();
    });

    test('bad files: each kind of damage gives its own QuiverError', async () => {
      const q = await load(variant);
      const small = smallIndex(q);
      const good = small.serialize();
      small.dispose();
      for (const [name, make, code, part] of badFiles) {
        assert.throws(
          () => q.load(make(good)),
          (e) => {
            assert.ok(e instanceof QuiverError, `${name}: ${e}`);
            assert.equal(e.code, code, `${name}: ${e.code} ${e.message}`);
            assert.ok(e.message.includes(part), `${name}: ${e.message}`);
            return true;
          },
          name,
        );
      }
      // A valid container whose kind says hnsw but whose sections are a flat index's: the
      // hnsw reader does not know the flat id section, which is marked required.
      const hnsw = fixCrcs(edit(good, (v) => v.setUint32(16, 3, true)));
      assert.throws(
        () => q.load(hnsw),
        (e) => e instanceof QuiverError && e.code === 'UNSUPPORTED_VERSION' && /required section IDS/.test(e.message),
      );
      assert.throws(
        () => q.FlatIndex.load(hnsw),
        (e) => e.code === 'INVALID_ARGUMENT' && /holds a hnsw index/.test(e.message),
      );
      assert.throws(
        () => q.load('not bytes'),
        (e) => e.code === 'INVALID_ARGUMENT',
      );
    });
  });
}

describe('files cross between the native CLI and JS', () => {
  test('files written by the native CLI load in every variant with identical results', async () => {
    requireCli();
    for (const metric of ['l2', 'cosine']) {
      runCli([
        'gen',
        'seed',
        '-o',
        work,
        '--name',
        `native-${metric}`,
        '--rows',
        '1500',
        '--queries',
        '25',
        '--dim',
        '48',
        '-k',
        '10',
        '-q',
      ]);
      const baseFile = join(work, `native-${metric}.base.fbin`),
        queryFile = join(work, `native-${metric}.queries.fbin`);
      const indexFile = join(work, `native-${metric}.qvr`);
      runCli(['build', baseFile, '-o', indexFile, '--metric', metric, '-q']);
      const native = JSON.parse(runCli(['search', indexFile, queryFile, '-k', '10', '--json']));
      const queries = readFbin(queryFile);
      const bytes = readFileSync(indexFile);
      for (const variant of VARIANTS) {
        const q = await load(variant);
        const index = q.load(bytes);
        assert.equal(index.size, 1500);
        assert.equal(index.metric, metric);
        for (let i = 0; i < queries.rows; i++) {
          const r = index.search(queries.data.subarray(i * 48, (i + 1) * 48), 10);
          assert.deepEqual([...r.ids], native.ids[i], `${metric} ${variant} query ${i}`);
          for (let j = 0; j < 10; j++) {
            assert.ok(
              Math.abs(r.distances[j] - native.distances[i][j]) <= 1e-5 * Math.max(1, Math.abs(r.distances[j])),
            );
          }
        }
        // and the file JS writes back is the file the CLI wrote
        assert.deepEqual(index.serialize(), new Uint8Array(bytes));
        index.dispose();
      }
    }
  });

  test('files written from JS load natively (info, search) and equal the CLI build', async () => {
    requireCli();
    for (const variant of VARIANTS) {
      const q = await load(variant);
      const rows = 800,
        dim = 32,
        nq = 12;
      const base = q.unitGaussianVectors(rows, dim, 5);
      const queries = q.unitGaussianVectors(nq, dim, 6);
      const index = new q.FlatIndex({ dim, metric: 'ip' });
      index.add(
        Float64Array.from({ length: rows }, (_, i) => i),
        base,
      );
      const file = join(work, `js-${variant}.qvr`);
      writeFileSync(file, index.serialize());
      const info = JSON.parse(runCli(['info', file, '--json']));
      assert.equal(info.kind, 'flat');
      assert.equal(info.metric, 'ip');
      assert.equal(info.count, rows);
      assert.equal(info.dim, dim);
      assert.equal(info.valid, true);
      const queryFile = join(work, `js-${variant}.queries.fbin`);
      writeFbin(queryFile, nq, dim, queries);
      const native = JSON.parse(runCli(['search', file, queryFile, '-k', '7', '--json']));
      for (let i = 0; i < nq; i++) {
        assert.deepEqual(
          native.ids[i],
          [...index.search(queries.subarray(i * dim, (i + 1) * dim), 7).ids],
          `${variant} query ${i}`,
        );
      }
      // The native CLI builds the same bytes from the same vectors.
      const baseFile = join(work, `js-${variant}.base.fbin`);
      writeFbin(baseFile, rows, dim, base);
      const cliFile = join(work, `cli-${variant}.qvr`);
      runCli(['build', baseFile, '-o', cliFile, '--metric', 'ip', '-q']);
      assert.deepEqual(readFileSync(cliFile), readFileSync(file));
      index.dispose();
    }
  });

  // HNSW: quiver build --threads 1 links the nodes in order, so the graph (and the file) is a
  // function of the seed and the vectors; a one-thread JS build of the same vectors writes
  // the same bytes, and every variant answers the CLI's queries with the CLI's ids.
  test('hnsw files written by the native CLI load in every variant with identical results and bytes', async () => {
    requireCli();
    for (const [metric, storage, keepVectors] of [
      ['l2', 'f32', true],
      ['cosine', 'f32', true],
      ['l2', 'sq8', true],
      ['ip', 'sq8', false],
    ]) {
      const name = `hnsw-${metric}-${storage}-${keepVectors}`;
      runCli([
        'gen',
        'seed',
        '-o',
        work,
        '--name',
        name,
        '--rows',
        '1500',
        '--queries',
        '25',
        '--dim',
        '48',
        '-k',
        '10',
        '-q',
      ]);
      const baseFile = join(work, `${name}.base.fbin`),
        queryFile = join(work, `${name}.queries.fbin`);
      const indexFile = join(work, `${name}.qvr`);
      runCli([
        'build',
        baseFile,
        '-o',
        indexFile,
        '--index',
        'hnsw',
        '--metric',
        metric,
        '--M',
        '12',
        '--ef-construction',
        '100',
        '--ef-search',
        '40',
        '--seed',
        '7',
        '--threads',
        '1',
        '--storage',
        storage,
        ...(keepVectors ? [] : ['--no-vectors']),
        '-q',
      ]);
      const native = JSON.parse(runCli(['search', indexFile, queryFile, '-k', '10', '--json']));
      const nativeEf = JSON.parse(runCli(['search', indexFile, queryFile, '-k', '10', '--ef', '12', '--json']));
      const nativeCodes = JSON.parse(runCli(['search', indexFile, queryFile, '-k', '10', '--no-rerank', '--json']));
      const base = readFbin(baseFile),
        queries = readFbin(queryFile);
      const bytes = new Uint8Array(readFileSync(indexFile));
      for (const variant of VARIANTS) {
        const q = await load(variant);
        const index = q.load(bytes);
        assert.ok(index instanceof q.HnswIndex);
        assert.deepEqual(
          [
            index.size,
            index.metric,
            index.M,
            index.efConstruction,
            index.efSearch,
            index.seed,
            index.storage,
            index.keepVectors,
          ],
          [1500, metric, 12, 100, 40, 7, storage, keepVectors],
        );
        const r = index.searchBatch(queries.data, 10);
        assert.deepEqual([...r.ids], native.ids.flat(), `${metric} ${variant}: ids`);
        for (let i = 0; i < r.distances.length; i++) {
          const d = native.distances[Math.floor(i / 10)][i % 10];
          assert.ok(
            Math.abs(r.distances[i] - d) <= 1e-5 * Math.max(1, Math.abs(d)),
            `${metric} ${variant}: distance ${i}`,
          );
        }
        assert.deepEqual(
          [...index.searchBatch(queries.data, 10, { ef: 12 }).ids],
          nativeEf.ids.flat(),
          `${variant}: ef 12`,
        );
        const codes = index.searchBatch(queries.data, 10, { rerank: false });
        assert.deepEqual([...codes.ids], nativeCodes.ids.flat(), `${variant}: rerank off`);
        if (storage === 'sq8') {
          // integer code sums: the same floats on every target
          assert.deepEqual(
            [...codes.distances],
            nativeCodes.distances.flat().map(Math.fround),
            `${variant}: code distances`,
          );
        }
        assert.deepEqual(index.serialize(), bytes, `${name} ${variant}: the file JS writes back`);
        index.dispose();
        // The graph fingerprint: the same vectors, seed and options, one thread, same bytes.
        const built = new q.HnswIndex({
          dim: 48,
          metric,
          M: 12,
          efConstruction: 100,
          efSearch: 40,
          seed: 7,
          storage,
          keepVectors,
        });
        built.add(
          Float64Array.from({ length: 1500 }, (_, i) => i),
          base.data,
          { threads: 1 },
        );
        assert.deepEqual(built.serialize(), bytes, `${name} ${variant}: a one-thread JS build vs the CLI file`);
        built.dispose();
      }
    }
  });

  test('hnsw files written from JS load natively (info, search) with the same results', async () => {
    requireCli();
    for (const variant of VARIANTS) {
      const q = await load(variant);
      const rows = 900,
        dim = 40,
        nq = 12;
      const base = q.unitGaussianVectors(rows, dim, 5);
      const queries = q.unitGaussianVectors(nq, dim, 6);
      const index = new q.HnswIndex({ dim, metric: 'ip', M: 10, efConstruction: 60, efSearch: 30, seed: 1234 });
      index.add(
        Float64Array.from({ length: rows }, (_, i) => i),
        base,
      ); // all threads: any graph is fine here
      index.remove([5, 6, 700]);
      const file = join(work, `js-hnsw-${variant}.qvr`);
      writeFileSync(file, index.serialize());
      const info = JSON.parse(runCli(['info', file, '--json']));
      assert.deepEqual(
        [info.kind, info.metric, info.count, info.dim, info.seed, info.valid, info.contents_checked],
        ['hnsw', 'ip', rows - 3, dim, 1234, true, true],
      );
      assert.deepEqual(info.params.slice(0, 3), [10, 60, 30]);
      assert.match(info.summary, /^M 10, efConstruction 60, efSearch 30, seed 1234/);
      const text = runCli(['info', file]);
      assert.match(text, /kind: +hnsw \(M 10, efConstruction 60, efSearch 30, seed 1234, storage f32, top level \d+/);
      const queryFile = join(work, `js-hnsw-${variant}.queries.fbin`);
      writeFbin(queryFile, nq, dim, queries);
      for (const ef of [0, 15, 200]) {
        const native = JSON.parse(runCli(['search', file, queryFile, '-k', '7', '--ef', String(ef), '--json']));
        assert.deepEqual(native.ids.flat(), [...index.searchBatch(queries, 7, { ef }).ids], `${variant} ef ${ef}`);
      }
      index.dispose();
    }
  });

  test('the native CLI rejects a damaged JS-written file with exit code 1 and the error code', async () => {
    requireCli();
    const q = await load('simd');
    const small = smallIndex(q);
    const bytes = small.serialize();
    small.dispose();
    bytes[bytes.length - 1] ^= 1;
    const file = join(work, 'damaged.qvr');
    writeFileSync(file, bytes);
    const r = spawnSync(cli, ['info', file], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /\[CHECKSUM_MISMATCH\].*section VECS checksum mismatch/);
    const usage = spawnSync(cli, ['search'], { encoding: 'utf8' });
    assert.equal(usage.status, 2);
  });
});
