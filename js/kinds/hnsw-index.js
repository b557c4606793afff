// HnswIndex: approximate search over a Hierarchical Navigable Small World graph. Same API
// shape as FlatIndex and QuantizedIndex (index-base.js holds the shared parts); search and
// searchBatch take per-call options:
//   ef      beam width (0 or absent: the index's efSearch); a value below k is raised to k
//   allow   ids (array or typed array) that may be returned; others are skipped
//   rerank  exact re-scoring depth, as in every kind: absent (or true, the older switch)
//           re-scores every final candidate when sq8 storage keeps f32 vectors; 0 (or false)
//           returns the code distances; r >= 1 widens the beam to at least k * r and
//           re-scores the best k * r by code distance (sq8 needs keepVectors; f32 storage is
//           exact already, so r only widens the beam)
// and add takes { threads }: pool workers the insertion may use (0 or absent: all). With
// threads: 1 the graph depends only on the seed and the data, and equals a one-thread native
// build (quiver build --threads 1) on the same vectors.
import { checked } from '../core/errors.js';
import { FROM_NATIVE } from './index-base.js';
import { checkDim } from '../core/inputs.js';
import { ADD_OPTIONS, INDEX_OPTIONS, SEARCH_OPTIONS, readOptions } from '../core/options.js';

export function makeHnswIndexClass(mod, staging, variantName, IndexBase) {
  class HnswIndex extends IndexBase {
    // new HnswIndex({ dim, metric = 'l2', M = 16, efConstruction = 200, efSearch = 64, seed = 42,
    //                 storage = 'f32', keepVectors = true, neighborCodes = false })
    // storage 'sq8' keeps 8-bit codes in the graph (about a quarter of the f32 bytes);
    // keepVectors (sq8 only) also keeps the f32 vectors for the exact rerank; neighborCodes
    // (sq8 only) stores each node's neighbours' 1-bit codes beside its links, so a search
    // reads and scores only the neighbours whose estimate could enter its beam (more bytes
    // per node, fewer random reads per query).
    constructor(options) {
      if (options?.[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      // Every key and type is checked by the schema (options.js); any other key is refused.
      const {
        dim,
        metric = 'l2',
        M = 16,
        efConstruction = 200,
        efSearch = 64,
        seed = 42,
        storage = 'f32',
        keepVectors = true,
        neighborCodes = false,
      } = readOptions(options, INDEX_OPTIONS.hnsw);
      checkDim(dim);
      super(
        checked(
          mod,
          mod.HnswIndex.create(dim, metric, M, efConstruction, seed, efSearch, storage, keepVectors, neighborCodes),
        ),
      );
    }

    get M() {
      return this.live().M();
    }
    get efConstruction() {
      return this.live().efConstruction();
    }
    get seed() {
      return this.live().seed();
    }
    // The beam width of a search without an ef option.
    get efSearch() {
      return this.live().efSearch();
    }
    // 'f32' or 'sq8'.
    get storage() {
      return this.live().storage();
    }
    // Whether f32 vectors are kept (always for f32; sq8 only with keepVectors).
    get keepVectors() {
      return this.live().keepsVectors();
    }
    // Whether neighbours' codes are stored beside the level-0 links (neighborCodes option).
    get neighborCodes() {
      return this.live().neighborCodes();
    }
    // memoryBytes divided by the slots in use (removed nodes keep their slot until reused).
    get bytesPerVector() {
      return this.live().bytesPerVector();
    }
    // Highest level of the graph (-1 while it has no node).
    get maxLevel() {
      return this.live().maxLevel();
    }
    // Bytes per node of the fixed level-0 stride (vector + level-0 links, 64-byte aligned).
    get nodeBytes() {
      return this.live().nodeBytes();
    }

    // Drops removed nodes for good: links are rebuilt around them and storage shrinks to the
    // live nodes (memoryBytes drops). Ids, size and has() are unchanged; deterministic.
    compact() {
      const native = this.live();
      checked(mod, native.compact());
    }
  }
  HnswIndex.searchSchema = SEARCH_OPTIONS.hnsw;
  HnswIndex.addSchema = ADD_OPTIONS.hnsw;
  HnswIndex.nativeClass = mod.HnswIndex;
  return HnswIndex;
}
