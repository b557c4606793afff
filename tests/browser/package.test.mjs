// The npm package in Chromium: the loader picks simd-mt when the page is cross-origin isolated
// (and threads run) and falls back to relaxed-simd otherwise (Chromium validates relaxed SIMD),
// with answers identical to simd-mt's and to an explicitly requested simd; the worker API
// runs in a module Worker; IndexedDB and OPFS persistence survive a page reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchChromium, openPage } from './support.mjs';

let browser;
const servers = {};
before(async () => {
  browser = await launchChromium();
  servers.isolated = await startServer({ isolated: true });
  servers.plain = await startServer({ isolated: false });
});
after(async () => {
  await browser?.close();
  for (const s of Object.values(servers)) await s.close();
});

async function packagePage(server) {
  const page = await openPage(browser, server.url('/tests/browser/pages/package.html'));
  await page.waitForFunction(() => window.ready === true);
  return page;
}

// Builds the same exact, quantised and HNSW indexes in the page's auto-chosen module and returns
// the variant, the thread pool and every answer of a batch search.
async function searchInPage(page, variant) {
  return page.evaluate(async (variant) => {
    const { Quiver } = window.quiver;
    const q = await Quiver.init(variant ? { variant } : undefined);
    const dim = 32;
    const vectors = q.unitGaussianVectors(2000, dim, 1);
    const queries = q.unitGaussianVectors(256, dim, 2);
    const ids = Array.from({ length: 2000 }, (_, i) => i + 1);
    const flat = new q.FlatIndex({ dim, metric: 'cosine' });
    flat.add(ids, vectors);
    const quant = new q.QuantizedIndex({ dim, bits: 4 });
    quant.add(ids, vectors);
    // One insertion thread makes the graph depend only on the data and the seed.
    const hnsw = new q.HnswIndex({ dim, metric: 'cosine', M: 8, efConstruction: 64 });
    hnsw.add(ids, vectors, { threads: 1 });
    const f = flat.searchBatch(queries, 10);
    const r = quant.searchBatch(queries, 10, { rerank: 4 });
    const h = hnsw.searchBatch(queries, 10, { ef: 32 });
    const out = {
      chosen: Quiver.chooseVariant(),
      variant: q.variant,
      isa: q.isa,
      kernelFeatures: q.kernelFeatures,
      pool: q.threadPool(),
      flat: [...f.ids],
      flatDistances: [...f.distances],
      quantized: [...r.ids],
      hnsw: [...h.ids],
      hnswDistances: [...h.distances],
    };
    flat.dispose();
    quant.dispose();
    hnsw.dispose();
    q.terminate();
    return out;
  }, variant);
}

let isolatedAnswers;
test('cross-origin isolated: the page picks simd-mt and its pthreads run the batch', async () => {
  const page = await packagePage(servers.isolated);
  const r = await searchInPage(page);
  assert.equal(r.chosen, 'simd-mt', page.quiverLog.join('\n'));
  assert.equal(r.variant, 'simd-mt');
  assert.equal(r.isa, 'wasm128');
  assert.deepEqual(r.kernelFeatures, []);
  assert.ok(r.pool.workers >= 2, JSON.stringify(r.pool));
  assert.ok(r.pool.running >= 1, `no pthread ran: ${JSON.stringify(r.pool)}`);
  assert.equal(r.flat.length, 2560);
  isolatedAnswers = r;
  await page.context().close();
});

const sameAnswers = (r, want) => {
  assert.deepEqual(r.flat, want.flat);
  assert.deepEqual(r.flatDistances, want.flatDistances);
  assert.deepEqual(r.quantized, want.quantized);
  assert.deepEqual(r.hnsw, want.hnsw);
  assert.deepEqual(r.hnswDistances, want.hnswDistances);
};

test('not isolated: the page falls back to relaxed-simd and answers identically', async () => {
  const page = await packagePage(servers.plain);
  const r = await searchInPage(page);
  assert.equal(r.chosen, 'relaxed-simd', page.quiverLog.join('\n'));
  assert.equal(r.variant, 'relaxed-simd');
  assert.equal(r.isa, 'wasm128');
  // Chromium computes relaxed_dot exactly, so the coarse step uses it (and still gives simd's bits).
  assert.deepEqual(r.kernelFeatures, ['relaxed-dot']);
  assert.deepEqual(r.pool, { workers: 0, running: 0 });
  assert.ok(isolatedAnswers, 'the isolated test ran first');
  sameAnswers(r, isolatedAnswers);
  // An explicit request wins over the choice, and simd gives the same bits.
  const simd = await searchInPage(page, 'simd');
  assert.equal(simd.variant, 'simd');
  sameAnswers(simd, r);
  await page.context().close();
});

