// Loader options in Node: a forced variant, a capped thread pool, and every source of the
// .wasm — next to the JS (default), a wasmUrl (path, file: URL, http: URL), locateFile, bytes
// (wasmBinary) and a precompiled WebAssembly.Module (wasmModule).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Quiver, QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { root, workDir } from './support.mjs';

const wasmPath = (variant) => join(root, 'js', 'wasm', variant, 'quiver.wasm');
const scratch = workDir('quiver-loader-');
const modules = [];
after(() => {
  for (const q of modules) q.terminate();
});
async function init(options) {
  const q = await Quiver.init(options);
  modules.push(q);
  return q;
}
const missing = join(scratch, 'nowhere', 'quiver.wasm');

// The module answers: an exact search over three points.
function works(q) {
  const index = new q.FlatIndex({ dim: 2 });
  index.add(
    [1, 2, 3],
    [
      [0, 0],
      [3, 4],
      [1, 1],
    ],
  );
  const r = index.search([0.9, 0.9], 2);
  index.dispose();
  assert.deepEqual([...r.ids], [3, 1]);
}

const is = (code) => (e) => e instanceof QuiverError && e.code === code;

for (const variant of VARIANTS) {
  test(`variant '${variant}' forced loads that build`, async () => {
    const q = await init({ variant });
    assert.equal(q.variant, variant);
    assert.equal(q.isa, variant === 'baseline' ? 'scalar' : 'wasm128');
    works(q);
  });
}

test('an unknown variant is INVALID_ARGUMENT', async () => {
  await assert.rejects(Quiver.init({ variant: 'sse' }), is('INVALID_ARGUMENT'));
});

test('threads caps the pthread pool of simd-mt', async () => {
  for (const threads of [1, 3]) {
    const q = await init({ variant: 'simd-mt', threads });
    assert.deepEqual(q.threadPool(), { workers: threads, running: 0 });
    works(q);
  }
  for (const bad of [0, -1, 1.5, 'two', 1000]) {
    await assert.rejects(Quiver.init({ variant: 'simd-mt', threads: bad }), is('INVALID_ARGUMENT'), String(bad));
  }
});

