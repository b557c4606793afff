// Serves the benchmark page examples/bench/ with COOP/COEP (cross-origin isolation, which wasm
// threads need for SharedArrayBuffer) on 127.0.0.1, and stores the page's results.
//
//   node examples/bench/server.mjs        prints the page's URL; Ctrl-C stops it
//
// Routes besides the static files (the repository root, so the page can import bench/**/*.mjs):
//   GET  /api/machine   host, CPU, load average and commit, for the page's report header
//   POST /api/results   {session, report}: writes bench/browser/results/concurrent-browser-<time>.json;
//                       later saves of the same page session rewrite the same file
// The build puts the wasm programs in examples/bench/wasm/ (scripts/build.sh wasm-simd-mt).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, repoRoot } from '../../tests/browser/support.mjs';

export const pagePath = '/examples/bench/';
export const wasmDir = path.join(repoRoot, 'examples', 'bench', 'wasm');

const git = (...a) => {
  try {
    return execFileSync('git', a, { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

function machine() {
  return {
    host: os.hostname(),
    cpu: os.cpus()[0]?.model,
    cpus: os.cpus().length,
    memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadavg: +os.loadavg()[0].toFixed(2),
  };
}

// "Mozilla/5.0 ... HeadlessChrome/120.0.6099.224 Safari/537.36" -> "chromium 120.0.6099.224".
export function browserName(userAgent = '') {
  const m = /(?:Headless)?Chrom(?:e|ium)\/([\d.]+)/.exec(userAgent);
  return m ? `chromium ${m[1]}` : userAgent.slice(0, 80) || 'unknown browser';
}

function send(res, status, value) {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
}

// The page's report with the fields the server knows better: this machine, the commit now,
// the browser from the request, the file's own timestamp.
function completeReport(report, req, started) {
  const m = machine();
  const target = `wasm-browser (${report.machine?.browser_version ?? browserName(req.headers['user-agent'])})`;
  return {
    ...report,
    benchmark: 'concurrent',
    timestamp: started,
    saved: new Date().toISOString(),
    commit: git('rev-parse', '--short', 'HEAD'),
    dirty: git('status', '--porcelain', '--untracked-files=no', '--', 'src', 'bench') !== '',
    target,
    machine: {
      ...report.machine,
      host: m.host,
      cpu: m.cpu,
      cpus: m.cpus,
      memory_gib: m.memory_gib,
      os: m.os,
      node: m.node,
      loadavg_after: m.loadavg,
    },
    concurrent: (report.concurrent ?? []).map((r) => ({ ...r, target: 'wasm-browser' })),
    scaling: (report.scaling ?? []).map((r) => ({ ...r, target: 'wasm-browser' })),
  };
}

// isolated: false serves the page without COOP/COEP (it must then refuse to run).
// resultsDir: where POST /api/results writes (default bench/browser/results/).
export async function startBenchServer({
  isolated = true,
  resultsDir = path.join(repoRoot, 'bench', 'browser', 'results'),
} = {}) {
  const sessions = new Map(); // page session id -> { file, started }
  const saved = [];
  const handlers = {
    'GET /api/machine': async (req, res) =>
      send(res, 200, { ...machine(), commit: git('rev-parse', '--short', 'HEAD') }),
    'POST /api/results': async (req, res, body) => {
      let message;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch {
        return send(res, 400, { error: 'body is not JSON' });
      }
      const { session, report } = message ?? {};
      if (
        typeof session !== 'string' ||
        !session ||
        typeof report !== 'object' ||
        report === null ||
        !Array.isArray(report.concurrent) ||
        !Array.isArray(report.scaling) ||
        report.concurrent.length + report.scaling.length === 0
      ) {
        return send(res, 400, {
          error: 'expected {session, report: {concurrent: [...], scaling: [...]}} with at least one run',
        });
      }
      let entry = sessions.get(session);
      if (!entry) {
        const started = new Date().toISOString();
        const stem = `concurrent-browser-${started.replace(/[:.]/g, '').slice(0, 15)}Z`;
        let file = path.join(resultsDir, `${stem}.json`);
        for (let i = 2; existsSync(file) || saved.includes(file); ++i)
          file = path.join(resultsDir, `${stem}-${i}.json`);
        entry = { file, started };
        sessions.set(session, entry);
        saved.push(file);
      }
      const complete = completeReport(report, req, entry.started);
      mkdirSync(resultsDir, { recursive: true });
      writeFileSync(entry.file, JSON.stringify(complete, null, 2) + '\n');
      send(res, 200, { file: path.relative(repoRoot, entry.file), path: entry.file, target: complete.target });
    },
  };
  const server = await startServer({ isolated, handlers });
  return { ...server, pageUrl: server.url(pagePath), saved };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  if (!existsSync(path.join(wasmDir, 'quiver_bench_concurrent_knn.js'))) {
    console.error('examples/bench/wasm/ is empty: build it with `bash scripts/build.sh wasm-simd-mt`');
    process.exit(1);
  }
  const server = await startBenchServer();
  console.log(`Quiver benchmarks in the browser (cross-origin isolated): ${server.pageUrl}`);
  console.log('Results go to bench/browser/results/concurrent-browser-*.json. Ctrl-C stops the server.');
}
