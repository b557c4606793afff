// What `npm pack` ships works where users put it: the tarball installs offline into an empty
// project (no runtime dependencies), every Node example and the browser demo (which ships in the
// package) run there as copied out of the repository, the shipped types compile, and a Vite
// production build of a page importing 'quiver-vector' answers searches in Chromium —
// single-threaded without COOP/COEP, with pthreads when cross-origin isolated. (The edge examples
// run copied into projects in tests/edge/.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startServer, launchChromium, openPage } from './support.mjs';

const work = mkdtempSync(join(tmpdir(), 'quiver-pack-'));
const app = join(work, 'app');
const run = (cmd, args, cwd = app) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
let browser;

before(() => {
  const out = run('npm', ['pack', '--json', '--pack-destination', work], repoRoot);
  const [{ filename, files }] = JSON.parse(out);
  // Only what ships: the JS (ES modules at js/ and in its subfolders — cloudflare/ among them — the CommonJS entry), the types and the four wasm builds
  // (npm adds package.json and README).
  for (const { path } of files) {
    assert.match(
      path,
      /^(package\.json|README\.md|LICENSE|js\/((core|kinds|io|worker|cloudflare)\/)?[\w-]+\.(js|cjs|d\.ts|d\.cts)|js\/wasm\/(simd-mt|relaxed-simd|simd|baseline)\/quiver\.(mjs|wasm)|examples\/browser\/[\w-]+\.(html|js|mjs|css))$/,
      path,
    );
  }
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, filename)]);
  assert.deepEqual(
    readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.')),
    ['quiver-vector'],
    'no runtime dependencies',
  );
});
after(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

test('the README Node example runs against the installed tarball', () => {
  cpSync(join(repoRoot, 'examples', 'node', 'quickstart.mjs'), join(app, 'quickstart.mjs'));
  const out = run(process.execPath, ['quickstart.mjs']);
  assert.match(out, /^variant simd-mt, 10000 vectors/m);
  assert.match(out, /^ {2}id 1042 {2}distance 0\.0000$/m);
  assert.match(out, /same answer true$/m);
});

test('the other Node examples run copied into the project', () => {
  for (const name of ['flat-search.mjs', 'documents.mjs'])
    cpSync(join(repoRoot, 'examples', 'node', name), join(app, name));
  assert.match(run(process.execPath, ['flat-search.mjs']), /^id 100 distance 0\.0000$/m);
  const docs = run(process.execPath, ['documents.mjs']).trim().split('\n');
  assert.equal(docs[2], 'plan filtered-walk: 2 of 6 match');
  assert.equal(docs[3], 'insert: DUPLICATE_ID');
});

test('the browser demo, copied out of the installed package, builds and searches in Chromium', async () => {
  const demo = join(app, 'demo');
  cpSync(join(app, 'node_modules', 'quiver-vector', 'examples', 'browser'), demo, { recursive: true });
  // Its own server, from the copy: it serves the folder and the package it resolves from there.
  const { serve, packageRoot } = await import(join(demo, 'server.mjs'));
  assert.equal(packageRoot, join(app, 'node_modules', 'quiver-vector'));
  const server = await serve({ port: 0 });
  browser ??= await launchChromium();
  try {
    const page = await openPage(browser, server.url);
    await page.waitForFunction(() => window.demo?.ready === true);
    assert.match(
      await page.textContent('#env'),
      /build simd-mt .*cross-origin isolated: true/,
      page.quiverLog.join('\n'),
    );
    await page.fill('#n', '2000');
    await page.fill('#dim', '16');
    await page.click('#build-button');
    await page.waitForFunction(() => !document.getElementById('search-button').disabled && window.demo.built === 2000);
    await page.fill('#item', '7');
    await page.fill('#k', '5');
    await page.click('#search-button');
    await page.waitForFunction(() => window.demo.lastSearch?.byItem === true);
    const found = await page.evaluate(() => window.demo.lastSearch);
    assert.equal(found.ids[0], 7);
    assert.equal(found.queryTopic, await page.evaluate(() => window.demo.data.topics[7]));
    // No benchmark page in the package: the scaling section stays hidden.
    assert.equal(await page.evaluate(() => document.getElementById('scaling').hidden), true);
    await page.context().close();
  } finally {
    await server.close();
  }
});

test('the shipped types compile the typed usage example', () => {
  cpSync(join(repoRoot, 'tests', 'js', 'types'), join(app, 'types'), { recursive: true });
  try {
    run(join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', join(app, 'types', 'tsconfig.json')]);
  } catch (e) {
    assert.fail(`tsc:\n${e.stdout}${e.stderr}`);
  }
});

test('a Vite production build of a page importing quiver-vector answers in Chromium, with and without isolation', async () => {
  cpSync(join(repoRoot, 'tests', 'package', 'vite-app'), app, { recursive: true });
  // The repository's Vite (a devDependency), run on the installed package.
  run(process.execPath, [join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'error']);
  const dist = join(app, 'dist');
  assert.match(readFileSync(join(dist, 'index.html'), 'utf8'), /assets\/index-[\w-]+\.js/);
  assert.equal(
    readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.wasm')).length,
    4,
    'every wasm build is emitted',
  );

  browser ??= await launchChromium();
  for (const isolated of [false, true]) {
    const server = await startServer({ root: dist, isolated });
    try {
      const page = await openPage(browser, server.url('/'));
      const result = await page.waitForFunction(() => window.result).then((h) => h.jsonValue());
      const variant = isolated ? 'simd-mt' : 'relaxed-simd'; // Chromium validates relaxed SIMD
      assert.equal(result.error, undefined, `${result.error}\n${page.quiverLog.join('\n')}`);
      assert.deepEqual(result.ids, [2, 1]);
      assert.equal(result.batch, 64);
      assert.deepEqual(result.worker, [8]);
      assert.equal(result.variant, variant);
      assert.equal(result.workerVariant, variant);
      assert.equal(result.pool.workers > 0, isolated);
      await page.context().close();
    } finally {
      await server.close();
    }
  }
});
