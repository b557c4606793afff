// Normalises and checks caller input before anything reaches the wasm module. Embind would
// otherwise coerce silently (a size_t argument wraps modulo 2^32, a string id becomes a
// number) or fail with its own BindingError / TypeError instead of a QuiverError.
import { QuiverError } from './errors.js';

export const MAX_ID = Number.MAX_SAFE_INTEGER; // 2^53 - 1: the largest id a JS number names exactly
export const MAX_K = 4294967295; // 2^32 - 1
export const MAX_DIM = 16777216; // 2^24 (an index kind may allow less, e.g. HNSW sq8 storage)

function describe(value) {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return value.constructor?.name ?? 'an object';
  return String(value);
}

export function checkK(k) {
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
    throw new QuiverError('INVALID_K', `k must be an integer in [1, 2^32 - 1], got ${describe(k)}`);
  }
  return k;
}

export function checkDim(dim) {
  if (!Number.isInteger(dim) || dim < 1 || dim > MAX_DIM) {
    throw new QuiverError('INVALID_ARGUMENT', `dim must be an integer in [1, ${MAX_DIM}], got ${describe(dim)}`);
  }
  return dim;
}

function idError(i, value) {
  return new QuiverError(
    'INVALID_ARGUMENT',
    `id at position ${i} is not an integer in [0, 2^53 - 1] (a number or a bigint), got ${describe(value)}`,
  );
}

// Ids: a number, a bigint, an array of numbers or bigints, or an integer typed array
// (Uint32Array, BigUint64Array, ...) or a Float64Array. Returned as a Float64Array (exact for
// integers up to 2^53 - 1). Strings and other values are refused, not coerced.
export function toIds(ids) {
  if (typeof ids === 'number' || typeof ids === 'bigint') ids = [ids];
  if (ids instanceof Float64Array) return ids; // values checked by the binding (same rule)
  const typed = ArrayBuffer.isView(ids) && !(ids instanceof DataView);
  if (!typed && !Array.isArray(ids)) {
    throw new QuiverError(
      'INVALID_ARGUMENT',
      `ids must be a number, a bigint, an array or a typed array, got ${describe(ids)}`,
    );
  }
  const out = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i];
    if (typeof v === 'bigint') {
      if (v < 0n || v > BigInt(MAX_ID)) throw idError(i, v);
      out[i] = Number(v);
    } else if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_ID) {
      out[i] = v;
    } else {
      throw idError(i, v);
    }
  }
  return out;
}

// has(id): a number or bigint; any other type is refused. A number or bigint that cannot be
// an id (negative, fractional, above 2^53 - 1) is simply not in the index.
export function toLookupId(id) {
  if (typeof id === 'bigint') return id >= 0n && id <= BigInt(MAX_ID) ? Number(id) : -1;
  if (typeof id === 'number') return id;
  throw new QuiverError('INVALID_ARGUMENT', `an id is a number or a bigint, got ${describe(id)}`);
}

function checkNumbers(values, what) {
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'number') {
      throw new QuiverError('INVALID_ARGUMENT', `${what} value ${i} is not a number, got ${describe(values[i])}`);
    }
  }
}

// Vectors: a Float32Array of n x dim, another typed array or an array of numbers (n x dim),
// or an array of rows (arrays or typed arrays of dim numbers each).
export function toVectors(vectors, dim, what = 'vectors') {
  if (vectors instanceof Float32Array) {
    if (vectors.length % dim !== 0) {
      throw new QuiverError(
        'DIMENSION_MISMATCH',
        `${what} has ${vectors.length} values, not a multiple of the dimension ${dim}`,
      );
    }
    return vectors;
  }
  if (
    ArrayBuffer.isView(vectors) &&
    !(vectors instanceof DataView) &&
    !(vectors instanceof BigInt64Array) &&
    !(vectors instanceof BigUint64Array)
  ) {
    return toVectors(Float32Array.from(vectors), dim, what);
  }
  if (!Array.isArray(vectors)) {
    throw new QuiverError(
      'INVALID_ARGUMENT',
      `${what} must be a Float32Array, an array of numbers or an array of rows, got ${describe(vectors)}`,
    );
  }
  if (vectors.length > 0 && typeof vectors[0] !== 'number') {
    const out = new Float32Array(vectors.length * dim);
    vectors.forEach((row, r) => {
      const isRow = Array.isArray(row) || (ArrayBuffer.isView(row) && !(row instanceof DataView));
      if (!isRow) {
        throw new QuiverError('INVALID_ARGUMENT', `${what} row ${r} is not an array of numbers, got ${describe(row)}`);
      }
      if (row.length !== dim) {
        throw new QuiverError(
          'DIMENSION_MISMATCH',
          `${what} row ${r} has ${row.length} values, the index dimension is ${dim}`,
        );
      }
      if (Array.isArray(row)) checkNumbers(row, `${what} row ${r}:`);
      out.set(row, r * dim);
    });
    return out;
  }
  checkNumbers(vectors, what);
  return toVectors(Float32Array.from(vectors), dim, what);
}
