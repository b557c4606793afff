// Prepended (--extern-pre-js) to the ES6 module Emscripten generates. Its Node code paths
// use the CommonJS globals `require` and `__dirname`, which an ES module lacks; define them
// in Node only. Browsers and workers skip the branch. process.getBuiltinModule (Node 20.16+)
// gets them synchronously: a top-level await here would stop bundlers from putting the module
// into a classic (iife) worker, Vite's default worker format.
var require, __dirname, __filename;
if (typeof process === 'object' && process.versions && process.versions.node) {
  require = process.getBuiltinModule('node:module').createRequire(import.meta.url);
  __filename = require('node:url').fileURLToPath(import.meta.url);
  __dirname = require('node:path').dirname(__filename);
}
