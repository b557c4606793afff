// One peer in its own Node process (started by bench/filtered/peers.mjs):
//   node bench/filtered/peers/child.mjs PEER WORKLOAD_DIR OUT_JSON [PASSES]
// writes { info, points } (or { error }) to OUT_JSON.
import { writeFileSync } from 'node:fs';
import { loadWorkload } from './common.mjs';

const [peer, dir, out, passes = '3'] = process.argv.slice(2);
const adapters = { pglite: './pglite.mjs', lancedb: './lancedb.mjs' };
try {
  if (!adapters[peer]) throw new Error(`unknown peer ${peer} (known: ${Object.keys(adapters).join(', ')})`);
  const w = loadWorkload(dir);
  const { run } = await import(adapters[peer]);
  const t0 = performance.now();
  const result = await run(w, { passes: Number(passes), budgetS: Number(process.env.POINT_BUDGET_S ?? 300) });
  result.info.job_s = +((performance.now() - t0) / 1000).toFixed(1);
  result.info.peak_rss_bytes = process.resourceUsage().maxRSS * 1024;
  writeFileSync(out, JSON.stringify(result));
} catch (e) {
  writeFileSync(out, JSON.stringify({ error: String(e?.stack ?? e) }));
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
}
