// The wasm memory an index needs in workerd (Cloudflare's Workers runtime, from npm) when it
// is loaded from a stream: for each index file, workerd serves bench/edge-memory/worker.mjs,
// which fetches the file from a local HTTP server through a service binding (as from R2),
// loads it with loadFrom, searches it, and reports heapBytes (the module's wasm memory: the
// peak, as it never shrinks) and memoryBytes.
//   node bench/edge-memory/workerd.mjs FILE...        prints one JSON line per file
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = join(root, 'bench', 'edge-memory');
mkdirSync(join(dir, 'build'), { recursive: true });
const built = spawnSync(
  join(root, 'node_modules', '.bin', 'esbuild'),
  [
    'worker.mjs',
    '--bundle',
    '--format=esm',
    '--platform=browser',
    '--conditions=workerd,worker',
    '--external:quiver-vector/wasm/*',
    '--outfile=build/worker.js',
  ],
  { cwd: dir, encoding: 'utf8' },
);
if (built.status !== 0) throw new Error(built.stderr);

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const freePort = async () => {
  const s = createServer();
  const port = await listen(s);
  s.close();
  return port;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const open = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

for (const file of process.argv.slice(2)) {
  const files = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  const filesPort = await listen(files);
  const port = await freePort();
  const child = spawn(
    join(root, 'node_modules', '.bin', 'workerd'),
    [
      'serve',
      'config.capnp',
      '--socket-addr',
      `http=127.0.0.1:${port}`,
      '--external-addr',
      `files=127.0.0.1:${filesPort}`,
    ],
    { cwd: dir, stdio: 'inherit' },
  );
  try {
    while (!(await open(port))) await sleep(100);
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).json();
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
    child.kill('SIGKILL');
    files.close();
  }
}
