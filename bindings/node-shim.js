// Prepended (--extern-pre-js) to the ES6 module Emscripten generates. Its Node code paths
// use the CommonJS globals `require` and `__dirname`, which an ES module lacks; define them
// in Node only. Browsers and workers skip the branch. (Top-level await is valid in an ES module.)
var require, __dirname, __filename;
if (typeof process === 'object' && process.versions && process.versions.node) {
  const nodeModule = await import('node:module');
  require = nodeModule.createRequire(import.meta.url);
  __filename = require('node:url').fileURLToPath(import.meta.url);
  __dirname = require('node:path').dirname(__filename);
}
