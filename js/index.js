// Quiver — vector search for the edge. ES module entry.
//
//   import { Quiver } from 'quiver-vector';
//   const q = await Quiver.init();                 // picks simd-mt / simd / baseline
//   const index = new q.FlatIndex({ dim: 384, metric: 'cosine' });
//   index.add(ids, vectors);                      // Float32Array n x dim
//   const { ids, distances } = index.search(query, 10);
//   const qi = new q.QuantizedIndex({ dim: 384, metric: 'cosine', bits: 4 });
//   qi.add(ids, vectors); qi.search(query, 10, { rerank: 4, allow: [1, 2, 3] });
//   const hi = new q.HnswIndex({ dim: 384, metric: 'cosine', M: 16, efConstruction: 200 });
//   hi.add(ids, vectors); hi.search(query, 10, { ef: 64, allow: [1, 2, 3] });
//   index.dispose(); q.terminate();
import { QuiverError } from './core/errors.js';
import { chooseVariant, VARIANTS } from './loader.js';
import { makeQuiver } from './api.js';
import { ALL_BUILDS } from './builds.js';

// Every build; init() picks one per engine (loader.js: chooseVariant).
const { init, load, shared, Collection } = makeQuiver(ALL_BUILDS, "'quiver-vector'");

export const Quiver = { init, load, shared, chooseVariant, VARIANTS, Collection };
export { init, QuiverError, chooseVariant, VARIANTS, Collection };
export default Quiver;
