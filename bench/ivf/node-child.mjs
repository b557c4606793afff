// One wasm variant on one workload under Node, in its own process (bench/ivf/run.mjs starts it):
//   node bench/ivf/node-child.mjs '<json: { variant, workload: { name, files, rows, dim }, knobs }>'
// Prints progress on stderr and the result as the last stdout line.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Quiver } from '../../js/index.js';
import { addSliceRows, measureWasm } from './measure.mjs';

// .fbin: int32 rows, int32 dim, rows x dim float32. .ibin: int32 rows, int32 k, rows x k int32.
function readBin(path, Type) {
  const buf = readFileSync(path);
  const rows = buf.readInt32LE(0),
    cols = buf.readInt32LE(4);
  const start = buf.byteOffset + 8;
  const data =
    start % 4 === 0
      ? new Type(buf.buffer, start, rows * cols)
      : new Type(buf.buffer.slice(start, start + rows * cols * 4));
  return { rows, cols, data };
}

const { variant, workload, knobs } = JSON.parse(process.argv[2]);
const log = (line) => process.stderr.write(`${line}\n`);
const q = await Quiver.init({ variant });
const base = readBin(workload.files.base, Float32Array);
const queries = readBin(workload.files.queries, Float32Array);
const gt = readBin(workload.files.gt, Int32Array);
const sliceRows = 24 * addSliceRows(base.cols); // a multiple of the package's slice (measure.mjs)
const wl = {
  name: workload.name,
  rows: base.rows,
  dim: base.cols,
  nq: queries.rows,
  queries: queries.data,
  gt: gt.data,
  gtK: gt.cols,
  async *slices() {
    for (let first = 0; first < base.rows; first += sliceRows) {
      yield { first, data: base.data.subarray(first * base.cols, Math.min(base.rows, first + sliceRows) * base.cols) };
    }
  },
};
const threads = variant === 'simd-mt' ? os.cpus().length : 1;
const result = await measureWasm({ q, wl, knobs: { ...knobs, threads }, log });
const isa = result.builds[0]?.isa ?? null;
q.terminate();
process.stdout.write(
  `${JSON.stringify({ target: 'wasm', variant, runtime: `node ${process.version}`, isa, threads, ...result })}\n`,
);
