// The sharded collection in workerd (quiver-vector/cloudflare): the same embedding-like vectors
// held by 1, 2, 4, 8 and 16 QuiverShard Durable Objects behind the router. For each shard count:
// load through the router (bulk route, the real upsert path: checks, RPCs, durable log,
// compactions), compact, then query latency (p50 / p99 of sequential queries, client to
// response) and throughput (concurrent clients), memory per shard, and the cold start of the
// shards after a workerd restart (snapshot load + log replay, per shard and to the first answer).
//   node bench/sharded/run.mjs [--rows 200000] [--dim 128] [--shards 1,2,4,8,16] [--index flat]
//                              [--queries 300] [--clients 8] [--seconds 4]
// Writes results/sharded-<time>.{json,md,svg}. WORK (default /tmp/quiver-sharded) holds the
// vectors and the shards' storage; QUIVER_CLI (default build/native/src/quiver) generates them.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cpuMeter, gitCommit, machineInfo } from '../common/run-info.mjs';
import { bundleWorker, freePort, shardedConfig, waitOpen } from '../common/workerd-harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = join(root, 'bench', 'sharded');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const known = ['rows', 'dim', 'shards', 'index', 'queries', 'clients', 'seconds', 'log-rows'];
for (const a of process.argv.slice(2)) {
  if (a.startsWith('--') && !known.includes(a.slice(2))) throw new Error(`unknown option ${a} (${known.join(', ')})`);
}
const rows = Number(arg('rows', '200000'));
const dim = Number(arg('dim', '128'));
const shardCounts = arg('shards', '1,2,4,8,16').split(',').map(Number);
const index = arg('index', 'flat');
const nQueries = Number(arg('queries', '300'));
const clients = Number(arg('clients', '8'));
const seconds = Number(arg('seconds', '4'));
// Rows upserted again after the compaction, for the cold start with a log to replay.
const logRows = Number(arg('log-rows', String(Math.floor(rows / 20))));
const INDEX_OPTIONS = {
  flat: {},
  hnsw: { M: 16, efConstruction: 100, seed: 1 },
  'ivf-codes': { bits: 4, lists: 'auto', refineBits: 3, keepVectors: false, seed: 1 },
};
if (!INDEX_OPTIONS[index]) throw new Error(`--index must be one of ${Object.keys(INDEX_OPTIONS).join(', ')}`);
const collection = {
  dim,
  metric: 'cosine',
  index: index === 'ivf-codes' ? 'quantized' : index,
  options: INDEX_OPTIONS[index],
  fields: {},
};
const work = process.env.WORK ?? '/tmp/quiver-sharded';
const cli = process.env.QUIVER_CLI ?? join(root, 'build', 'native', 'src', 'quiver');
const log = (s) => process.stderr.write(`${s}\n`);
mkdirSync(work, { recursive: true });
const loadStart = os.loadavg();
const meter = cpuMeter();

// --- the vectors ---
const name = `emb-${rows}-${dim}`;
const basePath = join(work, `${name}.base.fbin`);
const queryPath = join(work, `${name}.queries.fbin`);
if (!existsSync(basePath)) {
  if (!existsSync(cli)) throw new Error(`no CLI at ${cli}: run scripts/build.sh native (or set QUIVER_CLI)`);
  log(`generating ${rows} x ${dim} embedding-like vectors`);
  execFileSync(cli, [
    'gen',
    'embedding',
    '--rows',
    String(rows),
    '--dim',
    String(dim),
    '--queries',
    String(nQueries),
    '-k',
    '1',
    '-o',
    work,
    '--name',
    name,
    '-q',
  ]);
}
function readFbin(path, from, count) {
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(8);
  readSync(fd, head, 0, 8, 0);
  const n = Math.min(count ?? Infinity, head.readUInt32LE(0) - (from ?? 0));
  const d = head.readUInt32LE(4);
  const buf = Buffer.alloc(n * d * 4);
  readSync(fd, buf, 0, buf.length, 8 + (from ?? 0) * d * 4);
  closeSync(fd);
  return { n, d, floats: new Float32Array(buf.buffer, buf.byteOffset, n * d) };
}
const queries = readFbin(queryPath);
if (queries.d !== dim) throw new Error(`${queryPath} has dimension ${queries.d}`);

