// Installs the harness's own dependencies (bench/peers/package.json, not the Quiver package's)
// and builds the peers' native parts without reaching anything but the npm registry and Debian:
//   - `npm install --ignore-scripts`: no package's install script runs (they try to download
//     prebuilt binaries or clone sources, which fails offline), so a failing one cannot take
//     the others down;
//   - hnswlib-node: `node-gyp rebuild --nodedir=/usr` (Debian's Node headers, no download);
//   - usearch: ships prebuilt binaries for linux-x64 (prebuilds/), nothing to build;
//   - faiss-node: its install clones Faiss from GitHub. Instead its one source file is compiled
//     against Debian's libfaiss-dev (Faiss 1.7.3; faiss-node expects 1.7.4, the API it uses is the
//     same but for the faiss::idx_t alias, which faiss-compat.h adds) with node-addon-api from
//     npm: apt-get install libfaiss-dev, then one g++ command;
//   - edgevec, hnswlib-wasm, voy-search: wasm, nothing to build;
//   - @electric-sql/pglite + @electric-sql/pglite-pgvector (wasm) and @lancedb/lancedb (its
//     linux-x64 addon is an npm package of its own, nothing to build): the filtered benchmark's
//     peers (bench/filtered/PEERS.md), which calls npmInstall() alone when they are missing.
// Writes node_modules/.peers-install.json: per peer, "ok" or the reason it is not usable, which
// run.mjs reports in the results (a peer that fails is listed, never dropped).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const statusFile = `${here}node_modules/.peers-install.json`;
const log = (s) => process.stderr.write(`[peers install] ${s}\n`);
const sh = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
const tail = (e) =>
  String(e.stderr || e.stdout || e.message)
    .trim()
    .split('\n')
    .slice(-6)
    .join(' | ')
    .slice(0, 600);

export function installStatus() {
  return existsSync(statusFile) ? JSON.parse(readFileSync(statusFile, 'utf8')) : null;
}

// The npm step alone: this folder's dependencies, no install script run.
export function npmInstall() {
  log('npm install --ignore-scripts (bench/peers) ...');
  sh('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: here });
}

export function install({ force = false } = {}) {
  const pkg = readFileSync(`${here}package.json`, 'utf8');
  const previous = installStatus();
  if (!force && previous && previous.package === pkg) return previous;
  npmInstall();
  const status = { package: pkg, date: new Date().toISOString(), peers: {} };
  const mod = (name) => `${here}node_modules/${name}`;
  // A native addon counts as installed once a fresh Node process can load it.
  const loads = (name) => sh(process.execPath, ['-e', `require(${JSON.stringify(name)})`], { cwd: here });

  // hnswlib-node
  try {
    if (!existsSync(`${mod('hnswlib-node')}/build/Release/addon.node`)) {
      log('hnswlib-node: node-gyp rebuild --nodedir=/usr ...');
      sh(`${here}node_modules/.bin/node-gyp`, ['rebuild', '--nodedir=/usr', '-j', '2'], { cwd: mod('hnswlib-node') });
    }
    loads('hnswlib-node');
    status.peers['hnswlib-node'] = 'ok';
  } catch (e) {
    status.peers['hnswlib-node'] = `node-gyp build or load failed: ${tail(e)}`;
  }

  // faiss-node against Debian's libfaiss
  try {
    if (!existsSync(mod('faiss-node'))) throw new Error('not installed by npm');
    const out = `${mod('faiss-node')}/build/Release/faiss-node.node`;
    if (!existsSync(out)) {
      if (!existsSync('/usr/include/faiss/Index.h')) {
        log('faiss-node: apt-get install libfaiss-dev ...');
        sh('apt-get', ['install', '-y', '-q', 'libfaiss-dev'], {
          env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        });
      }
      log('faiss-node: compiling src/faiss.cc against /usr/include/faiss ...');
      mkdirSync(`${mod('faiss-node')}/build/Release`, { recursive: true });
      sh('g++', [
        '-std=c++17',
        '-O2',
        '-shared',
        '-fPIC',
        '-DNAPI_VERSION=6',
        '-DNAPI_CPP_EXCEPTIONS',
        '-fexceptions',
        '-include',
        `${here}faiss-compat.h`,
        '-I/usr/include/node',
        `-I${mod('node-addon-api')}`,
        `${mod('faiss-node')}/src/faiss.cc`,
        '-o',
        out,
        '-lfaiss',
        '-lblas',
        '-llapack',
        '-fopenmp',
      ]);
    }
    loads('faiss-node');
    status.peers['faiss-node'] = 'ok';
  } catch (e) {
    status.peers['faiss-node'] =
      `install failed (its npm install script downloads Faiss from GitHub, unreachable here; ` +
      `building against Debian's libfaiss-dev failed too): ${tail(e)}`;
  }
  try {
    loads('usearch');
    status.peers.usearch = 'ok';
  } catch (e) {
    status.peers.usearch = `its prebuilt addon does not load: ${tail(e)}`;
  }
  for (const name of ['hnswlib-wasm', 'edgevec', 'voy-search']) {
    status.peers[name] = existsSync(mod(name)) ? 'ok' : 'not installed by npm';
  }
  writeFileSync(statusFile, JSON.stringify(status, null, 1) + '\n');
  return status;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = install({ force: process.argv.includes('--force') });
  console.log(JSON.stringify(s.peers, null, 1));
}
