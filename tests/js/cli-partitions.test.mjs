// The native CLI's partitioned quantised index: `build --lists N|auto [--refine-bits B]` and
// `search --probes P`; bad values are refused with INVALID_ARGUMENT and a non-zero exit.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cli, requireCli, workDir, writeFbin } from './support.mjs';

const ROWS = 600;
const DIM = 8;

function vectors(rows, dim, seed) {
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = Math.sin(i * 1.37 + seed) + (Math.floor(i / dim) % 5);
  return out;
}

function run(args) {
  return spawnSync(cli, args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 26 });
}

const work = workDir('quiver-cli-partitions-');
const base = join(work, 'base.fbin');
const queries = join(work, 'queries.fbin');
const part = join(work, 'part.qvr');

describe('quiver CLI partitions', () => {
  before(() => {
    requireCli();
    writeFbin(base, ROWS, DIM, vectors(ROWS, DIM, 0));
    writeFbin(queries, 4, DIM, vectors(4, DIM, 3));
  });

  test('build --lists 8 --refine-bits 3 trains 8 lists; search --probes takes a count', () => {
    const b = run([
      'build',
      base,
      '-o',
      part,
      '--index',
      'quantized',
      '--lists',
      '8',
      '--refine-bits',
      '3',
      '--no-vectors',
      '-q',
      '--json',
    ]);
    assert.equal(b.status, 0, b.stderr);
    const params = JSON.parse(b.stdout).params;
    assert.match(params, /8 lists \(8\)/);
    assert.match(params, /refine plane 3 bits/);
    for (const probes of ['1', '8']) {
      const s = run(['search', part, queries, '-k', '5', '--probes', probes, '--json']);
      assert.equal(s.status, 0, s.stderr);
      assert.equal(JSON.parse(s.stdout).k, 5);
    }
  });

  test('--refine-bits takes every width the core does (1..5, over 2- and 4-bit codes) and refuses 6', () => {
    for (const bits of ['2', '4']) {
      for (const refine of ['1', '5']) {
        const out = join(work, `refine-${bits}-${refine}.qvr`);
        const b = run([
          'build',
          base,
          '-o',
          out,
          '--index',
          'quantized',
          '--bits',
          bits,
          '--lists',
          '4',
          '--refine-bits',
          refine,
          '--no-vectors',
          '-q',
          '--json',
        ]);
        assert.equal(b.status, 0, b.stderr);
        assert.match(JSON.parse(b.stdout).params, new RegExp(`refine plane ${refine} bits`));
        const s = run(['search', out, queries, '-k', '5', '--json']);
        assert.equal(s.status, 0, s.stderr);
        assert.equal(JSON.parse(s.stdout).k, 5);
      }
    }
    const out = join(work, 'refine-6.qvr');
    const r = run(['build', base, '-o', out, '--index', 'quantized', '--refine-bits', '6', '--no-vectors', '-q']);
    assert.notEqual(r.status, 0, '--refine-bits 6 was accepted');
    assert.match(r.stderr, /refine-bits/);
    assert.equal(existsSync(out), false);
  });

  test('--lists auto before 4096 vectors is one list (a full scan)', () => {
    const out = join(work, 'auto.qvr');
    const b = run(['build', base, '-o', out, '--index', 'quantized', '--lists', 'auto', '-q', '--json']);
    assert.equal(b.status, 0, b.stderr);
    assert.match(JSON.parse(b.stdout).params, /1 lists \(auto\)/);
  });

  test('bad --lists and --probes values are refused', () => {
    for (const lists of ['-3', 'many', '70000', '3x']) {
      const out = join(work, `bad-${lists}.qvr`);
      const r = run(['build', base, '-o', out, '--index', 'quantized', '--lists', lists, '-q']);
      assert.notEqual(r.status, 0, `--lists ${lists} was accepted`);
      assert.match(r.stderr, /INVALID_ARGUMENT|lists/);
      assert.equal(existsSync(out), false);
    }
    const r = run(['search', part, queries, '--probes', '-1']);
    assert.notEqual(r.status, 0);
  });
});
