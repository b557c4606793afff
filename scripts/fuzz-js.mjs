#!/usr/bin/env node
// Long run of the property-based test of the JS API (tests/js/property-support.mjs): every
// index kind in every wasm variant, batch after batch of random sequences, until a count or a
// time budget is reached. Each batch has its own seed (base seed + batch number), so any
// failure is reproducible from the printed seed and shrunk to a short sequence by fast-check.
//
//   node scripts/fuzz-js.mjs [--minutes M | --sequences N] [--seed S] [--variants simd,simd-mt,baseline]
//                            [--kinds flat,quantized,hnsw-f32,hnsw-sq8] [--max-steps 40] [--batch 50]
//
// Prints one line per batch and a summary (sequences, steps, failures, distinct failure
// messages, recall per approximate kind); exit code 1 if anything failed.
//
//   node scripts/fuzz-js.mjs --corruption [--variants ...]
//
// instead runs the corruption sweep (tests/js/corruption-support.mjs) densely — every
// truncation length, all eight bits of every byte, every field edit — in each variant, and
// prints files x mutations x variants and the failures grouped.
import fc from 'fast-check';
import { Quiver } from '../js/index.js';
import { KINDS, newStats, property, RECALL_FLOORS } from '../tests/js/property-support.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const minutes = Number(option('minutes', 0));
const sequences = Number(option('sequences', minutes ? Infinity : 2000));
const baseSeed = Number(option('seed', 1));
const variants = option('variants', 'simd,simd-mt,baseline').split(',');
const kinds = option('kinds', KINDS.join(',')).split(',');
const maxSteps = Number(option('max-steps', 40));
const batch = Number(option('batch', 50));
const HEAP_SLACK = 64 * 1024 * 1024;

if (args.includes('--corruption')) {
  const { sampleFiles, summarize, sweep } = await import('../tests/js/corruption-support.mjs');
  const start = Date.now();
  const report = { variants: {}, failures: 0 };
  for (const v of option('variants', 'simd,simd-mt,baseline').split(',')) {
    const q = await Quiver.init({ variant: v });
    const heapBefore = q.heapBytes();
    const files = sampleFiles(q);
    const counts = sweep(q, files, { stride: 1, allBits: true });
    report.variants[v] = {
      files: files.length,
      loads: counts.loads,
      rejected: counts.rejected,
      loaded: counts.loaded,
      failures: counts.failures.length,
      grouped: summarize(counts.failures),
      heapGrowth: q.heapBytes() - heapBefore,
    };
    report.failures += counts.failures.length;
    console.log(v, JSON.stringify(report.variants[v], null, 2));
    q.terminate();
  }
  report.seconds = Math.round((Date.now() - start) / 1000);
  console.log(JSON.stringify(report));
  process.exit(report.failures ? 1 : 0);
}

const modules = new Map();
for (const v of variants) modules.set(v, await Quiver.init({ variant: v }));
const heapLimits = new Map([...modules].map(([v, q]) => [v, q.heapBytes() + HEAP_SLACK]));

const stats = newStats();
const failures = [];
const start = Date.now();
let round = 0;
outer: for (;;) {
  for (const variant of variants) {
    for (const kind of kinds) {
      if (stats.sequences >= sequences) break outer;
      if (minutes && Date.now() - start > minutes * 60_000) break outer;
      const seed = baseSeed + round;
      round += 1;
      const q = modules.get(variant);
      const numRuns = Math.min(batch, sequences - stats.sequences);
      const result = fc.check(property(q, kind, maxSteps, stats, heapLimits.get(variant)), { seed, numRuns });
      if (result.failed) {
        const message = String(result.errorInstance?.message ?? result.error).split('\n')[0];
        failures.push({ variant, kind, seed, message, counterexample: result.counterexample });
        console.log(
          `FAIL ${variant} ${kind} seed ${seed}: ${message}\n  shrunk: ${fc.stringify(result.counterexample)}`,
        );
      }
      console.log(
        `${variant} ${kind} seed ${seed}: ${result.numRuns} sequences${result.failed ? ' (failed)' : ''}; total ${stats.sequences} sequences, ${stats.steps} steps`,
      );
    }
  }
}
for (const q of modules.values()) q.terminate();

const recall = Object.fromEntries(
  Object.entries(stats.recall).map(([k, r]) => [k, { mean: +(r.sum / r.n).toFixed(4), searches: r.n }]),
);
for (const [key, r] of Object.entries(stats.recall)) {
  if (r.sum / r.n < RECALL_FLOORS[key])
    failures.push({
      kind: key,
      message: `mean recall ${(r.sum / r.n).toFixed(3)} below the floor ${RECALL_FLOORS[key]}`,
    });
}
const distinct = [...new Set(failures.map((f) => `${f.kind}: ${f.message.replace(/step \d+/, 'step N')}`))];
console.log(
  JSON.stringify(
    {
      sequences: stats.sequences,
      steps: stats.steps,
      accepted: stats.accepted,
      rejected: stats.rejected,
      meanLive: +(stats.liveSum / stats.steps).toFixed(1),
      failures: failures.length,
      distinctFailures: distinct,
      variants,
      kinds,
      maxSteps,
      baseSeed,
      seconds: Math.round((Date.now() - start) / 1000),
      recall,
    },
    null,
    2,
  ),
);
process.exitCode = failures.length ? 1 : 0;
