// The browser demo (examples/browser/) offers the partitioned quantised index: built in the
// worker with lists 'auto' and a 3-bit refine plane (no f32 vectors), the page reports its
// lists and default probes, a search by item finds the item first, and the probes field reaches
// the index (one probe answers too, and says so).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium, openPage } from './support.mjs';
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

test('the demo builds and searches a partitioned quantised index', async () => {
  const page = await openPage(browser, server.url);
  const log = () => page.quiverLog.join('\n');
  await page.waitForFunction(() => window.demo?.ready === true);
  assert.equal(await page.isHidden('#probes-label'), true);
  await page.selectOption('#kind', 'partitioned');
  await page.fill('#n', '6000');
  await page.fill('#dim', '32');
  await page.click('#build-button');
  await page.waitForFunction(() => !document.getElementById('search-button').disabled && window.demo.built === 6000);
  const status = await page.textContent('#build-status');
  // Trained once 4,096 vectors were in: auto gives 4,096 / 256 = 16 lists at that size.
  const m =
    /^quantized index \((\d+) lists, (\d+) probed by default; 3-bit refine plane\) of 6,000 × 32 \(cosine\) built in .* bytes per vector\)$/.exec(
      status,
    );
  assert.ok(m, `${status}\n${log()}`);
  const lists = Number(m[1]);
  assert.equal(lists, 16, status);
  assert.equal(await page.evaluate(() => window.demo.lists), lists);
  assert.equal(await page.isHidden('#probes-label'), false);

  await page.fill('#item', '42');
  await page.fill('#k', '5');
  await page.click('#search-button');
  await page.waitForFunction(() => window.demo.lastSearch?.byItem === true);
  const byItem = await page.evaluate(() => window.demo.lastSearch);
  assert.deepEqual(byItem.options, { probes: 0 });
  assert.equal(byItem.ids.length, 5);
  assert.equal(byItem.ids[0], 42, log());
  assert.match(await page.textContent('#search-status'), new RegExp(`, ${m[2]} of ${lists} lists probed\\)$`));

  await page.fill('#probes', '1');
  await page.evaluate(() => {
    window.demo.lastSearch = null;
  });
  await page.click('#search-button');
  await page.waitForFunction(() => window.demo.lastSearch?.byItem === true);
  assert.deepEqual((await page.evaluate(() => window.demo.lastSearch)).options, { probes: 1 });
  assert.match(await page.textContent('#search-status'), new RegExp(`, 1 of ${lists} lists probed\\)$`));

  // Back to HNSW: the probes field goes away.
  await page.selectOption('#kind', 'hnsw');
  await page.fill('#n', '2000');
  await page.click('#build-button');
  await page.waitForFunction(() => !document.getElementById('search-button').disabled && window.demo.built === 2000);
  assert.match(await page.textContent('#build-status'), /^hnsw index of 2,000 × 32/);
  assert.equal(await page.isHidden('#probes-label'), true);
  await page.context().close();
});
