// Evidence for issue 15's variant anomaly (docs/hnsw.md): one HNSW index file searched by
// the wasm variants under Node in fresh processes, one query per call, in passes over the same
// queries right after the load, so a slow start (V8 runs wasm first in its baseline compiler,
// Liftoff, and recompiles a function with TurboFan only once it is hot) shows as slow early passes,
// and a slow process as a slow steady state.
//   node bench/hnsw/variant-passes.mjs INDEX_FILE QUERIES_FBIN
// e.g. an HNSW file from `quiver build base.fbin -o g.qvr --index hnsw --M 16 --ef-construction 200`
// and the queries of bench:peers' clustered workload (bench/peers/results/tmp/*.queries.fbin).
// Per process it prints the load time, each pass's QPS and first pass / steady (the median of
// passes 3 on); the last stdout line is all of it as JSON.
// Environment: VARIANTS ("simd simd-mt"), FLAGS (sets of V8 flags separated by '|', each set run
// in its own processes; "-" = none; default "-|--no-liftoff --no-wasm-lazy-compilation|--liftoff-only"), REPS (2),
// PASSES (8), QUERIES (256), EF (40). The processes run interleaved — rep by rep, flag set by flag
// set, variant by variant — so drift on a shared machine hits every series alike.
// A child (node [flags] bench/hnsw/variant-passes.mjs --child '<json>') prints one JSON line.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const now = () => performance.now();

function readQueries(path, count) {
  const buf = readFileSync(path);
  const rows = buf.readInt32LE(0),
    dim = buf.readInt32LE(4);
  const n = Math.min(rows, count);
  return { n, dim, data: new Float32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + n * dim * 4)) };
}

async function child({ variant, index: file, queries: qfile, passes, count, ef }) {
  const t0 = now();
  const { Quiver } = await import('../../js/index.js');
  const q = await Quiver.init({ variant, threads: variant === 'simd-mt' ? 2 : undefined });
  const initMs = now() - t0;
  const index = q.load(readFileSync(file));
  const loadMs = now() - t0 - initMs;
  const { n, dim, data } = readQueries(qfile, count);
  const passesQps = [];
  for (let p = 0; p < passes; p++) {
    const s = now();
    for (let i = 0; i < n; i++) index.search(data.subarray(i * dim, (i + 1) * dim), 10, { ef });
    passesQps.push(n / ((now() - s) / 1000));
  }
  index.dispose();
  q.terminate();
  return {
    variant,
    flags: process.execArgv,
    init_ms: Math.round(initMs),
    load_ms: Math.round(loadMs),
    heap_bytes: q.heapBytes(),
    passes_qps: passesQps.map(Math.round),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (process.argv[2] === '--child') {
  process.stdout.write(`${JSON.stringify(await child(JSON.parse(process.argv[3])))}\n`);
} else {
  const [index, queries] = process.argv.slice(2);
  if (!index || !queries) throw new Error('usage: node bench/hnsw/variant-passes.mjs INDEX_FILE QUERIES_FBIN');
  const variants = (process.env.VARIANTS ?? 'simd simd-mt').split(/\s+/).filter(Boolean);
  const flagSets = (process.env.FLAGS ?? '-|--no-liftoff --no-wasm-lazy-compilation|--liftoff-only')
    .split('|')
    .map((s) =>
      s
        .trim()
        .split(/\s+/)
        .filter((f) => f && f !== '-'),
    );
  const reps = Number(process.env.REPS ?? 2);
  const job = {
    index,
    queries,
    passes: Number(process.env.PASSES ?? 8),
    count: Number(process.env.QUERIES ?? 256),
    ef: Number(process.env.EF ?? 40),
  };
  const results = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const flags of flagSets) {
      for (const variant of variants) {
        const r = spawnSync(process.execPath, [...flags, here, '--child', JSON.stringify({ ...job, variant })], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        if (r.status !== 0) throw new Error(`${variant} ${flags.join(' ')}: exit ${r.status}`);
        const out = { rep, ...JSON.parse(r.stdout.trim().split('\n').pop()) };
        const steady = median(out.passes_qps.slice(2));
        out.steady_qps = steady;
        out.first_over_steady = +(out.passes_qps[0] / steady).toFixed(3);
        results.push(out);
        process.stderr.write(
          `rep ${rep} ${variant.padEnd(7)} ${(flags.join(' ') || '(default)').padEnd(16)} load ${String(out.load_ms).padStart(5)} ms  passes ${out.passes_qps.join(' ')}  first/steady ${out.first_over_steady}\n`,
        );
      }
    }
  }
  process.stdout.write(`${JSON.stringify({ job, node: process.version, results })}\n`);
}
