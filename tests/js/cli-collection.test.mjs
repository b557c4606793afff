// `quiver collection build` / `query`: records from JSON Lines, declared fields, --filter and
// --namespace, and the errors a bad record, filter or knob gets (a message, exit 1, no file).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, requireCli, workDir, writeFbin } from './support.mjs';

const ROWS = 120;
const DIM = 8;

function vectors(rows, dim, seed) {
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = Math.sin(i * 1.37 + seed) + 0.1;
  return out;
}

function run(args) {
  return spawnSync(cli, args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 26 });
}

const work = workDir('quiver-cli-collection-');
const base = join(work, 'base.fbin');
const queries = join(work, 'queries.fbin');
const records = join(work, 'records.jsonl');
const file = join(work, 'docs.qvr');
const lines = [];
for (let i = 0; i < ROWS; i++) {
  const metadata = { lang: i % 3 === 0 ? 'fr' : 'en', year: 2000 + (i % 25), tags: [`t${i % 4}`] };
  lines.push(JSON.stringify({ id: i % 2 ? `doc-${i}` : i, metadata, ...(i % 5 === 0 ? { namespace: 'x' } : {}) }));
}

describe('quiver collection', () => {
  before(() => {
    requireCli();
    writeFbin(base, ROWS, DIM, vectors(ROWS, DIM, 0));
    writeFbin(queries, 4, DIM, vectors(4, DIM, 9));
    writeFileSync(records, lines.join('\n') + '\n');
    const r = run([
      'collection',
      'build',
      base,
      '--records',
      records,
      '--field',
      'lang:string',
      '--field',
      'year:number',
      '--field',
      'tags:tags',
      '--index',
      'flat',
      '--metric',
      'l2',
      '-o',
      file,
      '-q',
    ]);
    assert.equal(r.status, 0, r.stderr);
  });

  test('a filtered query returns the top k of the matching records only', () => {
    const r = run([
      'collection',
      'query',
      file,
      '--queries',
      queries,
      '--count',
      '4',
      '-k',
      '5',
      '--filter',
      '{"lang":"fr","year":{"$lt":2012},"tags":{"$in":["t0","t1"]}}',
      '--metadata',
      '--json',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.length, 4);
    const matching = lines
      .map((l) => JSON.parse(l))
      .filter((d) => d.metadata.lang === 'fr' && d.metadata.year < 2012 && ['t0', 't1'].includes(d.metadata.tags[0]));
    for (const q of out) {
      assert.equal(q.plan.strategy, 'prefilter');
      assert.equal(q.plan.matching, matching.length);
      assert.equal(q.matches.length, Math.min(5, matching.length));
      for (const m of q.matches) {
        const want = matching.find((d) => d.id === m.id);
        assert.ok(want, `${JSON.stringify(m.id)} does not match the filter`);
        assert.deepEqual(m.metadata, want.metadata);
      }
      for (let i = 1; i < q.matches.length; i++) assert.ok(q.matches[i - 1].distance <= q.matches[i].distance);
    }
  });

  test('--namespace keeps that namespace; ids keep their type', () => {
    const r = run(['collection', 'query', file, '--queries', queries, '-k', '100', '--namespace', 'x', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const [q] = JSON.parse(r.stdout);
    assert.equal(q.matches.length, ROWS / 5);
    for (const m of q.matches) {
      assert.equal(m.namespace, 'x');
      // The id as written: a number for even rows, a string for odd ones.
      assert.ok(lines.some((l) => JSON.parse(l).id === m.id && JSON.parse(l).namespace === 'x'));
    }
  });

  for (const [name, args, message] of [
    ['an undeclared field', ['--filter', '{"colour":"red"}'], /not a declared filterable field/],
    ['an unknown operator', ['--filter', '{"year":{"$gtt":1}}'], /unknown operator/],
    ['a type mismatch', ['--filter', '{"year":"2001"}'], /number field/],
    ['filter JSON with a trailing comma', ['--filter', '{"lang":"en",}'], /not valid JSON/],
  ]) {
    test(`${name} is an INVALID_ARGUMENT error`, () => {
      const r = run(['collection', 'query', file, '--queries', queries, ...args]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /INVALID_ARGUMENT/);
      assert.match(r.stderr, message);
    });
  }

  for (const [name, recordLines, extra, message] of [
    ['an unknown record key', [JSON.stringify({ id: 1, meta: {} })], [], /unknown key "meta"/],
    ['a repeated id', [JSON.stringify({ id: 1 }), JSON.stringify({ id: 1 })], [], /DUPLICATE_ID/],
    ['a declared field of the wrong type', [JSON.stringify({ id: 1, metadata: { year: 'x' } })], [], /declared number/],
    ['an unknown knob', [], ['--knob', 'Mx=3', '--index', 'hnsw'], /no option 'Mx'/],
    ['an unknown field type', [], ['--field', 'a:text'], /unknown field type/],
  ]) {
    test(`build refuses ${name} and writes nothing`, () => {
      const out = join(work, `bad-${name.replaceAll(' ', '-')}.qvr`);
      const recs = join(work, `bad-${name.replaceAll(' ', '-')}.jsonl`);
      const all = [...recordLines];
      const n = recordLines.length === 0 ? 0 : 2;
      for (let i = all.length; i < n; i++) all.push(JSON.stringify({ id: 1000 + i }));
      writeFileSync(recs, all.join('\n'));
      const small = join(work, `bad-${name.replaceAll(' ', '-')}.fbin`);
      writeFbin(small, 2, DIM, vectors(2, DIM, 1));
      const r = run([
        'collection',
        'build',
        small,
        ...(n ? ['--records', recs] : []),
        '--field',
        'year:number',
        ...extra,
        '-o',
        out,
        '-q',
      ]);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, message);
      assert.equal(existsSync(out), false);
    });
  }
});