test('wasmUrl: a filesystem path, a file: URL and an http: URL', async () => {
  const copy = join(scratch, 'copy.wasm');
  copyFileSync(wasmPath('simd'), copy);
  works(await init({ variant: 'simd', wasmUrl: copy }));
  works(await init({ variant: 'simd', wasmUrl: pathToFileURL(copy) }));

  const requests = [];
  const server = createServer((req, res) => {
    requests.push(req.url);
    if (req.url !== '/assets/q.wasm') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(readFileSync(wasmPath('simd')));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    works(await init({ variant: 'simd', wasmUrl: `${base}/assets/q.wasm` }));
    assert.deepEqual(requests, ['/assets/q.wasm']);
    // A .wasm that cannot be fetched or read is a module that did not load: LOAD_FAILED, as the
    // the error table in docs/api.md says (issue 23 item 10; it was IO_ERROR).
    await assert.rejects(
      Quiver.init({ variant: 'simd', wasmUrl: `${base}/gone.wasm` }),
      (e) => is('LOAD_FAILED')(e) && /gone\.wasm/.test(e.message) && /404/.test(e.message),
    );
  } finally {
    server.close();
  }
  await assert.rejects(
    Quiver.init({ variant: 'simd', wasmUrl: missing }),
    (e) => is('LOAD_FAILED')(e) && /ENOENT/.test(e.message),
  );
});

test('locateFile is asked for quiver.wasm (and pthread-worker.js in simd-mt)', async () => {
  for (const variant of ['simd', 'simd-mt']) {
    const asked = [];
    const q = await init({
      variant,
      threads: 2,
      locateFile(file, prefix) {
        asked.push(file);
        assert.equal(typeof prefix, 'string');
        return file === 'pthread-worker.js' ? join(root, 'js', file) : join(root, 'js', 'wasm', variant, file);
      },
    });
    works(q);
    assert.ok(asked.includes('quiver.wasm'), asked.join());
    if (variant === 'simd-mt') {
      assert.ok(asked.includes('pthread-worker.js'), asked.join());
      const index = new q.FlatIndex({ dim: 2 });
      index.add(
        [1, 2],
        [
          [0, 0],
          [1, 1],
        ],
      );
      assert.equal(index.searchBatch(new Float32Array(2 * 64), 1).count, 64);
      index.dispose();
    }
  }
});

test('wasmBinary: bytes are used as given (a wasmUrl that does not exist is never read)', async () => {
  const bytes = readFileSync(wasmPath('baseline'));
  const q = await init({ variant: 'baseline', wasmBinary: bytes, wasmUrl: missing });
  works(q);
  works(await init({ variant: 'simd', wasmBinary: new Uint8Array(readFileSync(wasmPath('simd'))).buffer }));
  await assert.rejects(
    Quiver.init({ variant: 'simd', wasmBinary: new Uint8Array([0, 97, 115, 109, 9]) }),
    is('LOAD_FAILED'),
  );
  await assert.rejects(Quiver.init({ variant: 'simd', wasmBinary: 'quiver.wasm' }), is('INVALID_ARGUMENT'));
});

test('wasmModule: a precompiled WebAssembly.Module goes through instantiateWasm, threads included', async () => {
  for (const variant of ['simd', 'simd-mt']) {
    const module = await WebAssembly.compile(readFileSync(wasmPath(variant)));
    const q = await init({ variant, threads: 2, wasmModule: module, wasmUrl: missing });
    works(q);
    // simd-mt hands the same module to its pthread workers: a parallel batch must run.
    const index = new q.FlatIndex({ dim: 2 });
    index.add(
      [1, 2],
      [
        [0, 0],
        [1, 1],
      ],
    );
    const r = index.searchBatch(new Float32Array(2 * 256).fill(1), 1);
    assert.deepEqual([...r.ids.subarray(0, 3)], [2, 2, 2]);
    index.dispose();
  }
  // A module of another variant does not fit the glue's imports.
  const wrong = await WebAssembly.compile(readFileSync(wasmPath('simd-mt')));
  await assert.rejects(Quiver.init({ variant: 'simd', wasmModule: wrong }), is('LOAD_FAILED'));
  await assert.rejects(Quiver.init({ variant: 'simd', wasmModule: new Uint8Array(4) }), is('INVALID_ARGUMENT'));
});

// The simd-mt start-up waits for every pthread worker to report; a worker that cannot start
// used to end the Node process (the glue rethrew its error) or leave init() pending forever.
test('a pthread worker that fails to start rejects init with LOAD_FAILED and a reason', async () => {
  const broken = join(scratch, 'broken-worker.js');
  writeFileSync(broken, 'this is not JavaScript (\n');
  const locateFile = (file) => (file === 'pthread-worker.js' ? broken : wasmPath('simd-mt'));
  await assert.rejects(
    Quiver.init({ variant: 'simd-mt', threads: 2, locateFile }),
    (e) => is('LOAD_FAILED')(e) && /pthread worker failed to start/.test(e.message),
  );
});

test('a start-up that never finishes rejects with LOAD_FAILED after the timeout option', async () => {
  const silent = join(scratch, 'silent-worker.mjs');
  writeFileSync(silent, '// a pthread worker that never says it has loaded\n');
  const locateFile = (file) => (file === 'pthread-worker.js' ? silent : wasmPath('simd-mt'));
  await assert.rejects(
    Quiver.init({ variant: 'simd-mt', threads: 2, locateFile, timeout: 300 }),
    (e) => is('LOAD_FAILED')(e) && /within 300 ms/.test(e.message),
  );
  await assert.rejects(Quiver.init({ variant: 'simd', timeout: -1 }), is('INVALID_ARGUMENT'));
  works(await init({ variant: 'simd', timeout: Infinity }));
  // Past what setTimeout can wait (2^31 - 1 ms) a bound is no bound: it must not fire at once.
  works(await init({ variant: 'simd', timeout: 1e10 }));
});
