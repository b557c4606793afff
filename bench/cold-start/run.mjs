// Cold start: from a fresh process (Node) or a fresh workerd to the first answer, for each index
// kind at 10k and 100k vectors (dimension 384, the embedding-like workload), with the simd build
// through 'quiver-vector/simd' — what an edge function pays on its first request.
//   node bench/cold-start/run.mjs [--sizes 10000,100000] [--kinds flat,...] [--runs 3]
// Writes results/cold-start-<time>.{json,md,svg}. Knobs: WORK (index files, default
// /tmp/quiver-cold-start), QUIVER_CLI (default build/native/src/quiver, from
// scripts/build.sh native).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { gitCommit, machineInfo } from '../common/run-info.mjs';
import { bundleWorker, startWorkerd } from '../common/workerd-harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = join(root, 'bench', 'cold-start');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const KINDS = {
  flat: ['--index', 'flat'],
  quantized4: ['--index', 'quantized', '--bits', '4'],
  'ivf4r3-codes': ['--index', 'quantized', '--bits', '4', '--lists', 'auto', '--refine-bits', '3', '--no-vectors'],
  'hnsw-f32': ['--index', 'hnsw', '--threads', '2'],
  'hnsw-sq8-codes': ['--index', 'hnsw', '--storage', 'sq8', '--no-vectors', '--threads', '2'],
};
const LABELS = {
  flat: 'flat',
  quantized4: 'quantised 4-bit, vectors kept',
  'ivf4r3-codes': 'partitioned 4 + 3-bit, codes only',
  'hnsw-f32': 'HNSW f32',
  'hnsw-sq8-codes': 'HNSW sq8, codes only',
};
const sizes = arg('sizes', '10000,100000').split(',').map(Number);
const kinds = arg('kinds', Object.keys(KINDS).join(',')).split(',');
const runs = Number(arg('runs', '3'));
for (const k of kinds) if (!KINDS[k]) throw new Error(`unknown kind ${k} (${Object.keys(KINDS).join(', ')})`);
const work = process.env.WORK ?? '/tmp/quiver-cold-start';
const cli = process.env.QUIVER_CLI ?? join(root, 'build', 'native', 'src', 'quiver');
if (!existsSync(cli)) throw new Error(`no CLI at ${cli}: run scripts/build.sh native (or set QUIVER_CLI)`);
mkdirSync(work, { recursive: true });
const log = (s) => process.stderr.write(`${s}\n`);
const loadStart = os.loadavg();

// --- the files ---
const files = [];
for (const rows of sizes) {
  const base = join(work, `emb-${rows}.base.fbin`);
  if (!existsSync(base)) {
    log(`generating ${rows} x 384 embedding-like vectors`);
    execFileSync(cli, [
      'gen',
      'embedding',
      '--rows',
      String(rows),
      '--queries',
      '1',
      '-k',
      '1',
      '-o',
      work,
      '--name',
      `emb-${rows}`,
      '-q',
    ]);
  }
  for (const kind of kinds) {
    const file = join(work, `${kind}-${rows}.qvr`);
    if (!existsSync(file)) {
      log(`building ${kind} at ${rows}`);
      execFileSync(cli, ['build', base, '-o', file, '--metric', 'cosine', ...KINDS[kind], '-q']);
    }
    files.push({ kind, rows, file, bytes: statSync(file).size });
  }
}

// --- Node: a fresh process per run ---
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const f of files) {
  const samples = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const out = execFileSync(process.execPath, [join(here, 'node-cold.mjs'), f.file], { cwd: root, encoding: 'utf8' });
    samples.push({ ...JSON.parse(out.trim()), process_wall_ms: performance.now() - start });
  }
  f.node = {};
  for (const key of Object.keys(samples[0])) {
    if (typeof samples[0][key] === 'number' && key.endsWith('_ms'))
      f.node[key] = +median(samples.map((s) => s[key])).toFixed(2);
  }
  f.node.load_mb_per_s = +(f.bytes / 1e3 / f.node.load_ms).toFixed(0);
  log(
    `node    ${f.kind} ${f.rows}: bytes to answer ${f.node.bytes_to_answer_ms} ms (init ${f.node.init_ms}, load ${f.node.load_ms})`,
  );
}

// --- workerd: a fresh workerd per run; the first request initialises, loads and answers ---
bundleWorker(root, here);
for (const f of files) {
  const first = [];
  const warm = [];
  for (let r = 0; r < runs; r++) {
    const workerd = await startWorkerd(root, here, f.file);
    try {
      const url = workerd.url;
      let t = performance.now();
      const body = await (await fetch(url)).json();
      first.push(performance.now() - t);
      if (body.error || body.size !== f.rows) throw new Error(`workerd: ${JSON.stringify(body)}`);
      const w = [];
      for (let i = 0; i < 10; i++) {
        t = performance.now();
        await (await fetch(url)).json();
        w.push(performance.now() - t);
      }
      warm.push(median(w));
    } finally {
      workerd.stop();
    }
  }
  f.workerd = { first_request_ms: +median(first).toFixed(2), warm_request_ms: +median(warm).toFixed(2) };
  log(`workerd ${f.kind} ${f.rows}: first request ${f.workerd.first_request_ms} ms`);
}

