// QuantizedIndex: TurboQuant-style 2- or 4-bit codes scanned with SIMD lookup tables, with an
// optional exact rerank from kept f32 vectors. Same API shape as FlatIndex (index-base.js
// holds the shared parts); search and searchBatch take per-call options:
//   rerank  0 (codes only) or r >= 1: re-score the best k * r exactly (needs keepVectors)
//   allow   ids (array or typed array) that may be returned; others are skipped
import { QuiverError, rethrowing } from './errors.js';
import { FROM_NATIVE } from './index-base.js';
import { toIds } from './inputs.js';

export function makeQuantizedIndexClass(mod, staging, variantName, IndexBase) {
  // [rerank, allowPtr, allowCount] for the binding; the allow list goes to its own staging slot.
  function searchOptions(options) {
    if (options === null || typeof options !== 'object') {
      throw new QuiverError('INVALID_ARGUMENT', 'search options must be an object like { rerank, allow }');
    }
    const { rerank = 0, allow } = options;
    if (!Number.isInteger(rerank) || rerank < 0) {
      throw new QuiverError('INVALID_ARGUMENT', `rerank must be a non-negative integer, got ${rerank}`);
    }
    if (allow === undefined || allow === null) return [rerank, 0, 0];
    const ids = toIds(allow);
    return [rerank, staging.putFloat64('allow', ids), ids.length];
  }

  class QuantizedIndex extends IndexBase {
    // new QuantizedIndex({ dim, metric = 'l2', bits = 4, seed = 42, keepVectors = true })
    constructor(options = {}) {
      if (options[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      const { dim, metric = 'l2', bits = 4, seed = 42, keepVectors = true } = options;
      if (!Number.isInteger(dim) || dim < 1) {
        throw new QuiverError('INVALID_ARGUMENT', `dim must be a positive integer, got ${dim}`);
      }
      if (bits !== 2 && bits !== 4) throw new QuiverError('INVALID_ARGUMENT', `bits must be 2 or 4, got ${bits}`);
      const s = typeof seed === 'bigint' && seed >= 0n && seed <= 9007199254740991n ? Number(seed) : seed;
      if (!Number.isSafeInteger(s) || s < 0) {
        throw new QuiverError('INVALID_ARGUMENT', `seed must be an integer in [0, 2^53 - 1], got ${seed}`);
      }
      if (typeof keepVectors !== 'boolean') {
        throw new QuiverError('INVALID_ARGUMENT', `keepVectors must be true or false, got ${keepVectors}`);
      }
      super(rethrowing(() => new mod.QuantizedIndex(dim, metric, bits, s, keepVectors)));
    }

    get bits() { return this.live().bits(); }
    get seed() { return this.live().seed(); }
    get keepVectors() { return this.live().keepsVectors(); }

    // { ids: Float64Array, distances: Float32Array }, closest first, ties by id. Distances
    // are estimates from the codes, or exact for reranked results.
    search(query, k = 10, options = {}) {
      const native = this.live();
      return this.searchWith(query, k, (q, out) => {
        const [rerank, allow, allowCount] = searchOptions(options);
        return native.search(q, k, out, rerank, allow, allowCount);
      });
    }

    // Row q of the result occupies [q * k, (q + 1) * k) of ids and distances, where k is
    // min(k, size); returns { ids, distances, k, count }. Parallel in simd-mt.
    searchBatch(queries, k = 10, options = {}) {
      const native = this.live();
      return this.searchBatchWith(queries, k, (qs, nq, out) => {
        const [rerank, allow, allowCount] = searchOptions(options);
        return native.searchBatch(qs, nq, k, out, rerank, allow, allowCount);
      });
    }

    // Reads index file bytes written by serialize() or natively (quiver build, save()).
    static load(bytes) {
      return IndexBase.loadAs(QuantizedIndex, mod.QuantizedIndex, bytes);
    }
  }
  return QuantizedIndex;
}
