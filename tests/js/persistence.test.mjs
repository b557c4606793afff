// Node persistence helpers: saveToFile writes atomically (no temporary file is left, a failed
// save leaves the old file intact), loadFromFile returns an index of the saved kind into the
// shared module, a given module, or a worker.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Quiver, QuiverError, saveToFile, loadFromFile, spawn } from '../../js/main.js';
import { moduleLoader, workDir } from './support.mjs';

const load = moduleLoader();
const dir = workDir('quiver-persist-');
const is = (code) => (e) => e instanceof QuiverError && e.code === code;

function sample(q) {
  const index = new q.QuantizedIndex({ dim: 4, bits: 4, seed: 11 });
  index.add([10, 20, 30], [[1, 0, 0, 0], [0, 1, 0, 0], [0.5, 0.5, 0.5, 0.5]]);
  return index;
}

test('saveToFile then loadFromFile round-trips the exact bytes', async () => {
  const q = await load('simd');
  const index = sample(q);
  const path = join(dir, 'a.qvr');
  const n = await saveToFile(index, path);
  assert.deepEqual(new Uint8Array(readFileSync(path)), index.serialize());
  assert.equal(n, readFileSync(path).length);
  assert.deepEqual(readdirSync(dir), ['a.qvr'], 'no temporary file is left behind');

  const shared = await loadFromFile(path);
  assert.equal(shared.constructor.name, 'QuantizedIndex');
  assert.deepEqual(shared.search([0, 1, 0, 0], 3), index.search([0, 1, 0, 0], 3));
  const mine = await loadFromFile(pathToFileURL(path), { quiver: q });
  assert.ok(mine instanceof q.QuantizedIndex);
  shared.dispose(); mine.dispose(); index.dispose();
});

test('saving over an existing file replaces it; a failed save reports IO_ERROR and leaves no temporary file', async () => {
  const q = await load('simd');
  const path = join(dir, 'b.qvr');
  const first = new q.FlatIndex({ dim: 2 });
  first.add([1], [[1, 1]]);
  await saveToFile(first, path);
  const second = new q.FlatIndex({ dim: 2 });
  second.add([1, 2], [[1, 1], [2, 2]]);
  await saveToFile(second, path);
  assert.deepEqual(new Uint8Array(readFileSync(path)), second.serialize());

  await assert.rejects(saveToFile(first, join(dir, 'missing-dir', 'c.qvr')), is('IO_ERROR'));
  // The final rename fails (the target is a folder): the temporary file is removed.
  mkdirSync(join(dir, 'folder.qvr'));
  await assert.rejects(saveToFile(first, join(dir, 'folder.qvr')), is('IO_ERROR'));
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
  assert.deepEqual(new Uint8Array(readFileSync(path)), second.serialize());
  await assert.rejects(saveToFile({}, path), is('INVALID_ARGUMENT'));
  first.dispose(); second.dispose();
});

test('loadFromFile: a missing file is NOT_FOUND, a corrupt one carries the format error', async () => {
  await assert.rejects(loadFromFile(join(dir, 'none.qvr')), is('NOT_FOUND'));
  const bad = join(dir, 'bad.qvr');
  writeFileSync(bad, 'not an index file at all');
  await assert.rejects(loadFromFile(bad), (e) => e instanceof QuiverError && ['BAD_MAGIC', 'TRUNCATED'].includes(e.code));
});

test('worker-hosted indexes save and load through the same helpers', async () => {
  const q = await load('simd');
  const w = await spawn({ variant: 'simd' });
  try {
    const remote = await w.create('flat', { dim: 2 });
    await remote.add([7, 8], [[0, 1], [1, 0]]);
    const path = join(dir, 'remote.qvr');
    await saveToFile(remote, path);
    const local = await loadFromFile(path, { quiver: q });
    assert.deepEqual([...local.search([0, 1], 2).ids], [7, 8]);
    const back = await loadFromFile(path, { quiver: w });
    assert.equal(back.kind, 'flat');
    assert.equal(await back.size, 2);
    local.dispose();
  } finally {
    await w.terminate();
  }
  assert.ok(Quiver.saveToFile === saveToFile && Quiver.loadFromFile === loadFromFile);
});
