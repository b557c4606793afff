// The native CLI at its edges: k far beyond the index size, counts that are negative or not
// numbers, a signal in the middle of writing an index file, and paths that are not regular
// files (a FIFO would block an open() for reading forever).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli, requireCli, workDir, writeFbin } from './support.mjs';

const ROWS = 200;
const DIM = 8;
// A guard so a regression that blocks fails the test instead of hanging the run; the
// assertions are about exit codes and files, never about how long anything took.
const HANG_GUARD_MS = 60_000;

function vectors(rows, dim, seed) {
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = Math.sin(i * 1.37 + seed);
  return out;
}

function run(args, options = {}) {
  return spawnSync(cli, args, { encoding: 'utf8', timeout: HANG_GUARD_MS, maxBuffer: 1 << 26, ...options });
}

// The same command under an address-space limit (bash's ulimit -v, in KiB), so allocating
// for k instead of min(k, rows) fails where it would otherwise only be slow.
function runLimited(kib, args) {
  const quoted = [cli, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return spawnSync('bash', ['-c', `ulimit -v ${kib} && exec ${quoted}`], {
    encoding: 'utf8',
    timeout: HANG_GUARD_MS,
    maxBuffer: 1 << 26,
  });
}

const work = workDir('quiver-cli-limits-');
const base = join(work, 'base.fbin');
const queries = join(work, 'queries.fbin');
const flat = join(work, 'flat.qvr');
const hnsw = join(work, 'hnsw.qvr');
const signalDirs = { SIGINT: workDir('quiver-cli-sigint-'), SIGTERM: workDir('quiver-cli-sigterm-') };
const plainDir = workDir('quiver-cli-nosignal-');

describe('quiver CLI limits', () => {
  before(() => {
    requireCli();
    writeFbin(base, ROWS, DIM, vectors(ROWS, DIM, 0));
    writeFbin(queries, 3, DIM, vectors(3, DIM, 7));
    for (const [file, extra] of [
      [flat, []],
      [hnsw, ['--index', 'hnsw', '--threads', '1']],
    ]) {
      const r = run(['build', base, '-o', file, '-q', ...extra]);
      assert.equal(r.status, 0, r.stderr);
    }
  });

  for (const k of ['100000000', '1000000000', '4294967295']) {
    test(`search -k ${k} on a ${ROWS}-vector index returns all ${ROWS} within a 1 GiB address space`, () => {
      for (const file of [flat, hnsw]) {
        const r = runLimited(1 << 20, ['search', file, queries, '-k', k, '--json', '--threads', '2']);
        assert.equal(r.status, 0, `${file}: ${r.stderr}`);
        const out = JSON.parse(r.stdout);
        assert.equal(out.k, ROWS);
        assert.equal(out.ids.length, 3);
        for (const row of out.ids)
          assert.deepEqual(
            [...row].sort((a, b) => a - b),
            [...Array(ROWS).keys()],
          );
      }
    });
  }

  test('counts that are negative, fractional, not numbers or out of range are usage errors (exit 2)', () => {
    const bad = [
      ['search', flat, queries, '-k', '-1'],
      ['search', flat, queries, '-k', '0'],
      ['search', flat, queries, '-k', 'abc'],
      ['search', flat, queries, '-k', '1.5'],
      ['search', flat, queries, '-k', '1e3'],
      ['search', flat, queries, '-k', '4294967296'],
      ['search', flat, queries, '-k', '99999999999999999999999'],
      ['search', flat, queries, '-k', ''],
      ['search', hnsw, queries, '--ef', '-1'],
      ['search', flat, queries, '--rerank', '-2'],
      ['search', flat, queries, '--threads', '-1'],
      ['search', flat, queries, '--limit', '-1'],
      ['build', base, '-o', join(work, 'x.qvr'), '--threads', '-1'],
      ['build', base, '-o', join(work, 'x.qvr'), '--index', 'hnsw', '--M', '-16'],
      ['build', base, '-o', join(work, 'x.qvr'), '--seed', '-1'],
      ['gen', 'seed', '-o', work, '-k', '-5'],
      ['demo', '-k', '-1'],
    ];
    for (const args of bad) {
      const r = run(args);
      assert.equal(r.status, 2, `${args.join(' ')}: status ${r.status}, stderr ${r.stderr}`);
      assert.match(r.stderr, /expected a whole number|Could not convert|Run with --help/, args.join(' '));
      assert.doesNotMatch(r.stderr, /std::|bad_alloc|max_size/, args.join(' '));
    }
    assert.equal(existsSync(join(work, 'x.qvr')), false);
  });

  for (const signal of ['SIGINT', 'SIGTERM']) {
    test(`${signal} while build writes the index file leaves neither the file nor a *.tmp-* behind`, async () => {
      const dir = signalDirs[signal];
      const out = join(dir, 'out.qvr');
      const child = spawn(cli, ['build', base, '-o', out, '--index', 'hnsw', '--threads', '1', '-q'], {
        env: { ...process.env, QUIVER_TEST_PAUSE_BEFORE_RENAME: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, sig })));
      const paused = new Promise((resolve) => {
        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const m = /paused before renaming (.*)\n/.exec(stderr);
          if (m) resolve(m[1]);
        });
      });
      const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS);
      const first = await Promise.race([paused.then((temp) => ({ temp })), exited.then((e) => ({ exit: e }))]);
      assert.ok(first.temp, `build ended before its write phase paused: ${JSON.stringify(first.exit)} ${stderr}`);
      // The write phase is really under way: the complete temporary file is on disk.
      assert.ok(existsSync(first.temp), `${first.temp} should exist while paused`);
      assert.match(first.temp, /out\.qvr\.tmp-\d+-\d+$/);
      child.kill(signal);
      const { code, sig } = await exited;
      clearTimeout(guard);
      // Ended by the signal itself (the handler re-raises it), so the exit is not a success.
      assert.equal(sig, signal, `exit code ${code}, signal ${sig}: ${stderr}`);
      assert.deepEqual(readdirSync(dir), [], 'nothing may be left in the output folder');
    });
  }

  test('build without a signal still writes the file (the cleanup handler is not in the way)', () => {
    const dir = plainDir;
    const out = join(dir, 'out.qvr');
    const r = run(['build', base, '-o', out, '-q']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readdirSync(dir), ['out.qvr']);
  });

  test('info and search on a FIFO fail at once with IO_ERROR instead of waiting for a writer', () => {
    const fifoIndex = join(work, 'pipe.qvr');
    const fifoVectors = join(work, 'pipe.fbin');
    for (const fifo of [fifoIndex, fifoVectors]) {
      const made = spawnSync('mkfifo', [fifo]);
      assert.equal(made.status, 0, String(made.stderr));
    }
    const cases = [
      ['info', fifoIndex],
      ['search', fifoIndex, queries],
      ['search', flat, fifoVectors],
      ['build', fifoVectors, '-o', join(work, 'from-fifo.qvr')],
    ];
    for (const args of cases) {
      const r = run(args);
      assert.equal(r.error, undefined, `${args.join(' ')}: ${r.error}`);
      assert.equal(r.signal, null, `${args.join(' ')} was killed (it blocked)`);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /\[IO_ERROR\].*pipe\.(qvr|fbin).*not a regular file/, args.join(' '));
    }
    // A directory is not a regular file either.
    const dirResult = run(['info', work]);
    assert.equal(dirResult.status, 1);
    assert.match(dirResult.stderr, /\[IO_ERROR\].*not a regular file/);
  });
});
