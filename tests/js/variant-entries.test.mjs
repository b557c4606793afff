// The single-build entries 'quiver-vector/simd', '/simd-mt' and '/baseline': each loads its own
// build and no other, answers like 'quiver-vector', refuses another variant, says which entry to
// use on an engine that cannot run its build, and an esbuild bundle of one holds that build's
// glue alone (the reason they exist: an edge bundle that carries one build).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Quiver } from 'quiver-vector';
import { root, workDir } from './support.mjs';

const ENTRIES = ['simd-mt', 'simd', 'baseline'];

for (const variant of ENTRIES) {
  test(`quiver-vector/${variant}: init loads ${variant}, searches, loads files and makes collections like 'quiver-vector'`, async () => {
    const entry = await import(`quiver-vector/${variant}`);
    assert.deepEqual(Object.keys(entry).sort(), [
      'Collection',
      'Quiver',
      'QuiverError',
      'VARIANTS',
      'chooseVariant',
      'default',
      'init',
      'load',
      'shared',
    ]);
    assert.equal(entry.QuiverError, (await import('quiver-vector')).QuiverError, 'one error class for every entry');
    const q = await entry.Quiver.init({ threads: variant === 'simd-mt' ? 2 : undefined });
    try {
      assert.equal(q.variant, variant);
      const ix = new q.FlatIndex({ dim: 2 });
      ix.add([7, 8], [1, 0, 0, 1]);
      assert.deepEqual([...ix.search([0, 1], 1).ids], [8]);
      const loaded = await entry.load(ix.serialize());
      assert.deepEqual([...loaded.search([1, 0], 1).ids], [7]);
      loaded.dispose();
      ix.dispose();
      const docs = await entry.Collection.create({ dim: 2, fields: { lang: 'string' } });
      docs.upsert([{ id: 'a', values: [1, 0], metadata: { lang: 'en' } }]);
      assert.equal(docs.query([1, 0], { topK: 1 }).matches[0].id, 'a');
    } finally {
      q.terminate();
      (await entry.shared()).terminate();
    }
  });

  test(`quiver-vector/${variant} refuses another variant and an unknown one with INVALID_ARGUMENT`, async () => {
    const entry = await import(`quiver-vector/${variant}`);
    for (const other of ENTRIES.filter((v) => v !== variant)) {
      await assert.rejects(entry.init({ variant: other }), (e) => {
        assert.equal(e.code, 'INVALID_ARGUMENT');
        assert.match(e.message, new RegExp(`carries only the ${variant} build.*'quiver-vector/${other}'`));
        return true;
      });
    }
    await assert.rejects(entry.init({ variant: 'avx2' }), {
      code: 'INVALID_ARGUMENT',
      message: /variant must be .*got 'avx2'/,
    });
  });
}

// Engines without SIMD128 or without threads, simulated in a child process.
function childResult(script) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

test('an engine without SIMD128: quiver-vector/simd and /simd-mt are LOAD_FAILED naming the entry to use; baseline loads', () => {
  const r = childResult(`
    WebAssembly.validate = () => false;   // what an engine without SIMD128 says of the probe
    const out = {};
    for (const v of ['simd', 'simd-mt', 'baseline']) {
      try { out[v] = (await (await import('quiver-vector/' + v)).init()).variant; }
      catch (e) { out[v] = e.code + ': ' + e.message; }
    }
    console.log(JSON.stringify(out));`);
  assert.match(
    r.simd,
    /^LOAD_FAILED: 'quiver-vector\/simd' carries only the simd build, and this engine has no SIMD128.*'quiver-vector\/baseline'/,
  );
  assert.match(r['simd-mt'], /^LOAD_FAILED: .*no SIMD128/);
  assert.equal(r.baseline, 'baseline');
});

test('an engine without SharedArrayBuffer: quiver-vector/simd-mt is LOAD_FAILED naming quiver-vector/simd', () => {
  const r = childResult(`
    delete globalThis.SharedArrayBuffer;
    let out;
    try { out = (await (await import('quiver-vector/simd-mt')).init()).variant; }
    catch (e) { out = e.code + ': ' + e.message; }
    console.log(JSON.stringify({ out }));`);
  assert.match(
    r.out,
    /^LOAD_FAILED: 'quiver-vector\/simd-mt' carries only the simd-mt build, and this engine has no threads.*'quiver-vector\/simd'/,
  );
});

test('an esbuild bundle of quiver-vector/<variant> holds that build alone; of quiver-vector, all four', () => {
  // A project with the package installed (node_modules/quiver-vector is this repository).
  const dir = workDir('quiver-entries-');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'quiver-vector'), 'dir');
  const esbuild = join(root, 'node_modules', '.bin', 'esbuild');
  const bundle = (specifier, name) => {
    const app = join(dir, `${name}.mjs`);
    writeFileSync(app, `import { Quiver } from '${specifier}';\nexport default Quiver;\n`);
    const meta = join(dir, `${name}.meta.json`);
    execFileSync(
      esbuild,
      [
        app,
        '--bundle',
        '--format=esm',
        '--platform=browser',
        '--conditions=workerd,worker',
        `--metafile=${meta}`,
        `--outfile=${join(dir, `${name}.js`)}`,
      ],
      { cwd: dir, encoding: 'utf8', stdio: 'pipe' },
    );
    const inputs = Object.keys(JSON.parse(readFileSync(meta, 'utf8')).inputs);
    // relaxed-simd has no entry of its own: only 'quiver-vector' carries it.
    const glues = [...ENTRIES, 'relaxed-simd'].filter((v) => inputs.some((i) => i.endsWith(`js/wasm/${v}/quiver.mjs`)));
    return { glues, bytes: readFileSync(join(dir, `${name}.js`)).length };
  };
  const all = bundle('quiver-vector', 'all');
  assert.deepEqual(all.glues, [...ENTRIES, 'relaxed-simd']);
  for (const variant of ENTRIES) {
    const one = bundle(`quiver-vector/${variant}`, variant);
    assert.deepEqual(one.glues, [variant]);
    console.log(`# esbuild bundle of quiver-vector/${variant}: ${one.bytes} bytes; of quiver-vector: ${all.bytes}`);
  }
});

test("Quiver.init() of 'quiver-vector' still chooses among all four builds", async () => {
  const q = await Quiver.init({ variant: 'baseline' });
  assert.equal(q.variant, 'baseline');
  q.terminate();
});
