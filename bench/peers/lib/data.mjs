// The peer benchmark's workloads: generated once by `quiver gen` (the project's deterministic
// generators, exact ground truth by the flat index) and cached under bench/peers/results/tmp/, so
// every library in every child process reads the same bytes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

export const K = 10;

// Full size: the seed workload, clustered 100k and embedding-like 100k, 384 dimensions.
// QUICK=1: the same generators at 2,000 rows and 100 queries (a smoke test of the whole path).
export function workloadList(quick) {
  const dim = 384;
  if (quick) {
    return ['seed', 'clustered', 'embedding'].map((kind) => ({ name: kind, kind, rows: 2000, queries: 100, dim }));
  }
  return [
    { name: 'seed', kind: 'seed', rows: 10000, queries: 256, dim },
    { name: 'clustered', kind: 'clustered', rows: 100000, queries: 1000, dim },
    { name: 'embedding', kind: 'embedding', rows: 100000, queries: 1000, dim },
  ];
}

// Writes the files if they are not cached yet; returns the workload with its file paths.
export function ensureWorkload(w, { cli, cacheDir, log = () => {} }) {
  const stem = `${w.kind}-${w.rows}x${w.dim}-q${w.queries}`;
  const files = {
    base: `${cacheDir}/${stem}.base.fbin`,
    queries: `${cacheDir}/${stem}.queries.fbin`,
    gt: `${cacheDir}/${stem}.gt.ibin`,
  };
  const done = `${cacheDir}/${stem}.json`; // written last: its presence means the three files are whole
  if (!existsSync(done)) {
    mkdirSync(cacheDir, { recursive: true });
    log(`generating ${stem} (quiver gen ${w.kind}, exact top-${K} ground truth) ...`);
    const out = execFileSync(
      cli,
      [
        'gen',
        w.kind,
        '-o',
        cacheDir,
        '--name',
        stem,
        '--rows',
        String(w.rows),
        '--queries',
        String(w.queries),
        '--dim',
        String(w.dim),
        '-k',
        String(K),
        '--json',
        '-q',
      ],
      { encoding: 'utf8' },
    );
    writeFileSync(done, out);
  }
  return { ...w, files, generator: JSON.parse(readFileSync(done, 'utf8')) };
}

// .fbin: int32 rows, int32 dim, then rows x dim float32 (little-endian).
export function readFbin(path) {
  const buf = readFileSync(path);
  const rows = buf.readInt32LE(0),
    dim = buf.readInt32LE(4);
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + rows * dim * 4));
  return { rows, dim, data };
}

// .ibin: int32 rows, int32 k, then rows x k int32 ids.
export function readIbin(path) {
  const buf = readFileSync(path);
  const rows = buf.readInt32LE(0),
    k = buf.readInt32LE(4);
  const ids = new Int32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + rows * k * 4));
  return { rows, k, ids };
}

export function loadWorkload(w) {
  const base = readFbin(w.files.base),
    queries = readFbin(w.files.queries),
    gt = readIbin(w.files.gt);
  if (base.dim !== queries.dim || gt.rows !== queries.rows || gt.k < K)
    throw new Error(`${w.name}: inconsistent workload files`);
  return { ...w, base, queries, gt };
}

// recall@K: |returned ∩ true top-K| / K, averaged over queries. `results[i]` is any array-like
// of ids (numbers); only the first K count, and an id is counted once.
export function recallAtK(results, gt) {
  let hit = 0;
  for (let q = 0; q < results.length; q++) {
    const truth = new Set(gt.ids.subarray(q * gt.k, q * gt.k + K));
    const seen = new Set();
    const r = results[q];
    for (let j = 0; j < Math.min(K, r.length); j++) {
      const id = Number(r[j]);
      if (truth.has(id) && !seen.has(id)) hit++;
      seen.add(id);
    }
  }
  return hit / (results.length * K);
}
