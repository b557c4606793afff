// A sharded collection served by workerd, the way a user deploys it: a project with the
// package installed (its "files"), tests/edge/fixtures/sharded-worker.mjs bundled by esbuild
// as wrangler would, real Durable Objects with SQLite storage on a local disk. Shared by
// tests/edge/sharded.test.mjs and bench/sharded (not a test file itself).
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shardedConfig } from '../../bench/common/workerd-harness.mjs';
import { bundleForWorkerd, installCopy, project, root, serveWorkerd } from './support.mjs';

// The app folder with the worker bundled into build/ (once per test file).
export function buildShardedApp(prefix = 'quiver-sharded-') {
  const app = project(prefix, undefined, { link: false });
  installCopy(app);
  const dir = join(app, 'worker');
  mkdirSync(join(dir, 'build'), { recursive: true });
  cpSync(join(root, 'tests', 'edge', 'fixtures', 'sharded-worker.mjs'), join(dir, 'worker.mjs'));
  bundleForWorkerd(dir, ['cloudflare:*']);
  cpSync(
    join(app, 'node_modules', 'quiver-vector', 'js', 'wasm', 'simd', 'quiver.wasm'),
    join(dir, 'build', 'quiver.wasm'),
  );
  return dir;
}

// workerd serving `dir` with its Durable Objects' storage in `store` (kept across restarts):
// collections = { name: QuiverRouter options without name }. Returns { url, post, get, kill,
// log, child }.
export async function startSharded(dir, store, collections, { compactLogBytes = 64 << 10 } = {}) {
  mkdirSync(store, { recursive: true });
  writeFileSync(
    join(dir, 'config.capnp'),
    shardedConfig({
      worker: 'build/worker.js',
      wasm: 'build/quiver.wasm',
      className: 'TestShard',
      uniqueKey: 'quiver-sharded-test',
      store,
      bindings: { COLLECTIONS: collections, COMPACT_LOG_BYTES: String(compactLogBytes) },
    }),
  );
  const { url, child, log } = await serveWorkerd(dir);
  const post = async (path, body) => {
    const r = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    const text = await r.text();
    try {
      return { status: r.status, body: JSON.parse(text) };
    } catch {
      return { status: r.status, body: text };
    }
  };
  const get = async (path) => {
    const r = await fetch(`${url}${path}`);
    return { status: r.status, body: await r.json() };
  };
  const kill = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  return { url, post, get, kill, log, child };
}
