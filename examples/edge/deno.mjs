// Quiver in Deno: build an index, search it, save it, load it back.
//   deno add npm:quiver-vector          (or npm install quiver-vector in a package.json project)
//   deno run --allow-read --allow-write deno.mjs
// Deno reads the .wasm itself (simd-mt, with threads) when nothing is passed. Where files
// cannot be read (Deno Deploy), import the .wasm as a module source instead and pass it:
//   import source wasm from 'quiver-vector/wasm/simd/quiver.wasm';
//   const q = await Quiver.init({ variant: 'simd', wasmModule: wasm });
import source wasm from 'quiver-vector/wasm/simd/quiver.wasm';
import { Quiver, saveToFile, loadFromFile } from 'quiver-vector';

const threaded = await Quiver.init(); // simd-mt: SIMD128 kernels and a thread pool
const q = await Quiver.init({ variant: 'simd', wasmModule: wasm }); // from the module source
const dim = 32;
const vectors = q.unitGaussianVectors(2000, dim, 5);
const ids = Array.from({ length: 2000 }, (_, i) => i + 1);
const index = new q.HnswIndex({ dim, metric: 'cosine', M: 16, efConstruction: 100 });
index.add(ids, vectors);
const query = vectors.subarray(7 * dim, 8 * dim); // the vector of id 8
const found = index.search(query, 3);

const path = await Deno.makeTempFile({ suffix: '.qvr' });
const bytes = await saveToFile(index, path);
const loaded = await loadFromFile(path, { quiver: threaded }); // the same file in the threaded module
const again = loaded.search(query, 3);
console.log(
  JSON.stringify({
    variants: [threaded.variant, q.variant],
    first: found.ids[0],
    bytes,
    same: again.ids.join() === found.ids.join(),
  }),
);
index.dispose();
loaded.dispose();
await Deno.remove(path);
threaded.terminate();
q.terminate();
