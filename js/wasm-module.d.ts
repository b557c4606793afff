// Types of 'quiver-vector/wasm/<variant>/quiver.wasm' as platforms import it: workerd and
// wrangler (a .wasm import is a compiled WebAssembly.Module), Deno's `import source`. Pass it to
// init({ wasmModule }). (Bun's import gives the file's path, also taken by wasmModule.)
declare const wasm: WebAssembly.Module;
export default wasm;
