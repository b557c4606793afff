// No option is silently ignored (issue 23 item 9): every call of the main-thread and the worker
// APIs refuses an unknown key (a typo such as `alow`, which used to return unfiltered hits), an
// option of another kind or call (`probes` on a flat index, `ef` on a quantised one, `threads`
// on a flat add) and a value of the wrong type, with QuiverError INVALID_ARGUMENT whose message
// names the key, and changes nothing. null means "not given" everywhere (js/core/options.js).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  Quiver,
  QuiverError,
  spawn,
  saveToFile,
  loadFromFile,
  saveToIndexedDB,
  loadFromIndexedDB,
  deleteFromIndexedDB,
  loadFromOpfs,
} from '../../js/main.js';
import { moduleLoader, workDir } from './support.mjs';

const load = moduleLoader();
const dir = workDir('quiver-options-');
const workers = [];
after(async () => {
  for (const w of workers) await w.terminate();
});

// The error of a refused call: INVALID_ARGUMENT and the key in its message.
const names = (key) => (e) => {
  assert.ok(e instanceof QuiverError, `not a QuiverError: ${e?.stack ?? e}`);
  assert.equal(e.code, 'INVALID_ARGUMENT', e.message);
  assert.ok(e.message.includes(key), `the message does not name ${key}: ${e.message}`);
  return true;
};
const refuses = (fn, key) => assert.throws(fn, names(key));

const dim = 4;
const rows = [
  [1, 0, 0, 0],
  [0, 1, 0, 0],
  [0, 0, 1, 0],
  [0.5, 0.5, 0, 0],
];
const query = new Float32Array([1, 0.1, 0, 0]);

function indexes(q) {
  const made = {
    flat: new q.FlatIndex({ dim }),
    quantized: new q.QuantizedIndex({ dim, bits: 4 }),
    hnsw: new q.HnswIndex({ dim, M: 8 }),
  };
  for (const index of Object.values(made)) index.add([1, 2, 3, 4], rows);
  return made;
}

// Per kind: keys its search refuses (typos and other kinds' options) and wrong types of keys it takes.
const SEARCH_UNKNOWN = {
  flat: ['alow', 'probes', 'ef', 'probe', 'threads', 'transfer'],
  quantized: ['alow', 'probe', 'ef', 'efSearch', 'refine_bits', 'transfer'],
  hnsw: ['alow', 'probes', 'efs', 'Ef', 'threads', 'transfer'],
};
const SEARCH_WRONG = {
  flat: { allow: 'x', rerank: '2' },
  quantized: { allow: ['1'], rerank: -1, probes: '2' },
  hnsw: { allow: {}, ef: '8', rerank: 'yes' },
};

test("main thread: constructors refuse unknown keys, other kinds' keys and wrong types", async () => {
  const q = await load('simd');
  const cases = [
    [q.FlatIndex, { list: 3 }, 'list'],
    [q.FlatIndex, { M: 8 }, 'M'],
    [q.FlatIndex, { lists: 4 }, 'lists'],
    [q.FlatIndex, { bits: 4 }, 'bits'],
    [q.QuantizedIndex, { refine_bits: 3 }, 'refine_bits'],
    [q.QuantizedIndex, { list: 16 }, 'list'],
    [q.QuantizedIndex, { efSearch: 10 }, 'efSearch'],
    [q.QuantizedIndex, { storage: 'sq8' }, 'storage'],
    [q.HnswIndex, { m: 8 }, 'm'],
    [q.HnswIndex, { lists: 8 }, 'lists'],
    [q.HnswIndex, { ef: 10 }, 'ef'],
    [q.HnswIndex, { bits: 4 }, 'bits'],
    // wrong types
    [q.QuantizedIndex, { bits: 3 }, 'bits'],
    [q.QuantizedIndex, { seed: -1 }, 'seed'],
    [q.QuantizedIndex, { keepVectors: 1 }, 'keepVectors'],
    [q.QuantizedIndex, { lists: 'all' }, 'lists'],
    [q.HnswIndex, { storage: 5 }, 'storage'],
    [q.HnswIndex, { M: '16' }, 'M'],
    [q.HnswIndex, { efSearch: 2 ** 20 + 1 }, 'efSearch'],
    [q.HnswIndex, { neighborCodes: 'yes' }, 'neighborCodes'],
    [q.FlatIndex, { metric: 5 }, 'metric'],
  ];
  for (const [Cls, extra, key] of cases) refuses(() => new Cls({ dim, ...extra }), key);
  // null = not given: the default applies.
  const h = new q.HnswIndex({ dim, M: null, efSearch: null, storage: null });
  assert.equal(h.M, 16);
  assert.equal(h.storage, 'f32');
  h.dispose();
});

