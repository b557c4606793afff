// Runs one of binaryen 132's tools (its npm build, wasm run by Node) for Emscripten 3.1.6's
// emcc in the relaxed-simd build (scripts/ensure-relaxed-toolchain.sh writes the wrappers that
// call this). Usage: node binaryen-shim.mjs <binaryen package dir> <tool> [args...]
// One translation: binaryen 132 prints the renaming of --minify-imports* as JSON, and emcc
// 3.1.6 reads the "old => new" lines binaryen of its time printed; without them the .wasm
// gets short import and export names and the JS glue keeps the long ones.
import { spawnSync } from 'node:child_process';

const [pkg, tool, ...args] = process.argv.slice(2);
const minify = args.some((a) => a.startsWith('--minify-imports'));
const run = spawnSync(process.execPath, [`${pkg}/bin/${tool}`, ...args], {
  stdio: ['inherit', minify ? 'pipe' : 'inherit', 'inherit'],
  maxBuffer: 1 << 30,
});
if (run.error) throw run.error;
if (minify && run.status === 0) {
  const out = run.stdout.toString();
  const start = out.indexOf('{');
  const map = JSON.parse(out.slice(start));
  // imports: [module, base, new] (emcc maps the base name); exports: [old, new].
  const lines = [
    ...map.imports.map(([, base, to]) => `${base} => ${to}`),
    ...map.exports.map(([from, to]) => `${from} => ${to}`),
  ];
  process.stdout.write(out.slice(0, start) + lines.join('\n') + '\n');
} else if (minify) {
  process.stdout.write(run.stdout);
}
process.exit(run.status ?? 1);
