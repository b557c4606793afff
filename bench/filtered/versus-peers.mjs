// Quiver against the peers on the filtered workload: for each filter, a peer's best point
// (peers-report.mjs' rule: the fastest with recall@10 >= 0.95 and no short result, else the
// highest recall) beside the fastest Quiver kind of a target that matches or beats that
// recall with no short result, and the QPS ratio — issue 25's "≥ 10× pgvector-in-PGlite's QPS
// at equal or better recall". Measures nothing; compare runs taken in one sitting.
//   node bench/filtered/versus-peers.mjs results/filtered-<stamp>.json results/peers-<stamp>.json
// Writes results/versus-peers-<filtered stamp>.md beside them.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GOOD_RECALL } from './peers-report.mjs';

const [quiverPath, peersPath] = process.argv.slice(2);
if (!quiverPath || !peersPath) {
  console.error('usage: node bench/filtered/versus-peers.mjs <filtered-*.json> <peers-*.json>');
  process.exit(2);
}
const quiver = JSON.parse(readFileSync(quiverPath, 'utf8'));
const peers = JSON.parse(readFileSync(peersPath, 'utf8'));
const key = (p) => `${p.filter_kind} ${p.selectivity}`;
const pct = (s) => `${+(s * 100).toPrecision(3)} %`;
const name = (p) => (p.filter_kind === 'none' ? 'none' : `${p.filter_kind} ${pct(p.selectivity)}`);
const num = (x) => Number(x).toLocaleString('en-US', { maximumFractionDigits: 0 });

const best = new Map(); // "peer|filter" -> { point, good }
for (const p of peers.points) {
  if (p.recall === null || p.recall === undefined) continue; // skipped points
  const good = p.recall >= GOOD_RECALL && p.short_results === 0;
  const k = `${p.peer}|${key(p)}`;
  const cur = best.get(k);
  if (!cur || (good && (!cur.good || p.qps > cur.point.qps)) || (!good && !cur.good && p.recall > cur.point.recall))
    best.set(k, { point: p, good });
}

const runs = [...new Set(quiver.rows.map((r) => r.run))];
const lines = [
  `# Quiver against the peers, filtered workload`,
  '',
  `Quiver: \`${basename(quiverPath)}\` (commit ${quiver.commit}); peers: \`${basename(peersPath)}\` (commit ${peers.commit}).`,
  `A peer's point is its best (fastest at recall@10 ≥ ${GOOD_RECALL} with no short result, else its highest recall, ✗);`,
  "Quiver's is the fastest kind of the target with at least that recall and no short result.",
  '',
];
const ratios = {};
for (const peer of [...new Set(peers.points.map((p) => p.peer))]) {
  lines.push(`## ${peer}`, '');
  lines.push(
    `| filter | ${peer}: recall / QPS | ${runs.map((r) => `Quiver ${r}: kind, recall / QPS | ×`).join(' | ')} |`,
  );
  lines.push(`|:--|--:|${runs.map(() => ':--|--:').join('|')}|`);
  for (const [k, { point: p, good }] of best) {
    if (!k.startsWith(`${peer}|`)) continue;
    const cells = runs.map((run) => {
      const fit = quiver.rows
        .filter((r) => r.run === run && key(r) === key(p) && r.short_results === 0 && r.recall >= p.recall - 1e-9)
        .sort((a, b) => b.qps - a.qps)[0];
      if (!fit) return 'none reaches it | —';
      const ratio = fit.qps / p.qps;
      (ratios[`${peer} ${run}`] ??= []).push(ratio);
      return `${fit.kind}, ${fit.recall.toFixed(3)} / ${num(fit.qps)} | ${ratio.toFixed(1)}`;
    });
    lines.push(`| ${name(p)} | ${good ? '' : '✗ '}${p.recall.toFixed(3)} / ${num(p.qps)} | ${cells.join(' | ')} |`);
  }
  lines.push('');
}
lines.push('## Ratios (Quiver / peer QPS at equal or better recall)', '');
for (const [k, rs] of Object.entries(ratios)) {
  lines.push(
    `- ${k}: ${Math.min(...rs).toFixed(1)}× – ${Math.max(...rs).toFixed(1)}× over ${rs.length} filters; ` +
      `${rs.filter((r) => r >= 10).length} at ≥ 10×`,
  );
}
const out = join(dirname(quiverPath), `versus-peers-${basename(quiverPath).replace(/^filtered-|\.json$/g, '')}.md`);
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
console.log(`wrote ${out}`);
