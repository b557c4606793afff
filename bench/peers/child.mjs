// One library on one workload, in its own process (run.mjs starts it):
//   node --expose-gc child.mjs '<job JSON>'   job = { adapter, options, workload, threads, quick }
// Prints the result as one JSON line on stdout; progress on stderr. A library that throws fails
// this process only, and run.mjs records the reason.
import { loadWorkload } from './lib/data.mjs';
import { measureConfig } from './lib/measure.mjs';

const job = JSON.parse(process.argv[2]);
const log = (s) => process.stderr.write(s + '\n');
const adapter = await import(`./adapters/${job.adapter}.mjs`);
const wl = loadWorkload(job.workload);
const ctx = { ...job, log, wl, dim: wl.base.dim, rows: wl.base.rows };
const lib = await adapter.open(ctx); // { library, version, target, notes, configs } or { runAll }
const result = {
  adapter: job.adapter,
  options: job.options ?? {},
  library: lib.library,
  version: lib.version,
  target: lib.target,
  notes: lib.notes ?? [],
  configs: [],
};
if (lib.runAll) {
  result.configs = await lib.runAll();
} else {
  for (const cfg of lib.configs) result.configs.push(await measureConfig(cfg, wl, { log }));
}
await lib.close?.();
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(0);
