// Collections in Chromium: a documents collection on the page's main thread (the module the
// page picks: simd-mt when cross-origin isolated, simd otherwise) and the same one in a module
// Worker (spawn()), with string and number ids, filters, namespaces and QuiverError codes; both
// answer identically, and identically with and without isolation.
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

async function runInPage(server) {
  const page = await openPage(browser, server.url('/tests/browser/pages/package.html'));
  await page.waitForFunction(() => window.ready === true);
  const out = await page.evaluate(async () => {
    const { Quiver, Collection, QuiverError, spawn } = window.quiver;
    const q = await Quiver.init();
    const w = await spawn();
    const dim = 16;
    const vectors = q.unitGaussianVectors(600, dim, 7);
    const records = Array.from({ length: 600 }, (_, i) => ({
      id: i % 2 ? `doc-${i}` : i,
      values: vectors.subarray(i * dim, (i + 1) * dim),
      metadata: { lang: ['en', 'de', 'fr'][i % 3], year: 2000 + (i % 25), draft: i % 4 === 0, tags: [`t${i % 5}`] },
      ...(i % 10 === 0 ? { namespace: 'archive' } : {}),
    }));
    // Exact (flat), so that every build and thread count gives the same answers; HNSW below.
    const fields = { lang: 'string', year: 'number', draft: 'boolean', tags: 'tags' };
    const spec = { dim, index: 'flat', fields };
    const local = await Collection.create(spec, { quiver: q });
    const remote = await w.Collection.create(spec);
    local.upsert(records);
    await remote.upsert(records);
    const query = q.unitGaussianVectors(1, dim, 8);
    const asks = [
      { topK: 5 },
      { topK: 5, filter: { lang: 'de', year: { $gte: 2010 } }, returnMetadata: true },
      { topK: 5, filter: { $or: [{ tags: 't1' }, { draft: true }] }, namespace: 'archive' },
      { topK: 5, filter: { $not: { lang: { $in: ['en', 'fr'] } } }, returnValues: true },
    ];
    const localAnswers = asks.map((o) => local.query(query, o));
    const remoteAnswers = [];
    for (const o of asks) remoteAnswers.push(await remote.query(query, o));
    const graph = q.Collection.create({ ...spec, index: 'hnsw', options: { M: 8, efConstruction: 64 } });
    graph.upsert(records);
    const hnsw = graph.query(query, {
      topK: 5,
      filter: { lang: 'de', year: { $gte: 2010 } },
      ef: 32,
      returnMetadata: true,
    });
    graph.dispose();
    const codes = [];
    for (const attempt of [
      () => local.query(query, { filter: { lang: { $regex: 'e' } } }),
      () => local.insert([{ id: 0, values: query }]),
      () => local.deleteByIds(['missing']),
      () => remote.query(query, { filter: { title: 'x' } }),
      () => remote.query(query, { probes: 2 }),
    ]) {
      try {
        await attempt();
        codes.push(null);
      } catch (e) {
        codes.push(e instanceof QuiverError ? e.code : String(e));
      }
    }
    const result = {
      variant: q.variant,
      workerVariant: w.variant,
      size: [local.size, await remote.size],
      got: local.getByIds([0, 'doc-1', '0']).map((r) => r && [r.id, r.metadata.lang]),
      localAnswers: localAnswers.map((r) => ({
        ...r,
        matches: r.matches.map((m) => (m.values ? { ...m, values: [...m.values] } : m)),
      })),
      hnsw,
      same: JSON.stringify(localAnswers) === JSON.stringify(remoteAnswers),
      codes,
    };
    local.dispose();
    await remote.dispose();
    await w.terminate();
    q.terminate();
    return result;
  });
  await page.context().close();
  return { out, log: page.quiverLog };
}

let isolatedAnswers;
for (const name of ['isolated', 'plain']) {
  test(`collection on the main thread and in a Worker (${name === 'plain' ? 'not ' : ''}cross-origin isolated)`, async () => {
    const { out, log } = await runInPage(servers[name]);
    // Without isolation Chromium has no threads but validates relaxed SIMD.
    const variant = name === 'isolated' ? 'simd-mt' : 'relaxed-simd';
    assert.equal(out.variant, variant, log.join('\n'));
    assert.equal(out.workerVariant, variant);
    assert.deepEqual(out.size, [600, 600]);
    assert.deepEqual(out.got, [[0, 'en'], ['doc-1', 'de'], null]);
    assert.ok(out.same, 'the worker answers like the main thread');
    const [all, de, archive, not] = out.localAnswers;
    assert.equal(all.matches.length, 5);
    assert.equal(all.plan.strategy, 'unfiltered');
    assert.ok(de.matches.every((m) => m.metadata.lang === 'de' && m.metadata.year >= 2010));
    assert.equal(de.plan.matching, 200 - 80);
    assert.ok(archive.matches.every((m) => m.namespace === 'archive'));
    assert.equal(not.plan.matching, 200);
    assert.equal(not.matches[0].values.length, 16);
    assert.equal(out.hnsw.matches.length, 5);
    assert.equal(out.hnsw.plan.matching, 120);
    assert.ok(out.hnsw.matches.every((m) => m.metadata.lang === 'de' && m.metadata.year >= 2010));
    assert.deepEqual(out.codes, [
      'INVALID_ARGUMENT',
      'DUPLICATE_ID',
      'UNKNOWN_ID',
      'INVALID_ARGUMENT',
      'INVALID_ARGUMENT',
    ]);
    if (isolatedAnswers) assert.deepEqual(out.localAnswers, isolatedAnswers, 'the same answers in simd and simd-mt');
    isolatedAnswers ??= out.localAnswers;
  });
}
