// The second table of `npm run demo`: the partitioned quantised index (inverted lists, 4-bit
// codes + 3-bit refine plane, no f32 vectors) beside the exact flat index, on the embedding-like
// workload (`quiver gen embedding`: 50,000 × 384, 1,000 topics, 200 queries, exact top-10) —
// the kind of data it is for (unit-Gaussian vectors have no neighbourhoods for lists to find).
// Native at every ISA level through the quiver CLI (build, then search --isa), wasm in every
// variant through the npm package in this process. Prints build time, queries per second (one
// query per call, one thread), recall@10, bytes per vector, and whether the ids equal the native
// scalar run of the same index.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Quiver, VARIANTS } from '../js/index.js';

const ROWS = 50000,
  QUERIES = 200,
  DIM = 384,
  K = 10;
const BUILD_CHUNK = Math.max(1024, Math.floor(ROWS / 100)); // as src/cli/build.cpp
const PARTITIONED = { metric: 'cosine', bits: 4, keepVectors: false, refineBits: 3, lists: 'auto' };

function readBin(path, Type) {
  const buf = readFileSync(path);
  const rows = buf.readInt32LE(0),
    cols = buf.readInt32LE(4);
  return { rows, cols, data: new Type(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + rows * cols * 4)) };
}

function recall(ids, gt) {
  let hit = 0;
  for (let q = 0; q < QUERIES; q++) {
    const want = new Set(gt.data.subarray(q * gt.cols, q * gt.cols + K));
    for (let j = 0; j < K; j++) if (want.has(ids[q * K + j])) hit++;
  }
  return hit / (QUERIES * K);
}

function nativeRuns(cli, isas, files, dir) {
  const runs = [];
  for (const [kind, args] of [
    ['flat', ['--index', 'flat']],
    ['partitioned', ['--index', 'quantized', '--bits', '4', '--lists', 'auto', '--refine-bits', '3', '--no-vectors']],
  ]) {
    const file = join(dir, `${kind}.qvr`);
    const b = JSON.parse(
      execFileSync(cli, ['build', files.base, '-o', file, '--metric', 'cosine', ...args, '--json', '-q'], {
        encoding: 'utf8',
      }),
    );
    for (const isa of isas) {
      const s = JSON.parse(
        execFileSync(cli, ['search', file, files.queries, '-k', `${K}`, '--isa', isa, '--json', '-q'], {
          encoding: 'utf8',
          maxBuffer: 1 << 28,
        }),
      );
      runs.push({
        kind,
        target: 'native',
        variant: 'native',
        isa,
        buildMs: b.build_ms,
        qps: s.qps,
        bytesPerVector: b.memory_bytes / ROWS,
        ids: s.ids.flat().map(Number),
        lists: /(\d+) lists/.exec(b.params ?? '')?.[1],
      });
    }
  }
  return runs;
}

async function wasmRuns(variant, base, queries) {
  const q = await Quiver.init({ variant });
  const runs = [];
  try {
    const ids = Float64Array.from({ length: ROWS }, (_, i) => i);
    for (const kind of ['flat', 'partitioned']) {
      const t0 = performance.now();
      const index =
        kind === 'flat'
          ? new q.FlatIndex({ dim: DIM, metric: 'cosine' })
          : new q.QuantizedIndex({ dim: DIM, ...PARTITIONED });
      // In the chunks `quiver build` adds (src/cli/build.cpp); lists are trained at fixed sizes
      // (4,096 * 2^j) on the first rows, so any batching gives the same index, hence the same
      // ids, as the native build.
      for (let at = 0; at < ROWS; at += BUILD_CHUNK) {
        const end = Math.min(ROWS, at + BUILD_CHUNK);
        index.add(ids.subarray(at, end), base.data.subarray(at * DIM, end * DIM));
      }
      const t1 = performance.now();
      const found = new Array(QUERIES * K);
      let passes = 0,
        elapsed = 0;
      do {
        // one pass for the answers, then repeat until 0.5 s has been measured (as the CLI does)
        for (let i = 0; i < QUERIES; i++) {
          const r = index.search(queries.data.subarray(i * DIM, (i + 1) * DIM), K);
          if (passes === 0) for (let j = 0; j < K; j++) found[i * K + j] = r.ids[j];
        }
        passes++;
        elapsed = performance.now() - t1;
      } while (elapsed < 500);
      runs.push({
        kind,
        target: 'wasm',
        variant,
        isa: index.isa,
        buildMs: t1 - t0,
        qps: (passes * QUERIES) / (elapsed / 1000),
        bytesPerVector: index.memoryBytes / ROWS,
        ids: found,
        lists: kind === 'partitioned' ? index.lists : undefined,
      });
      index.dispose();
    }
  } finally {
    q.terminate();
  }
  return runs;
}

