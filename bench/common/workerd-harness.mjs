// What the workerd-side benchmarks share (edge-memory, cold-start): bundling a suite's
// worker.mjs as wrangler would (esbuild, the workerd conditions, the .wasm left to the config to
// bind), serving one index file over HTTP (the service binding the worker fetches it through, as
// from R2), a free port, and waiting until workerd listens.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';

// dir/worker.mjs -> dir/build/worker.js; `root` is the repository (its esbuild). `external`:
// more module names the platform provides (e.g. 'cloudflare:*').
export function bundleWorker(root, dir, external = []) {
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
      ...external.map((name) => `--external:${name}`),
      '--outfile=build/worker.js',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  if (built.status !== 0) throw new Error(built.stderr);
}

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

// An HTTP server that answers every request with `file`: { port, close() }.
export async function serveFile(file) {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  return { port: await listen(server), close: () => server.close() };
}

export async function freePort() {
  const s = createServer();
  const port = await listen(s);
  s.close();
  return port;
}

const isOpen = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

export async function waitOpen(port, everyMs = 20) {
  while (!(await isOpen(port))) await new Promise((r) => setTimeout(r, everyMs));
}

// workerd serving dir/config.capnp on a free port, its "files" service pointed at `file` (served
// here): { url, stop() } once it listens.
export async function startWorkerd(root, dir, file) {
  const files = await serveFile(file);
  const port = await freePort();
  const child = spawn(
    join(root, 'node_modules', '.bin', 'workerd'),
    [
      'serve',
      'config.capnp',
      '--socket-addr',
      `http=127.0.0.1:${port}`,
      '--external-addr',
      `files=127.0.0.1:${files.port}`,
    ],
    { cwd: dir, stdio: 'inherit' },
  );
  const stop = () => {
    child.kill('SIGKILL');
    files.close();
  };
  try {
    await waitOpen(port);
  } catch (e) {
    stop();
    throw e;
  }
  return { url: `http://127.0.0.1:${port}/`, stop };
}

// The workerd config of a sharded collection (quiver-vector/cloudflare): one worker whose module
// `worker` (a path the config embeds) exports the shard class `className`, the simd .wasm bound
// by its package name from `wasm`, the class as a SQLite-backed Durable Object namespace bound
// as SHARDS with its storage in the directory `store`, and `bindings`: { NAME: value } (strings
// as text bindings, anything else as JSON). Used by bench/sharded and tests/edge/sharded-support.
export function shardedConfig({ worker, wasm, className, uniqueKey, store, bindings = {} }) {
  const extra = Object.entries(bindings).map(([name, value]) =>
    typeof value === 'string'
      ? `(name = "${name}", text = ${JSON.stringify(value)})`
      : `(name = "${name}", json = ${JSON.stringify(JSON.stringify(value))})`,
  );
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .router), (name = "store", disk = (path = ${JSON.stringify(store)}, writable = true))],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);
const router :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed ${JSON.stringify(worker)}),
    (name = "quiver-vector/wasm/simd/quiver.wasm", wasm = embed ${JSON.stringify(wasm)}),
  ],
  durableObjectNamespaces = [(className = "${className}", uniqueKey = "${uniqueKey}", enableSql = true)],
  durableObjectStorage = (localDisk = "store"),
  bindings = [
    (name = "SHARDS", durableObjectNamespace = "${className}"),
    ${extra.join(',\n    ')}
  ],
  compatibilityDate = "2025-01-01",
);
`;
}
