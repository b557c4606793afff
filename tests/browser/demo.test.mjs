// The browser demo (examples/browser/) served by its own COOP/COEP server: the worker runs the
// threaded build, the index builds with the progress bar reaching the end, a search for an
// item finds that item first, a random search answers, an index file picked in the page loads
// through the worker with progress, and a screenshot is kept as an artifact.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Quiver } from '../../js/index.js';
import { launchChromium, openPage, saveScreenshot } from './support.mjs';
import { serve } from '../../examples/browser/server.mjs';

let browser;
let server;
before(async () => {
  browser = await launchChromium();
  server = await serve({ port: 0 });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the demo builds an index in a Worker with progress, cancels a build, searches it, loads a file with progress, and is screenshotted', async () => {
  const page = await openPage(browser, server.url);
  const log = () => page.quiverLog.join('\n');
  await page.waitForFunction(() => window.demo?.ready === true);
  assert.match(await page.textContent('#env'), /build simd-mt .*cross-origin isolated: true/, log());

  await page.fill('#n', '3000');
  await page.fill('#dim', '32');
  await page.click('#build-button');
  await page.waitForFunction(() => !document.getElementById('search-button').disabled);
  assert.equal(await page.evaluate(() => document.getElementById('progress').value), 1);
  const status = await page.textContent('#build-status');
  assert.match(status, /^hnsw index of 3,000 × 32 \(cosine\) built in/, `${status}\n${log()}`);

  // A build cancelled part-way leaves the index as it was before (empty), then a full build.
  await page.fill('#n', '60000');
  await page.click('#build-button');
  await page.waitForFunction(() => window.demo.built > 0);
  await page.click('#cancel-button');
  await page.waitForFunction(() => window.demo.cancelled === true);
  assert.match(await page.textContent('#build-status'), /^cancelled: the index holds 0 vectors/, log());
  await page.fill('#n', '3000');
  await page.click('#build-button');
  await page.waitForFunction(() => !document.getElementById('search-button').disabled && window.demo.built === 3000);
  assert.equal(await page.evaluate(() => document.getElementById('progress').value), 1);

  await page.fill('#item', '42');
  await page.fill('#k', '5');
  await page.click('#search-button');
  await page.waitForFunction(() => window.demo.lastSearch?.byItem === true);
  const byItem = await page.evaluate(() => window.demo.lastSearch);
  assert.equal(byItem.ids.length, 5);
  assert.equal(byItem.ids[0], 42);
  assert.ok(Math.abs(byItem.distances[0]) < 1e-3, String(byItem.distances[0]));
  const rows = await page.$$eval('#results tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent));
  assert.deepEqual(rows.map(Number), byItem.ids);

  await page.check('input[name=mode][value=random]');
  await page.click('#search-button');
  await page.waitForFunction(() => window.demo.lastSearch?.byItem === false);
  assert.equal((await page.evaluate(() => window.demo.lastSearch)).ids.length, 5);

  await page.check('input[name=mode][value=item]');
  await page.click('#search-button');
  await page.waitForFunction(() => window.demo.lastSearch?.byItem === true);

  // An index file from disk streams into the worker (progress in bytes), then answers.
  const dir = mkdtempSync(join(tmpdir(), 'quiver-demo-'));
  const q = await Quiver.init({ variant: 'simd' });
  const local = new q.HnswIndex({ dim: 16, M: 8, efConstruction: 32 });
  local.add(
    Array.from({ length: 5000 }, (_, i) => i + 1),
    q.unitGaussianVectors(5000, 16, 2),
  );
  writeFileSync(join(dir, 'saved.qvr'), local.serialize());
  local.dispose();
  q.terminate();
  await page.setInputFiles('#file', join(dir, 'saved.qvr'));
  await page.waitForFunction(() => window.demo.loaded === 'saved.qvr');
  rmSync(dir, { recursive: true, force: true });
  assert.match(await page.textContent('#build-status'), /^hnsw index of 5,000 × 16 loaded from saved\.qvr$/, log());
  assert.equal(await page.evaluate(() => document.getElementById('progress').value), 1);
  await page.click('#search-button');
  await page.waitForFunction(() => window.demo.lastSearch?.byItem === false && window.demo.lastSearch.ids.length === 5);
  await page.fill('#n', '3000');
  await page.click('#build-button');
  await page.waitForFunction(() => !document.getElementById('search-button').disabled && window.demo.built === 3000);
  await page.waitForSelector('#scaling:not([hidden])'); // the repository has the benchmark page
  assert.equal(
    await page.getAttribute('a[href="/quiver-vector/examples/bench/"]', 'href'),
    '/quiver-vector/examples/bench/',
  );
  // The scaling panel: the benchmark page in a frame runs batch-search scaling and plots it.
  await page.click('#bench-panel summary');
  const frame = await (await page.waitForSelector('#bench-frame')).contentFrame();
  await frame.waitForFunction(() => window.quiverBench?.state === 'ready');
  const scaling = await frame.evaluate(() =>
    window.quiverBench.run({
      bench: 'scaling_batch',
      THREADS: '1 2',
      MIN_SECONDS: '0.2',
      CORPUS_ROWS: '2000',
      DIM: '32',
      QUERY_POOL: '64',
    }),
  );
  assert.ok(scaling, "the panel returned the program's JSON");
  await frame.waitForFunction(() => window.quiverBench.state === 'done');
  assert.ok((await frame.locator('#plot svg polyline').count()) > 0, 'the panel plotted the run');
  const shot = await saveScreenshot(page, 'demo.png');
  assert.ok(existsSync(shot) && statSync(shot).size > 10_000, shot);
  await page.context().close();
});