// Runs the comparison and prints its table; returns true when every target agreed.
export async function partitionedDemo({ cli, isas, progress }) {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-demo-'));
  try {
    progress('  generating the embedding-like workload ...');
    execFileSync(
      cli,
      [
        'gen',
        'embedding',
        '-o',
        dir,
        '--name',
        'emb',
        '--rows',
        `${ROWS}`,
        '--queries',
        `${QUERIES}`,
        '--dim',
        `${DIM}`,
        '-k',
        `${K}`,
        '--metric',
        'cosine',
        '-q',
      ],
      { encoding: 'utf8' },
    );
    const files = { base: join(dir, 'emb.base.fbin'), queries: join(dir, 'emb.queries.fbin') };
    const base = readBin(files.base, Float32Array),
      queries = readBin(files.queries, Float32Array);
    const gt = readBin(join(dir, 'emb.gt.ibin'), Int32Array);
    progress('  running native flat and partitioned ...');
    const runs = nativeRuns(cli, isas, files, dir);
    for (const variant of VARIANTS) {
      progress(`  running wasm ${variant} ...`);
      runs.push(...(await wasmRuns(variant, base, queries)));
    }
    progress('');
    const reference = (kind) => runs.find((r) => r.kind === kind && r.target === 'native' && r.isa === 'scalar').ids;
    const same = (r) => r.ids.every((v, i) => v === reference(r.kind)[i]);
    const lists = runs.find((r) => r.kind === 'partitioned')?.lists;
    const name = (kind) => (kind === 'flat' ? 'flat f32' : `partitioned 4+3-bit, ${lists} lists, codes only`);
    const rows = runs.map((r) => [
      name(r.kind),
      r.target,
      r.variant,
      r.isa,
      r.buildMs.toFixed(1),
      Math.round(r.qps).toLocaleString('en-US'),
      recall(r.ids, gt).toFixed(4),
      r.bytesPerVector.toFixed(1),
      same(r) ? 'yes' : 'NO',
    ]);
    const header = [
      'index',
      'target',
      'variant',
      'isa',
      'build ms',
      'queries/s',
      'recall@10',
      'bytes/vector',
      'ids = native scalar',
    ];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
    console.log(
      `\nPartitioned quantised index — embedding-like ${ROWS.toLocaleString('en-US')} × ${DIM} (quiver gen embedding), ` +
        `${QUERIES} queries, k = ${K}, cosine, default probes, one query per call, one thread`,
    );
    console.log(line(header));
    console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
    for (const r of rows) console.log(line(r));
    const best = (t, kind) => Math.max(...runs.filter((r) => r.target === t && r.kind === kind).map((r) => r.qps));
    console.log(
      `\npartitioned / flat queries/s: native ${(best('native', 'partitioned') / best('native', 'flat')).toFixed(2)}, ` +
        `wasm ${(best('wasm', 'partitioned') / best('wasm', 'flat')).toFixed(2)}; ` +
        `partitioned: best wasm / best native = ${(best('wasm', 'partitioned') / best('native', 'partitioned')).toFixed(2)}`,
    );
    console.log(
      'native rows: one `quiver build` at the best ISA level (its build time), searched at each level (`search --isa`)',
    );
    const allSame = runs.every(same);
    console.log(
      allSame
        ? 'every ISA level and every wasm variant returned identical ids, for each index'
        : 'WARNING: result ids differ between targets',
    );
    return allSame;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