// --- workerd ---
bundleWorker(root, here, ['cloudflare:*']);
function writeConfig(store, shards) {
  writeFileSync(
    join(here, 'build', 'config.capnp'),
    shardedConfig({
      worker: 'worker.js',
      wasm: '../../../js/wasm/simd/quiver.wasm',
      className: 'QuiverShard',
      uniqueKey: 'quiver-bench-sharded',
      store,
      bindings: { QUIVER: { name: 'bench', shards, collection, deadlineMs: 600000 } },
    }),
  );
}
async function startWorkerd() {
  const port = await freePort();
  const child = spawn(
    join(root, 'node_modules', '.bin', 'workerd'),
    ['serve', 'config.capnp', '--socket-addr', `http=127.0.0.1:${port}`],
    { cwd: join(here, 'build'), stdio: ['ignore', 'inherit', 'inherit'] },
  );
  await waitOpen(port);
  const stop = () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  return { url: `http://127.0.0.1:${port}`, child, stop };
}
// workerd's resident memory (every shard of the run is in its one process).
const rssMiB = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)[1]) / 1024;
};
const queryBody = (i) =>
  JSON.stringify({
    vector: Array.from(queries.floats.subarray((i % queries.n) * dim, ((i % queries.n) + 1) * dim)),
    topK: 10,
  });
async function query(url, i) {
  const r = await fetch(`${url}/query`, { method: 'POST', body: queryBody(i) });
  const body = await r.json();
  if (r.status !== 200) throw new Error(`query: ${r.status} ${JSON.stringify(body)}`);
  return body;
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// --- one shard count ---
const BATCH = 2000;
const results = [];
for (const shards of shardCounts) {
  const store = join(work, `store-${index}-${shards}`);
  rmSync(store, { recursive: true, force: true });
  mkdirSync(store, { recursive: true });
  writeConfig(store, shards);
  let w = await startWorkerd();
  const t0 = performance.now();
  for (let start = 0; start < rows; start += BATCH) {
    const part = readFbin(basePath, start, BATCH);
    const r = await fetch(`${w.url}/bulk?start=${start}`, { method: 'POST', body: part.floats });
    if (r.status !== 200) throw new Error(`load: ${r.status} ${await r.text()}`);
    process.stderr.write(`\r${shards} shards: loaded ${start + part.n} / ${rows}   `);
  }
  const loadS = (performance.now() - t0) / 1000;
  const tc = performance.now();
  await fetch(`${w.url}/compact`, { method: 'POST' });
  const compactS = (performance.now() - tc) / 1000;
  process.stderr.write(
    `\r${shards} shards: loaded ${rows} in ${loadS.toFixed(1)} s, compacted in ${compactS.toFixed(1)} s\n`,
  );
  const described = await (await fetch(`${w.url}/describe`)).json();
  const memory = described.perShard.map((s) => s.memory.total);
  const snapshots = described.perShard.map((s) => s.snapshot?.bytes ?? 0);

  for (let i = 0; i < 30; i++) await query(w.url, i); // warm
  const lat = [];
  for (let i = 0; i < nQueries; i++) {
    const s = performance.now();
    await query(w.url, i);
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < until; i += clients) {
        await query(w.url, i);
        done++;
      }
    }),
  );
  const qps = done / seconds;
  const rss = rssMiB(w.child.pid);

  // Cold start: a new process on the same storage; the first query opens every shard. Twice:
  // from the snapshot alone (just compacted), then with a log to replay — the first logRows
  // rows upserted again (replacements, under the compaction threshold) before the restart.
  const coldStart = async () => {
    await w.stop();
    w = await startWorkerd();
    const tf = performance.now();
    await query(w.url, 0);
    const firstMs = performance.now() - tf;
    const cold = (await (await fetch(`${w.url}/describe`)).json()).perShard.map((s) => s.coldStart);
    return { firstMs, cold };
  };
  const { firstMs, cold } = await coldStart();
  for (let start = 0; start < logRows; start += BATCH) {
    const part = readFbin(basePath, start, Math.min(BATCH, logRows - start));
    const r = await fetch(`${w.url}/bulk?start=${start}`, { method: 'POST', body: part.floats });
    if (r.status !== 200) throw new Error(`log rows: ${r.status} ${await r.text()}`);
  }
  const withLog = await coldStart();
  await w.stop();
  const row = {
    shards,
    rows,
    load_s: +loadS.toFixed(2),
    compact_s: +compactS.toFixed(2),
    p50_ms: +pct(lat, 50).toFixed(2),
    p99_ms: +pct(lat, 99).toFixed(2),
    qps: +qps.toFixed(1),
    memory_per_shard_mib: +(memory.reduce((a, b) => a + b, 0) / memory.length / 2 ** 20).toFixed(2),
    snapshot_per_shard_mib: +(snapshots.reduce((a, b) => a + b, 0) / snapshots.length / 2 ** 20).toFixed(2),
    workerd_rss_mib: +rss.toFixed(0),
    cold_first_query_ms: +firstMs.toFixed(1),
    cold_shard_open_ms_max: +Math.max(...cold.map((c) => c.totalMs)).toFixed(1),
    cold_shard_snapshot_ms_max: +Math.max(...cold.map((c) => c.snapshotMs)).toFixed(1),
    cold_replayed_writes: cold.reduce((a, c) => a + c.replayedWrites, 0),
    log_rows: logRows,
    cold_with_log_first_query_ms: +withLog.firstMs.toFixed(1),
    cold_with_log_replayed_writes: withLog.cold.reduce((a, c) => a + c.replayedWrites, 0),
    cold_with_log_replay_ms_max: +Math.max(...withLog.cold.map((c) => c.replayMs)).toFixed(1),
    cold_with_log_shard_open_ms_max: +Math.max(...withLog.cold.map((c) => c.totalMs)).toFixed(1),
  };
  results.push(row);
  log(JSON.stringify(row));
  rmSync(store, { recursive: true, force: true });
}