for (const [name, server] of [
  ['isolated', 'isolated'],
  ['not isolated', 'plain'],
]) {
  test(`worker API in a module Worker (${name}): same answers, QuiverError codes, transfer`, async () => {
    const page = await packagePage(servers[server]);
    const r = await page.evaluate(async () => {
      const { Quiver, spawn, QuiverError } = window.quiver;
      const w = await spawn();
      const q = await Quiver.init({ variant: 'simd' });
      const dim = 8;
      const vectors = q.unitGaussianVectors(300, dim, 5);
      const ids = Array.from({ length: 300 }, (_, i) => i);
      const local = new q.FlatIndex({ dim });
      local.add(ids, vectors);
      const remote = await w.create('flat', { dim });
      const sent = vectors.slice();
      await remote.add(ids, sent, { transfer: true });
      const query = vectors.subarray(dim * 7, dim * 8);
      const a = await remote.search(query, 5);
      const b = local.search(query, 5);
      let code = null;
      try {
        await remote.add([1], vectors.subarray(0, dim));
      } catch (e) {
        code = e instanceof QuiverError ? e.code : String(e);
      }
      const out = {
        variant: w.variant,
        size: await remote.size,
        moved: sent.byteLength,
        same: JSON.stringify([...a.ids]) === JSON.stringify([...b.ids]),
        first: a.ids[0],
        code,
      };
      await remote.dispose();
      local.dispose();
      q.terminate();
      await w.terminate();
      return out;
    });
    assert.equal(r.variant, server === 'isolated' ? 'simd-mt' : 'relaxed-simd', page.quiverLog.join('\n'));
    assert.deepEqual(r, { ...r, size: 300, moved: 0, same: true, first: 7, code: 'DUPLICATE_ID' });
    await page.context().close();
  });
}

test('IndexedDB and OPFS: saved indexes load after a reload, missing keys are NOT_FOUND', async () => {
  const page = await packagePage(servers.plain);
  const saved = await page.evaluate(async () => {
    const { Quiver, saveToIndexedDB, saveToOpfs, spawn } = window.quiver;
    const q = await Quiver.init();
    const index = new q.QuantizedIndex({ dim: 4, bits: 2, seed: 5 });
    index.add(
      [10, 20, 30],
      [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 0, 1, 1],
      ],
    );
    const bytes = [...index.serialize()];
    const n1 = await saveToIndexedDB(index, 'demo');
    const n2 = await saveToOpfs(index, 'demo.qvr');
    // A worker-hosted index saves through the same helpers.
    const w = await spawn();
    const remote = await w.create('flat', { dim: 2 });
    await remote.add(
      [1, 2],
      [
        [0, 1],
        [1, 0],
      ],
    );
    await saveToIndexedDB(remote, 'remote', { database: 'other', store: 'things' });
    await w.terminate();
    index.dispose();
    return { bytes, n1, n2 };
  });
  assert.equal(saved.n1, saved.bytes.length);
  assert.equal(saved.n2, saved.bytes.length);
  await page.reload();
  await page.waitForFunction(() => window.ready === true);
  const loaded = await page.evaluate(async () => {
    const { Quiver, loadFromIndexedDB, loadFromOpfs, deleteFromIndexedDB, deleteFromOpfs, spawn, QuiverError } =
      window.quiver;
    const q = await Quiver.init();
    const a = await loadFromIndexedDB('demo', { quiver: q });
    const b = await loadFromOpfs('demo.qvr');
    const w = await spawn();
    const c = await loadFromIndexedDB('remote', { quiver: w, database: 'other', store: 'things' });
    const codes = [];
    await deleteFromIndexedDB('demo');
    await deleteFromOpfs('demo.qvr');
    for (const attempt of [() => loadFromIndexedDB('demo'), () => loadFromOpfs('demo.qvr'), () => saveToNothing()]) {
      try {
        await attempt();
        codes.push(null);
      } catch (e) {
        codes.push(e instanceof QuiverError ? e.code : e.name);
      }
    }
    function saveToNothing() {
      return window.quiver.saveToOpfs(a, '');
    }
    const out = {
      kinds: [a.constructor.name, b.constructor.name, c.kind],
      bytesA: [...a.serialize()],
      bytesB: [...b.serialize()],
      ids: [...a.search([0, 0, 1, 1], 3).ids],
      remoteSize: await c.size,
      codes,
    };
    a.dispose();
    b.dispose();
    await w.terminate();
    return out;
  });
  assert.deepEqual(loaded.kinds, ['QuantizedIndex', 'QuantizedIndex', 'flat'], page.quiverLog.join('\n'));
  assert.deepEqual(loaded.bytesA, saved.bytes);
  assert.deepEqual(loaded.bytesB, saved.bytes);
  assert.equal(loaded.ids[0], 30);
  assert.equal(loaded.remoteSize, 2);
  assert.deepEqual(loaded.codes, ['NOT_FOUND', 'NOT_FOUND', 'INVALID_ARGUMENT']);
  await page.context().close();
});
