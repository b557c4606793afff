// Shared by the node:test suites (not a test file itself): paths to the build, a per-file
// module cache that ends the pthread workers after the suite, a scratch folder, .fbin files,
// the native CLI, and CRC-32C / FNV-1a written independently of the C++.
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Quiver, VARIANTS as ALL_VARIANTS } from '../../js/index.js';
import { hasRelaxedSimd } from '../../js/loader.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const buildRoot = process.env.QUIVER_BUILD_ROOT ?? join(root, 'build');
export const cli = join(buildRoot, 'native', 'src', 'quiver');

// The variants this engine runs, for the suites that go through every one: relaxed-simd only
// where relaxed SIMD validates (Node 20: with --experimental-wasm-relaxed-simd, the flag of the
// relaxed-simd step of scripts/test.sh).
export const VARIANTS = ALL_VARIANTS.filter((v) => v !== 'relaxed-simd' || hasRelaxedSimd());

// A temporary folder removed when the calling test file ends.
export function workDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// load(variant): one module per variant for the calling test file; every module (and the
// shared ones Quiver.load uses) is terminated when the file ends, so Node can exit.
export function moduleLoader() {
  const modules = new Map();
  after(async () => {
    for (const q of modules.values()) q.terminate();
    for (const v of VARIANTS) (await Quiver.shared({ variant: v })).terminate();
  });
  return async function load(variant) {
    if (!modules.has(variant)) modules.set(variant, await Quiver.init({ variant }));
    return modules.get(variant);
  };
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

// start(options) spawns a worker with `spawnWorker` and remembers it; every worker it started
// is terminated after the test file.
export function workerStarter(spawnWorker) {
  const workers = [];
  after(async () => {
    for (const w of workers) await w.terminate();
  });
  return async (options) => {
    const w = await spawnWorker(options);
    workers.push(w);
    return w;
  };
}

export function crc32c(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// The same function as tests/cpp/test_support.hpp, including its starting value
// (1469598103934665603, not the textbook FNV offset basis), so the constants match.
export function fnv1a(bytes) {
  let h = 1469598103934665603n;
  for (let i = 0; i < bytes.length; i++) h = ((h ^ BigInt(bytes[i])) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

export function writeFbin(path, rows, dim, data) {
  const b = Buffer.alloc(8 + rows * dim * 4);
  b.writeUInt32LE(rows, 0);
  b.writeUInt32LE(dim, 4);
  for (let i = 0; i < rows * dim; i++) b.writeFloatLE(data[i], 8 + 4 * i);
  writeFileSync(path, b);
}

export function readFbin(path) {
  const b = readFileSync(path);
  const rows = b.readUInt32LE(0),
    dim = b.readUInt32LE(4);
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < rows * dim; i++) data[i] = b.readFloatLE(8 + 4 * i);
  return { rows, dim, data };
}

// Fails the test (rather than skipping it) when the native CLI has not been built.
export function requireCli() {
  if (!existsSync(cli)) {
    assert.fail(
      `the native CLI is missing at ${cli}: build it first (QUIVER_BUILD_ROOT=${buildRoot} bash scripts/build.sh native)`,
    );
  }
}

export function runCli(args) {
  return execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
}

// A ReadableStream of `size`-byte chunks of `data` (a stream of unknown length, as a fetch body
// without Content-Length delivers it).
export function chunked(data, size) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= data.length) {
        controller.close();
        return;
      }
      controller.enqueue(data.slice(at, at + size));
      at += size;
    },
  });
}