// --- report ---
const stamp = new Date()
  .toISOString()
  .replace(/:\d\d\.\d+Z$/, 'Z')
  .replace(/:/g, '');
const cpu = meter();
const result = {
  suite: 'sharded',
  date: new Date().toISOString(),
  commit: gitCommit(root),
  machine: machineInfo({ load_average_start: loadStart, load_average_end: os.loadavg(), ...cpu }),
  target: 'workerd (npm), wasm simd, QuiverShard Durable Objects with SQLite storage on a local disk',
  knobs: {
    rows,
    dim,
    index,
    collection,
    shardCounts,
    queries: nQueries,
    topK: 10,
    clients,
    seconds,
    load_batch: BATCH,
  },
  method:
    "One workerd process per shard count (all its shards in it, on this machine's cores). Load: POST /bulk batches of 2,000 through the router (check + upsert RPCs, durable log, compactions), then POST /compact. Latency: sequential POST /query from Node on 127.0.0.1 (client to response, JSON in and out), after 30 warm-up queries. Throughput: `clients` concurrent loops for `seconds`. Cold start: workerd killed and restarted on the same storage; the first query opens every shard (module, snapshot load, log replay) — per-shard phases from describe().",
  results,
};
const out = join(here, 'results', `sharded-${stamp}`);
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(`${out}.json`, `${JSON.stringify(result, null, 2)}\n`);
const one = results.find((r) => r.shards === 1);
const ratio = (v, base) => (base ? `${(v / base).toFixed(2)}×` : '');
const md = [
  `# Sharded collection in workerd, ${result.date.slice(0, 10)} (${result.commit})`,
  '',
  `${rows.toLocaleString('en-US')} embedding-like vectors, dimension ${dim}, cosine, ${index} shards, top-10, wasm simd in workerd on ${result.machine.cpus} cores (${result.machine.cpu}). Load average ${loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ${result.machine.load_average_end.map((x) => x.toFixed(2)).join(' ')} at the end.`,
  '',
  '| shards | p50 ms | p99 ms | QPS (' +
    clients +
    ' clients) | QPS vs 1 shard | MiB per shard | snapshot MiB per shard | workerd RSS MiB | cold: first answer ms | cold: slowest shard open ms | load s |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...results.map(
    (r) =>
      `| ${r.shards} | ${r.p50_ms} | ${r.p99_ms} | ${r.qps} | ${ratio(r.qps, one?.qps)} | ${r.memory_per_shard_mib} | ${r.snapshot_per_shard_mib} | ${r.workerd_rss_mib} | ${r.cold_first_query_ms} | ${r.cold_shard_open_ms_max} | ${r.load_s} |`,
  ),
  '',
  `Cold start with a log to replay: the first ${logRows.toLocaleString('en-US')} rows upserted again after the compaction (replacements, below the compaction threshold), then a restart:`,
  '',
  '| shards | replayed writes (all shards) | slowest shard: replay ms | slowest shard: open ms | first answer ms |',
  '| ---: | ---: | ---: | ---: | ---: |',
  ...results.map(
    (r) =>
      `| ${r.shards} | ${r.cold_with_log_replayed_writes} | ${r.cold_with_log_replay_ms_max} | ${r.cold_with_log_shard_open_ms_max} | ${r.cold_with_log_first_query_ms} |`,
  ),
  '',
  "All shards of a run are in one workerd process, and workerd runs a namespace's Durable Objects in one isolate on one thread: a query's fan-out reaches every shard, but their scans run one after another, so throughput cannot grow with shards here and the latency includes every shard's scan. What this shows is the cost of the fan-out and the merge (p50 at N shards against 1), memory and snapshot size per shard, and the cold start per shard; shards in separate isolates on separate machines (the platform) scan in parallel (docs/sharded.md, \"Scaling model\").",
  '',
].join('\n');
writeFileSync(`${out}.md`, md);
writeFileSync(`${out}.svg`, svg(results));
process.stdout.write(md);
log(`wrote ${out}.{json,md,svg}`);

