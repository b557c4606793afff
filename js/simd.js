// quiver-vector/simd: the API of 'quiver-vector' (init, load, shared, Collection, QuiverError,
// chooseVariant, VARIANTS) with the simd build alone, so a bundle carries one glue and one
// .wasm. init() loads simd (asking for another variant is INVALID_ARGUMENT; an engine that
// cannot run it is LOAD_FAILED, naming the entry to use). Worker-hosted indexes (spawn) and the
// persistence helpers are in 'quiver-vector'.
import { QuiverError } from './core/errors.js';
import { chooseVariant, VARIANTS } from './loader.js';
import { makeQuiver } from './api.js';
import { build } from './build-simd.js';

const { init, load, shared, Collection } = makeQuiver({ simd: build }, "'quiver-vector/simd'");

export const Quiver = { init, load, shared, chooseVariant, VARIANTS, Collection };
export { init, load, shared, QuiverError, chooseVariant, VARIANTS, Collection };
export default Quiver;
