// The examples run as documented.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('examples/node/flat-search.mjs finds the query itself first', () => {
  const out = execFileSync('node', ['examples/node/flat-search.mjs'], { cwd: root, encoding: 'utf8' });
  assert.match(out, /^id 100 distance 0\.0000$/m);
  assert.match(out, /variant simd-mt, isa wasm128/);
});
