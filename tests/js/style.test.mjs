// The JS stays linted and formatted: `eslint .` (eslint.config.js) and `prettier --check .`
// (.prettierrc.json) pass, over the files .prettierignore leaves in — the one list of what both
// tools cover (js/, tests/, examples/, scripts/*.mjs, bench/) — and the two tools agree
// on that list. Fix a failure with `npx prettier --write <file>` and `npx eslint --fix <file>`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import { root } from './support.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);
// Files only Prettier reads: types (ESLint here has no TypeScript parser) and one file whose
// syntax ESLint's parser does not know yet (eslint.config.js says which).
const PRETTIER_ONLY = /\.(ts|cts|mts)$|^examples\/edge\/deno\.mjs$/;

function runTool(name, args) {
  try {
    execFileSync(bin(name), args, { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`${name} ${args.join(' ')} failed:\n${e.stdout}${e.stderr}`);
  }
}

test('eslint . reports nothing', () => {
  runTool('eslint', ['--max-warnings', '0', '.']);
});

test('prettier --check . finds every file formatted', () => {
  runTool('prettier', ['--check', '.']);
});

test('ESLint and Prettier cover the same files: js/, tests/, examples/, scripts/*.mjs, bench/', async () => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => /\.(js|mjs|cjs|ts|cts|mts)$/.test(f));
  const eslint = new ESLint({ cwd: root });
  const linted = new Set();
  const formatted = new Set();
  for (const file of files) {
    if (!(await eslint.isPathIgnored(join(root, file)))) linted.add(file);
    const info = await prettier.getFileInfo(join(root, file), {
      ignorePath: [join(root, '.gitignore'), join(root, '.prettierignore')],
    });
    if (!info.ignored && info.inferredParser) formatted.add(file);
  }
  assert.deepEqual(
    [...formatted].filter((f) => !PRETTIER_ONLY.test(f) && !linted.has(f)),
    [],
    'formatted by Prettier but not linted',
  );
  assert.deepEqual(
    [...linted].filter((f) => !formatted.has(f)),
    [],
    'linted but not formatted',
  );
  for (const file of [
    'js/index.js',
    'js/kinds/index-base.js',
    'js/main.cjs',
    'tests/js/style.test.mjs',
    'examples/node/quickstart.mjs',
    'scripts/demo.mjs',
    'bench/peers/run.mjs',
    'bench/common/run-info.mjs',
    'tests/js/bench-peers.test.mjs',
  ]) {
    assert.ok(linted.has(file) && formatted.has(file), `${file} is checked`);
  }
});
