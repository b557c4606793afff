// The baseline build (no SIMD, one thread) for the loader: its glue and its .wasm, by literal
// paths relative to this file (see build-simd-mt.js). quiver-vector/baseline imports only this.
export const build = {
  glue: () => import('./wasm/baseline/quiver.mjs'),
  wasm: () => new URL('./wasm/baseline/quiver.wasm', import.meta.url),
};
