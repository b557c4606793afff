// Quiver in Node: build an index, search it, save it to a file, load it back.
//   node examples/node/quickstart.mjs            (in this repository, after the wasm build)
//   node quickstart.mjs                          (in a project that ran `npm install quiver-vector`)
import { Quiver, saveToFile, loadFromFile } from 'quiver-vector';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const q = await Quiver.init(); // simd-mt in Node: SIMD128 kernels and a thread pool
const dim = 64;
const n = 10_000;
const vectors = q.unitGaussianVectors(n, dim, 1); // stand-in for your embeddings: Float32Array n × dim
const ids = Array.from({ length: n }, (_, i) => 1000 + i);

const index = new q.HnswIndex({ dim, metric: 'cosine', M: 16, efConstruction: 100 });
index.add(ids, vectors); // parallel insertion on the thread pool
const query = vectors.subarray(42 * dim, 43 * dim); // the vector of id 1042
const { ids: found, distances } = index.search(query, 3, { ef: 64 });
console.log(`variant ${q.variant}, ${index.size} vectors, ${(index.memoryBytes / 1e6).toFixed(1)} MB`);
for (let i = 0; i < found.length; i++) console.log(`  id ${found[i]}  distance ${distances[i].toFixed(4)}`);

const dir = mkdtempSync(join(tmpdir(), 'quiver-'));
const path = join(dir, 'vectors.qvr');
const bytes = await saveToFile(index, path); // atomic: temp file + rename
const loaded = await loadFromFile(path, { quiver: q });
const again = loaded.search(query, 3, { ef: 64 });
console.log(
  `saved ${bytes} bytes, loaded a ${loaded.constructor.name}: same answer ${again.ids.join() === found.join()}`,
);

index.dispose();
loaded.dispose();
rmSync(dir, { recursive: true });
q.terminate(); // ends the pthread workers so Node can exit
