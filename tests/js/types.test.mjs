// The hand-written declarations (js/index.d.ts, js/worker.d.ts) compile against a typed usage
// example resolved through package.json "exports", and reject misuse (tests/js/types/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './support.mjs';

test('tsc --noEmit accepts tests/js/types/usage.ts against the package types', () => {
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  assert.ok(existsSync(tsc), `TypeScript is missing at ${tsc}: run npm install`);
  try {
    execFileSync(tsc, ['-p', join(root, 'tests', 'js', 'types', 'tsconfig.json')], {
      cwd: root,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (e) {
    assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`);
  }
});
