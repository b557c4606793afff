// FlatIndex: exact search. Everything but construction and the search call is shared with
// the other index classes (index-base.js).
import { QuiverError, rethrowing } from './errors.js';
import { FROM_NATIVE } from './index-base.js';

// Kept for code that imported these from here.
export { FROM_NATIVE, toBytes, withHeapBytes } from './index-base.js';

export function makeFlatIndexClass(mod, staging, variantName, IndexBase) {
  class FlatIndex extends IndexBase {
    // new FlatIndex({ dim, metric = 'l2' })
    constructor(options = {}) {
      if (options[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      const { dim, metric = 'l2' } = options;
      if (!Number.isInteger(dim) || dim < 1) {
        throw new QuiverError('INVALID_ARGUMENT', `dim must be a positive integer, got ${dim}`);
      }
      super(rethrowing(() => new mod.FlatIndex(dim, metric)));
    }

    // { ids: Float64Array, distances: Float32Array }, closest first, ties by id.
    search(query, k = 10) {
      const native = this.live();
      return this.searchWith(query, k, (q, out) => native.search(q, k, out));
    }

    // Row q of the result occupies [q * k, (q + 1) * k) of ids and distances, where k is
    // min(k, size); returns { ids, distances, k, count }.
    searchBatch(queries, k = 10) {
      const native = this.live();
      return this.searchBatchWith(queries, k, (qs, nq, out) => native.searchBatch(qs, nq, k, out));
    }

    // Reads index file bytes written by serialize() or natively (quiver build, save()).
    static load(bytes) {
      return IndexBase.loadAs(FlatIndex, mod.FlatIndex, bytes);
    }
  }
  return FlatIndex;
}
