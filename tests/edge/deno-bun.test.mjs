// Deno and Bun (installed from npm as dev dependencies) run the package the way their users
// do: a project with the package in node_modules imported by name, the examples of
// examples/edge/ (Deno: default init with threads, `import source` of the .wasm, save and
// load; Bun: the .wasm import as a path) and the Node quick start under Bun. Every script
// ends without terminate() or with it, and must exit on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { root, project, run, describeRun, jsonLines, bin } from './support.mjs';

function runIn(dir, command, args) {
  const r = run(command, args, { cwd: dir, env: { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } });
  assert.equal(r.signal, null, `killed: the process did not exit by itself\n${describeRun(r)}`);
  assert.equal(r.status, 0, describeRun(r));
  return r;
}

function smokeResult(r, variant) {
  const [out] = jsonLines(r.stdout);
  assert.deepEqual(out, { variant, ids: out.ids, same: true, batchSelf: true, badCode: 'DIMENSION_MISMATCH' });
  assert.equal(out.ids[0], 42);
}

test('Deno: examples/edge/deno.mjs builds, searches, saves and loads (threads by default, import source)', () => {
  const dir = project('quiver-deno-');
  cpSync(join(root, 'examples', 'edge', 'deno.mjs'), join(dir, 'deno.mjs'));
  const r = runIn(dir, bin.deno, ['run', '--allow-read', '--allow-write', 'deno.mjs']);
  const [out] = jsonLines(r.stdout);
  assert.deepEqual(out.variants, ['simd-mt', 'simd']);
  assert.equal(out.first, 8);
  assert.equal(out.same, true);
  assert.ok(out.bytes > 0);
});

for (const variant of ['simd-mt', 'simd']) {
  test(`Deno: ${variant} smoke run exits without terminate()`, () => {
    const dir = project('quiver-deno-');
    cpSync(join(root, 'tests', 'edge', 'fixtures', 'smoke.mjs'), join(dir, 'smoke.mjs'));
    smokeResult(runIn(dir, bin.deno, ['run', '--allow-read', 'smoke.mjs', variant]), variant);
  });
}

test('Bun: the Node quick start runs unchanged', () => {
  const dir = project('quiver-bun-');
  cpSync(join(root, 'examples', 'node', 'quickstart.mjs'), join(dir, 'quickstart.mjs'));
  const r = runIn(dir, bin.bun, ['quickstart.mjs']);
  assert.match(r.stdout, /^variant simd-mt, 10000 vectors/m);
  assert.match(r.stdout, /^ {2}id 1042 {2}distance 0\.0000$/m);
  assert.match(r.stdout, /same answer true$/m);
});

test('Bun: examples/edge/bun.mjs passes the .wasm import (a path) to init', () => {
  const dir = project('quiver-bun-');
  cpSync(join(root, 'examples', 'edge', 'bun.mjs'), join(dir, 'bun.mjs'));
  const r = runIn(dir, bin.bun, ['bun.mjs']);
  assert.deepEqual(jsonLines(r.stdout), [{ wasm: 'string', variants: ['simd', 'simd-mt'], first: 8, same: true }]);
  assert.doesNotMatch(r.stderr, /garbage-collected without dispose/);
});

test('Bun: simd-mt smoke run exits without terminate()', () => {
  const dir = project('quiver-bun-');
  cpSync(join(root, 'tests', 'edge', 'fixtures', 'smoke.mjs'), join(dir, 'smoke.mjs'));
  smokeResult(runIn(dir, bin.bun, ['smoke.mjs', 'simd-mt']), 'simd-mt');
});
