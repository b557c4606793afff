// `npm run bench:browser`: the cache-contention benchmark (concurrent_knn, every MODE) and the
// batch search scaling benchmark (scaling_batch) in headless Chromium, through the page
// examples/bench/ served with COOP/COEP by examples/bench/server.mjs. The page saves the runs
// as bench/browser/results/concurrent-browser-<timestamp>.json; this script renders the .md and
// .svg next to it. bench/concurrent/report.mjs and bench/concurrent/run.mjs show these runs
// (target wasm-browser) beside the native and wasm-under-Node runs of the same workload.
//
// Environment (defaults in brackets, as bench/concurrent/run.mjs):
//   THREADS ["1 2 4 8 16"] (at most 16)  DURATION_S [5]  CORPUS_ROWS [10000]  DIM [384]
//   QUERY_POOL [256]  K [10]  BIT_WIDTH [4]  INDEX [flat]  WARMUP_S [0.2]  LOOKUP_ONLY_S [0.5]
//   MIN_SECONDS [1] (scaling)  MODES ["mutex nolock"]  SCALING [1] (0 skips scaling_batch)
//   QUIVER_CHROMIUM [/usr/bin/chromium]
// Needs the web build: bash scripts/build.sh wasm-simd-mt (writes examples/bench/wasm/).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBenchServer, wasmDir } from '../../examples/bench/server.mjs';
import { launchChromium, openPage, saveScreenshot } from '../../tests/browser/support.mjs';
import { renderReport } from '../concurrent/render.mjs';
import { concurrentKnobs } from '../concurrent/knobs.mjs';

const env = (name, fallback) => process.env[name] ?? fallback;
const knobs = concurrentKnobs();
const modes = env('MODES', 'mutex nolock')
  .split(/[\s,]+/)
  .filter(Boolean);
const scaling = env('SCALING', '1') !== '0';

for (const name of ['concurrent_knn', 'scaling_batch']) {
  if (!existsSync(path.join(wasmDir, `quiver_bench_${name}.js`))) {
    throw new Error(
      `examples/bench/wasm/quiver_bench_${name}.js is missing: build it with ` + '`bash scripts/build.sh wasm-simd-mt`',
    );
  }
}

const server = await startBenchServer();
const browser = await launchChromium();
let saved;
try {
  console.log(`Chromium ${browser.version()}, page ${server.pageUrl}, load average ${os.loadavg()[0].toFixed(2)}`);
  const page = await openPage(browser, `${server.pageUrl}?autosave=1`, { timeout: 0 });
  await page.exposeFunction('quiverBenchLog', (line) => {
    if (!line.startsWith('{')) console.log(line);
  });
  await page.waitForFunction(() => window.quiverBench.state !== 'loading');
  const state = await page.evaluate(() => ({ state: window.quiverBench.state, message: window.quiverBench.message }));
  if (state.state !== 'ready') throw new Error(`the page cannot run: ${state.message}`);
  const runs = [
    ...modes.map((MODE) => ({ bench: 'concurrent_knn', MODE })),
    ...(scaling ? [{ bench: 'scaling_batch' }] : []),
  ];
  for (const r of runs) {
    console.log(`\n### ${r.bench} wasm-browser${r.MODE ? ` MODE=${r.MODE}` : ''}`);
    await page
      .evaluate((values) => window.quiverBench.run(values), { ...knobs, ...r })
      .catch((e) => {
        throw new Error(`${r.bench} failed in the page: ${e.message}\n${page.quiverLog.join('\n')}`);
      });
  }
  saved = await page.evaluate(() => window.quiverBench.saved);
  if (!saved) throw new Error('the page saved nothing');
  console.log(`screenshot: ${await saveScreenshot(page, 'bench-run-browser.png')}`);
} finally {
  await browser.close();
  await server.close();
}

const report = JSON.parse(readFileSync(saved.path, 'utf8'));
const base = saved.path.replace(/\.json$/, '');
const { markdown, svg } = renderReport(report, path.basename(base));
writeFileSync(`${base}.md`, markdown);
writeFileSync(`${base}.svg`, svg);
console.log(`\n${markdown}`);
console.log(
  `wrote ${saved.file} (${report.target}), .md and .svg; ` +
    'node bench/concurrent/report.mjs shows it beside the native and wasm runs of the same workload',
);
