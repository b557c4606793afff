// examples/edge/ in workerd (Cloudflare's Workers runtime, from npm), built and served as its
// comments say: the worker bundled by esbuild with the workerd conditions, the simd .wasm bound
// as a wasm module, the index file as a data binding, served on 127.0.0.1. A cold start, warm
// requests, bad requests answered with the QuiverError code, and the isolate still serving
// after them. workerd forbids code generation from strings and has no Worker: the package must
// pick simd on its own and never eval.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, project, installCopy, bundleForWorkerd, serveWorkerd, writeServedIndex } from './support.mjs';

for (const flags of [[], ['nodejs_compat']]) {
  test(`examples/edge/workerd${flags.length ? ` with ${flags}` : ''}: cold start, warm requests, bad requests answered with QuiverError codes`, async (t) => {
    const app = project('quiver-workerd-', undefined, { link: false });
    installCopy(app);
    cpSync(join(root, 'examples', 'edge'), app, { recursive: true });
    const dir = join(app, 'workerd');
    mkdirSync(join(dir, 'build'));
    if (flags.length) {
      // The flag most Workers projects turn on: a `process` object appears (without
      // versions.node); the package must still take the workerd path.
      const config = readFileSync(join(dir, 'config.capnp'), 'utf8');
      const flagged = config.replace(
        'compatibilityDate = "2025-01-01",',
        `compatibilityDate = "2025-01-01",\n  compatibilityFlags = ${JSON.stringify(flags)},`,
      );
      assert.notEqual(flagged, config, 'the flags went into the config');
      writeFileSync(join(dir, 'config.capnp'), flagged);
    }

    // The index the worker serves (the binding INDEX).
    const { dim, query, expected } = await writeServedIndex(join(dir, 'build', 'index.qvr'));

    // Build as config.capnp says.
    bundleForWorkerd(dir);

    const { port, child, log } = await serveWorkerd(dir);
    after(() => child.kill('SIGKILL'));
    const base = `http://127.0.0.1:${port}`;
    const post = (body) =>
      fetch(`${base}/search`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
    let started = performance.now();
    const health = await fetch(`${base}/health`);
    const cold = performance.now() - started;
    assert.equal(health.status, 200, log.join(''));
    const { heapBytes, ...described } = await health.json();
    // auto: what init() would pick here — workerd's V8 validates relaxed SIMD and has no threads.
    assert.deepEqual(described, { variant: 'simd', auto: 'relaxed-simd', size: 2000, dim, kind: 'HnswIndex' });
    assert.ok(heapBytes > 0);

    started = performance.now();
    for (let i = 0; i < 20; i++) {
      const r = await post({ vector: query, k: 5 });
      assert.equal(r.status, 200, log.join(''));
      const body = await r.json();
      assert.deepEqual(body.ids, expected);
      assert.equal(body.ids[0], 100);
    }
    const warm = (performance.now() - started) / 20;
    t.diagnostic(
      `workerd: first request (module + index load) ${cold.toFixed(1)} ms, warm search request ${warm.toFixed(2)} ms`,
    );

    const wrongDim = await post({ vector: [1, 2, 3], k: 5 });
    assert.equal(wrongDim.status, 400);
    assert.equal((await wrongDim.json()).error, 'DIMENSION_MISMATCH');
    const badK = await post({ vector: query, k: 0 });
    assert.equal(badK.status, 400);
    assert.equal((await badK.json()).error, 'INVALID_K');
    const notJson = await post('{"vector": [1,');
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).error, 'BAD_REQUEST');

    // The isolate keeps serving the same index after the errors.
    const again = await post({ vector: query, k: 5 });
    assert.equal(again.status, 200);
    assert.deepEqual((await again.json()).ids, expected);
    assert.equal((await fetch(`${base}/nothing`)).status, 404);
    assert.equal(child.exitCode, null, 'workerd is still running');
    assert.doesNotMatch(log.join(''), /EvalError|Code generation|Uncaught/, log.join(''));
  });
}
