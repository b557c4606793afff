// Shared harness for the browser tests: a tiny static server (optionally cross-origin isolated)
// and Debian's Chromium driven by playwright-core. Never a browser downloaded by a test tool.
//
//   const server = await startServer({ isolated: true });     // serves the repository root
//   const browser = await launchChromium();
//   const page = await openPage(browser, server.url('/tests/browser/pages/x.html'));
//   ...; await browser.close(); await server.close();
import { createServer } from 'node:http';
import { readFile, stat, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const chromiumPath = process.env.QUIVER_CHROMIUM ?? '/usr/bin/chromium';
// Screenshots and other artifacts of the browser tests (gitignored, under the build root).
export const artifactsDir = join(process.env.QUIVER_BUILD_ROOT ?? join(repoRoot, 'build'), 'test-artifacts', 'browser');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.bin': 'application/octet-stream',
  '.qvr': 'application/octet-stream',
  '.fbin': 'application/octet-stream',
};

// isolated: send COOP/COEP so the page gets SharedArrayBuffer (the simd-mt variant);
// without them the page is not cross-origin isolated and must fall back to a single-threaded
// variant. `handlers` maps "METHOD /path" to async (req, res, body) => void for extra routes.
export async function startServer({ root = repoRoot, isolated = true, handlers = {} } = {}) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      if (isolated) {
        res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
        res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
      }
      res.setHeader('Cache-Control', 'no-store');
      const route = handlers[`${req.method} ${url.pathname}`];
      if (route) {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        await route(req, res, Buffer.concat(chunks));
        return;
      }
      const file = normalize(join(root, decodeURIComponent(url.pathname)));
      if (!file.startsWith(root)) {
        res.writeHead(403).end();
        return;
      }
      const path = (await stat(file).catch(() => null))?.isDirectory() ? join(file, 'index.html') : file;
      const body = await readFile(path).catch(() => null);
      if (!body) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return {
    port,
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(ok);
      }),
  };
}

export function chromiumAvailable() {
  return existsSync(chromiumPath);
}

// extraArgs: more command-line flags (the benchmarks pass V8 flags through --js-flags=...).
export async function launchChromium({ extraArgs = [] } = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
      ...extraArgs,
    ],
  });
}

// Opens a page in a fresh context and collects its console output and page errors (returned as
// page.quiverLog) so a failing test can show what the page said.
export async function openPage(browser, url, { timeout = 120_000 } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  page.quiverLog = [];
  page.on('console', (m) => page.quiverLog.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => page.quiverLog.push(`[pageerror] ${e.message}`));
  await page.goto(url);
  return page;
}

export async function saveScreenshot(page, name) {
  await mkdir(artifactsDir, { recursive: true });
  const path = join(artifactsDir, name);
  await page.screenshot({ path, fullPage: true });
  return path;
}
