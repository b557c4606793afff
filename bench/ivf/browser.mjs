// Chromium runs of `npm run bench:ivf`: serves the repository (COOP/COEP, so the page may use
// simd-mt) and the cached workload files by byte range (/ivf-data?file=&offset=&length=), opens
// bench/ivf/page.html in Debian's Chromium (playwright-core) and runs one measurement per call.
import { open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { launchChromium, openPage, startServer } from '../../tests/browser/support.mjs';
import { WASM_EAGER_FLAGS } from '../common/steady-state.mjs';

export async function startBrowserBench(cacheDir, log) {
  const handlers = {
    'GET /ivf-data': async (req, res) => {
      const url = new URL(req.url, 'http://localhost');
      const file = join(cacheDir, basename(url.searchParams.get('file') ?? '')); // only files of the cache
      const offset = Number(url.searchParams.get('offset')),
        length = Number(url.searchParams.get('length'));
      const fh = await open(file, 'r').catch(() => null);
      if (!fh) {
        res.writeHead(404).end();
        return;
      }
      try {
        const buf = Buffer.alloc(length);
        const { bytesRead } = await fh.read(buf, 0, length, offset);
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(buf.subarray(0, bytesRead));
      } finally {
        await fh.close();
      }
    },
  };
  const server = await startServer({ isolated: true, handlers });
  let browser;
  try {
    // Every wasm function compiled by TurboFan up front, as in the Node runs (bench/common/steady-state.mjs).
    browser = await launchChromium({ extraArgs: [`--js-flags=${WASM_EAGER_FLAGS.join(' ')}`] });
  } catch (e) {
    await server.close(); // else the listening server keeps Node running after the report
    throw e;
  }
  log(`Chromium ${browser.version()}`);
  return {
    version: browser.version(),
    // One variant on one workload in a fresh page; the page's progress lines go to log.
    // Rejects after timeoutMs (the page is closed, so a hung run does not hold the benchmark).
    async run(config, timeoutMs) {
      const page = await openPage(browser, server.url('/bench/ivf/page.html'), { timeout: 0 });
      page.on('console', (m) => log(`  [chromium] ${m.text()}`));
      let timer;
      try {
        await page.waitForFunction(() => window.ivfBench?.ready, null, { timeout: 60_000 });
        const files = Object.fromEntries(Object.entries(config.workload.files).map(([k, v]) => [k, basename(v)]));
        const run = page.evaluate((c) => window.ivfBench.run(c), {
          ...config,
          workload: { ...config.workload, files },
        });
        const late = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the page took over ${timeoutMs / 1000} s`)), timeoutMs);
        });
        return await Promise.race([run, late]);
      } finally {
        clearTimeout(timer);
        await page.context().close();
      }
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
