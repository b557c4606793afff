// The README's "largest index that fits in a 128 MB isolate" table (issue 12), measured. For
// one kind and storage: build it once in steps (bench/edge-memory/measure.mjs build, saving the
// files from FROM rows on), load every saved file in a fresh module from a stream
// (bench/edge-memory/measure.mjs load) and take the largest whose wasm memory after the load and
// 10 searches is at most 120 MB (8 MB of the isolate left to JS); load that one from bytes too,
// and the sizes on both sides of the limit in workerd (bench/edge-memory/workerd.mjs). Memory,
// not time: other work on the machine does not change the figures. One kind at a time — the
// files of a compact kind near the limit take a few GB of disk.
//   node bench/edge-memory/run.mjs run KIND FROM TO STEP   appends one JSON line to $WORK/table.jsonl
//   node bench/edge-memory/run.mjs report [OUT.json]       the lines, with machine and method, as one
//                                                          file (default
//                                                          bench/edge-memory/results/edge-memory-<time>.json)
// WORK: where the files go (default /tmp/quiver-edge-memory). VARIANT: the module that builds
// (default simd; simd-mt builds HNSW with 2 threads). The loads always use the simd module.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const resultsDir = join(root, 'bench', 'edge-memory', 'results');
const work = process.env.WORK ?? '/tmp/quiver-edge-memory';
const FIT_MB = 120;

// The JSON lines a script of this folder prints.
function runJson(script, args, env = {}) {
  const r = spawnSync(process.execPath, [join(root, 'bench', 'edge-memory', script), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`${script} ${args.join(' ')} exited with ${r.status}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

function run(kind, from, to, step) {
  const dir = join(work, kind);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const variant = process.env.VARIANT ?? 'simd';
  const build = runJson('measure.mjs', ['build', kind, String(to), String(step), dir, String(from)], {
    VARIANT: variant,
  });
  // Steps before the first save are the build's own figures; later ones include serialize().
  const buildSteps = build.map((b) => ({ ...b, saved: b.n !== undefined && b.n >= from }));
  const sizes = readdirSync(dir)
    .map((f) => Number(f.replace('.qvr', '')))
    .sort((a, b) => a - b);
  const loads = [];
  let fits, next;
  for (const n of sizes) {
    const [line] = runJson('measure.mjs', ['load', join(dir, `${n}.qvr`)]);
    loads.push(line);
    console.error(`${kind} ${n}: ${line.heapMB} MB (memoryBytes ${line.reportedMB} MB, growth ${line.growthRatio}x)`);
    if (line.heapMB <= FIT_MB) fits = line;
    else {
      next = line;
      break;
    }
  }
  const result = {
    kind,
    variant,
    from,
    to,
    step,
    build: buildSteps,
    loads,
    fits: fits?.size ?? null,
    next: next?.size ?? null,
  };
  if (fits) {
    result.bytesLoad = runJson('measure.mjs', ['load', join(dir, `${fits.size}.qvr`), 'bytes'])[0];
    if (process.env.WORKERD !== '0') {
      const files = [fits, next].filter(Boolean).map((l) => join(dir, `${l.size}.qvr`));
      result.workerd = runJson('workerd.mjs', files);
    }
  }
  mkdirSync(work, { recursive: true });
  appendFileSync(join(work, 'table.jsonl'), `${JSON.stringify(result)}\n`);
  console.log(
    JSON.stringify({
      kind,
      fits: result.fits,
      next: result.next,
      workerd: result.workerd?.map((w) => [w.size, w.heapMB]),
    }),
  );
}

function report(out) {
  const date = new Date().toISOString().slice(0, 16) + 'Z';
  out ??= join(resultsDir, `edge-memory-${date.replace(/:/g, '')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  const lines = readFileSync(join(work, 'table.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const git = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const workerdBin = join(root, 'node_modules', '.bin', 'workerd');
  const workerd = existsSync(workerdBin)
    ? spawnSync(workerdBin, ['--version'], { encoding: 'utf8' }).stdout.trim()
    : null;
  const kinds = {};
  for (const l of lines) kinds[l.kind] = l; // the last run of each kind
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        benchmark: 'edge-memory',
        date,
        commit: git,
        machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version, workerd },
        workload:
          'dim 384, i.i.d. Gaussian rows normalised to unit length (bench/edge-memory/measure.mjs, mulberry32 seeds), metric cosine; HNSW M 16, efConstruction 100; quantised 4-bit (r3: + 3-bit refine plane; ivf: partitioned, lists auto)',
        method: {
          table:
            'node bench/edge-memory/run.mjs run KIND FROM TO STEP for each kind: one build in steps of STEP rows saving each file from FROM rows on, then each file loaded in a fresh simd module from a stream (node bench/edge-memory/measure.mjs load FILE: loadFrom(ReadableStream, {size}) and 10 searches); fits = the largest whose wasm memory after that is <= 120 MB; that file also loaded from bytes, and it and the next size in workerd (node bench/edge-memory/workerd.mjs FILE...: the worker fetches the file through a service binding, as from R2)',
          heap: "heapMB: the module's wasm memory (q.heapBytes(), the peak: it never shrinks); ratio = heapMB / reportedMB (memoryBytes); growthRatio = (heapMB - startMB) / reportedMB, the issue's 1.2x goal",
          build:
            'build lines with saved: false are the build alone; from the first saved step on they include serialize(), which holds the file in the heap beside the index',
          memoryOnly: 'memory figures only: the machine was shared with other builds',
        },
        kinds,
      },
      null,
      1,
    )}\n`,
  );
  console.log(`wrote ${out}`);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'run') run(args[0], Number(args[1]), Number(args[2]), Number(args[3]));
else if (mode === 'report') report(args[0]);
else {
  console.error('usage: run.mjs run KIND FROM TO STEP | report [OUT.json]');
  process.exit(2);
}
