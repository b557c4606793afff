// Where a query's time goes, from a V8 CPU profile (`node --cpu-prof bench/ivf/search-loop.mjs
// …`): the self time of each function inside the calls of one root function (default:
// QuantizedIndex's search_many, so loading the index and the loop around it are left out), as a
// share of that root's time, largest first. Function names need a wasm build linked with
// `--profiling-funcs` (bench/ivf/README.md says how); without it the rows read wasm-function[N].
//
//   node bench/ivf/profile-summary.mjs PROFILE.cpuprofile [--root NAME] [--top N] [--json]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The readable part of a C++ name: up to its argument list (template arguments and anonymous
// namespaces kept).
export function shortName(name) {
  let depth = 0;
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '<') depth++;
    else if (name[i] === '>') depth--;
    else if (name.startsWith('(anonymous namespace)', i)) i += '(anonymous namespace)'.length - 1;
    else if (name[i] === '(' && depth === 0 && i > 0) return name.slice(0, i);
  }
  return name || '(anonymous)';
}

// Self time by function under `root` (every sample whose stack holds a frame whose name
// contains it), as shares of the root's time, largest first (ties by name).
export function summarizeProfile(profile, root, top = 15) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map(); // microseconds of the samples that stopped in each node
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const underRoot = (id) => {
    for (let at = id; at !== undefined; at = parent.get(at)) {
      if (nodes.get(at).callFrame.functionName.includes(root)) return true;
    }
    return false;
  };
  let totalUs = 0;
  let rootUs = 0;
  const byName = new Map();
  for (const n of profile.nodes) {
    const us = selfUs.get(n.id) ?? 0;
    totalUs += us;
    if (!underRoot(n.id)) continue;
    rootUs += us;
    const name = shortName(n.callFrame.functionName);
    byName.set(name, (byName.get(name) ?? 0) + us);
  }
  const rows = [...byName]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)) // ties by name: the same table every time
    .slice(0, top)
    .map(([name, us]) => ({ name, share: rootUs ? us / rootUs : 0, ms: us / 1000 }));
  return { root, root_ms: rootUs / 1000, root_share_of_profile: totalUs ? rootUs / totalUs : 0, rows };
}

function main(argv) {
  const option = (name, fallback) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : fallback;
  };
  const file = argv.find((a, i) => !a.startsWith('--') && (i === 0 || !argv[i - 1].startsWith('--')));
  if (!file) {
    process.stderr.write('usage: profile-summary.mjs PROFILE.cpuprofile [--root NAME] [--top N] [--json]\n');
    process.exit(2);
  }
  const summary = summarizeProfile(
    JSON.parse(readFileSync(file, 'utf8')),
    option('root', 'QuantizedIndex::Impl::search_many'),
    Number(option('top', 15)),
  );
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  process.stdout.write(
    `${summary.root}: ${(100 * summary.root_share_of_profile).toFixed(1)} % of the profile ` +
      `(${summary.root_ms.toFixed(0)} ms)\n\n| share | self ms | function |\n|--:|--:|:--|\n`,
  );
  for (const r of summary.rows) {
    process.stdout.write(`| ${(100 * r.share).toFixed(1)} % | ${r.ms.toFixed(0)} | \`${r.name}\` |\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
