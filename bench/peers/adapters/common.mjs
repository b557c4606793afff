// Shared by the adapters: the swept values and small conversions.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Search-time beam widths swept for every graph index (hnswlib's ef, USearch's expansion_search,
// EdgeVec's ef_search, Quiver's ef). Values below k = 10 are raised to 10 by most libraries.
export const EF_VALUES = [10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384];
// Graph shape, the same for every library that has the knobs.
export const M = 16,
  EF_CONSTRUCTION = 200;
// Lists scanned per query by Quiver's partitioned quantised index (its default at 100k is 24).
export const PROBE_VALUES = [4, 8, 12, 16, 24, 32, 48, 64, 96];

const require = createRequire(import.meta.url);
export function versionOf(pkg) {
  try {
    return JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version;
  } catch {
    // Packages whose "exports" hide package.json: find it next to the entry point.
    let dir = require.resolve(pkg);
    for (let i = 0; i < 6; i++) {
      dir = dir.slice(0, dir.lastIndexOf('/'));
      try {
        const j = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
        if (j.name === pkg) return j.version; // not a nested {"type": …} marker file
      } catch {
        // no package.json here: look one folder up
      }
    }
    return 'unknown';
  }
}

// Row i of an n x dim Float32Array.
export const row = (data, dim, i) => data.subarray(i * dim, (i + 1) * dim);

// For libraries whose build can take hours at 100k rows: adds rows in chunks and gives up once
// PEER_BUILD_BUDGET_S (default 30 min) is spent, with an error saying how far it got and at what
// rate, which run.mjs records as the reason. addChunk(start, count) adds rows [start, start + count).
export function buildWithinBudget(n, chunk, addChunk, what) {
  const budget = Number(process.env.PEER_BUILD_BUDGET_S ?? 1800);
  const t0 = performance.now();
  for (let at = 0; at < n; at += chunk) {
    const seconds = (performance.now() - t0) / 1000;
    if (at > 0 && seconds > budget) {
      throw new Error(
        `${what}: build stopped after ${seconds.toFixed(0)} s (PEER_BUILD_BUDGET_S=${budget}) with ${at} of ${n} ` +
          `vectors added (${(at / seconds).toFixed(1)} vectors/s, slowing as the graph grows)`,
      );
    }
    addChunk(at, Math.min(chunk, n - at));
  }
}
