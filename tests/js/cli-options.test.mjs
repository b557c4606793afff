// The native CLI never ignores an option: one of another index kind (`build --index flat
// --lists 16`, `search --ef` on a quantised file, ...) is refused with INVALID_ARGUMENT naming it,
// in every subcommand that has one (the table is src/cli/option_kinds.cpp). And the sizes and
// names it is given are checked before any work: workload sizes that cannot fit, a --lists that
// would wrap to `auto`, counts of 0 that used to mean "the default", a --name that leaves -o,
// and ground truth with no valid id (which used to score a perfect recall).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, requireCli, workDir, writeFbin } from './support.mjs';

const ROWS = 600;
const DIM = 8;
// A guard so a regression that blocks fails the test instead of hanging the run; the
// assertions are about exit codes, messages and files, never about how long anything took.
const HANG_GUARD_MS = 60_000;
const U64_MAX = '18446744073709551615';

function vectors(rows, dim, seed) {
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = Math.sin(i * 1.37 + seed) + (Math.floor(i / dim) % 5);
  return out;
}

function run(args) {
  return spawnSync(cli, args, { encoding: 'utf8', timeout: HANG_GUARD_MS, maxBuffer: 1 << 26 });
}

// The same command under an address-space limit (bash's ulimit -v, in KiB): a size check that
// came after the allocation would fail with an uncoded message or be killed, not pass.
function runLimited(kib, args) {
  const quoted = [cli, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return spawnSync('bash', ['-c', `ulimit -v ${kib} && exec ${quoted}`], {
    encoding: 'utf8',
    timeout: HANG_GUARD_MS,
    maxBuffer: 1 << 26,
  });
}

// .ibin: int32 rows, int32 k, then rows x k int32 ids.
function writeIbin(path, rows, k, ids) {
  const b = Buffer.alloc(8 + rows * k * 4);
  b.writeInt32LE(rows, 0);
  b.writeInt32LE(k, 4);
  ids.forEach((id, i) => b.writeInt32LE(id, 8 + 4 * i));
  writeFileSync(path, b);
}

const work = workDir('quiver-cli-options-');
const base = join(work, 'base.fbin');
const queries = join(work, 'queries.fbin');
const files = {
  flat: join(work, 'flat.qvr'),
  quantized: join(work, 'quantized.qvr'),
  partitioned: join(work, 'partitioned.qvr'),
  hnsw: join(work, 'hnsw.qvr'),
  sq8: join(work, 'sq8.qvr'),
};
let scratch = 0;
// A new empty folder for each command that must not write anything.
function emptyDir() {
  const dir = join(work, `out-${scratch++}`);
  mkdirSync(dir);
  return dir;
}

function assertRefused(r, args, option) {
  const what = args.join(' ');
  assert.equal(r.status, 1, `${what}: status ${r.status}, stderr ${r.stderr}`);
  const escaped = option.replace(/[-]/g, '\\-');
  assert.match(r.stderr, new RegExp(`^quiver: error \\[INVALID_ARGUMENT\\]: ${escaped} does not apply to `, 'm'), what);
}

describe('quiver CLI options', () => {
  before(() => {
    requireCli();
    writeFbin(base, ROWS, DIM, vectors(ROWS, DIM, 0));
    writeFbin(queries, 3, DIM, vectors(3, DIM, 7));
    const builds = {
      flat: [],
      quantized: ['--index', 'quantized'],
      partitioned: ['--index', 'quantized', '--lists', '2'],
      hnsw: ['--index', 'hnsw', '--threads', '1'],
      sq8: ['--index', 'hnsw', '--storage', 'sq8', '--threads', '1'],
    };
    for (const [kind, extra] of Object.entries(builds)) {
      const r = run(['build', base, '-o', files[kind], '-q', ...extra]);
      assert.equal(r.status, 0, `${kind}: ${r.stderr}`);
    }
  });

  test('build refuses every option of another index kind, naming it, and writes nothing', () => {
    const cases = {
      flat: [
        ['--bits', '4'],
        ['--lists', '16'],
        ['--refine-bits', '3'],
        ['--seed', '7'],
        ['--no-vectors'],
        ['--M', '8'],
        ['--ef-construction', '40'],
        ['--ef-search', '20'],
        ['--storage', 'f32'],
        ['--neighbor-codes'],
        ['--threads', '1'],
      ],
      quantized: [
        ['--M', '8'],
        ['--ef-construction', '40'],
        ['--ef-search', '20'],
        ['--storage', 'sq8'],
        ['--neighbor-codes'],
        ['--threads', '2'],
      ],
      hnsw: [['--bits', '2'], ['--lists', '16'], ['--refine-bits', '3'], ['--no-vectors']], // --no-vectors: f32 storage keeps them
    };
    for (const [kind, options] of Object.entries(cases)) {
      for (const option of options) {
        const out = join(emptyDir(), 'x.qvr');
        const args = ['build', base, '-o', out, '-q', '--index', kind, ...option];
        const r = run(args);
        assertRefused(r, args, option[0]);
        assert.match(
          r.stderr,
          new RegExp(`does not apply to an? ${kind === 'flat' ? 'flat' : '(quantized|hnsw)'} index`),
          args.join(' '),
        );
        assert.equal(existsSync(out), false, `${args.join(' ')} wrote ${out}`);
      }
    }
  });

  test("search refuses an option of another kind than the file's", () => {
    const cases = [
      ['flat', '--ef', '10'],
      ['flat', '--probes', '2'],
      ['quantized', '--ef', '10'],
      ['quantized', '--probes', '2'], // not partitioned: there are no lists to probe
      ['partitioned', '--ef', '10'],
      ['hnsw', '--probes', '2'],
      ['sq8', '--probes', '2'],
    ];
    for (const [kind, option, value] of cases) {
      const args = ['search', files[kind], queries, '-k', '3', '-q', option, value];
      const r = run(args);
      assertRefused(r, args, option);
      assert.ok(r.stderr.includes(files[kind]), `the message names the file: ${r.stderr}`);
      assert.equal(r.stdout, '', `${args.join(' ')} printed results`);
    }
  });

  test('compare, demo and gen refuse options of another kind (or workload) before any work', () => {
    const cases = [
      ...[
        ['--M', '8'],
        ['--ef-construction', '40'],
        ['--ef', '10'],
        ['--bits', '4'],
        ['--seed', '1'],
        ['--storage', 'sq8'],
        ['--no-vectors'],
      ].map((o) => ['compare', base, queries, '--index', 'flat', ...o]),
      ...[
        ['--M', '8'],
        ['--ef', '10'],
        ['--storage', 'f32'],
      ].map((o) => ['compare', base, queries, '--index', 'quantized', ...o]),
      ...[['--bits', '2'], ['--no-vectors']].map((o) => ['compare', base, queries, '--index', 'hnsw', ...o]),
      ...[
        ['--M', '8'],
        ['--ef-construction', '40'],
        ['--ef', '10'],
      ].map((o) => ['demo', '--index', 'flat', '--rows', '100', '--queries', '2', '--dim', '8', ...o]),
      ['demo', '--index', 'quantized', '--rows', '100', '--queries', '2', '--dim', '8', '--ef', '10'],
    ];
    for (const args of cases) {
      const option = args.at(-1).startsWith('--') ? args.at(-1) : args.at(-2);
      const r = run([...args, '-k', '3']);
      assertRefused(r, args, option);
      assert.equal(r.stdout, '', `${args.join(' ')} printed a result`);
    }
    const out = emptyDir();
    const args = [
      'gen',
      'seed',
      '-o',
      out,
      '--rows',
      '100',
      '--queries',
      '2',
      '--dim',
      '8',
      '-k',
      '5',
      '-q',
      '--clusters',
      '4',
    ];
    const r = run(args);
    assertRefused(r, args, '--clusters');
    assert.match(r.stderr, /does not apply to the seed workload/);
    assert.deepEqual(readdirSync(out), []);
  });

  test('the same options on the kind they belong to are accepted', () => {
    const ok = [
      [
        'build',
        base,
        '-o',
        join(emptyDir(), 'q.qvr'),
        '-q',
        '--index',
        'quantized',
        '--bits',
        '2',
        '--lists',
        '2',
        '--refine-bits',
        '3',
        '--seed',
        '7',
        '--no-vectors',
      ],
      [
        'build',
        base,
        '-o',
        join(emptyDir(), 'h.qvr'),
        '-q',
        '--index',
        'hnsw',
        '--storage',
        'sq8',
        '--M',
        '8',
        '--ef-construction',
        '40',
        '--ef-search',
        '20',
        '--neighbor-codes',
        '--no-vectors',
        '--threads',
        '1',
        '--seed',
        '3',
      ],
      ['search', files.hnsw, queries, '-k', '3', '-q', '--ef', '12'],
      ['search', files.sq8, queries, '-k', '3', '-q', '--ef', '12', '--rerank', '2'],
      ['search', files.partitioned, queries, '-k', '3', '-q', '--probes', '1'],
      ['search', files.quantized, queries, '-k', '3', '-q', '--rerank', '2'],
      ['search', files.flat, queries, '-k', '3', '-q', '--rerank', '2'], // shared by every kind; a note says flat is exact
      [
        'demo',
        '--index',
        'hnsw',
        '--rows',
        '100',
        '--queries',
        '2',
        '--dim',
        '8',
        '-k',
        '3',
        '--M',
        '8',
        '--ef-construction',
        '40',
        '--ef',
        '16',
      ],
      [
        'gen',
        'clustered',
        '-o',
        emptyDir(),
        '--rows',
        '200',
        '--queries',
        '2',
        '--dim',
        '8',
        '-k',
        '5',
        '-q',
        '--clusters',
        '4',
      ],
    ];
    for (const args of ok) {
      const r = run(args);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    }
  });

  test('gen and demo sizes that cannot fit are coded errors before anything is allocated or written', () => {
    const cases = [
      ['gen', 'seed', '--rows', U64_MAX],
      ['gen', 'seed', '--rows', '2147483648'], // ground-truth ids are int32
      ['gen', 'seed', '--queries', U64_MAX],
      ['gen', 'seed', '--dim', U64_MAX],
      ['gen', 'seed', '--dim', '16777217'],
      ['gen', 'clustered', '--rows', '100', '-k', '5', '--clusters', U64_MAX],
      ['gen', 'seed', '--rows', '2147483647'], // 2^31 - 1 x 384 floats: terabytes
      ['demo', '--rows', U64_MAX],
      ['demo', '--dim', U64_MAX],
    ];
    for (const args of cases) {
      const out = emptyDir();
      const full = args[0] === 'gen' ? [...args, '-o', out, '-q'] : args;
      const r = runLimited(1 << 20, full);
      assert.equal(r.status, 1, `${full.join(' ')}: status ${r.status}, signal ${r.signal}, stderr ${r.stderr}`);
      assert.match(r.stderr, /^quiver: error \[(INVALID_ARGUMENT|OUT_OF_MEMORY)\]: (gen|demo): /m, full.join(' '));
      assert.doesNotMatch(r.stderr, /std::|max_size|bad_alloc/, full.join(' '));
      assert.deepEqual(readdirSync(out), [], `${full.join(' ')} wrote files`);
    }
  });

  test('--lists beyond 65536 (2^64 - 1 was read as auto) or beyond 2^64 is refused; 65536 and auto are not', () => {
    for (const lists of [U64_MAX, '18446744073709551616', '65537', '99999999999999999999999']) {
      const out = join(emptyDir(), 'x.qvr');
      const r = run(['build', base, '-o', out, '-q', '--index', 'quantized', '--lists', lists]);
      assert.equal(r.status, 2, `--lists ${lists}: status ${r.status}, stdout ${r.stdout}, stderr ${r.stderr}`);
      assert.match(r.stderr, /--lists: expected auto or a whole number in \[0, 65536\]/);
      assert.equal(existsSync(out), false, `--lists ${lists} wrote ${out}`);
    }
    for (const [lists, shown] of [
      ['65536', /\(65536\)/],
      ['auto', /\(auto\)/],
    ]) {
      const r = run([
        'build',
        base,
        '-o',
        join(emptyDir(), 'x.qvr'),
        '-q',
        '--json',
        '--index',
        'quantized',
        '--lists',
        lists,
      ]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(JSON.parse(r.stdout).params, shown);
    }
  });

  test('gen --rows 0, --queries 0 and --clusters 0 are errors, not the defaults', () => {
    for (const [workload, option] of [
      ['seed', '--rows'],
      ['seed', '--queries'],
      ['clustered', '--clusters'],
      ['embedding', '--clusters'],
    ]) {
      const out = emptyDir();
      const args = [
        'gen',
        workload,
        '-o',
        out,
        '-q',
        '--dim',
        '8',
        '-k',
        '5',
        '--rows',
        '200',
        '--queries',
        '2',
        option,
        '0',
      ];
      const r = run(args);
      assert.equal(r.status, 2, `${args.join(' ')}: status ${r.status}, stdout ${r.stdout}`);
      assert.match(r.stderr, new RegExp(`${option}: expected a whole number >= 1, got '0'`));
      assert.deepEqual(readdirSync(out), [], `${args.join(' ')} wrote files`);
    }
  });

  test('gen --name must be a plain file name: nothing is written outside -o', () => {
    const parent = emptyDir();
    const out = join(parent, 'out');
    mkdirSync(out);
    mkdirSync(join(out, 'sub'));
    for (const name of ['../escaped', '../../escaped', 'sub/x', '/tmp/quiver-cli-options-abs', '..', '.', '', 'a\\b']) {
      const r = run([
        'gen',
        'seed',
        '-o',
        out,
        '--name',
        name,
        '--rows',
        '50',
        '--queries',
        '2',
        '--dim',
        '4',
        '-k',
        '5',
        '-q',
      ]);
      assert.equal(r.status, 2, `--name '${name}': status ${r.status}, stdout ${r.stdout}`);
      assert.match(r.stderr, /--name: expected a plain file name/);
    }
    assert.deepEqual(readdirSync(parent), ['out']);
    assert.deepEqual(readdirSync(out), ['sub']);
    assert.deepEqual(readdirSync(join(out, 'sub')), []);
    assert.equal(existsSync('/tmp/quiver-cli-options-abs.base.fbin'), false);
    // Dots inside a name are fine: it is still one file name in -o.
    const r = run([
      'gen',
      'seed',
      '-o',
      out,
      '--name',
      'v1.2..x',
      '--rows',
      '50',
      '--queries',
      '2',
      '--dim',
      '4',
      '-k',
      '5',
      '-q',
    ]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readdirSync(out).sort(), ['sub', 'v1.2..x.base.fbin', 'v1.2..x.gt.ibin', 'v1.2..x.queries.fbin']);
  });

  test('--gt with no valid id is an error; rows without one are left out of the recall, with a note', () => {
    const none = join(work, 'none.ibin');
    writeIbin(none, 3, 2, [-1, -1, -1, -5, -2147483648, -1]);
    for (const args of [
      ['search', files.flat, queries, '-k', '2', '-q', '--gt', none],
      ['compare', base, queries, '-k', '2', '-q', '--gt', none],
    ]) {
      const r = run(args);
      assert.equal(r.status, 1, `${args.join(' ')}: status ${r.status}, stdout ${r.stdout}, stderr ${r.stderr}`);
      assert.match(r.stderr, /^quiver: error \[INVALID_ARGUMENT\]: .*none\.ibin: the ground truth has no valid id/m);
      assert.equal(r.stdout, '');
    }
    // Rows 0 and 2 have no valid id; row 1 names a vector that is not query 1's nearest, so the
    // one measured query has recall 0 (rows without an id used to count as 1: 2/3 overall).
    const exact = JSON.parse(run(['search', files.flat, queries, '-k', '1', '-q', '--json']).stdout);
    const wrong = (exact.ids[1][0] + 1) % ROWS;
    const some = join(work, 'some.ibin');
    writeIbin(some, 3, 1, [-1, wrong, -7]);
    const r = run(['search', files.flat, queries, '-k', '1', '-q', '--json', '--gt', some]);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.recall, 0);
    assert.equal(out.recall_queries, 1);
    assert.match(r.stderr, /note: 2 of 3 queries have no valid id/);
  });
});
