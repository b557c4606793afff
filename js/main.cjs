// The CommonJS entry: `require('quiver-vector')` on every Node version the package supports
// (require() of an ES module needs Node 22.12+). A CommonJS file cannot load the ES module
// synchronously, so every entry here is async and forwards to the ES module (js/main.js),
// loaded on first use:
//
//   const quiver = require('quiver-vector');
//   const q = await quiver.init();                    // = Quiver.init()
//   const index = await quiver.load(bytes);           // = Quiver.load()
//   const docs = await quiver.Collection.create({ dim: 384, fields: { lang: 'string' } });
//   const { QuiverError, saveToFile } = await quiver.esm();   // everything else
//
// Errors are the same QuiverError objects (check `e.code`).
'use strict';

let loaded = null;
const esm = () => (loaded ??= import('./main.js'));
const forward =
  (name) =>
  async (...args) =>
    (await esm())[name](...args);

module.exports = {
  esm,
  init: forward('init'),
  load: forward('load'),
  spawn: forward('spawn'),
  saveToFile: forward('saveToFile'),
  loadFromFile: forward('loadFromFile'),
  // Collection.create(options, target): async already, so the same call as in the ES module.
  Collection: {
    create: async (...args) => (await esm()).Collection.create(...args),
  },
};