test('main thread: search, searchBatch and add refuse unknown and inapplicable keys and wrong types, and change nothing', async () => {
  const q = await load('simd');
  const made = indexes(q);
  for (const [kind, index] of Object.entries(made)) {
    const before = index.serialize();
    const plain = index.search(query, 3);
    for (const key of SEARCH_UNKNOWN[kind]) {
      refuses(() => index.search(query, 3, { [key]: 1 }), `'${key}'`);
      refuses(() => index.searchBatch(query, 3, { [key]: 1 }), `'${key}'`);
    }
    for (const [key, value] of Object.entries(SEARCH_WRONG[kind])) {
      refuses(() => index.search(query, 3, { [key]: value }), key);
      refuses(() => index.searchBatch(query, 3, { [key]: value }), key);
    }
    // The misspelt filter no longer leaks results.
    refuses(() => index.search(query, 3, { alow: [1] }), 'alow');
    // Object.prototype names are not options either.
    refuses(() => index.search(query, 3, JSON.parse('{"__proto__": 1}')), '__proto__');
    refuses(() => index.search(query, 3, { constructor: 1 }), 'constructor');
    // add: flat and quantised take no options, HNSW takes threads.
    if (kind === 'hnsw') {
      refuses(() => index.add([9], [[0, 0, 0, 1]], { thread: 1 }), 'thread');
      refuses(() => index.add([9], [[0, 0, 0, 1]], { threads: '1' }), 'threads');
    } else {
      refuses(() => index.add([9], [[0, 0, 0, 1]], { threads: 1 }), 'threads');
    }
    refuses(() => index.add([9], [[0, 0, 0, 1]], { onProgress: () => {} }), 'onProgress');
    assert.deepEqual(index.serialize(), before, `${kind}: a refused call changed the index`);
    // null = not given, for a key and for the whole options argument.
    assert.deepEqual(index.search(query, 3, { allow: null, rerank: null }), plain);
    assert.deepEqual(index.search(query, 3, null), plain);
    assert.deepEqual(index.searchBatch(query, 3, null), index.searchBatch(query, 3));
    index.dispose();
  }
});

function byteStream(chunks) {
  return new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(x);
      c.close();
    },
  });
}

test('main thread: init, shared, load, loadFrom (size hints, stream chunks) and the persistence helpers refuse unknown keys and wrong types', async () => {
  const q = await load('simd');
  const index = new q.FlatIndex({ dim });
  index.add([1], [rows[0]]);
  const bytes = index.serialize();
  await assert.rejects(Quiver.init({ variants: 'simd' }), names('variants'));
  await assert.rejects(Quiver.init({ variant: 'simd', threads: '2' }), names('threads'));
  await assert.rejects(Quiver.init({ variant: 'simd', timeout: -5 }), names('timeout'));
  await assert.rejects(Quiver.init({ variant: 'simd', wasmUrl: 5 }), names('wasmUrl'));
  await assert.rejects(Quiver.shared({ variant: 'simd', wasm: 'x' }), names('wasm'));
  await assert.rejects(Quiver.load(bytes, { variant: 'simd', sizes: 10 }), names('sizes'));
  await assert.rejects(Quiver.load(bytes, { variant: 'simd', quiver: q }), names('quiver'));
  await assert.rejects(q.loadFrom(bytes, { sise: 10 }), names('sise'));
  await assert.rejects(q.loadFrom(new Blob([bytes]), { onprogress: () => {} }), names('onprogress'));
  for (const size of [-1, NaN, '300', 1.5, Infinity]) {
    await assert.rejects(q.loadFrom(byteStream([bytes]), { size }), names('size'), `size ${String(size)}`);
  }
  await assert.rejects(q.loadFrom(new Blob([bytes]), { signal: 'stop' }), names('signal'));
  // Stream chunks that are not bytes.
  for (const chunk of ['abc', 42, [1, 2, 3], { length: 3 }, null]) {
    await assert.rejects(q.loadFrom(byteStream([bytes.subarray(0, 10), chunk])), (e) => {
      assert.ok(e instanceof QuiverError && e.code === 'INVALID_ARGUMENT', `${String(chunk)}: ${e.code} ${e.message}`);
      assert.match(e.message, /stream chunk 1/);
      return true;
    });
  }
  // null = not given.
  assert.equal((await q.loadFrom(byteStream([bytes]), { size: null, onProgress: null })).size, 1);

  const path = join(dir, 'a.qvr');
  await saveToFile(index, path);
  await assert.rejects(loadFromFile(path, { quiverr: q }), names('quiverr'));
  await assert.rejects(loadFromFile(path, { quiver: 5 }), names('quiver'));
  // Checked before the helper finds that Node has no IndexedDB / OPFS.
  await assert.rejects(saveToIndexedDB(index, 'k', { db: 'x' }), names('db'));
  await assert.rejects(saveToIndexedDB(index, 'k', { store: 5 }), names('store'));
  await assert.rejects(loadFromIndexedDB('k', { quiver: q, databse: 'x' }), names('databse'));
  await assert.rejects(deleteFromIndexedDB('k', { stor: 'x' }), names('stor'));
  await assert.rejects(loadFromOpfs('n', { quivr: q }), names('quivr'));
  await assert.rejects(saveToIndexedDB(index, 'k'), (e) => e.code === 'UNSUPPORTED');
  index.dispose();
});

