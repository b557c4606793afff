// Best-of-rounds after/before ratios from ab.sh's output in this folder: kernels (native and
// wasm; higher GB/s is better) and the quantised fast-scan benchmark (QPS, single query and
// one-thread batch). Prints a Markdown table; `node summarize.mjs > summary.md`.
import { readFileSync } from 'node:fs';

const here = new URL('.', import.meta.url);
const rows = (name) =>
  readFileSync(new URL(name, here), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

function best(records, keyOf, valueOf) {
  const out = new Map();
  for (const r of records) {
    const k = keyOf(r);
    if (k === null) continue;
    const v = valueOf(r);
    const seen = out.get(k) ?? [];
    seen.push(v);
    out.set(k, seen);
  }
  return out;
}

const fmt = (x) => x.toFixed(2);
const lines = [];
function table(title, file, keyOf, valueOf, unit) {
  const before = best(rows(`before-${file}`), keyOf, valueOf);
  const after = best(rows(`after-${file}`), keyOf, valueOf);
  lines.push(
    `### ${title}`,
    '',
    `| point | before (best, ${unit}) | after (best, ${unit}) | after / before | spread of rounds, before / after |`,
  );
  lines.push('|---|--:|--:|--:|--:|');
  for (const [k, b] of before) {
    const a = after.get(k);
    if (!a) continue;
    const bb = Math.max(...b);
    const ab = Math.max(...a);
    const spread = (v) => `${fmt((Math.max(...v) / Math.min(...v) - 1) * 100)} %`;
    lines.push(`| ${k} | ${bb.toFixed(1)} | ${ab.toFixed(1)} | ${fmt(ab / bb)} | ${spread(b)} / ${spread(a)} |`);
  }
  lines.push('');
}

const kernelKey = (r) => `${r.isa} ${r.kernel} d${r.dim}`;
table('Kernels, native', 'kernels-native.jsonl', kernelKey, (r) => r.gb_per_s, 'GB/s');
table('Kernels, wasm simd (Node)', 'kernels-wasm.jsonl', kernelKey, (r) => r.gb_per_s, 'GB/s');
const q = (field) => (r) => (r.kind === 'quantized' ? `${r.isa} ${r.bits}-bit ${field}` : null);
table('Fast scan, single query', 'quantized-native.jsonl', q('qps'), (r) => r.qps, 'QPS');
table('Fast scan, one-thread batch', 'quantized-native.jsonl', q('batch'), (r) => r.batch_qps_1thread, 'QPS');
const recall = (side) =>
  rows(`${side}-quantized-native.jsonl`)
    .filter((r) => r.kind === 'quantized')
    .map((r) => `${r.isa}/${r.bits}:${r.recall}`)
    .join(' ');
lines.push(`Recall identical point for point: ${recall('before') === recall('after') ? 'yes' : 'NO'}`);
console.log(lines.join('\n'));
