// The browser harness itself: Chromium starts as root, and the server's COOP/COEP headers are
// what make a page cross-origin isolated (with SharedArrayBuffer) — the condition the loader
// uses to pick the threaded variant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchChromium, openPage } from './support.mjs';

let browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

for (const isolated of [true, false]) {
  test(`a page served ${isolated ? 'with' : 'without'} COOP/COEP is ${isolated ? '' : 'not '}cross-origin isolated`, async () => {
    const server = await startServer({ isolated });
    try {
      const page = await openPage(browser, server.url('/tests/browser/pages/isolation.html'));
      const probe = await page.waitForFunction(() => window.probe).then((h) => h.jsonValue());
      assert.equal(probe.crossOriginIsolated, isolated, page.quiverLog.join('\n'));
      assert.equal(probe.sharedArrayBuffer, isolated);
      assert.ok(probe.cores >= 1);
    } finally {
      await server.close();
    }
  });
}
