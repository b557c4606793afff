// A tiny static server for the browser demo: serves this folder at / and the installed package
// (node_modules/quiver-vector, or this repository when run inside it) at /quiver-vector/, where
// the page's import map points the name 'quiver-vector', with the headers that make the page
// cross-origin isolated (COOP/COEP), so the loader may pick the threaded build. The same files
// work copied into a project that installed the package (tests/js/examples-copied.test.mjs).
//   node server.mjs [port]     then open http://127.0.0.1:<port>/
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
const demoRoot = dirname(fileURLToPath(import.meta.url));
// The package's folder, as Node resolves the name from here (its package.json is exported).
export const packageRoot = dirname(fileURLToPath(import.meta.resolve('quiver-vector/package.json')));
const PACKAGE_PREFIX = '/quiver-vector/';

// isolated: false serves the same files without COOP/COEP (the page then runs single-threaded).
export function serve({ port = 8080, host = '127.0.0.1', isolated = true } = {}) {
  const server = createServer(async (req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const inPackage = pathname.startsWith(PACKAGE_PREFIX);
    const root = inPackage ? packageRoot : demoRoot;
    const path = normalize(join(root, inPackage ? pathname.slice(PACKAGE_PREFIX.length) : pathname));
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
        url: `http://${host}:${server.address().port}/`,
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
