// examples/edge/wrangler/ with wrangler (from npm), as its wrangler.toml says: the worker and
// handler copied into a project with the package installed, the index file beside them as a data
// module. `wrangler dev` serves it locally and offline (answers, and a bad request is a 400 with
// the QuiverError code); `wrangler deploy --dry-run` bundles it without uploading, and the bundle
// carries the simd build's glue alone (the handler imports 'quiver-vector/simd').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  root,
  project,
  installCopy,
  run,
  describeRun,
  freePort,
  stop,
  track,
  waitUntilListening,
  writeServedIndex,
} from './support.mjs';

const wrangler = join(root, 'node_modules', '.bin', 'wrangler');

async function app() {
  const dir = project('quiver-wrangler-', undefined, { link: false });
  installCopy(dir);
  cpSync(join(root, 'examples', 'edge'), dir, { recursive: true });
  const { query, expected } = await writeServedIndex(join(dir, 'wrangler', 'index.qvr'));
  // wrangler writes its state and logs under HOME and the project; no metrics, no prompts.
  const home = join(dir, 'home');
  mkdirSync(home);
  const env = { HOME: home, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' };
  return { dir: join(dir, 'wrangler'), env, query, expected };
}

test('examples/edge/wrangler: wrangler dev serves it offline, bad requests get the QuiverError code', async () => {
  const { dir, env, query, expected } = await app();
  const port = await freePort();
  const log = [];
  const child = track(
    spawn(wrangler, ['dev', '--port', String(port), '--ip', '127.0.0.1', '--local'], {
      cwd: dir,
      env: { ...process.env, ...env },
      detached: true, // its workerd is a child of its own: end the whole group
    }),
    { group: true },
  );
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  try {
    await serve(port, child, log, query, expected);
  } finally {
    await stop(child);
  }
});

async function serve(port, child, log, query, expected) {
  await waitUntilListening(port, child, log);
  const base = `http://127.0.0.1:${port}`;
  const post = (body) =>
    fetch(`${base}/search`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  const health = await (await fetch(`${base}/health`)).json();
  assert.equal(health.variant, 'simd', log.join(''));
  assert.equal(health.size, 2000);
  const found = await post({ vector: query, k: 5 });
  assert.equal(found.status, 200, log.join(''));
  assert.deepEqual((await found.json()).ids, expected);
  const wrongDim = await post({ vector: [1, 2, 3], k: 5 });
  assert.equal(wrongDim.status, 400);
  assert.equal((await wrongDim.json()).error, 'DIMENSION_MISMATCH');
  const badK = await post({ vector: query, k: 0 });
  assert.equal((await badK.json()).error, 'INVALID_K');
}

test('examples/edge/wrangler: wrangler deploy --dry-run bundles the simd glue alone', async (t) => {
  const { dir, env } = await app();
  const out = join(dir, 'dist');
  const r = run(wrangler, ['deploy', '--dry-run', '--outdir', out], { cwd: dir, env });
  assert.equal(r.status, 0, describeRun(r));
  const upload = r.stdout.match(/Total Upload: ([\d.]+) KiB/);
  assert.ok(upload, describeRun(r));
  const bundle = readFileSync(join(out, 'worker.js'), 'utf8');
  // Each glue names its own file; only the simd one may be in the bundle.
  assert.match(bundle, /wasm\/simd\/quiver\.mjs|quiver-vector\/js\/wasm\/simd\//);
  assert.doesNotMatch(bundle, /wasm\/simd-mt\/quiver\.mjs|wasm\/baseline\/quiver\.mjs/);
  t.diagnostic(`wrangler dry-run upload ${upload[1]} KiB (worker.js ${(bundle.length / 1024).toFixed(0)} KiB)`);
});
