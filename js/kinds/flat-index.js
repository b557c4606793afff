// FlatIndex: exact search. Everything but construction is shared with the other index
// classes (index-base.js). search / searchBatch options:
//   allow   ids (array or typed array) that may be returned; others are skipped
//   rerank  accepted like every kind's (a depth); changes nothing — every distance is exact
import { checked } from '../core/errors.js';
import { FROM_NATIVE } from './index-base.js';
import { checkDim } from '../core/inputs.js';
import { ADD_OPTIONS, INDEX_OPTIONS, SEARCH_OPTIONS, readOptions } from '../core/options.js';

export function makeFlatIndexClass(mod, staging, variantName, IndexBase) {
  class FlatIndex extends IndexBase {
    // new FlatIndex({ dim, metric = 'l2' }); any other key is refused (options.js).
    constructor(options) {
      if (options?.[FROM_NATIVE]) {
        super(options[FROM_NATIVE]);
        return;
      }
      const { dim, metric = 'l2' } = readOptions(options, INDEX_OPTIONS.flat);
      checkDim(dim);
      super(checked(mod, mod.FlatIndex.create(dim, metric)));
    }
  }
  FlatIndex.searchSchema = SEARCH_OPTIONS.flat;
  FlatIndex.addSchema = ADD_OPTIONS.flat;
  FlatIndex.nativeClass = mod.FlatIndex;
  return FlatIndex;
}
