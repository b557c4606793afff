// The package in Node as users run it: a project that imports it by name with code generation
// from strings disallowed (what workerd enforces), a script that never calls terminate()
// (with Quiver.init and with Quiver.load) and still exits, and a CommonJS project using
// require() on a Node without require(esm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, project, run, describeRun, jsonLines } from './support.mjs';

const smoke = join(root, 'tests', 'edge', 'fixtures', 'smoke.mjs');

function smokeIn(dir, args, variant) {
  cpSync(smoke, join(dir, 'smoke.mjs'));
  const r = run(process.execPath, [...args, 'smoke.mjs', variant], { cwd: dir });
  assert.equal(r.signal, null, `killed: the process did not exit by itself\n${describeRun(r)}`);
  assert.equal(r.status, 0, describeRun(r));
  const [out] = jsonLines(r.stdout);
  assert.equal(out.variant, variant);
  assert.equal(out.ids[0], 42);
  assert.equal(out.same, true);
  assert.equal(out.batchSelf, true);
  assert.equal(out.badCode, 'DIMENSION_MISMATCH');
}

for (const variant of ['simd-mt', 'simd', 'baseline']) {
  test(`${variant}: builds, searches, loads with --disallow-code-generation-from-strings and exits without terminate()`, () => {
    smokeIn(project('quiver-node-'), ['--disallow-code-generation-from-strings'], variant);
  });
}

test('the generated glue holds no eval or new Function', async () => {
  const { readFileSync } = await import('node:fs');
  for (const variant of ['simd-mt', 'simd', 'baseline']) {
    const glue = readFileSync(join(root, 'js', 'wasm', variant, 'quiver.mjs'), 'utf8');
    assert.doesNotMatch(glue, /new Function\(|\beval\(/, variant);
  }
});

test('a script that forgets terminate() exits after Quiver.load of a threaded module', () => {
  const dir = project('quiver-exit-');
  writeFileSync(
    join(dir, 'load.mjs'),
    `
    import { Quiver } from 'quiver-vector';
    const q = await Quiver.init({ variant: 'simd-mt', threads: 2 });
    const index = new q.FlatIndex({ dim: 2 });
    index.add([1, 2], [[0, 0], [1, 1]]);
    const bytes = index.serialize();
    const loaded = await Quiver.load(bytes, { variant: 'simd-mt', threads: 2 });
    console.log(JSON.stringify({ id: loaded.searchBatch(new Float32Array(2 * 64).fill(1), 1).ids[0] }));
  `,
  );
  const r = run(process.execPath, ['load.mjs'], { cwd: dir, timeout: 60_000 });
  assert.equal(r.signal, null, `killed: the pthread workers kept the process alive\n${describeRun(r)}`);
  assert.equal(r.status, 0, describeRun(r));
  assert.deepEqual(jsonLines(r.stdout), [{ id: 2 }]);
});

test('a CommonJS project require()s the package and uses it through the async entry points', () => {
  const dir = project('quiver-cjs-', { name: 'app', version: '1.0.0', type: 'commonjs' });
  writeFileSync(
    join(dir, 'index.js'),
    `
    const quiver = require('quiver-vector');
    (async () => {
      const q = await quiver.init({ variant: 'simd' });
      const index = new q.FlatIndex({ dim: 2 });
      index.add([1, 2], [[0, 0], [1, 1]]);
      const loaded = await quiver.load(index.serialize());
      const { QuiverError } = await quiver.esm();
      let code;
      try { index.search([1], 1); } catch (e) { code = e instanceof QuiverError && e.code; }
      console.log(JSON.stringify({ variant: q.variant, id: loaded.search([1, 1], 1).ids[0], code }));
    })();
  `,
  );
  // require(esm) does not exist before Node 22.12 and is turned off here where it does, so
  // only the CommonJS entry can make this work.
  const flags = process.features?.require_module ? ['--no-experimental-require-module'] : [];
  const r = run(process.execPath, [...flags, 'index.js'], { cwd: dir, timeout: 60_000 });
  assert.equal(r.status, 0, describeRun(r));
  assert.deepEqual(jsonLines(r.stdout), [{ variant: 'simd', id: 2, code: 'DIMENSION_MISMATCH' }]);
});
