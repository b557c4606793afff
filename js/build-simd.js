// The simd build (SIMD128, one thread) for the loader: its glue and its .wasm, by literal paths
// relative to this file (see build-simd-mt.js). quiver-vector/simd imports only this build.
export const build = {
  glue: () => import('./wasm/simd/quiver.mjs'),
  wasm: () => new URL('./wasm/simd/quiver.wasm', import.meta.url),
};
