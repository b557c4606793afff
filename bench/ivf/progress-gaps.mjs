// How long a worker-hosted add() of a partitioned index goes without a progress event, and how
// soon a cancel takes effect: a 100,000 × 384 build (lists 'auto', 4 + 3 bits, codes only) in
// `spawn({ variant })`, chunks of 1,024 rows. The longest gap between any two events (chunk
// events and the training / re-assignment step events of the worker's WorkObserver) beside the
// longest gap between chunk events alone — what a caller saw before the step events existed —
// and, in a second build, the time from abort() to the rejection when the cancel lands in the
// middle of the training at 65,536 rows.
//   node bench/ivf/progress-gaps.mjs [--variants simd,simd-mt] [--rows 100000] [--dim 384]
// Writes results/progress-gaps-<time>.{json,md}.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { spawn } from '../../js/main.js';
import { cpuMeter, gitCommit, machineInfo } from '../common/run-info.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const variants = arg('variants', 'simd,simd-mt').split(',');
const rows = Number(arg('rows', '100000'));
const dim = Number(arg('dim', '384'));
const options = { dim, metric: 'cosine', bits: 4, lists: 'auto', refineBits: 3, keepVectors: false };
const loadStart = os.loadavg();
const meter = cpuMeter();
const ids = Float64Array.from({ length: rows }, (_, i) => i);
const results = [];

for (const variant of variants) {
  const w = await spawn({ variant });
  const vectors = await w.unitGaussianVectors(rows, dim, 11);
  // 1. The whole build, every event timed.
  const index = await w.create('quantized', options);
  const times = [];
  const chunkTimes = [];
  let steps = 0;
  const t0 = performance.now();
  await index.add(ids, vectors, {
    onProgress: (p) => {
      const t = performance.now();
      times.push(t);
      if (p.step) steps++;
      else chunkTimes.push(t);
    },
  });
  const end = performance.now();
  const gap = (list) => Math.max(...list.map((t, i) => t - (i ? list[i - 1] : t0)), end - list.at(-1));
  const row = {
    variant,
    rows,
    build_s: +((end - t0) / 1000).toFixed(2),
    events: times.length,
    step_events: steps,
    max_gap_ms: +gap(times).toFixed(1),
    max_gap_chunk_events_only_ms: +gap(chunkTimes).toFixed(1),
  };
  await index.dispose();
  // 2. A cancel in the middle of the training that starts at 65,536 rows.
  const again = await w.create('quantized', options);
  const controller = new AbortController();
  let abortedAt = 0;
  const adding = again.add(ids, vectors, {
    signal: controller.signal,
    onProgress: (p) => {
      if (!abortedAt && p.step?.name === 'training' && p.done >= 60000 && p.step.done === Math.ceil(p.step.total / 2)) {
        abortedAt = performance.now();
        controller.abort();
      }
    },
  });
  try {
    await adding;
    row.cancel = 'the add finished before the cancel';
  } catch (e) {
    row.cancel_code = e.code;
    row.cancel_ms = +(performance.now() - abortedAt).toFixed(1);
    row.size_after_cancel = await again.size;
  }
  await again.dispose();
  await w.terminate();
  results.push(row);
  process.stderr.write(`${JSON.stringify(row)}\n`);
}

const stamp = new Date()
  .toISOString()
  .replace(/:\d\d\.\d+Z$/, 'Z')
  .replace(/:/g, '');
const result = {
  suite: 'progress-gaps',
  date: new Date().toISOString(),
  commit: gitCommit(root),
  machine: machineInfo({ load_average_start: loadStart, load_average_end: os.loadavg(), ...meter() }),
  target: 'wasm through spawn() in Node',
  knobs: { rows, dim, index: options, chunkSize: 1024, workload: 'unit Gaussian (seed 11)' },
  results,
};
const out = join(root, 'bench', 'ivf', 'results', `progress-gaps-${stamp}`);
writeFileSync(`${out}.json`, `${JSON.stringify(result, null, 2)}\n`);
const md = [
  `# Progress gaps of a partitioned build through the worker, ${result.date.slice(0, 10)} (${result.commit})`,
  '',
  `${rows.toLocaleString('en-US')} × ${dim}, lists 'auto', 4 + 3 bits, codes only, chunks of 1,024; load average ${loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ${result.machine.load_average_end.map((x) => x.toFixed(2)).join(' ')} at the end; ${result.machine.cpu}.`,
  '',
  '| variant | build s | events (step events) | longest gap, all events, ms | longest gap, chunk events only, ms | cancel mid-training: abort → rejection ms | size after cancel |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...results.map(
    (r) =>
      `| ${r.variant} | ${r.build_s} | ${r.events} (${r.step_events}) | ${r.max_gap_ms} | ${r.max_gap_chunk_events_only_ms} | ${r.cancel_ms ?? r.cancel} | ${r.size_after_cancel ?? ''} |`,
  ),
  '',
  '"Chunk events only" is what a caller saw before the training steps reported: the re-training chunks were silent for their whole length.',
  '',
].join('\n');
writeFileSync(`${out}.md`, md);
process.stdout.write(md);
process.stderr.write(`wrote ${out}.{json,md}\n`);
