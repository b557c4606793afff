// examples/edge/sharded/ as its README says: copied into a project with the package installed,
// bundled with the esbuild line of its config.capnp and served by workerd (4 HNSW shards with
// SQLite storage in ./data), loaded from an .fbin file by load.mjs, queried; and bundled by
// `wrangler deploy --dry-run` from its wrangler.toml (the Durable Object class and its SQLite
// migration).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Quiver } from '../../js/index.js';
import { bin, describeRun, installCopy, project, root, run, serveWorkerd } from './support.mjs';

function app() {
  const dir = project('quiver-sharded-example-', undefined, { link: false });
  installCopy(dir);
  cpSync(join(root, 'examples', 'edge', 'sharded'), join(dir, 'sharded'), { recursive: true });
  return join(dir, 'sharded');
}

// The esbuild line of config.capnp's header, run as written.
function bundle(dir) {
  const config = readFileSync(join(dir, 'config.capnp'), 'utf8');
  const line = config
    .split('\n')
    .filter((l) => l.startsWith('#'))
    .map((l) => l.replace(/^#\s*/, ''));
  const at = line.findIndex((l) => l.startsWith('npx esbuild'));
  const words = `${line[at].replace(/\\$/, '')} ${line[at + 1]}`.trim().split(/\s+/).slice(2);
  const built = run(bin.esbuild, words, { cwd: dir });
  assert.equal(built.status, 0, describeRun(built));
}

test('examples/edge/sharded: built and served as its README says, load.mjs fills it from an .fbin, the router answers', async () => {
  const dir = app();
  bundle(dir);
  mkdirSync(join(dir, 'data'));
  const { port, child, log } = await serveWorkerd(dir);
  after(() => child.kill('SIGKILL'));

  const q = await Quiver.init({ variant: 'simd' });
  after(() => q.terminate());
  const rows = 1200;
  const dim = 128;
  const vectors = q.unitGaussianVectors(rows, dim, 3);
  const head = new Uint32Array([rows, dim]);
  writeFileSync(join(dir, 'base.fbin'), Buffer.concat([Buffer.from(head.buffer), Buffer.from(vectors.buffer)]));
  const loaded = run(
    process.execPath,
    ['load.mjs', 'base.fbin', '--url', `http://127.0.0.1:${port}`, '--batch', '200'],
    { cwd: dir },
  );
  assert.equal(loaded.status, 0, `${describeRun(loaded)}\n${log.join('')}`);
  const summary = JSON.parse(loaded.stdout.trim().split('\n').pop());
  assert.equal(summary.loaded, rows);
  assert.equal(summary.size, rows);
  assert.equal(summary.shards.length, 4);
  assert.equal(
    summary.shards.reduce((a, b) => a + b, 0),
    rows,
  );

  const r = await fetch(`http://127.0.0.1:${port}/query`, {
    method: 'POST',
    body: JSON.stringify({ vector: Array.from(vectors.subarray(77 * dim, 78 * dim)), topK: 3 }),
  });
  const body = await r.json();
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.equal(body.matches[0].id, 77, 'a stored vector finds itself');
  assert.equal(body.plan.shards, 4);
  const bad = run(process.execPath, ['load.mjs', 'base.fbin', '--url', `http://127.0.0.1:${port}`, '--bach', '2'], {
    cwd: dir,
  });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /unknown option --bach/);
});

test('examples/edge/sharded: wrangler deploy --dry-run bundles the router and the QuiverShard class', () => {
  const dir = app();
  const home = join(dir, 'home');
  mkdirSync(home);
  const out = join(dir, 'dist');
  const r = run(join(root, 'node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', out], {
    cwd: dir,
    env: { HOME: home, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
  });
  assert.equal(r.status, 0, describeRun(r));
  assert.match(r.stdout, /SHARDS.*QuiverShard|QuiverShard/, describeRun(r));
  const bundled = readFileSync(join(out, 'worker.js'), 'utf8');
  assert.match(bundled, /QuiverShard = class extends DurableObject/);
  assert.match(bundled, /export \{[^}]*QuiverShard/);
  assert.doesNotMatch(bundled, /wasm\/simd-mt\/quiver\.mjs|wasm\/baseline\/quiver\.mjs/, 'the simd glue alone');
});
