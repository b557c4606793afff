// Collections in the edge runtimes, the way their users run the package: a project with the
// package in node_modules imported by name. tests/edge/fixtures/collection.mjs in Node (code
// generation from strings disallowed, as workerd does), Deno and Bun must print what it prints
// in Node, and exit on their own; tests/edge/fixtures/collection-worker.mjs, bundled by esbuild
// with the workerd conditions and served by workerd on 127.0.0.1, keeps one collection across
// requests and answers like the same collection in Node, refused requests with QuiverError codes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Quiver } from '../../js/index.js';
import {
  bin,
  bundleForWorkerd,
  describeRun,
  installCopy,
  jsonLines,
  project,
  root,
  run,
  serveWorkerd,
} from './support.mjs';

const fixture = join(root, 'tests', 'edge', 'fixtures', 'collection.mjs');

function runFixture(command, args, variant) {
  const dir = project('quiver-collection-');
  cpSync(fixture, join(dir, 'collection.mjs'));
  const r = run(command, [...args, 'collection.mjs', variant], {
    cwd: dir,
    env: { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  assert.equal(r.signal, null, `killed: the process did not exit by itself\n${describeRun(r)}`);
  assert.equal(r.status, 0, describeRun(r));
  const [out] = jsonLines(r.stdout);
  assert.ok(out, describeRun(r));
  return out;
}

// What every runtime must print (Node, simd): exact results of the flat collection; the HNSW
// results must hold five filtered matches, most of them the exact ones.
let expected;
function check(out, variant) {
  assert.equal(out.variant, variant);
  expected ??= runFixture(process.execPath, [], 'simd');
  const exactPart = (o) => ({ ...o, approx: undefined, variant: undefined });
  assert.deepEqual(exactPart(out), exactPart(expected));
  const { approx } = out;
  const wantApprox = expected.approx;
  assert.equal(approx.length, 5);
  assert.ok(approx.filter((id) => wantApprox.includes(id)).length >= 4, `${approx} vs ${wantApprox}`);
  assert.deepEqual(out.codes, ['INVALID_ARGUMENT', 'DUPLICATE_ID', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
  assert.equal(out.plan.strategy, 'prefilter');
  assert.equal(out.size, 399);
}

for (const variant of ['simd-mt', 'simd', 'baseline']) {
  test(`Node (${variant}, code generation disallowed): the collection fixture, exit without terminate()`, () => {
    check(runFixture(process.execPath, ['--disallow-code-generation-from-strings'], variant), variant);
  });
}
for (const variant of ['simd-mt', 'simd']) {
  test(`Deno (${variant}): the collection fixture answers as in Node and exits`, () => {
    check(runFixture(bin.deno, ['run', '--allow-read'], variant), variant);
  });
}
test('Bun (simd-mt): the collection fixture answers as in Node and exits', () => {
  check(runFixture(bin.bun, [], 'simd-mt'), 'simd-mt');
});

test('workerd: a collection behind a fetch handler keeps its records across requests and answers like Node', async () => {
  const app = project('quiver-workerd-collection-', undefined, { link: false });
  installCopy(app);
  const dir = join(app, 'worker');
  mkdirSync(join(dir, 'build'), { recursive: true });
  cpSync(join(root, 'tests', 'edge', 'fixtures', 'collection-worker.mjs'), join(dir, 'worker.mjs'));
  bundleForWorkerd(dir);
  cpSync(
    join(app, 'node_modules', 'quiver-vector', 'js', 'wasm', 'simd', 'quiver.wasm'),
    join(dir, 'build', 'quiver.wasm'),
  );
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .collectionWorker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);
const collectionWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "build/worker.js"),
    (name = "quiver-vector/wasm/simd/quiver.wasm", wasm = embed "build/quiver.wasm"),
  ],
  compatibilityDate = "2025-01-01",
);
`,
  );
  const { port, child, log } = await serveWorkerd(dir);
  after(() => child.kill('SIGKILL'));
  const post = async (path, body) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', body: JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  };

  // The same collection in Node, for the answers.
  const q = await Quiver.init({ variant: 'simd' });
  after(() => q.terminate());
  const dim = 16;
  const vectors = q.unitGaussianVectors(300, dim, 5);
  const records = Array.from({ length: 300 }, (_, i) => ({
    id: i % 2 ? `doc-${i}` : i,
    values: Array.from(vectors.subarray(i * dim, (i + 1) * dim)),
    metadata: { lang: i % 3 ? 'en' : 'de', year: 2000 + (i % 30), tags: [`t${i % 4}`] },
    ...(i % 5 === 0 ? { namespace: 'team-a' } : {}),
  }));
  const local = q.Collection.create({
    dim,
    index: 'hnsw',
    options: { M: 8 },
    fields: { lang: 'string', year: 'number', tags: 'tags' },
  });
  after(() => local.dispose());
  for (let at = 0; at < records.length; at += 100) {
    const r = await post('/upsert', { records: records.slice(at, at + 100) });
    assert.equal(r.status, 200, `${JSON.stringify(r.body)}\n${log.join('')}`);
    assert.equal(r.body.size, at + 100);
    local.upsert(records.slice(at, at + 100));
  }
  const vector = Array.from(vectors.subarray(10 * dim, 11 * dim));
  for (const ask of [
    { topK: 5 },
    { topK: 5, filter: { lang: 'de' } },
    { topK: 8, filter: { $or: [{ year: { $lt: 2005 } }, { tags: 't2' }] }, namespace: 'team-a' },
    { topK: 3, filter: { $not: { lang: 'en' } }, ef: 128 },
  ]) {
    const r = await post('/query', { vector, ...ask });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const want = local.query(Float32Array.from(vector), { ...ask, returnMetadata: true });
    assert.deepEqual(r.body.plan, want.plan, JSON.stringify(ask));
    assert.equal(r.body.matches.length, want.matches.length, JSON.stringify(ask));
    for (const m of r.body.matches) {
      const [stored] = local.getByIds([m.id]);
      assert.deepEqual(m.metadata, stored.metadata);
    }
    if (ask.filter?.lang === 'de') assert.ok(r.body.matches.every((m) => m.metadata.lang === 'de'));
    if (ask.topK === 5 && !ask.filter) assert.equal(r.body.matches[0].id, 10, 'the query finds itself');
  }
  const refused = [
    [await post('/query', { vector: vector.slice(1) }), 'DIMENSION_MISMATCH'],
    [await post('/query', { vector, filter: { lang: { $regex: 'd' } } }), 'INVALID_ARGUMENT'],
    [await post('/query', { vector, filter: { title: 'x' } }), 'INVALID_ARGUMENT'],
    [await post('/query', { vector, topk: 3 }), 'INVALID_ARGUMENT'],
    [await post('/upsert', { records: [{ id: 0, values: vector, metadata: { year: 'old' } }] }), 'INVALID_ARGUMENT'],
    [await post('/delete', { ids: [0, 'missing'] }), 'UNKNOWN_ID'],
  ];
  for (const [r, code] of refused) {
    assert.equal(r.status, 400);
    assert.equal(r.body.error, code, r.body.message);
  }
  const gone = await post('/delete', { ids: [0, 'doc-1'] });
  assert.deepEqual(gone.body, { size: 298 });
  const got = await post('/get', { ids: [0, 'doc-3'] });
  assert.deepEqual(got.body, [null, { id: 'doc-3', metadata: records[3].metadata }]);
  const described = await (await fetch(`http://127.0.0.1:${port}/describe`)).json();
  assert.equal(described.size, 298);
  assert.equal(described.index, 'hnsw');
  assert.equal(child.exitCode, null, 'workerd is still running');
  assert.doesNotMatch(log.join(''), /EvalError|Code generation|Uncaught/, log.join(''));
});
