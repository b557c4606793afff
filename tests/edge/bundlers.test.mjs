// The package through the bundlers users put in front of it, run in Debian's Chromium:
//  - esbuild --platform=browser bundles a page (no node: built-in to resolve) that searches,
//    with pthreads when cross-origin isolated, and rejects with LOAD_FAILED (no hang) when the
//    pthread worker script is missing;
//  - vite build prints no warning (no externalised node: modules);
//  - the Vite dev server, with and without COOP/COEP, serves the page of tests/package/vite-app
//    (Quiver.init, searchBatch on the pthreads, spawn() worker) and it answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, project, installCopy, run, describeRun, bin, placeBundleRuntime } from './support.mjs';
import { startServer, launchChromium, openPage } from '../browser/support.mjs';

let browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function resultOf(url, { expectError = false } = {}) {
  const page = await openPage(browser, url);
  try {
    const result = await page.waitForFunction(() => window.result).then((h) => h.jsonValue());
    if (!expectError) assert.equal(result.error, undefined, `${result.error}\n${page.quiverLog.join('\n')}`);
    return result;
  } finally {
    await page.context().close();
  }
}

test('an esbuild --platform=browser bundle answers in Chromium, with and without isolation', async () => {
  const app = project('quiver-esbuild-', undefined, { link: false });
  const pkg = installCopy(app);
  writeFileSync(
    join(app, 'app.js'),
    `
    import { Quiver } from 'quiver-vector';
    try {
      const q = await Quiver.init();
      const index = new q.FlatIndex({ dim: 3 });
      index.add([1, 2, 3], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
      const batch = index.searchBatch(new Float32Array(3 * 64).fill(1), 1);
      window.result = { variant: q.variant, ids: [...index.search([0.1, 0.9, 0], 2).ids], batch: batch.count };
    } catch (e) {
      window.result = { error: e.code + ': ' + e.message };
    }
  `,
  );
  const r = run(bin.esbuild, ['app.js', '--bundle', '--platform=browser', '--format=esm', '--outfile=dist/app.js'], {
    cwd: app,
  });
  assert.equal(r.status, 0, describeRun(r));
  assert.doesNotMatch(r.stderr, /warning|node:/i, r.stderr);
  assert.doesNotMatch(readFileSync(join(app, 'dist', 'app.js'), 'utf8'), /from\s*["']node:|import\(["']node:/);
  // The files the bundle loads at run time sit next to it (docs/api.md: esbuild).
  placeBundleRuntime(pkg, join(app, 'dist'));
  for (const isolated of [false, true]) {
    const server = await startServer({ root: join(app, 'dist'), isolated });
    try {
      const result = await resultOf(server.url('/'));
      assert.deepEqual(result, { variant: isolated ? 'simd-mt' : 'relaxed-simd', ids: [2, 1], batch: 64 });
    } finally {
      await server.close();
    }
  }
  // Without the pthread worker script (a 404), init rejects with LOAD_FAILED instead of
  // waiting forever for the workers.
  // The .wasm is served late, so the worker's 404 arrives before the module is instantiated
  // (the moment the generated glue starts listening for worker errors).
  rmSync(join(app, 'dist', 'pthread-worker.js'));
  const wasm = readFileSync(join(app, 'dist', 'wasm', 'simd-mt', 'quiver.wasm'));
  const slowWasm = async (req, res) => {
    await new Promise((r) => setTimeout(r, 1500));
    res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(wasm);
  };
  const server = await startServer({
    root: join(app, 'dist'),
    isolated: true,
    handlers: { 'GET /wasm/simd-mt/quiver.wasm': slowWasm },
  });
  try {
    const { error } = await resultOf(server.url('/'), { expectError: true });
    assert.match(error, /^LOAD_FAILED: the simd-mt wasm module did not load: a pthread worker failed to start/);
  } finally {
    await server.close();
  }
});

test('vite build of a page importing the package prints no warning', () => {
  const app = project('quiver-vite-build-', undefined, { link: false });
  installCopy(app);
  cpSync(join(root, 'tests', 'package', 'vite-app'), app, { recursive: true });
  const r = run(process.execPath, [bin.vite, 'build', '--logLevel', 'warn'], { cwd: app });
  assert.equal(r.status, 0, describeRun(r));
  // Vite's report of slow plugins (it depends on the machine's load) is not about the package.
  const output = `${r.stdout}${r.stderr}`.replace(/\[PLUGIN_TIMINGS\][\s\S]*?Learn more at \S+/g, '').trim();
  assert.equal(output, '', 'vite build printed warnings');
});

for (const isolated of [false, true]) {
  test(`the Vite dev server ${isolated ? 'with' : 'without'} COOP/COEP serves a page that answers`, async () => {
    const app = project('quiver-vite-dev-', undefined, { link: false });
    installCopy(app);
    cpSync(join(root, 'tests', 'package', 'vite-app'), app, { recursive: true });
    const { createServer } = await import('vite');
    // Isolated: the app's vite.config.js (the README's COOP/COEP recipe); else no config file.
    const server = await createServer({
      root: app,
      configFile: isolated ? join(app, 'vite.config.js') : false,
      logLevel: 'error',
      clearScreen: false,
      server: { host: '127.0.0.1', port: 0, hmr: false },
    });
    await server.listen();
    try {
      const { port } = server.httpServer.address();
      const result = await resultOf(`http://127.0.0.1:${port}/`);
      const variant = isolated ? 'simd-mt' : 'relaxed-simd'; // Chromium validates relaxed SIMD
      assert.equal(result.variant, variant);
      assert.equal(result.workerVariant, variant);
      assert.deepEqual(result.ids, [2, 1]);
      assert.equal(result.batch, 64);
      assert.deepEqual(result.worker, [8]);
      assert.equal(result.pool.workers > 0, isolated);
    } finally {
      await server.close();
    }
  });
}
