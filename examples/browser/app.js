// The browser demo: a generated dataset with topics, like text embeddings (data.js), an index
// built in a Worker with a progress bar and a Cancel button — HNSW, the partitioned quantised index (inverted lists over 4-bit codes with a
// 3-bit refine plane, no f32 vectors; probes per search) or the exact flat index — and searches
// by item or by a new vector of the same distribution; each result shows its topic.
// Everything heavy runs in the worker, so the page stays responsive.
import { spawn, chooseVariant } from 'quiver-vector';
import { embeddingLike } from './data.js';

const $ = (id) => document.getElementById(id);
const state = { worker: null, index: null, vectors: null, dim: 0, n: 0, kind: null, built: 0, lastSearch: null };
window.demo = state; // for the tests and the console

function gaussian(dim) {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++)
    v[i] = Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
  return v;
}

// The last search's results, and what they said, are gone (a new build, a cancelled one).
function clearResults() {
  state.lastSearch = null;
  $('results').tBodies[0].replaceChildren();
  $('search-status').textContent = '';
}

// The index kinds the form offers (the worker API passes every option through).
function createIndex(kind, dim, metric) {
  if (kind === 'partitioned') {
    return state.worker.create('quantized', { dim, metric, bits: 4, keepVectors: false, refineBits: 3, lists: 'auto' });
  }
  if (kind === 'flat') return state.worker.create('flat', { dim, metric });
  return state.worker.create('hnsw', { dim, metric, M: 16, efConstruction: 100 });
}

// "hnsw index", or for a partitioned quantised one its lists and default probes.
async function describe(index) {
  state.lists = index.kind === 'quantized' ? await index.property('lists') : 0;
  $('probes-label').hidden = state.lists === 0;
  if (state.lists === 0) return `${index.kind} index`;
  state.defaultProbes = await index.property('defaultProbes');
  $('probes').max = state.lists;
  return `quantized index (${
    state.lists > 1
      ? `${state.lists} lists, ${state.defaultProbes} probed by default`
      : 'one list until 4,096 vectors are in'
  }; ${await index.property('refineBits')}-bit refine plane)`;
}

// Per-search options: HNSW's beam, a partitioned index's probes (0 = its default).
function searchOptions(k) {
  if (state.kind === 'hnsw') return { ef: Math.max(64, k) };
  if (state.lists > 0) return { probes: Number($('probes').value) };
  return {};
}

async function build(event) {
  event.preventDefault();
  $('build-button').disabled = true;
  $('search-button').disabled = true;
  const n = Number($('n').value),
    dim = Number($('dim').value),
    metric = $('metric').value;
  clearResults();
  try {
    await state.index?.dispose();
    const t0 = performance.now();
    state.data = embeddingLike(n, dim, 1);
    state.vectors = state.data.vectors;
    state.index = await createIndex($('kind').value, dim, metric);
    Object.assign(state, { n, dim, kind: state.index.kind, built: 0, loaded: null });
    document.querySelector('input[name=mode][value=item]').disabled = false;
    // One add in the worker, in chunks: progress after each, Cancel (an AbortSignal) stops it
    // and leaves the index as it was. The vectors are moved (not copied) to the worker.
    const ids = new Float64Array(n).map((_, i) => i);
    state.abort = new AbortController();
    $('cancel-button').disabled = false;
    await state.index.add(ids, state.vectors.slice(), {
      transfer: true,
      chunkSize: Math.max(500, Math.ceil(n / 50)),
      signal: state.abort.signal,
      onProgress: ({ done, total }) => {
        state.built = done;
        $('progress').value = done / total;
        $('build-status').textContent =
          `${state.index.kind} index: ${done.toLocaleString()} / ${total.toLocaleString()} vectors`;
      },
    });
    const bytes = await state.index.memoryBytes;
    $('build-status').textContent =
      `${await describe(state.index)} of ${n.toLocaleString()} × ${dim} (${metric}) built in ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s, ${(bytes / 1e6).toFixed(1)} MB in the worker ` +
      `(${(bytes / n).toFixed(0)} bytes per vector)`;
    $('item').max = n - 1;
    $('search-button').disabled = false;
  } catch (e) {
    $('progress').value = 0;
    $('build-status').textContent =
      e.code === 'ABORTED'
        ? `cancelled: the index holds ${(await state.index.size).toLocaleString()} vectors, as before the build`
        : `failed: ${e.code ?? e.name}: ${e.message}`;
    state.cancelled = e.code === 'ABORTED';
    clearResults();
  } finally {
    $('build-button').disabled = false;
    $('cancel-button').disabled = true;
  }
}

