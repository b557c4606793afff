// QuantizedIndex: TurboQuant-style 2- or 4-bit codes scanned with SIMD lookup tables, with an
// optional exact rerank from kept f32 vectors. Same API shape as FlatIndex (index-base.js
// holds the shared parts); search and searchBatch take per-call options:
//   rerank  0 or absent (codes only) or r >= 1: re-score the best k * r exactly (needs
//           keepVectors)
//   allow   ids (array or typed array) that may be returned; others are skipped
//   probes  a partitioned index's lists to scan (0 or absent: its default)
import { checked } from '../core/errors.js';
import { FROM_NATIVE } from './index-base.js';
import { checkDim } from '../core/inputs.js';
import { ADD_OPTIONS, INDEX_OPTIONS, SEARCH_OPTIONS, readOptions } from '../core/options.js';

export function makeQuantizedIndexClass(mod, staging, variantName, IndexBase) {
  class QuantizedIndex extends IndexBase {
    // new QuantizedIndex({ dim, metric = 'l2', bits = 4, seed = 42, keepVectors = true,
    //                      refineBits = 0, lists = 0 })
    // refineBits: 0..5 bits of a refine plane (codes-only re-scoring, no f32 needed).
    // lists: 0 (scan every code), 'auto' (min(n / 256, round(3 sqrt(n))) lists for the n trained
    // at, once 4096 vectors are in) or a count in [1, 65536] (trained once the index holds 32
    // per list).
    constructor(options) {
      if (options?.[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      // Every key and type is checked by the schema (options.js); any other key is refused.
      const {
        dim,
        metric = 'l2',
        bits = 4,
        seed = 42,
        keepVectors = true,
        refineBits = 0,
        lists = 0,
      } = readOptions(options, INDEX_OPTIONS.quantized);
      checkDim(dim);
      super(
        checked(
          mod,
          mod.QuantizedIndex.create(dim, metric, bits, seed, keepVectors, refineBits, lists === 'auto' ? -1 : lists),
        ),
      );
    }

    get bits() {
      return this.live().bits();
    }
    get seed() {
      return this.live().seed();
    }
    get keepVectors() {
      return this.live().keepsVectors();
    }
    get refineBits() {
      return this.live().refineBits();
    }
    // The lists option as given ('auto', or a count; 0 = not partitioned), the lists the index
    // is split into now (1 until trained), and the probes a search uses when it does not say.
    get listsOption() {
      const l = this.live().listsOption();
      return l < 0 ? 'auto' : l;
    }
    get lists() {
      return this.live().lists();
    }
    get defaultProbes() {
      return this.live().defaultProbes();
    }
  }
  QuantizedIndex.searchSchema = SEARCH_OPTIONS.quantized;
  QuantizedIndex.addSchema = ADD_OPTIONS.quantized;
  QuantizedIndex.nativeClass = mod.QuantizedIndex;
  return QuantizedIndex;
}
