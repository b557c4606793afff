// Shared by the adapters: the swept values and small conversions.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Search-time beam widths swept for every graph index (hnswlib's ef, USearch's expansion_search,
// EdgeVec's ef_search, Quiver's ef). Values below k = 10 are raised to 10 by most libraries.
export const EF_VALUES = [10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384];
// Graph shape, the same for every library that has the knobs.
export const M = 16, EF_CONSTRUCTION = 200;

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
        if (j.name === pkg) return j.version;  // not a nested {"type": …} marker file
      } catch {}
    }
    return 'unknown';
  }
}

// Row i of an n x dim Float32Array.
export const row = (data, dim, i) => data.subarray(i * dim, (i + 1) * dim);
