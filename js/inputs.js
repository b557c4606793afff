// Normalises caller input into the typed arrays the staging buffers take.
import { QuiverError } from './errors.js';

// Ids: numbers, a Uint32Array, a Float64Array, a BigUint64Array or a plain array.
// Returned as a Float64Array (exact for integers up to 2^53 - 1; C++ rejects the rest).
export function toIds(ids) {
  if (typeof ids === 'number' || typeof ids === 'bigint') ids = [ids];
  if (ids instanceof Float64Array) return ids;
  const out = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i];
    if (typeof v === 'bigint') {
      if (v < 0n || v > 9007199254740991n) {
        throw new QuiverError('INVALID_ARGUMENT', `id at position ${i} is not an integer in [0, 2^53 - 1]`);
      }
      out[i] = Number(v);
    } else {
      out[i] = v;
    }
  }
  return out;
}

// Vectors: a Float32Array of n x dim, an array of numbers, or an array of rows.
export function toVectors(vectors, dim, what = 'vectors') {
  if (vectors instanceof Float32Array) {
    if (vectors.length % dim !== 0) {
      throw new QuiverError('DIMENSION_MISMATCH',
        `${what} has ${vectors.length} values, not a multiple of the dimension ${dim}`);
    }
    return vectors;
  }
  if (Array.isArray(vectors) && vectors.length > 0 && typeof vectors[0] !== 'number') {
    const out = new Float32Array(vectors.length * dim);
    vectors.forEach((row, r) => {
      if (row.length !== dim) {
        throw new QuiverError('DIMENSION_MISMATCH',
          `${what} row ${r} has ${row.length} values, the index dimension is ${dim}`);
      }
      out.set(row, r * dim);
    });
    return out;
  }
  return toVectors(Float32Array.from(vectors), dim, what);
}
