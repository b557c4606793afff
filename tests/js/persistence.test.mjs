// Node persistence helpers: saveToFile writes atomically (no temporary file is left, a failed
// save leaves the old file intact), loadFromFile returns an index of the saved kind into the
// shared module, a given module, or a worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Quiver, QuiverError, saveToFile, loadFromFile, spawn } from '../../js/main.js';
import { moduleLoader, workDir } from './support.mjs';

const load = moduleLoader();
const dir = workDir('quiver-persist-');
const is = (code) => (e) => e instanceof QuiverError && e.code === code;

function sample(q) {
  const index = new q.QuantizedIndex({ dim: 4, bits: 4, seed: 11 });
  index.add(
    [10, 20, 30],
    [
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0.5, 0.5, 0.5, 0.5],
    ],
  );
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
  shared.dispose();
  mine.dispose();
  index.dispose();
});

test('saving over an existing file replaces it; a failed save reports IO_ERROR and leaves no temporary file', async () => {
  const q = await load('simd');
  const path = join(dir, 'b.qvr');
  const first = new q.FlatIndex({ dim: 2 });
  first.add([1], [[1, 1]]);
  await saveToFile(first, path);
  const second = new q.FlatIndex({ dim: 2 });
  second.add(
    [1, 2],
    [
      [1, 1],
      [2, 2],
    ],
  );
  await saveToFile(second, path);
  assert.deepEqual(new Uint8Array(readFileSync(path)), second.serialize());

  await assert.rejects(saveToFile(first, join(dir, 'missing-dir', 'c.qvr')), is('IO_ERROR'));
  // The final rename fails (the target is a folder): the temporary file is removed.
  mkdirSync(join(dir, 'folder.qvr'));
  await assert.rejects(saveToFile(first, join(dir, 'folder.qvr')), is('IO_ERROR'));
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
  );
  assert.deepEqual(new Uint8Array(readFileSync(path)), second.serialize());
  await assert.rejects(saveToFile({}, path), is('INVALID_ARGUMENT'));
  first.dispose();
  second.dispose();
});

test('loadFromFile: a missing file is NOT_FOUND, a corrupt one carries the format error', async () => {
  await assert.rejects(loadFromFile(join(dir, 'none.qvr')), is('NOT_FOUND'));
  const bad = join(dir, 'bad.qvr');
  writeFileSync(bad, 'not an index file at all');
  await assert.rejects(
    loadFromFile(bad),
    (e) => e instanceof QuiverError && ['BAD_MAGIC', 'TRUNCATED'].includes(e.code),
  );
});

test('worker-hosted indexes save and load through the same helpers', async () => {
  const q = await load('simd');
  const w = await spawn({ variant: 'simd' });
  try {
    const remote = await w.create('flat', { dim: 2 });
    await remote.add(
      [7, 8],
      [
        [0, 1],
        [1, 0],
      ],
    );
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

// Issue 23 item 5: the temporary name was `${target}.${pid}.${Date.now()}.tmp`, so saves within
// one millisecond shared it: two writers interleaved in one file ("unexpected bytes after the
// declared end") and the later rename failed while the path held the mix. Every save now has a
// temporary file of its own. 40 saves of 40 different indexes race for one path (three
// rounds) while a reader keeps reading it: every read and the final file are one of the
// serialized files whole (the old one or one of the new ones), every save resolves, and no
// temporary file is left.
test('concurrent saveToFile() to one path: always one whole file, never a mix, no temporary file left', async () => {
  const q = await load('simd');
  const sub = join(dir, 'race');
  mkdirSync(sub);
  const path = join(sub, 'shared.qvr');
  const dim = 32;
  const indexes = Array.from({ length: 40 }, (_, i) => {
    const index = new q.FlatIndex({ dim });
    const n = 50 + 37 * i;
    index.add(
      Float64Array.from({ length: n }, (_, j) => j),
      q.unitGaussianVectors(n, dim, i + 1),
    );
    return index;
  });
  const files = indexes.map((index) => Buffer.from(index.serialize()));
  const old = files[0];
  writeFileSync(path, old);
  const valid = (bytes) => bytes.equals(old) || files.some((f) => f.equals(bytes));
  for (let round = 0; round < 3; round++) {
    let saving = true;
    const reads = (async () => {
      let n = 0;
      while (saving) {
        const bytes = readFileSync(path);
        assert.ok(valid(bytes), `round ${round}: a reader saw ${bytes.length} bytes that are no saved file`);
        n++;
        await new Promise((r) => setImmediate(r));
      }
      return n;
    })();
    const results = await Promise.allSettled(indexes.map((index) => saveToFile(index, path)));
    saving = false;
    await reads;
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 'fulfilled', `round ${round}: save ${i} failed: ${r.reason?.message}`);
      assert.equal(r.value, files[i].length);
    }
    const final = readFileSync(path);
    assert.ok(
      files.some((f) => f.equals(final)),
      `round ${round}: the file (${final.length} bytes) is none of the 40`,
    );
    assert.deepEqual(readdirSync(sub), ['shared.qvr'], `round ${round}: temporary files left behind`);
    const loaded = await loadFromFile(path, { quiver: q });
    assert.equal(loaded.size, indexes[files.findIndex((f) => f.equals(final))].size);
    loaded.dispose();
  }
  for (const index of indexes) index.dispose();
});

// Issue 23 item 10: readFile() of a FIFO blocks until a writer appears, which may be never
// (the process hangs). The file is opened non-blocking and anything but a regular file is
// refused with IO_ERROR before a byte is read.
test(
  'loadFromFile on a FIFO or a directory is IO_ERROR at once, not a hang',
  { skip: process.platform === 'win32' },
  async () => {
    const fifo = join(dir, 'pipe.qvr');
    execFileSync('mkfifo', [fifo]);
    let timer;
    try {
      const hang = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('loadFromFile(FIFO) still pending after 5 s')), 5000);
      });
      await assert.rejects(
        Promise.race([loadFromFile(fifo), hang]),
        (e) => is('IO_ERROR')(e) && /FIFO/.test(e.message),
      );
      await assert.rejects(
        Promise.race([loadFromFile(dir), hang]),
        (e) => is('IO_ERROR')(e) && /directory/.test(e.message),
      );
    } finally {
      clearTimeout(timer);
      // A reader blocked on the FIFO (the old code) gets end-of-file, so the test file can end.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        /* no reader */
      }
    }
  },
);
