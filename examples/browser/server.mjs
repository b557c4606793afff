// A tiny static server for the browser demo: serves the repository root with the headers that
// make the page cross-origin isolated (COOP/COEP), so the loader may pick the threaded build.
//   node examples/browser/server.mjs [port]     then open http://127.0.0.1:<port>/examples/browser/
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// isolated: false serves the same files without COOP/COEP (the page then runs single-threaded).
export function serve({ port = 8080, host = '127.0.0.1', root = repoRoot, isolated = true } = {}) {
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (path !== root && !path.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    const file = (await stat(path).catch(() => null))?.isDirectory() ? join(path, 'index.html') : path;
    const body = await readFile(file).catch(() => null);
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' };
    if (isolated) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    res.writeHead(200, headers).end(body);
  });
  return new Promise((ok) =>
    server.listen(port, host, () =>
      ok({
        url: `http://${host}:${server.address().port}/examples/browser/`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(done);
          }),
      }),
    ),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { url } = await serve({ port: Number(process.argv[2] ?? 8080) });
  console.log(`Quiver demo at ${url}`);
}