// --- report ---
const stamp = new Date()
  .toISOString()
  .replace(/:\d\d\.\d+Z$/, 'Z')
  .replace(/:/g, '');
const result = {
  suite: 'cold-start',
  date: new Date().toISOString(),
  commit: gitCommit(root),
  machine: machineInfo({ load_average_start: loadStart, load_average_end: os.loadavg() }),
  target: 'wasm simd (quiver-vector/simd)',
  knobs: { sizes, kinds, runs, dim: 384, workload: 'embedding', metric: 'cosine', statistic: 'median of runs' },
  method:
    'Node: a fresh `node bench/cold-start/node-cold.mjs FILE` per run (import, init, readFileSync, q.load(bytes), one search; performance.now() phases). workerd: a fresh `workerd serve` per run; the first request initialises the module from the platform-compiled .wasm, streams the file through a service binding (loadFrom) and answers; timed from outside (fetch to response).',
  files: files.map(({ kind, rows, bytes, node, workerd }) => ({ kind, rows, file_bytes: bytes, node, workerd })),
};
const out = join(here, 'results', `cold-start-${stamp}`);
writeFileSync(`${out}.json`, `${JSON.stringify(result, null, 2)}\n`);
const mb = (b) => (b / 1e6).toFixed(1);
const md = [
  `# Cold start, ${result.date.slice(0, 10)} (${result.commit})`,
  '',
  `wasm simd through \`quiver-vector/simd\`, dimension 384 (embedding-like, cosine), median of ${runs} fresh processes. Load average ${loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ${result.machine.load_average_end.map((x) => x.toFixed(2)).join(' ')} at the end; ${result.machine.cpu}, Node ${process.version}.`,
  '',
  '| kind | rows | file MB | Node: init ms | Node: load ms (MB/s) | Node: bytes → first answer ms | Node: warm search ms | workerd: first request ms | workerd: warm request ms |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...files.map(
    (f) =>
      `| ${LABELS[f.kind]} | ${f.rows.toLocaleString('en-US')} | ${mb(f.bytes)} | ${f.node.init_ms.toFixed(1)} | ${f.node.load_ms.toFixed(1)} (${f.node.load_mb_per_s}) | ${f.node.bytes_to_answer_ms.toFixed(1)} | ${f.node.warm_search_ms.toFixed(2)} | ${f.workerd.first_request_ms.toFixed(1)} | ${f.workerd.warm_request_ms.toFixed(2)} |`,
  ),
  '',
  "workerd's first request is init + streaming the file through a service binding + the first search; its warm request is one search plus the HTTP round trip.",
  '',
].join('\n');
writeFileSync(`${out}.md`, md);
writeFileSync(`${out}.svg`, barsSvg(files));
process.stdout.write(md);
log(`wrote ${out}.{json,md,svg}`);

// Horizontal bars, two per file: Node init -> first answer, workerd first request.
function barsSvg(list) {
  const rowH = 22,
    gap = 10,
    left = 300,
    width = 560,
    top = 40;
  const max = Math.max(...list.flatMap((f) => [f.node.init_to_answer_ms, f.workerd.first_request_ms]));
  const scale = (v) => (v / max) * width;
  const colors = { node: '#1f77b4', workerd: '#d62728' };
  let y = top;
  const parts = [];
  for (const f of list) {
    parts.push(
      `<text x="${left - 8}" y="${y + rowH}" text-anchor="end" font-size="12">${LABELS[f.kind]}, ${f.rows / 1000}k</text>`,
    );
    for (const [which, v] of [
      ['node', f.node.init_to_answer_ms],
      ['workerd', f.workerd.first_request_ms],
    ]) {
      parts.push(
        `<rect x="${left}" y="${y}" width="${scale(v).toFixed(1)}" height="${rowH - 4}" fill="${colors[which]}"/>`,
      );
      parts.push(`<text x="${left + scale(v) + 4}" y="${y + rowH - 8}" font-size="11">${v.toFixed(0)} ms</text>`);
      y += rowH;
    }
    y += gap;
  }
  const h = y + 20;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 80}" height="${h}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="14" font-weight="bold">Cold start to the first answer (wasm simd, dim 384), ms</text>
<rect x="${left}" y="26" width="10" height="10" fill="${colors.node}"/><text x="${left + 14}" y="35" font-size="11">Node: init + load from bytes + first search</text>
<rect x="${left + 270}" y="26" width="10" height="10" fill="${colors.workerd}"/><text x="${left + 284}" y="35" font-size="11">workerd: first request (init + streamed load + search)</text>
${parts.join('\n')}
</svg>
`;
}
