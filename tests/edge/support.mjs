// Shared by the runtime tests in tests/edge/ (not a test file itself): paths to the runtimes
// installed as dev dependencies, a project folder that has the package installed the way a
// user's project does, and a child-process runner that never hangs a test run.
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker } from '../../bench/common/workerd-harness.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = {
  workerd: join(root, 'node_modules', '.bin', 'workerd'),
  deno: join(root, 'node_modules', '@deno', 'linux-x64-glibc', 'deno'),
  bun: join(root, 'node_modules', '.bin', 'bun'),
  esbuild: join(root, 'node_modules', '.bin', 'esbuild'),
  vite: join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
};

// A temporary project whose node_modules/quiver-vector is this repository (what `npm install`
// of the package gives, without packing: the package's "exports" and "files" paths apply).
export function project(prefix, packageJson = { name: 'app', private: true, type: 'module' }, { link = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retries: a runtime that was just killed may still be closing files in the folder (ENOTEMPTY).
  after(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  mkdirSync(join(dir, 'node_modules'));
  if (link) symlinkSync(root, join(dir, 'node_modules', 'quiver-vector'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson));
  return dir;
}

// Servers the tests started (workerd, wrangler dev), stopped before a project folder is removed:
// after() hooks run in the order they were registered, so a project's removal (registered first)
// would otherwise run while its server still writes there (Durable Object storage, wrangler's
// state) — an ENOTEMPTY that also skipped the hook that kills the server, and the test file
// never exited.
const servers = new Set();
// Tracks a child process; `group`: it was started with { detached: true } and its whole process
// group is stopped (wrangler runs its workerd as a child of its own).
export function track(child, { group = false } = {}) {
  servers.add({ child, group });
  return child;
}
const groupAlive = (pid) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false; // ESRCH: no process is left in the group
  }
};
const exited = (child) => child.exitCode !== null || child.signalCode !== null;
// Kills a tracked process (or group) and waits until it is gone (at most `timeout` ms).
export async function stop(child, timeout = 10_000) {
  const entry = [...servers].find((e) => e.child === child) ?? { child, group: false };
  servers.delete(entry);
  const gone = () => (entry.group ? !groupAlive(child.pid) : exited(child));
  if (gone()) return;
  try {
    if (entry.group) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // already gone
  }
  const end = Date.now() + timeout;
  while (!gone() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}
const stopAll = () => Promise.all([...servers].map((e) => stop(e.child)));

// Runs a command to completion; a process that does not exit in `timeout` ms is killed and
// reported (signal set), so a hang fails the test instead of stalling the run.
export function run(command, args, { cwd = root, timeout = 120_000, env = {} } = {}) {
  const child = spawnSync(command, args, {
    cwd,
    timeout,
    encoding: 'utf8',
    killSignal: 'SIGKILL',
    env: { ...process.env, ...env },
  });
  return {
    status: child.status,
    signal: child.signal,
    stdout: child.stdout ?? '',
    stderr: child.stderr ?? '',
    error: child.error,
  };
}

export const describeRun = (r) => `status ${r.status} signal ${r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

// The JSON lines a script printed.
export const jsonLines = (stdout) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

// Copies what `npm install` of the package would put in node_modules/quiver-vector (the files
// `npm pack` lists, from the "files" of package.json) into `dir`: bundlers then see an
// ordinary installed package, not a symlink that leads out of the project.
let packedFiles;
export function installCopy(dir) {
  const target = join(dir, 'node_modules', 'quiver-vector');
  packedFiles ??= JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: root, encoding: 'utf8' }),
  )[0].files.map((f) => f.path);
  for (const path of packedFiles) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    cpSync(join(root, path), join(target, path));
  }
  return target;
}

// The files an esbuild bundle of the package loads at run time, put beside it in `dist` as the
// the esbuild recipe in docs/api.md says (the wasm builds and simd-mt's pthread worker script), and a page
// that runs dist/app.js.
export function placeBundleRuntime(pkg, dist) {
  cpSync(join(pkg, 'js', 'wasm'), join(dist, 'wasm'), { recursive: true });
  cpSync(join(pkg, 'js', 'pthread-worker.js'), join(dist, 'pthread-worker.js'));
  writeFileSync(
    join(dist, 'index.html'),
    '<!doctype html><meta charset="utf-8"><script type="module" src="./app.js"></script>',
  );
}

// The index the edge examples serve in the tests: 2,000 unit-Gaussian vectors of dimension 32
// in a cosine HNSW graph, written to `path`; returns a query (vector 100) and its top-5 ids.
export async function writeServedIndex(path) {
  const { Quiver } = await import('../../js/index.js');
  const q = await Quiver.init({ variant: 'simd' });
  const dim = 32;
  const vectors = q.unitGaussianVectors(2000, dim, 11);
  const index = new q.HnswIndex({ dim, metric: 'cosine', M: 8, efConstruction: 64 });
  index.add(
    Array.from({ length: 2000 }, (_, i) => i + 1),
    vectors,
  );
  writeFileSync(path, index.serialize());
  const query = Array.from(vectors.subarray(99 * dim, 100 * dim));
  const expected = [...index.search(query, 5).ids];
  index.dispose();
  q.terminate();
  return { dim, query, expected };
}

// A free TCP port on 127.0.0.1 (for workerd's socket).
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Polls until workerd accepts TCP connections (no request: the first request is the cold
// start), or exits: then its output is the failure.
export async function waitUntilListening(port, child, log) {
  for (;;) {
    if (child.exitCode !== null) assert.fail(`workerd exited (${child.exitCode}):\n${log.join('')}`);
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

// dir/worker.mjs bundled into dir/build/worker.js as wrangler would for workerd (esbuild, the
// workerd conditions, the .wasm left to the config to bind; `external`: more modules the
// platform provides, e.g. 'cloudflare:*').
export function bundleForWorkerd(dir, external = []) {
  bundleWorker(root, dir, external);
}

// `workerd serve config.capnp` in `dir` on a free port, once it listens: { port, url, child,
// log } (its output collected in log). The caller ends it (child.kill).
export async function serveWorkerd(dir) {
  const port = await freePort();
  const log = [];
  const child = track(
    spawn(bin.workerd, ['serve', 'config.capnp', '--socket-addr', `http=127.0.0.1:${port}`], { cwd: dir }),
  );
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  await waitUntilListening(port, child, log);
  return { port, url: `http://127.0.0.1:${port}`, child, log };
}
