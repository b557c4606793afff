// The package's module graph (madge): js/ has no import cycle, and everything its entry points
// reach — imports, and the files located by `new URL('…', import.meta.url)` or a literal
// `import('…')` (the wasm glue and .wasm, the pthread and spawn() worker scripts) — exists and
// is in what `npm pack` ships.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import madge from 'madge';
import { root } from './support.mjs';

const js = join(root, 'js');
// The built wasm glue is generated code, not part of the graph we keep.
const GENERATED = /^wasm\//;

// Every .js / .cjs file of js/ (relative to js/, '/'-separated), the wasm builds left out.
function sources(dir = js, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) return GENERATED.test(`${rel}/`) ? [] : sources(join(dir, entry.name), `${rel}/`);
    return /\.c?js$/.test(entry.name) ? [rel] : [];
  });
}

async function graph() {
  const result = await madge(js, { fileExtensions: ['js', 'cjs'], excludeRegExp: [GENERATED] });
  return { deps: result.obj(), cycles: result.circular(), skipped: result.warnings().skipped };
}

// Imports the platform resolves, not the package's files: the Durable Object base class of
// workerd / Cloudflare, and the simd build's .wasm by its package name (the module the platform
// compiles; js/cloudflare/shard.js). The .wasm is checked to be what the name maps to below.
const PLATFORM_IMPORTS = ['cloudflare:workers', 'quiver-vector/wasm/simd/quiver.wasm'];

test('js/ has no import cycle, and madge sees every file of it', async () => {
  const { deps, cycles, skipped } = await graph();
  assert.deepEqual(
    skipped.filter((name) => !PLATFORM_IMPORTS.includes(name)),
    [],
    'imports madge could not resolve',
  );
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['./wasm/*'].default, './js/wasm/*', "the .wasm import's name maps to js/wasm/");
  assert.ok(existsSync(join(js, 'wasm', 'simd', 'quiver.wasm')), 'the simd build is there');
  assert.deepEqual(Object.keys(deps).sort(), sources().sort(), 'every file of js/ is in the graph');
  assert.deepEqual(
    cycles.map((cycle) => cycle.join(' -> ')),
    [],
    'import cycles in js/',
  );
});

// The paths in package.json (exports, main, types, browser) that name one file, relative to
// the package root.
function entryPaths(pkg) {
  const out = new Set();
  const walk = (value) => {
    if (typeof value === 'string') {
      if (!value.includes('*')) out.add(posix.normalize(value));
    } else if (value && typeof value === 'object') {
      Object.values(value).forEach(walk);
    }
  };
  walk([pkg.exports, pkg.main, pkg.types, pkg.browser]);
  return [...out];
}

// Files a module locates by a literal relative URL or a literal dynamic import (madge follows
// static imports only), relative to the package root.
function locatedFiles(file) {
  const text = readFileSync(join(root, file), 'utf8');
  const found = [
    ...text.matchAll(/new URL\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g),
    ...text.matchAll(/\bimport\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g),
  ];
  return found.map((m) => posix.join(posix.dirname(file), m[2]));
}

test('every file the package entries reach exists and is in npm pack', async () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const [{ files }] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: root, encoding: 'utf8' }),
  );
  const packed = new Set(files.map((f) => f.path));
  const { deps } = await graph();

  const reached = new Set();
  const queue = entryPaths(pkg);
  while (queue.length) {
    const file = queue.shift();
    if (reached.has(file)) continue;
    reached.add(file);
    if (!/\.c?js$/.test(file) || !existsSync(join(root, file))) continue;
    const inJs = file.startsWith('js/') ? file.slice(3) : null;
    for (const dep of (inJs && deps[inJs]) ?? []) queue.push(`js/${dep}`);
    queue.push(...locatedFiles(file));
  }
  for (const file of reached) {
    assert.ok(existsSync(join(root, file)), `${file} is reached from the package entries but does not exist`);
    assert.ok(packed.has(file), `${file} is reached from the package entries but npm pack leaves it out`);
  }
  // The closure really went through the URL-located files (a regression of the scan would
  // pass vacuously otherwise).
  for (const file of [
    'js/pthread-worker.js',
    'js/worker/worker-browser.js',
    'js/wasm/simd-mt/quiver.wasm',
    'js/wasm/baseline/quiver.mjs',
  ]) {
    assert.ok(reached.has(file), `${file} not reached`);
  }
});
