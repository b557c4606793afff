// Quiver native, through the `quiver` CLI (no addon): `quiver build` per index kind (1 thread and
// all threads for HNSW; flat and quantised builds are single-threaded), then `quiver search
// --json` per swept value with 1 query thread (one query per call: QPS and the latency the CLI
// measures around each call) and with all threads (the parallel "batch" figure). Recall is
// computed here from the ids the CLI returns, not taken from the CLI. Peak RSS of the build
// process comes from getrusage (via python3), since Node cannot see a child's.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { K, recallAtK } from '../lib/data.mjs';
import { EF_CONSTRUCTION, EF_VALUES, M, PROBE_VALUES } from './common.mjs';

const RUSAGE =
  'import resource, subprocess, sys\n' +
  'p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)\n' +
  'sys.stdout.buffer.write(p.stdout)\n' +
  'print("MAXRSS_KB", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n' +
  'sys.exit(p.returncode)\n';

export async function open(ctx) {
  const cli = ctx.cli;
  const { files } = ctx.workload;
  const all = os.cpus().length;
  const dir = `${ctx.tmpDir}/quiver-native-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  const isa = JSON.parse(execFileSync(cli, ['info', '--json'], { encoding: 'utf8' })).isa ?? 'unknown';
  const build = (kind, extra, threads, file) => {
    // --threads is an HNSW build option (the CLI refuses it for flat and quantised builds, which add on one thread).
    const threadArgs = kind === 'hnsw' ? ['--threads', String(threads)] : [];
    const args = [
      cli,
      'build',
      files.base,
      '-o',
      file,
      '--index',
      kind,
      '--metric',
      'l2',
      ...threadArgs,
      '--json',
      '-q',
      ...extra,
    ];
    let out,
      rssKb = null;
    try {
      out = execFileSync('python3', ['-c', RUSAGE, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
      rssKb = Number(/MAXRSS_KB (\d+)/.exec(out)[1]);
      out = out.slice(0, out.indexOf('MAXRSS_KB'));
    } catch (e) {
      if (e.code !== 'ENOENT') throw e; // no python3: no peak RSS, the rest as usual
      out = execFileSync(args[0], args.slice(1), { encoding: 'utf8', maxBuffer: 1 << 26 });
    }
    const j = JSON.parse(out);
    return {
      threads,
      build_s: j.build_ms / 1000,
      peak_rss_bytes: rssKb && rssKb * 1024,
      library_bytes: j.memory_bytes,
      file_bytes: j.file_bytes,
    };
  };
  const search = (file, extra, threads) => {
    const j = JSON.parse(
      execFileSync(
        cli,
        ['search', file, files.queries, '-k', String(K), '--threads', String(threads), '--json', '-q', ...extra],
        { encoding: 'utf8', maxBuffer: 1 << 28 },
      ),
    );
    return { qps: j.qps, mean_us: j.latency_us.mean, p99_us: j.latency_us.p99, ids: j.ids };
  };
  const configs = [
    { name: 'flat', kind: 'flat', build: [], param: null, values: [null], threads: [1], arg: () => [] },
    {
      name: 'quantized 4-bit',
      kind: 'quantized',
      build: ['--bits', '4'],
      param: 'rerank',
      values: [0, 1, 2, 4, 8, 16],
      threads: [1],
      arg: (v) => ['--rerank', String(v)],
    },
    ...['f32', 'sq8'].map((storage) => ({
      name: `hnsw ${storage}`,
      kind: 'hnsw',
      param: 'ef',
      values: EF_VALUES,
      threads: [1, all],
      build: ['--M', String(M), '--ef-construction', String(EF_CONSTRUCTION), '--storage', storage],
      arg: (v) => ['--ef', String(v)],
    })),
    {
      name: 'hnsw sq8 codes only',
      kind: 'hnsw',
      param: 'ef',
      values: EF_VALUES,
      threads: [1, all],
      build: ['--M', String(M), '--ef-construction', String(EF_CONSTRUCTION), '--storage', 'sq8', '--no-vectors'],
      arg: (v) => ['--ef', String(v)],
    },
    {
      name: 'partitioned 4+3-bit codes only',
      kind: 'quantized',
      param: 'probes',
      values: PROBE_VALUES,
      threads: [1],
      build: ['--bits', '4', '--refine-bits', '3', '--lists', 'auto', '--no-vectors'],
      arg: (v) => ['--probes', String(v)],
    },
  ];
  const gt = ctx.wl.gt;
  const runAll = async () => {
    const results = [];
    for (const c of configs) {
      const file = `${dir}/${c.kind}.qvr`;
      const builds = c.threads.map((t) => build(c.kind, c.build, t === all ? 0 : t, file));
      builds.forEach((b, i) => {
        b.threads = c.threads[i];
        ctx.log(`  ${c.name}: built with ${b.threads} thread(s) in ${b.build_s.toFixed(2)} s`);
      });
      const rows = [];
      for (const v of c.values) {
        const one = search(file, c.arg(v), 1);
        const par = search(file, c.arg(v), all);
        const row = {
          config: c.name,
          param: c.param,
          value: v,
          recall: recallAtK(one.ids, gt),
          qps: one.qps,
          mean_us: one.mean_us,
          p99_us: one.p99_us,
          batch: [{ threads: all, qps: par.qps, recall: recallAtK(par.ids, gt) }],
        };
        ctx.log(
          `  ${c.name} ${c.param ?? ''} ${v ?? ''}: recall ${row.recall.toFixed(3)}, ${row.qps.toFixed(0)} QPS, ${all} threads ${par.qps.toFixed(0)} QPS`,
        );
        rows.push(row);
      }
      results.push({ config: c.name, builds, rows, notes: [] });
    }
    return results;
  };
  return {
    library: 'quiver',
    version: 'this commit',
    target: `native ${isa} (CLI)`,
    notes: [
      'one query per call = `quiver search --threads 1`; "batch" = `--threads N` (queries spread over N threads)',
      'build rows: peak RSS of the build process (includes reading the base file)',
    ],
    runAll,
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
