// Smallest Node use of Quiver: build an exact index and search it.
// Run from the repository root after `npm run demo` or `npm test` has built the modules:
//   node examples/node/flat-search.mjs
import { Quiver } from 'quiver-vector';

const q = await Quiver.init();
const dim = 64;
const vectors = q.unitGaussianVectors(1000, dim, 1);
const index = new q.FlatIndex({ dim, metric: 'cosine' });
index.add(
  Array.from({ length: 1000 }, (_, i) => 100 + i),
  vectors,
);
const { ids, distances } = index.search(vectors.subarray(0, dim), 3);
for (let i = 0; i < ids.length; i++) console.log(`id ${ids[i]} distance ${distances[i].toFixed(4)}`);
console.log(`variant ${q.variant}, isa ${index.isa}`);
index.dispose();
q.terminate();
