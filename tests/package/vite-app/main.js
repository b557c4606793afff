// A page that uses the installed package the way an application does; tests/browser/
// npm-package.test.mjs builds it with Vite and checks window.result in Chromium.
import { Quiver, spawn, QuiverError } from 'quiver-vector';

try {
  const q = await Quiver.init();
  const index = new q.FlatIndex({ dim: 3 });
  index.add(
    [1, 2, 3],
    [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ],
  );
  const local = index.search([0.1, 0.9, 0], 2);
  const batch = index.searchBatch(new Float32Array(3 * 64).fill(1), 1);
  const w = await spawn();
  const remote = await w.create('hnsw', { dim: 3, M: 8 });
  await remote.add(
    [7, 8],
    [
      [1, 1, 0],
      [0, 0, 1],
    ],
  );
  const fromWorker = await remote.search([0, 0, 1], 1, { ef: 16 });
  window.result = {
    variant: q.variant,
    workerVariant: w.variant,
    pool: q.threadPool(),
    ids: [...local.ids],
    batch: batch.count,
    worker: [...fromWorker.ids],
  };
  await w.terminate();
} catch (e) {
  window.result = { error: `${e instanceof QuiverError ? e.code : e.name}: ${e.message}` };
}
document.getElementById('out').textContent = JSON.stringify(window.result);