for (const variant of ['simd', 'simd-mt']) {
  test(`${variant} worker: spawn, create, search, searchBatch, add and load refuse unknown keys and wrong types, and change nothing`, async () => {
    await assert.rejects(spawn({ variant, therads: 2 }), names('therads'));
    await assert.rejects(spawn({ variant, workerUrl: 5 }), names('workerUrl'));
    await assert.rejects(spawn({ variant, locateFile: () => 'x' }), names('locateFile'));
    const w = await spawn({ variant, threads: 2 });
    workers.push(w);
    await assert.rejects(w.create('flat', { dim, list: 3 }), names('list'));
    await assert.rejects(w.create('quantized', { dim, refine_bits: 3 }), names('refine_bits'));
    await assert.rejects(w.create('hnsw', { dim, m: 8 }), names('m'));
    for (const kind of ['flat', 'quantized', 'hnsw']) {
      const index = await w.create(kind, { dim });
      await index.add([1, 2, 3, 4], rows);
      const before = await index.serialize();
      for (const key of SEARCH_UNKNOWN[kind].filter((k) => k !== 'transfer')) {
        await assert.rejects(index.search(query, 3, { [key]: 1 }), names(`'${key}'`));
        await assert.rejects(index.searchBatch(query, 3, { [key]: 1 }), names(`'${key}'`));
      }
      for (const [key, value] of Object.entries(SEARCH_WRONG[kind])) {
        await assert.rejects(index.search(query, 3, { [key]: value }), names(key));
      }
      await assert.rejects(index.search(query, 3, { transfer: 'yes' }), names('transfer'));
      await assert.rejects(index.add([9], [[0, 0, 0, 1]], { chunksize: 10 }), names('chunksize'));
      await assert.rejects(index.add([9], [[0, 0, 0, 1]], { chunkSize: 0 }), names('chunkSize'));
      await assert.rejects(index.add([9], [[0, 0, 0, 1]], { onProgress: 5 }), names('onProgress'));
      await assert.rejects(index.add([9], [[0, 0, 0, 1]], { signal: {} }), names('signal'));
      await assert.rejects(
        index.add([9], [[0, 0, 0, 1]], kind === 'hnsw' ? { thread: 1 } : { threads: 1 }),
        names('thread'),
      );
      if (kind !== 'hnsw') {
        // A chunked add checks the kind's own add options too (flat and quantised take none).
        await assert.rejects(index.add([9], [[0, 0, 0, 1]], { threads: 1, onProgress: () => {} }), names('threads'));
      }
      assert.deepEqual(await index.serialize(), before, `${kind}: a refused call changed the index`);
      assert.deepEqual(await index.search(query, 3, { allow: null, transfer: null }), await index.search(query, 3));
      await index.dispose();
    }
    const bytes = await (await w.create('flat', { dim })).serialize();
    await assert.rejects(w.load(bytes, { tranfer: true }), names('tranfer'));
    for (const size of [-1, NaN, '300']) {
      await assert.rejects(w.load(byteStream([bytes]), { size }), names('size'), `size ${String(size)}`);
    }
    await assert.rejects(
      w.load(byteStream([bytes, 'abc'])),
      (e) => e.code === 'INVALID_ARGUMENT' && /stream chunk 1/.test(e.message),
    );
    assert.equal(await (await w.load(bytes, { transfer: null, size: null })).size, 0);
  });
}