// p50 and p99 latency per shard count (bars), ms.
function svg(list) {
  const left = 60;
  const top = 40;
  const h = 240;
  const bw = 28;
  const group = 90;
  const max = Math.max(...list.map((r) => r.p99_ms)) * 1.1;
  const y = (v) => top + h - (v / max) * h;
  const parts = [];
  list.forEach((r, i) => {
    const x = left + 20 + i * group;
    for (const [j, v, c] of [
      [0, r.p50_ms, '#1f77b4'],
      [1, r.p99_ms, '#ff7f0e'],
    ]) {
      parts.push(
        `<rect x="${x + j * bw}" y="${y(v).toFixed(1)}" width="${bw - 4}" height="${(top + h - y(v)).toFixed(1)}" fill="${c}"/>`,
      );
      parts.push(
        `<text x="${x + j * bw + (bw - 4) / 2}" y="${(y(v) - 4).toFixed(1)}" font-size="10" text-anchor="middle">${v.toFixed(1)}</text>`,
      );
    }
    parts.push(`<text x="${x + bw}" y="${top + h + 16}" font-size="12" text-anchor="middle">${r.shards}</text>`);
  });
  const width = left + 40 + list.length * group;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top + h + 50}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="14" font-weight="bold">Query latency through the router by shard count (${rows / 1000}k × ${dim}, ${index}), ms</text>
<rect x="${left}" y="26" width="10" height="10" fill="#1f77b4"/><text x="${left + 14}" y="35" font-size="11">p50</text>
<rect x="${left + 50}" y="26" width="10" height="10" fill="#ff7f0e"/><text x="${left + 64}" y="35" font-size="11">p99</text>
<line x1="${left}" y1="${top + h}" x2="${width - 20}" y2="${top + h}" stroke="black"/>
<text x="${width / 2}" y="${top + h + 36}" font-size="12" text-anchor="middle">shards</text>
${parts.join('\n')}
</svg>
`;
}
