// The benchmark page: runs bench/concurrent/concurrent_knn.cpp or bench/concurrent/scaling_batch.cpp
// (compiled to examples/bench/wasm/ for wasm simd-mt, web) with the form's knobs, shows their
// stdout live, then renders the session's runs with bench/concurrent/render.mjs (the same Markdown
// and SVG as bench/concurrent/report.mjs) and saves them through examples/bench/server.mjs
// (into bench/browser/results/).
//
// Scripts drive it through window.quiverBench (bench/browser/run.mjs, the browser test):
//   state: 'loading' | 'unsupported' | 'ready' | 'running' | 'done' | 'error'
//   run(knobs?) -> the program's JSON (knobs fill the form first; same path as the Run button)
//   save() -> {file, target}; with ?autosave=1 in the URL every finished run is saved.
// If the runner exposes window.quiverBenchLog(line), stdout lines are passed to it as well.
import { renderReport } from '../../bench/concurrent/render.mjs';

const $ = (id) => document.getElementById(id);
const form = $('knobs');
const params = new URL(location.href).searchParams;
const autosave = params.get('autosave') === '1';
const MAX_THREADS = 16; // the build pre-spawns workers for 16 bench threads (bench/CMakeLists.txt)
const KNOBS = [
  'THREADS',
  'DURATION_S',
  'MIN_SECONDS',
  'CORPUS_ROWS',
  'DIM',
  'QUERY_POOL',
  'K',
  'BIT_WIDTH',
  'INDEX',
  'WARMUP_S',
  'LOOKUP_ONLY_S',
];

const api = {
  state: 'loading',
  message: '',
  error: null,
  report: null,
  lastRun: null,
  saved: null,
  run: (knobs) => run(knobs),
  save: () => save(),
};
window.quiverBench = api;

function setStatus(state, message) {
  api.state = state;
  api.message = message;
  const el = $('status');
  el.textContent = message;
  el.className = state === 'error' || state === 'unsupported' ? 'error' : state === 'done' ? 'done' : '';
}

for (const [name, value] of params) if (form.elements[name]) form.elements[name].value = value;

let session = null; // {id, fixed: knob names the runs agree on, report}

function readForm() {
  const knobs = {};
  for (const name of KNOBS) knobs[name] = form.elements[name].value.trim();
  return { bench: form.elements.bench.value, mode: form.elements.MODE.value, knobs };
}

function fillForm(values = {}) {
  for (const [name, value] of Object.entries(values)) {
    if (!form.elements[name]) throw new Error(`unknown knob ${name}`);
    form.elements[name].value = String(value);
  }
}

function checkThreads(list) {
  const counts = list
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  if (!counts.length || counts.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_THREADS)) {
    throw new Error(
      `THREADS must list whole numbers from 1 to ${MAX_THREADS} (the page pre-spawns ` +
        `${MAX_THREADS} bench threads), got "${list}"`,
    );
  }
}

const loaded = new Map();
function loadProgram(name) {
  if (!loaded.has(name)) {
    loaded.set(
      name,
      new Promise((resolve, reject) => {
        const script = document.createElement('script');
        script.src = `wasm/quiver_bench_${name}.js`;
        script.onload = () => resolve(window[`quiverBench_${name}`]);
        script.onerror = () =>
          reject(new Error(`${script.src} is missing: build it with ` + '`bash scripts/build.sh wasm-simd-mt`'));
        document.head.append(script);
      }),
    );
  }
  return loaded.get(name);
}

// One run of a program in a fresh module instance; resolves with its stdout lines.
async function runProgram(name, env, onLine) {
  const factory = await loadProgram(name);
  return new Promise((resolve, reject) => {
    const out = [];
    const errors = [];
    factory({
      benchEnv: env,
      print: (line) => {
        out.push(line);
        onLine(line);
      },
      printErr: (line) => {
        errors.push(line);
        onLine(line);
      },
      onExit: (code) =>
        code === 0
          ? resolve(out)
          : reject(new Error(`${name} exited with ${code}${errors.length ? `: ${errors.join('\n')}` : ''}`)),
      onAbort: (what) => reject(new Error(`${name} aborted: ${what} ${errors.join('\n')}`)),
    }).catch(reject);
  });
}

// "chromium 120.0.6099.224": the full version (the user-agent string has only the major one).
async function browserVersion() {
  const data = await navigator.userAgentData?.getHighEntropyValues?.(['fullVersionList']).catch(() => null);
  const list = data?.fullVersionList ?? [];
  const brand = list.find((b) => b.brand === 'Chromium') ?? list.find((b) => /Chrome/.test(b.brand));
  if (brand) return `chromium ${brand.version}`;
  return (
    navigator.userAgent
      .match(/Chrom(?:e|ium)\/[\d.]+/)?.[0]
      .replace(/^Chrome\b/, 'chromium')
      .replace('/', ' ') ?? 'browser'
  );
}

