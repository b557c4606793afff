// The package examples run as documented: examples/node/quickstart.mjs (build, search, save,
// load), examples/node/documents.mjs (the README's collection example) and examples/edge/handler.mjs in an edge-like Node (no SharedArrayBuffer, wasm only
// from a precompiled module, the index from bytes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Quiver } from '../../js/index.js';
import { root, workDir } from './support.mjs';

test('examples/node/quickstart.mjs finds the query first and loads what it saved', () => {
  const out = execFileSync(process.execPath, ['examples/node/quickstart.mjs'], { cwd: root, encoding: 'utf8' });
  assert.match(out, /^variant simd-mt, 10000 vectors/m);
  assert.match(out, /^ {2}id 1042 {2}distance 0\.0000$/m);
  assert.match(out, /^saved \d+ bytes, loaded a HnswIndex: same answer true$/m);
});

test('examples/node/documents.mjs: the filtered query, the edit and the delete print what the README shows', () => {
  const out = execFileSync(process.execPath, ['examples/node/documents.mjs'], { cwd: root, encoding: 'utf8' });
  const lines = out.trim().split('\n');
  assert.match(lines[0], /^wasm-simd {4}0\.\d{3} {2}SIMD in WebAssembly: vector search in the browser$/);
  assert.match(lines[1], /^edge-search {2}0\.\d{3} {2}Vector search at the edge, inside the isolate$/);
  assert.equal(lines[2], 'plan filtered-walk: 2 of 6 match');
  assert.equal(lines[3], 'insert: DUPLICATE_ID');
  assert.equal(lines[4], "[ 'draft-1: Search in the browser with wasm threads', null ]");
  assert.match(lines[5], /^5 articles, \d+ bytes$/);
});

test('examples/edge/handler.mjs answers in an edge-like runtime with the simd build from a WebAssembly.Module', async () => {
  const dir = workDir('quiver-edge-');
  const q = await Quiver.init({ variant: 'simd' });
  const dim = 16;
  const vectors = q.unitGaussianVectors(1000, dim, 7);
  const index = new q.FlatIndex({ dim, metric: 'cosine' });
  index.add(
    Array.from({ length: 1000 }, (_, i) => i + 1),
    vectors,
  );
  const indexPath = join(dir, 'edge.qvr');
  writeFileSync(indexPath, index.serialize());
  const query = Array.from(vectors.subarray(5 * dim, 6 * dim));
  const expected = index.search(query, 4);
  index.dispose();
  q.terminate();

  const requests = [
    { method: 'GET', path: '/health' },
    { method: 'POST', path: '/search', body: { vector: query, k: 4 } },
    { method: 'POST', path: '/search', body: { vector: [1, 2, 3], k: 4 } },
    { method: 'GET', path: '/nothing' },
  ];
  const out = execFileSync(
    process.execPath,
    ['--no-harmony-sharedarraybuffer', 'tests/js/fixtures/edge-runtime.mjs', indexPath, JSON.stringify(requests)],
    { cwd: root, encoding: 'utf8' },
  );
  const [env, health, search, bad, missing] = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(env, { sharedArrayBuffer: 'undefined', auto: 'simd' });
  const { heapBytes, ...described } = health.body;
  assert.equal(health.status, 200);
  assert.deepEqual(described, { variant: 'simd', auto: 'simd', size: 1000, dim, kind: 'FlatIndex' });
  assert.ok(heapBytes > 0);
  assert.equal(search.status, 200);
  assert.deepEqual(search.body.ids, [...expected.ids]);
  assert.equal(search.body.ids[0], 6);
  assert.deepEqual(search.body.distances, [...expected.distances]);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'DIMENSION_MISMATCH');
  assert.equal(missing.status, 404);
});
