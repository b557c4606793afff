// The relaxed-simd build (SIMD128 + relaxed SIMD in the kernels, one thread) for the loader: its
// glue and its .wasm, by literal paths relative to this file (see build-simd-mt.js).
export const build = {
  glue: () => import('./wasm/relaxed-simd/quiver.mjs'),
  wasm: () => new URL('./wasm/relaxed-simd/quiver.wasm', import.meta.url),
};
