// spawn() (the worker-hosted API) from an esbuild bundle, in Debian's Chromium. esbuild does
// not follow `new Worker(new URL(…, import.meta.url))`, so the README's recipe bundles the
// package's worker entry (`quiver-vector/worker-entry`) as a second entry point and passes its
// URL to spawn({ workerUrl }). Checked: the recipe answers with and without cross-origin
// isolation, and a spawn() whose worker script is not there rejects at once with LOAD_FAILED
// naming the script and the option (instead of a bare worker failure, or a hang). The same
// recipe with --platform=node runs in Node (the entry's node condition picks the Node worker).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { project, installCopy, run, describeRun, bin, placeBundleRuntime, jsonLines } from './support.mjs';
import { startServer, launchChromium, openPage } from '../browser/support.mjs';

let browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function resultOf(url) {
  const page = await openPage(browser, url);
  try {
    const result = await page.waitForFunction(() => window.result).then((h) => h.jsonValue());
    result.log = page.quiverLog;
    return result;
  } finally {
    await page.context().close();
  }
}

// ?worker=bundled passes the URL of the worker bundle; ?worker=missing the URL of a file that
// is not there; no parameter calls spawn() with no options.
const APP = `
  import { spawn, QuiverError } from 'quiver-vector';
  const which = new URLSearchParams(location.search).get('worker');
  const options = which === 'bundled' ? { workerUrl: new URL('./quiver-worker.js', import.meta.url) }
    : which === 'missing' ? { workerUrl: new URL('./no-such-worker.js', import.meta.url) } : {};
  try {
    const w = await spawn(options);
    const index = await w.create('hnsw', { dim: 3, M: 8 });
    await index.add([7, 8, 9], [[1, 1, 0], [0, 0, 1], [1, 0, 0]]);
    const { ids } = await index.search([0, 0.1, 1], 2, { ef: 16 });
    window.result = { variant: w.variant, ids: [...ids], size: await index.size };
    await w.terminate();
  } catch (e) {
    window.result = { error: (e instanceof QuiverError ? e.code : e.name) + ': ' + e.message };
  }
`;

test('spawn() from an esbuild bundle: the worker entry bundled beside the page, its URL passed', async () => {
  const app = project('quiver-esbuild-worker-', undefined, { link: false });
  const pkg = installCopy(app);
  writeFileSync(join(app, 'app.js'), APP);
  const r = run(
    bin.esbuild,
    [
      'app.js',
      'quiver-worker=quiver-vector/worker-entry',
      '--bundle',
      '--platform=browser',
      '--format=esm',
      '--outdir=dist',
    ],
    { cwd: app },
  );
  assert.equal(r.status, 0, describeRun(r));
  assert.doesNotMatch(r.stderr, /warning|node:/i, r.stderr);
  for (const file of ['app.js', 'quiver-worker.js']) {
    assert.doesNotMatch(readFileSync(join(app, 'dist', file), 'utf8'), /from\s*["']node:|import\(["']node:/, file);
  }
  placeBundleRuntime(pkg, join(app, 'dist'));

  for (const isolated of [false, true]) {
    const server = await startServer({ root: join(app, 'dist'), isolated });
    try {
      const { log, ...result } = await resultOf(server.url('/?worker=bundled'));
      assert.deepEqual(
        result,
        { variant: isolated ? 'simd-mt' : 'relaxed-simd', ids: [8, 9], size: 3 },
        log.join('\n'),
      );

      // A worker script that is not where the option says, or (no option) not beside the
      // bundle where spawn() looks by default: LOAD_FAILED with the URL and the way out.
      for (const [query, file] of [
        ['?worker=missing', 'no-such-worker.js'],
        ['', 'worker-browser.js'],
      ]) {
        const { error } = await resultOf(server.url(`/${query}`));
        assert.match(error ?? '', /^LOAD_FAILED: /, `${query}: ${error}`);
        assert.ok(error.includes(server.url(`/${file}`)), `${query}: ${error}`);
        assert.match(error, /workerUrl/);
      }
    } finally {
      await server.close();
    }
  }
});

test('spawn() from an esbuild --platform=node bundle: workerUrl names the bundled worker entry', () => {
  const app = project('quiver-esbuild-node-worker-', undefined, { link: false });
  const pkg = installCopy(app);
  writeFileSync(
    join(app, 'app.js'),
    `
    import { spawn } from 'quiver-vector';
    const report = (value) => console.log(JSON.stringify(value));
    const w = await spawn({ workerUrl: new URL('./quiver-worker.js', import.meta.url) });
    const index = await w.create('flat', { dim: 3 });
    await index.add([7, 8, 9], [[1, 1, 0], [0, 0, 1], [1, 0, 0]]);
    report({ variant: w.variant, ids: [...(await index.search([0, 0.1, 1], 2)).ids] });
    await w.terminate();
    for (const workerUrl of [new URL('./no-such-worker.js', import.meta.url), 5]) {
      await spawn({ workerUrl }).then(() => report({ error: null }), (e) => report({ error: e.code, message: e.message }));
    }
  `,
  );
  const r = run(
    bin.esbuild,
    [
      'app.js',
      'quiver-worker=quiver-vector/worker-entry',
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--outdir=dist',
    ],
    { cwd: app },
  );
  assert.equal(r.status, 0, describeRun(r));
  placeBundleRuntime(pkg, join(app, 'dist'));
  writeFileSync(join(app, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
  const out = run(process.execPath, [join('dist', 'app.js')], { cwd: app });
  assert.equal(out.status, 0, describeRun(out));
  const [answer, missing, badType] = jsonLines(out.stdout);
  assert.deepEqual(answer, { variant: 'simd-mt', ids: [8, 9] });
  assert.equal(missing.error, 'LOAD_FAILED', missing.message);
  assert.ok(missing.message.includes(join(app, 'dist', 'no-such-worker.js')), missing.message);
  assert.match(missing.message, /workerUrl/);
  assert.equal(badType.error, 'INVALID_ARGUMENT', badType.message);
});
