// FlatIndex: exact search. Everything but construction and the search call is shared with
// the other index classes (index-base.js).
import { checked } from './errors.js';
import { FROM_NATIVE } from './index-base.js';
import { checkDim, checkMetric, checkOptions, toIds } from './inputs.js';

// Kept for code that imported these from here.
export { FROM_NATIVE, toBytes, withHeapBytes } from './index-base.js';

export function makeFlatIndexClass(mod, staging, variantName, IndexBase) {
  // [allowPtr, allowCount] for the binding; the allow list goes to its own staging slot.
  function searchOptions(options) {
    const { allow } = checkOptions(options, '{ allow }');
    if (allow === undefined || allow === null) return [0, 0];
    const ids = toIds(allow);
    return [staging.putFloat64('allow', ids), ids.length];
  }

  class FlatIndex extends IndexBase {
    // new FlatIndex({ dim, metric = 'l2' })
    constructor(options = {}) {
      if (options?.[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      const { dim, metric = 'l2' } = checkOptions(options, '{ dim, metric }');
      checkDim(dim);
      checkMetric(metric);
      super(checked(mod, mod.FlatIndex.create(dim, metric)));
    }

    // The exact nearest neighbours (at most k; fewer only if `allow` admits fewer):
    // { ids: Float64Array, distances: Float32Array }, closest first, ties by id.
    // options.allow: ids (array or typed array) that may be returned; others are skipped.
    search(query, k = 10, options = {}) {
      const native = this.live();
      const [allow, allowCount] = searchOptions(options);
      return this.searchWith(query, k, (q, kk, out) => native.search(q, kk, out, allow, allowCount));
    }

    // { ids, distances, k, count, counts }: every row has k = min(k, size) slots, its hits
    // first, then padding (id -1, distance Infinity); counts[q] = hits in row q.
    searchBatch(queries, k = 10, options = {}) {
      const native = this.live();
      const [allow, allowCount] = searchOptions(options);
      return this.searchBatchWith(queries, k,
        (qs, nq, kk, out) => native.searchBatch(qs, nq, kk, out, allow, allowCount));
    }

    // Reads index file bytes written by serialize() or natively (quiver build, save()).
    static load(bytes) {
      return IndexBase.loadAs(FlatIndex, mod.FlatIndex, bytes);
    }
  }
  return FlatIndex;
}
