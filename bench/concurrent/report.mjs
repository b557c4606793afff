// Renders a bench/concurrent/results/concurrent-*.json file (written by run.mjs) as a
// Markdown report and an SVG plot next to it (bench/concurrent/render.mjs), with the runs of the
// newest browser result file (bench/browser/results/concurrent-browser-*.json, from
// examples/bench/ or bench/browser/run.mjs) on the same workload beside the native and
// wasm-under-Node runs.
//   node bench/concurrent/report.mjs [results.json] [--browser file.json | --no-browser]
//   (default: the newest bench/concurrent/results/concurrent-*.json that is not a browser file)
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReport, mergeBrowserReport, sameWorkload } from './render.mjs';

export { renderReport, mergeBrowserReport };

export const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
// Where the browser suite (bench/browser/, the page examples/bench/) keeps its runs.
export const browserResultsDir = fileURLToPath(new URL('../browser/results/', import.meta.url));
const isBrowserFile = (f) => /^concurrent-browser-.*\.json$/.test(f);

// The newest browser result file in `dir` whose workload matches `report`, or null.
export function findBrowserReport(report, dir = browserResultsDir) {
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir).filter(isBrowserFile).sort().reverse();
  for (const f of files) {
    const browser = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
    if (sameWorkload(report.knobs, browser.knobs)) return { browser, file: f };
  }
  return null;
}

// CLI
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : (args.splice(i, 2)[1] ?? '');
  };
  const noBrowser = args.includes('--no-browser') && args.splice(args.indexOf('--no-browser'), 1);
  const browserFile = flag('--browser');
  let file = args[0];
  if (!file) {
    const all = readdirSync(resultsDir)
      .filter((f) => /^concurrent-.*\.json$/.test(f) && !isBrowserFile(f))
      .sort();
    if (!all.length) throw new Error('no bench/concurrent/results/concurrent-*.json yet: run npm run bench:concurrent');
    file = path.join(resultsDir, all[all.length - 1]);
  }
  let report = JSON.parse(readFileSync(file, 'utf8'));
  if (!noBrowser && !report.target) {
    // report.target is set in browser files: render those alone
    const found = browserFile
      ? { browser: JSON.parse(readFileSync(browserFile, 'utf8')), file: path.basename(browserFile) }
      : findBrowserReport(report);
    if (found) report = mergeBrowserReport(report, found.browser, found.file);
  }
  const base = file.replace(/\.json$/, '');
  const { markdown, svg } = renderReport(report, path.basename(base));
  writeFileSync(`${base}.md`, markdown);
  writeFileSync(`${base}.svg`, svg);
  console.log(markdown);
  console.log(`wrote ${base}.md and ${base}.svg`);
}
