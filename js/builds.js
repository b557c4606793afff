// Every wasm build by variant: what 'quiver-vector' (index.js) carries and picks from.
import { build as simdMt } from './build-simd-mt.js';
import { build as relaxedSimd } from './build-relaxed-simd.js';
import { build as simd } from './build-simd.js';
import { build as baseline } from './build-baseline.js';

export const ALL_BUILDS = { 'simd-mt': simdMt, 'relaxed-simd': relaxedSimd, simd, baseline };