// Knobs a program's results depend on. Runs that agree on them (any MODE, either program) form
// one session: one report, one results file; a run that disagrees starts a new session.
const WORKLOAD = ['INDEX', 'CORPUS_ROWS', 'DIM', 'QUERY_POOL', 'K', 'BIT_WIDTH', 'THREADS'];
const TIMING = { concurrent_knn: ['DURATION_S', 'WARMUP_S', 'LOOKUP_ONLY_S'], scaling_batch: ['MIN_SECONDS'] };

async function sessionFor(bench, knobs) {
  const relevant = [...WORKLOAD, ...TIMING[bench]];
  if (session && relevant.every((k) => !session.fixed.has(k) || session.report.knobs[k] === knobs[k])) {
    for (const k of relevant) {
      session.fixed.add(k);
      session.report.knobs[k] = knobs[k];
    }
    return session;
  }
  const machine = await fetch('/api/machine')
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}));
  const version = await browserVersion();
  const { commit, loadavg, ...host } = machine;
  session = {
    id: crypto.randomUUID?.() ?? `${Date.now()}-${Math.random()}`,
    fixed: new Set(relevant),
    report: {
      benchmark: 'concurrent',
      timestamp: new Date().toISOString(),
      commit: commit ?? 'unknown',
      target: `wasm-browser (${version})`,
      machine: {
        ...host,
        hardware_concurrency: navigator.hardwareConcurrency,
        browser: navigator.userAgent,
        browser_version: version,
        loadavg_before: loadavg,
      },
      knobs: { ...knobs, MODES: '' },
      concurrent: [],
      scaling: [],
    },
  };
  return session;
}

function render() {
  const report = session.report;
  const { markdown, svg } = renderReport(report, 'this session', { files: false });
  $('markdown').textContent = markdown;
  $('plot').innerHTML = svg;
}

async function run(knobs) {
  if (api.state === 'unsupported') throw new Error(api.message);
  if (api.state === 'running') throw new Error('a benchmark is already running');
  if (knobs) fillForm(knobs);
  const { bench, mode, knobs: values } = readForm();
  const started = performance.now();
  const timer = setInterval(() => {
    $('elapsed').textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  }, 100);
  $('run').disabled = true;
  $('live').textContent = '';
  try {
    checkThreads(values.THREADS);
    setStatus('running', `Running ${bench}${bench === 'concurrent_knn' ? ` (MODE=${mode})` : ''}…`);
    const s = await sessionFor(bench, values);
    const env = { ...values, MODE: mode };
    const lines = await runProgram(bench, env, (line) => {
      if (!line.startsWith('{')) $('live').textContent += `${line}\n`;
      window.quiverBenchLog?.(line);
    });
    const json = lines.filter((l) => l.startsWith('{')).pop();
    if (!json) throw new Error(`${bench} printed no JSON line`);
    const result = { ...JSON.parse(json), target: 'wasm-browser' };
    const list = bench === 'concurrent_knn' ? s.report.concurrent : s.report.scaling;
    const same = list.findIndex((r) => r.benchmark === result.benchmark && r.mode === result.mode);
    if (same >= 0) list.splice(same, 1, result);
    else list.push(result);
    s.report.knobs.MODES = s.report.concurrent.map((r) => r.mode).join(' ');
    api.lastRun = result;
    api.report = s.report;
    render();
    $('save').disabled = false;
    setStatus('done', `${bench} finished in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
    if (autosave) await save();
    return result;
  } catch (e) {
    api.error = e.message;
    setStatus('error', `Failed: ${e.message}`);
    throw e;
  } finally {
    clearInterval(timer);
    $('run').disabled = false;
  }
}

async function save() {
  if (!session) throw new Error('nothing to save yet: run a benchmark first');
  const response = await fetch('/api/results', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ session: session.id, report: session.report }),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`saving failed: ${answer.error}`);
  api.saved = answer;
  $('saved').textContent = `Saved as ${answer.file} (${answer.target}).`;
  return answer;
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  run().catch(() => {}); // shown in the status line
});
$('save').addEventListener('click', () => save().catch((e) => setStatus('error', e.message)));

async function start() {
  // Wasm threads share a SharedArrayBuffer, which browsers give only to cross-origin isolated
  // pages (served with COOP: same-origin and COEP: require-corp).
  if (!self.crossOriginIsolated || typeof SharedArrayBuffer !== 'function') {
    setStatus(
      'unsupported',
      'This page is not cross-origin isolated (no COOP/COEP headers), so the browser ' +
        'gives it no SharedArrayBuffer and it cannot run threads. Serve it with `node examples/bench/server.mjs` ' +
        'and open the URL that prints.',
    );
    return;
  }
  $('run').disabled = false;
  setStatus(
    'ready',
    `Cross-origin isolated: ${navigator.hardwareConcurrency} CPUs, threads available. ` +
      'Pick the knobs and press Run.',
  );
}
start();