// An index file from disk: the Blob streams into the worker, which reads it into its heap
// chunk by chunk (progress in bytes; Cancel stops the read and nothing is loaded).
async function loadFile() {
  const file = $('file').files[0];
  if (!file) return;
  $('build-button').disabled = true;
  $('search-button').disabled = true;
  state.abort = new AbortController();
  $('cancel-button').disabled = false;
  try {
    const index = await state.worker.load(file, {
      signal: state.abort.signal,
      onProgress: ({ done, total }) => {
        $('progress').value = total ? done / total : 0;
        $('build-status').textContent =
          `loading ${file.name}: ${(done / 1e6).toFixed(1)} / ${(total / 1e6).toFixed(1)} MB`;
      },
    });
    await state.index?.dispose();
    state.index = index;
    const size = await index.size;
    // No dataset behind a loaded file: search by a random vector.
    Object.assign(state, {
      n: size,
      dim: index.dim,
      kind: index.kind,
      built: size,
      vectors: null,
      data: null,
      loaded: file.name,
    });
    clearResults();
    document.querySelector('input[name=mode][value=random]').checked = true;
    document.querySelector('input[name=mode][value=item]').disabled = true;
    $('build-status').textContent =
      `${await describe(index)} of ${size.toLocaleString()} × ${index.dim} loaded from ${file.name}`;
    $('search-button').disabled = false;
  } catch (e) {
    $('progress').value = 0;
    $('build-status').textContent =
      `${e.code === 'ABORTED' ? 'cancelled' : 'failed'}: ${e.code ?? e.name}: ${e.message}`;
  } finally {
    $('build-button').disabled = false;
    $('cancel-button').disabled = true;
    $('file').value = '';
  }
}

async function search(event) {
  event.preventDefault();
  const k = Number($('k').value);
  const byItem = document.querySelector('input[name=mode]:checked').value === 'item';
  const item = Number($('item').value);
  try {
    // By item: its own vector; else a new vector of the dataset's distribution (a random one for
    // a loaded file, which has no dataset behind it).
    const drawn = byItem || !state.data ? null : state.data.draw();
    const query = byItem
      ? state.vectors.slice(item * state.dim, (item + 1) * state.dim)
      : (drawn?.vector ?? gaussian(state.dim));
    const queryTopic = byItem ? state.data?.topics[item] : drawn?.topic;
    const t0 = performance.now();
    const options = searchOptions(k);
    const { ids, distances } = await state.index.search(query, k, options);
    const ms = performance.now() - t0;
    state.lastSearch = { byItem, item, ids: [...ids], distances: [...distances], options, queryTopic };
    const topicOf = (id) => state.data?.topics[id];
    const sameTopic = [...ids].filter((id) => queryTopic !== undefined && topicOf(id) === queryTopic).length;
    const probed =
      options.probes === undefined ? '' : `, ${options.probes || state.defaultProbes} of ${state.lists} lists probed`;
    $('search-status').textContent =
      `${byItem ? `nearest to item ${item}` : state.data ? 'nearest to a new vector' : 'nearest to a random vector'}` +
      `${queryTopic !== undefined ? ` of topic ${queryTopic} (${sameTopic} of ${ids.length} results share it)` : ''}: ` +
      `${ids.length} results in ${ms.toFixed(2)} ms (round trip to the worker${probed})`;
    $('results').tBodies[0].replaceChildren(
      ...[...ids].map((id, i) => {
        const row = document.createElement('tr');
        row.innerHTML = `<td>${i + 1}</td><td>${id}</td><td>${topicOf(id) ?? '–'}</td><td>${distances[i].toFixed(4)}</td>`;
        return row;
      }),
    );
  } catch (e) {
    $('search-status').textContent = `failed: ${e.code ?? e.name}: ${e.message}`;
  }
}

// The scaling panel frames the benchmark page, which only the repository has (served by
// server.mjs under /quiver-vector/ with the rest of it); a copy of this folder in a project
// that installed the package goes without.
fetch('/quiver-vector/examples/bench/', { method: 'HEAD' }).then(
  (r) => ($('scaling').hidden = !r.ok),
  () => {},
);

state.worker = await spawn();
$('env').textContent =
  `build ${state.worker.variant} (auto: ${chooseVariant()}) · cross-origin isolated: ${self.crossOriginIsolated} · ` +
  `quiver ${state.worker.version} · ${navigator.hardwareConcurrency} cores`;
$('build').addEventListener('submit', build);
$('search').addEventListener('submit', search);
$('cancel-button').addEventListener('click', () => state.abort?.abort());
$('file').addEventListener('change', loadFile);
state.ready = true;
