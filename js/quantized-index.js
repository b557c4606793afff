// QuantizedIndex: TurboQuant-style 2- or 4-bit codes scanned with SIMD lookup tables, with an
// optional exact rerank from kept f32 vectors. Same API shape as FlatIndex (index-base.js
// holds the shared parts); search and searchBatch take per-call options:
//   rerank  0 or absent (codes only) or r >= 1: re-score the best k * r exactly (needs
//           keepVectors)
//   allow   ids (array or typed array) that may be returned; others are skipped
//   probes  a partitioned index's lists to scan (0 or absent: its default)
import { QuiverError, checked } from './errors.js';
import { FROM_NATIVE } from './index-base.js';
import { checkDim, checkMetric, checkOptions } from './inputs.js';

export function makeQuantizedIndexClass(mod, staging, variantName, IndexBase) {
  class QuantizedIndex extends IndexBase {
    // new QuantizedIndex({ dim, metric = 'l2', bits = 4, seed = 42, keepVectors = true,
    //                      refineBits = 0, lists = 0 })
    // refineBits: 0..4 bits of a refine plane (codes-only re-scoring, no f32 needed).
    // lists: 0 (scan every code), 'auto' (min(n / 256, round(3 sqrt(n))) lists for the n trained
    // at, once 4096 vectors are in) or a count in [1, 65536] (trained once the index holds 32
    // per list).
    constructor(options = {}) {
      if (options?.[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      const { dim, metric = 'l2', bits = 4, seed = 42, keepVectors = true, refineBits = 0, lists = 0 } =
        checkOptions(options, '{ dim, metric, bits, seed, keepVectors, refineBits, lists }');
      checkDim(dim);
      checkMetric(metric);
      if (bits !== 2 && bits !== 4) throw new QuiverError('INVALID_ARGUMENT', `bits must be 2 or 4, got ${bits}`);
      const s = typeof seed === 'bigint' && seed >= 0n && seed <= 9007199254740991n ? Number(seed) : seed;
      if (!Number.isSafeInteger(s) || s < 0) {
        throw new QuiverError('INVALID_ARGUMENT', `seed must be an integer in [0, 2^53 - 1], got ${seed}`);
      }
      if (typeof keepVectors !== 'boolean') {
        throw new QuiverError('INVALID_ARGUMENT', `keepVectors must be true or false, got ${keepVectors}`);
      }
      if (!Number.isInteger(refineBits) || refineBits < 0 || refineBits > 4) {
        throw new QuiverError('INVALID_ARGUMENT', `refineBits must be an integer in [0, 4], got ${refineBits}`);
      }
      if (lists !== 'auto' && !(Number.isInteger(lists) && lists >= 0 && lists <= 65536)) {
        throw new QuiverError('INVALID_ARGUMENT', `lists must be 'auto' or an integer in [0, 65536], got ${lists}`);
      }
      super(checked(mod, mod.QuantizedIndex.create(dim, metric, bits, s, keepVectors, refineBits,
        lists === 'auto' ? -1 : lists)));
    }

    get bits() { return this.live().bits(); }
    get seed() { return this.live().seed(); }
    get keepVectors() { return this.live().keepsVectors(); }
    get refineBits() { return this.live().refineBits(); }
    // The lists option as given ('auto', or a count; 0 = not partitioned), the lists the index
    // is split into now (1 until trained), and the probes a search uses when it does not say.
    get listsOption() { const l = this.live().listsOption(); return l < 0 ? 'auto' : l; }
    get lists() { return this.live().lists(); }
    get defaultProbes() { return this.live().defaultProbes(); }
  }
  QuantizedIndex.searchOptions = ['rerank', 'allow', 'probes'];
  QuantizedIndex.nativeClass = mod.QuantizedIndex;
  return QuantizedIndex;
}
