// Types of the single-build entries 'quiver-vector/simd', 'quiver-vector/simd-mt' and
// 'quiver-vector/baseline' (js/simd.js, ...): the core API of 'quiver-vector' with one wasm
// build. Worker-hosted indexes (spawn) and the persistence helpers are in 'quiver-vector'.
import type { QuiverStatic } from './index.js';

export type * from './index.js';
export { QuiverError, Collection, VARIANTS, chooseVariant, init, load } from './index.js';

export interface QuiverVariantStatic extends Pick<
  QuiverStatic,
  'init' | 'load' | 'shared' | 'chooseVariant' | 'VARIANTS' | 'Collection'
> {}
export declare const Quiver: QuiverVariantStatic;
/** The module `load` uses (one per entry; options as init's). */
export declare const shared: QuiverStatic['shared'];
export default Quiver;
