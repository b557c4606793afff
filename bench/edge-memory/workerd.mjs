// The wasm memory an index needs in workerd (Cloudflare's Workers runtime, from npm) when it
// is loaded from a stream: for each index file, workerd serves bench/edge-memory/worker.mjs,
// which fetches the file from a local HTTP server through a service binding (as from R2),
// loads it with loadFrom, searches it, and reports heapBytes (the module's wasm memory: the
// peak, as it never shrinks) and memoryBytes.
//   node bench/edge-memory/workerd.mjs FILE...        prints one JSON line per file
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker, startWorkerd } from '../common/workerd-harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = join(root, 'bench', 'edge-memory');
bundleWorker(root, dir);

for (const file of process.argv.slice(2)) {
  const workerd = await startWorkerd(root, dir, file);
  try {
    const body = await (await fetch(workerd.url)).json();
    console.log(
      JSON.stringify({
        runtime: 'workerd',
        file,
        fileMB: Math.round(statSync(file).size / 1e4) / 100,
        ...body,
        heapMB: Math.round(body.heapBytes / 1e4) / 100,
        reportedMB: Math.round(body.memoryBytes / 1e4) / 100,
      }),
    );
  } finally {
    workerd.stop();
  }
}
