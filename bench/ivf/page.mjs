// The Chromium side of `npm run bench:ivf`: the same measurement as under Node
// (bench/ivf/measure.mjs), with the package loaded by the page. The base vectors are fetched
// slice by slice (/ivf-data, a byte range of the cached .fbin) and added as they arrive, so the
// tab never holds the whole base beside the index — a million vectors fit.
import { Quiver } from '/js/index.js';
import { addSliceRows, measureWasm } from './measure.mjs';

const logEl = document.getElementById('log');
const log = (line) => {
  logEl.textContent += `${line}\n`;
  console.log(line);
};

async function fetchBytes(file, offset, length) {
  const res = await fetch(`/ivf-data?file=${encodeURIComponent(file)}&offset=${offset}&length=${length}`);
  if (!res.ok) throw new Error(`${file}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

async function readWhole(file, Type) {
  const head = new Int32Array(await fetchBytes(file, 0, 8));
  const [rows, cols] = head;
  return { rows, cols, data: new Type(await fetchBytes(file, 8, rows * cols * 4)) };
}

async function run({ variant, workload, knobs }) {
  const q = await Quiver.init({ variant });
  const head = new Int32Array(await fetchBytes(workload.files.base, 0, 8));
  const [rows, dim] = head;
  const queries = await readWhole(workload.files.queries, Float32Array);
  const gt = await readWhole(workload.files.gt, Int32Array);
  const sliceRows = 24 * addSliceRows(dim); // a multiple of the package's slice (measure.mjs)
  const wl = {
    name: workload.name,
    rows,
    dim,
    nq: queries.rows,
    queries: queries.data,
    gt: gt.data,
    gtK: gt.cols,
    async *slices() {
      for (let first = 0; first < rows; first += sliceRows) {
        const n = Math.min(sliceRows, rows - first);
        yield {
          first,
          data: new Float32Array(await fetchBytes(workload.files.base, 8 + first * dim * 4, n * dim * 4)),
        };
      }
    },
  };
  const threads = variant === 'simd-mt' ? navigator.hardwareConcurrency : 1;
  log(`${workload.name}: ${variant}, ${threads} thread(s), crossOriginIsolated ${self.crossOriginIsolated}`);
  const result = await measureWasm({ q, wl, knobs: { ...knobs, threads }, log });
  q.terminate();
  return {
    target: 'wasm',
    variant,
    runtime: `chromium ${navigator.userAgent.match(/Chrome\/([\d.]+)/)?.[1] ?? '?'}`,
    isa: result.builds[0]?.isa ?? null,
    threads,
    ...result,
  };
}

window.ivfBench = { ready: true, run };
