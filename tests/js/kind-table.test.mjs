// The JS kind table (js/kinds/kind-table.js) against the C++ index kind registry: every variant's
// module names exactly the package's kinds, init() exposes one class per kind, and a module whose
// registry differs is refused with INTERNAL instead of loading indexes no class can wrap.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Quiver, QuiverError } from '../../js/index.js';
import { VARIANTS } from './support.mjs';
import { KINDS, checkKinds } from '../../js/kinds/kind-table.js';

const modules = [];
after(() => {
  for (const q of modules) q.terminate();
});

for (const variant of VARIANTS) {
  test(`${variant}: the module's registry names the package's kinds, one class each`, async () => {
    const q = await Quiver.init({ variant });
    modules.push(q);
    for (const k of KINDS) assert.equal(typeof q[k.className], 'function', k.className);
    const flat = new q.FlatIndex({ dim: 2 });
    flat.add([5], new Float32Array([1, 0]));
    const loaded = q.load(flat.serialize());
    assert.ok(loaded instanceof q.FlatIndex);
    flat.dispose();
    loaded.dispose();
  });
}

test('a module whose registry has another kind, or lacks one, is refused', () => {
  const names = KINDS.map((k) => k.name);
  assert.doesNotThrow(() => checkKinds({ indexKinds: () => names.join(',') }));
  for (const other of [[...names, 'toy'], names.slice(0, -1), [...names].reverse()]) {
    assert.throws(
      () => checkKinds({ indexKinds: () => other.join(',') }),
      (e) => e instanceof QuiverError && e.code === 'INTERNAL' && /index kinds/.test(e.message),
    );
  }
});
