// The simd-mt build (SIMD128 + pthreads) for the loader: its glue, its .wasm, the start-up
// script of its pthread workers. Literal paths relative to this file (at js/, beside wasm/ and
// pthread-worker.js), so bundlers see the files and an esbuild bundle finds them beside it; an
// entry that imports only this file carries only this build (quiver-vector/simd-mt).
export const build = {
  glue: () => import('./wasm/simd-mt/quiver.mjs'),
  wasm: () => new URL('./wasm/simd-mt/quiver.wasm', import.meta.url),
  worker: () => new URL('./pthread-worker.js', import.meta.url),
  // What each pthread worker imports: the glue as a file of its own (a bundler may have merged
  // the glue loaded above into a chunk the worker cannot find).
  script: () => new URL('./wasm/simd-mt/quiver.mjs', import.meta.url),
};
