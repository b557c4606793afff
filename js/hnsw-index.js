// HnswIndex: approximate search over a Hierarchical Navigable Small World graph. Same API
// shape as FlatIndex and QuantizedIndex (index-base.js holds the shared parts); search and
// searchBatch take per-call options:
//   ef      beam width (0 or absent: the index's efSearch); a value below k is raised to k
//   allow   ids (array or typed array) that may be returned; others are skipped
//   rerank  sq8 storage with kept vectors: rescore the final candidates with exact f32
//           distances and return those (default true); false returns the code distances
// and add takes { threads }: pool workers the insertion may use (0 or absent: all). With
// threads: 1 the graph depends only on the seed and the data, and equals a one-thread native
// build (quiver build --threads 1) on the same vectors.
import { QuiverError, checked } from './errors.js';
import { FROM_NATIVE } from './index-base.js';
import { checkDim, checkMetric, checkOptions, toIds } from './inputs.js';

function checkCount(value, name) {
  if (!Number.isInteger(value) || value < 0 || value > 4294967295) {
    throw new QuiverError('INVALID_ARGUMENT', `${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

export function makeHnswIndexClass(mod, staging, variantName, IndexBase) {
  // [ef, allowPtr, allowCount, rerank] for the binding; the allow list goes to its own
  // staging slot.
  function searchOptions(options) {
    const { ef = 0, allow, rerank = true } = checkOptions(options, '{ ef, allow, rerank }');
    checkCount(ef, 'ef');
    if (typeof rerank !== 'boolean') {
      throw new QuiverError('INVALID_ARGUMENT', `rerank must be true or false, got ${rerank}`);
    }
    if (allow === undefined || allow === null) return [ef, 0, 0, rerank];
    const ids = toIds(allow);
    return [ef, staging.putFloat64('allow', ids), ids.length, rerank];
  }

  class HnswIndex extends IndexBase {
    // new HnswIndex({ dim, metric = 'l2', M = 16, efConstruction = 200, efSearch = 64, seed = 42,
    //                 storage = 'f32', keepVectors = true })
    // storage 'sq8' keeps 8-bit codes in the graph (about a quarter of the f32 bytes);
    // keepVectors (sq8 only) also keeps the f32 vectors for the exact rerank.
    constructor(options = {}) {
      if (options?.[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      const { dim, metric = 'l2', M = 16, efConstruction = 200, efSearch = 64, seed = 42, storage = 'f32',
        keepVectors = true } = checkOptions(options, '{ dim, metric, M, efConstruction, efSearch, seed, storage, keepVectors }');
      checkDim(dim);
      checkMetric(metric);
      checkCount(M, 'M');
      checkCount(efConstruction, 'efConstruction');
      checkCount(efSearch, 'efSearch');
      const s = typeof seed === 'bigint' && seed >= 0n && seed <= 9007199254740991n ? Number(seed) : seed;
      if (!Number.isSafeInteger(s) || s < 0) {
        throw new QuiverError('INVALID_ARGUMENT', `seed must be an integer in [0, 2^53 - 1], got ${seed}`);
      }
      if (typeof storage !== 'string') {
        throw new QuiverError('INVALID_ARGUMENT', `storage must be 'f32' or 'sq8', got ${storage}`);
      }
      if (typeof keepVectors !== 'boolean') {
        throw new QuiverError('INVALID_ARGUMENT', `keepVectors must be true or false, got ${keepVectors}`);
      }
      super(checked(mod, mod.HnswIndex.create(dim, metric, M, efConstruction, s, efSearch, storage, keepVectors)));
    }

    get M() { return this.live().M(); }
    get efConstruction() { return this.live().efConstruction(); }
    get seed() { return this.live().seed(); }
    // The beam width of a search without an ef option.
    get efSearch() { return this.live().efSearch(); }
    // 'f32' or 'sq8'.
    get storage() { return this.live().storage(); }
    // Whether f32 vectors are kept (always for f32; sq8 only with keepVectors).
    get keepVectors() { return this.live().keepsVectors(); }
    // memoryBytes divided by the slots in use (removed nodes keep their slot until reused).
    get bytesPerVector() { return this.live().bytesPerVector(); }
    // Highest level of the graph (-1 while it has no node).
    get maxLevel() { return this.live().maxLevel(); }
    // Bytes per node of the fixed level-0 stride (vector + level-0 links, 64-byte aligned).
    get nodeBytes() { return this.live().nodeBytes(); }

    // All-or-nothing: a bad id or vector throws and adds nothing.
    add(ids, vectors, options = {}) {
      const { threads = 0 } = checkOptions(options, '{ threads }');
      checkCount(threads, 'threads');
      this.addWith(ids, vectors, (native, idPtr, vecPtr, n) => native.add(idPtr, vecPtr, n, threads));
    }

    // Drops removed nodes for good: links are rebuilt around them and storage shrinks to the
    // live nodes (memoryBytes drops). Ids, size and has() are unchanged; deterministic.
    compact() {
      const native = this.live();
      checked(mod, native.compact());
    }

    // { ids: Float64Array, distances: Float32Array }, closest first, ties by id.
    search(query, k = 10, options = {}) {
      const native = this.live();
      const [ef, allow, allowCount, rerank] = searchOptions(options);
      return this.searchWith(query, k, (q, kk, out) => native.search(q, kk, out, ef, allow, allowCount, rerank));
    }

    // { ids, distances, k, count, counts }: every row has k = min(k, size) slots, its hits
    // first, then padding (id -1, distance Infinity); counts[q] = hits in row q. Parallel in
    // simd-mt.
    searchBatch(queries, k = 10, options = {}) {
      const native = this.live();
      const [ef, allow, allowCount, rerank] = searchOptions(options);
      return this.searchBatchWith(queries, k,
        (qs, nq, kk, out) => native.searchBatch(qs, nq, kk, out, ef, allow, allowCount, rerank));
    }

    // Reads index file bytes written by serialize() or natively (quiver build, save()). The
    // loaded index answers every search as the saved one did, and goes on building the same
    // graph when more vectors are added.
    static load(bytes) {
      return IndexBase.loadAs(HnswIndex, mod.HnswIndex, bytes);
    }
  }
  return HnswIndex;
}
