// ESLint (flat config): the recommended rules over the files .prettierignore leaves in — js/,
// tests/, examples/ and scripts/*.mjs (that file is the one list; what .gitignore lists is out
// too) — with the globals of the place each file runs in. Formatting is Prettier's
// (.prettierrc.json); tests/js/style.test.mjs runs both.
import { fileURLToPath } from 'node:url';
import { includeIgnoreFile } from '@eslint/compat';
import js from '@eslint/js';
import globals from 'globals';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

export default [
  includeIgnoreFile(here('.gitignore'), '.gitignore'),
  includeIgnoreFile(here('.prettierignore'), '.prettierignore'),
  // Deno's `import source` (source phase imports) is beyond ESLint's parser; Prettier formats it.
  { ignores: ['examples/edge/deno.mjs'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  // Node: tests, scripts, the Node examples and the example servers, this file.
  {
    files: [
      'tests/**',
      'scripts/**',
      'bench/**',
      'examples/node/**',
      'examples/*/server.mjs',
      'examples/edge/bun.mjs',
      'examples/edge/sharded/load.mjs',
      '*.js',
    ],
    languageOptions: { globals: globals.node },
  },
  // The package runs in browsers, workers, edge runtimes and Node: only what they share, plus
  // `process`, which it reads only after checking that it is there (Node, Deno, Bun).
  {
    files: ['js/**'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker, process: 'readonly' } },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: globals.node } },
  // Pages.
  {
    files: ['examples/browser/*.js', 'examples/bench/*.js', 'tests/package/vite-app/**'],
    languageOptions: { globals: globals.browser },
  },
  // A fetch handler for workerd (Cloudflare Workers).
  {
    files: ['examples/edge/handler.mjs', 'examples/edge/workerd/**', 'examples/edge/sharded/worker.mjs'],
    languageOptions: { globals: globals.serviceworker },
  },
  // Browser and bundler tests: Node files whose page.evaluate() callbacks run in the page.
  {
    files: ['tests/browser/**', 'tests/edge/**', 'bench/browser/run.mjs', 'bench/ivf/browser.mjs'],
    languageOptions: { globals: globals.browser },
  },
  // The benchmark page of the ivf suite.
  { files: ['bench/ivf/page.mjs'], languageOptions: { globals: globals.browser } },
  // Emscripten --pre-js files: they run inside the glue, where Module and ENV are defined.
  { files: ['bench/common/*-bench-env.js'], languageOptions: { globals: { Module: 'writable', ENV: 'writable' } } },
  // Run by Node, Deno and Bun alike.
  { files: ['tests/edge/fixtures/**'], languageOptions: { globals: { Deno: 'readonly' } } },
];
