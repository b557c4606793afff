// The benchmark page examples/bench/: served with COOP/COEP it runs concurrent_knn (wasm simd-mt,
// main() on a pthread) from its form, shows the table while the program runs, renders the
// report and saves it through the server; without COOP/COEP it refuses to run. Uses the web
// build that `scripts/build.sh wasm-simd-mt` writes to examples/bench/wasm/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startBenchServer, wasmDir } from '../../examples/bench/server.mjs';
import { launchChromium, openPage, saveScreenshot, artifactsDir } from './support.mjs';

const tiny = {
  THREADS: '1 2',
  DURATION_S: '0.3',
  CORPUS_ROWS: '2000',
  DIM: '64',
  WARMUP_S: '0.1',
  LOOKUP_ONLY_S: '0.1',
};
let browser;
let resultsDir;

before(async () => {
  for (const name of ['concurrent_knn', 'scaling_batch']) {
    assert.ok(
      existsSync(path.join(wasmDir, `quiver_bench_${name}.js`)),
      `examples/bench/wasm/quiver_bench_${name}.js is missing: run bash scripts/build.sh wasm-simd-mt`,
    );
  }
  mkdirSync(artifactsDir, { recursive: true });
  resultsDir = mkdtempSync(path.join(artifactsDir, 'bench-results-'));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  if (resultsDir) rmSync(resultsDir, { recursive: true, force: true });
});

const state = (page) => page.evaluate(() => ({ state: window.quiverBench.state, message: window.quiverBench.message }));

async function fillForm(page, values) {
  if (!(await page.locator('details').evaluate((d) => d.open))) await page.click('details > summary'); // "more knobs"
  for (const [name, value] of Object.entries(values)) {
    const field = page.locator(`[name="${name}"]`);
    if (await field.evaluate((el) => el.tagName === 'SELECT')) await field.selectOption(value);
    else await field.fill(value);
  }
}

test('with COOP/COEP the page runs concurrent_knn from its form, shows the table live, renders and saves the report', async () => {
  const server = await startBenchServer({ resultsDir });
  try {
    const page = await openPage(browser, server.pageUrl);
    await page.waitForFunction(() => window.quiverBench.state !== 'loading');
    assert.equal((await state(page)).state, 'ready', page.quiverLog.join('\n'));

    await fillForm(page, { bench: 'concurrent_knn', MODE: 'nolock', INDEX: 'flat', ...tiny });
    await page.click('#run');
    // The first table row appears while the program still runs: main() is on a pthread, so the
    // page's thread is free to show output (and to evaluate this condition) meanwhile.
    await page.waitForFunction(
      () => window.quiverBench.state === 'running' && /\|\s+1 \|/.test(document.getElementById('live').textContent),
    );
    await page.waitForFunction(() => window.quiverBench.state !== 'running');
    const { state: finished, message } = await state(page);
    assert.equal(finished, 'done', `${message}\n${page.quiverLog.join('\n')}`);

    const run = await page.evaluate(() => window.quiverBench.lastRun);
    assert.equal(run.benchmark, 'concurrent_knn');
    assert.equal(run.mode, 'nolock');
    assert.equal(run.target, 'wasm-browser');
    assert.equal(run.variant, 'simd-mt');
    assert.deepEqual(
      run.results.map((p) => p.threads),
      [1, 2],
    );
    for (const p of run.results) {
      assert.ok(p.ops > 0 && p.qps > 0, `threads ${p.threads}: ${JSON.stringify(p)}`);
      assert.equal(typeof p.speedup, 'number');
      assert.ok(p.speedup > 0);
    }
    assert.equal(run.results[0].speedup, 1);
    assert.equal(run.knobs.CORPUS_ROWS, 2000);
    assert.equal(run.knobs.DIM, 64);

    const markdown = await page.textContent('#markdown');
    assert.match(markdown, /\| 2 \| wasm-browser \| [\d,]+ \| [\d.]+ × \|/);
    assert.equal((await page.locator('#plot svg polyline').count()) > 0, true);

    await page.click('#save');
    await page.waitForFunction(() => window.quiverBench.saved);
    const files = readdirSync(resultsDir).filter((f) => /^concurrent-browser-.*\.json$/.test(f));
    assert.equal(files.length, 1);
    const saved = JSON.parse(readFileSync(path.join(resultsDir, files[0]), 'utf8'));
    assert.match(saved.target, /^wasm-browser \(chromium \d+\.\d+\.\d+\.\d+\)$/);
    assert.ok(saved.machine.host && saved.machine.cpus >= 1 && saved.machine.hardware_concurrency >= 1);
    assert.match(saved.commit, /^[0-9a-f]{7,}$/);
    assert.equal(saved.knobs.THREADS, '1 2');
    assert.equal(saved.knobs.INDEX, 'flat');
    assert.deepEqual(
      saved.concurrent.map((r) => [r.mode, r.isa, r.target]),
      [['nolock', 'wasm128', 'wasm-browser']],
    );
    await saveScreenshot(page, 'bench-page.png');
  } finally {
    await server.close();
  }
});

test('the page reports a bad knob from the form and an error exit of the program', async () => {
  const server = await startBenchServer({ resultsDir });
  try {
    const page = await openPage(browser, server.pageUrl);
    await page.waitForFunction(() => window.quiverBench.state === 'ready');
    await fillForm(page, { ...tiny, THREADS: '1 32' });
    await page.click('#run');
    await page.waitForFunction(() => window.quiverBench.state === 'error');
    assert.match((await state(page)).message, /THREADS must list whole numbers from 1 to 16/);

    // The program itself rejects the knob (exit code 2, message on stderr).
    await fillForm(page, { ...tiny, THREADS: '1', K: '0' });
    await page.click('#run');
    await page.waitForFunction(() => window.quiverBench.state === 'error' && /exited/.test(window.quiverBench.message));
    assert.match((await state(page)).message, /concurrent_knn exited with 2: error: K must be a positive integer/);
    assert.equal(await page.locator('#run').isDisabled(), false);
  } finally {
    await server.close();
  }
});

test('without COOP/COEP the page says it cannot run threads and refuses to run', async () => {
  const server = await startBenchServer({ isolated: false, resultsDir });
  try {
    const page = await openPage(browser, server.pageUrl);
    await page.waitForFunction(() => window.quiverBench.state !== 'loading');
    const { state: s, message } = await state(page);
    assert.equal(s, 'unsupported');
    assert.match(message, /not cross-origin isolated.*cannot run threads/);
    assert.match(await page.textContent('#status'), /cannot run threads/);
    assert.equal(await page.locator('#run').isDisabled(), true);
    const refused = await page.evaluate(() =>
      window.quiverBench.run().then(
        () => 'ran',
        (e) => e.message,
      ),
    );
    assert.match(refused, /cannot run threads/);
  } finally {
    await server.close();
  }
});
