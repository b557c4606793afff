// Quiver in Bun. The Node examples (examples/node/) run unchanged: `bun quickstart.mjs`.
// Bun's import of a .wasm file gives its path; Quiver.init reads it from there:
//   bun install quiver-vector && bun bun.mjs
import wasm from 'quiver-vector/wasm/simd/quiver.wasm';
import { Quiver } from 'quiver-vector';

const q = await Quiver.init({ variant: 'simd', wasmModule: wasm }); // wasm: a file path in Bun
const dim = 32;
const vectors = q.unitGaussianVectors(2000, dim, 5);
const index = new q.FlatIndex({ dim, metric: 'cosine' });
index.add(
  Array.from({ length: 2000 }, (_, i) => i + 1),
  vectors,
);
const found = index.search(vectors.subarray(7 * dim, 8 * dim), 3);
const loaded = await Quiver.load(index.serialize()); // shared module, simd-mt here
console.log(
  JSON.stringify({
    wasm: typeof wasm,
    variants: [q.variant, loaded.variant],
    first: found.ids[0],
    same: loaded.search(vectors.subarray(7 * dim, 8 * dim), 3).ids.join() === found.ids.join(),
  }),
);
index.dispose();
loaded.dispose();
// No terminate(): idle threads do not keep Bun (or Node) alive.
