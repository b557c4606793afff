// Compiled (never run) by tests/js/types.test.mjs with `tsc --noEmit`: every public name of the
// package used the way the README shows, resolved through package.json "exports" like a user's
// project would. A wrong or missing declaration fails the test.
import Quiver, {
  QuiverError,
  init,
  load,
  spawn as spawnFromMain,
  chooseVariant,
  VARIANTS,
  saveToFile,
  loadFromFile,
  saveToIndexedDB,
  loadFromIndexedDB,
  deleteFromIndexedDB,
  saveToOpfs,
  loadFromOpfs,
  deleteFromOpfs,
  type AnyIndex,
  type ErrorCode,
  type FlatIndex,
  type HnswIndex,
  type QuantizedIndex,
  type QuiverModule,
  type RemoteHnswIndex,
  type SearchResult,
  type BatchSearchResult,
  type Variant,
  Collection,
  type CollectionQueryResult,
  type CollectionRecord,
  type Filter,
  type LocalCollection,
  type RemoteCollection,
  type StoredRecord,
} from 'quiver-vector';
import { spawn } from 'quiver-vector/worker';

export async function local(): Promise<void> {
  const variant: Variant = chooseVariant('auto');
  const q: QuiverModule = await Quiver.init({ variant, threads: 2 });
  await init({ wasmUrl: new URL('file:///x/quiver.wasm') });
  await init({ wasmBinary: new Uint8Array(8), locateFile: (f, prefix) => prefix + f });
  await init({ wasmModule: new WebAssembly.Module(new Uint8Array(8)) });

  const flat: FlatIndex = new q.FlatIndex({ dim: 4, metric: 'cosine' });
  flat.add([1, 2], new Float32Array(8));
  flat.add(new BigUint64Array([3n]), [[1, 2, 3, 4]]);
  flat.add(new Uint32Array([4]), [1, 2, 3, 4]);
  const r: SearchResult = flat.search(new Float32Array(4), 2);
  const ids: Float64Array = r.ids;
  const d: Float32Array = r.distances;
  const b: BatchSearchResult = flat.searchBatch(
    [
      [0, 0, 0, 1],
      [1, 0, 0, 0],
    ],
    3,
  );
  const rows: number = b.count * b.k + ids.length + d.length;
  const hits: Uint32Array = b.counts;
  const filtered: SearchResult = flat.search(new Float32Array(4), 2, { allow: [2, 3] });
  flat.remove([1]);
  const present: boolean = flat.has(2);
  const sizes: number =
    flat.size + flat.dim + flat.memoryBytes + rows + hits[0] + filtered.ids.length + (present ? 1 : 0);
  const bytes: Uint8Array = flat.serialize();
  flat.dispose();
  flat[Symbol.dispose]();

  const qi: QuantizedIndex = new q.QuantizedIndex({ dim: 4, bits: 2, seed: 7n, keepVectors: true });
  qi.search([1, 2, 3, 4], 5, { rerank: 4, allow: new Uint32Array([1, 2]) });
  const bits: 2 | 4 = qi.bits;
  const part: QuantizedIndex = new q.QuantizedIndex({ dim: 4, lists: 'auto', refineBits: 3, keepVectors: false });
  part.search([1, 2, 3, 4], 5, { probes: 8 });
  const listsOption: number | 'auto' = part.listsOption;
  const lists: number = part.lists + part.defaultProbes + part.refineBits;

  const h: HnswIndex = new q.HnswIndex({
    dim: 4,
    metric: 'l2',
    M: 16,
    efConstruction: 100,
    efSearch: 32,
    seed: 1,
    storage: 'sq8',
    keepVectors: true,
  });
  h.add([1], [1, 2, 3, 4], { threads: 1 });
  h.search([1, 2, 3, 4], 1, { ef: 64, allow: [1], rerank: false });
  h.compact();
  const level: number =
    h.maxLevel + h.M + h.efConstruction + h.efSearch + h.bytesPerVector + h.nodeBytes + bits + sizes;
  const storage: 'f32' | 'sq8' = h.storage;
  console.log(storage, h.keepVectors);

  const any: AnyIndex = q.load(bytes);
  const again: AnyIndex = await load(bytes, { variant: 'simd' });
  const fromStatic: AnyIndex = await Quiver.load(bytes.buffer);
  any.dispose();
  again.dispose();
  fromStatic.dispose();

  try {
    flat.search([0, 0, 0, 0]);
  } catch (e) {
    if (e instanceof QuiverError) {
      const code: ErrorCode = e.code;
      const message: string = e.message + code + level;
      console.log(message);
    }
  }
  const heap: number = q.heapBytes() + q.threadPool().workers;
  q.setWorkObserver(({ step, done, total }) => step !== 'training' || done < total);
  q.setWorkObserver(null);
  // @ts-expect-error the steps are 'training' and 'assigning'
  q.setWorkObserver(({ step }) => step === 'sorting');
  const names: readonly Variant[] = VARIANTS;
  console.log(heap, names, q.unitGaussianVectors(10, 4, 1).length);
  q.terminate();
}

export async function remote(): Promise<void> {
  const w = await spawn({ variant: 'simd-mt', threads: 4 });
  const w2 = await Quiver.spawn();
  const w3 = await spawnFromMain({ variant: 'simd' });
  const w4 = await spawn({ workerUrl: '/assets/quiver-worker.js' });
  await w4.terminate();
  const index: RemoteHnswIndex = await w.create('hnsw', { dim: 4, M: 8 });
  await index.add([1, 2], new Float32Array(8), { transfer: true, threads: 2 });
  const r: SearchResult = await index.search([1, 2, 3, 4], 2, { ef: 32 });
  const n: number = await index.size;
  const qi = await w.create('quantized', { dim: 4, bits: 4 });
  await qi.search([1, 2, 3, 4], 1, { rerank: 2 });
  const bytes: Uint8Array = await index.serialize();
  const loaded = await w2.load(bytes, { transfer: true });
  console.log(r.ids.length + n, loaded.kind, await loaded.has(1));
  await loaded.dispose();
  await index[Symbol.asyncDispose]();
  try {
    await index.search([1, 2, 3, 4]);
  } catch (e) {
    if (e instanceof QuiverError && e.code === 'DISPOSED') console.log('disposed');
  }
  await Promise.all([w.terminate(), w2.terminate(), w3.terminate()]);
}

export async function persistence(q: QuiverModule, index: AnyIndex): Promise<void> {
  const written: number = await saveToFile(index, '/tmp/x.qvr');
  const back: AnyIndex = await loadFromFile('/tmp/x.qvr', { quiver: q });
  await saveToIndexedDB(index, 'key', { database: 'db', store: 'store' });
  const fromDb: AnyIndex = await loadFromIndexedDB('key');
  await deleteFromIndexedDB('key');
  await saveToOpfs(index, 'x.qvr');
  const fromOpfs = await loadFromOpfs('x.qvr', { quiver: q });
  await deleteFromOpfs('x.qvr');
  const w = await spawn();
  const remoteBack = await loadFromFile('/tmp/x.qvr', { quiver: w });
  console.log(written, back.size, fromDb.size, fromOpfs.size, await remoteBack.size);
}

export async function collections(q: QuiverModule): Promise<void> {
  const docs = q.Collection.create({
    dim: 4,
    metric: 'cosine',
    index: 'hnsw',
    options: { M: 8, efConstruction: 100 },
    fields: { lang: 'string', year: 'number', draft: 'boolean', tags: 'tags' },
  });
  const records: CollectionRecord[] = [
    { id: 'doc-1', values: new Float32Array(4), metadata: { lang: 'en', year: 2024, tags: ['news'] } },
    { id: 7, values: [1, 2, 3, 4], namespace: 'archive', metadata: { draft: true, title: 'x' } },
  ];
  docs.upsert(records);
  docs.insert([{ id: 8, values: [0, 1, 0, 0] }]);
  const filter: Filter = {
    $or: [{ lang: 'en' }, { year: { $gte: 2020, $lt: 2025 } }],
    $not: { tags: { $in: ['old'] } },
  };
  const r: CollectionQueryResult = docs.query([1, 0, 0, 0], {
    topK: 5,
    filter: { lang: { $in: ['en', 'de'] }, draft: false, tags: 'news', $and: [{ year: { $ne: 2000 } }] },
    namespace: 'archive',
    returnMetadata: true,
    ef: 64,
  });
  const first: string | number | undefined = r.matches[0]?.id;
  console.log(first, r.plan.strategy === 'prefilter', r.plan.matching, filter);
  const got: (StoredRecord | null)[] = docs.getByIds(['doc-1', 7]);
  docs.deleteByIds(['doc-1']);
  const bytes: number = docs.memoryBytes + docs.size + docs.describe().memory.total + got.length;
  const flat = q.Collection.create({ dim: 4, index: 'flat', fields: { n: 'number' } });
  const values: Float32Array | undefined = flat.query([1, 0, 0, 0], { returnValues: true, rerank: 2 }).matches[0]
    ?.values;
  const anywhere: LocalCollection = await Collection.create({ dim: 4 }, { quiver: q });
  const w = await spawn();
  const remote: RemoteCollection = await w.Collection.create({ dim: 4, index: 'quantized', options: { bits: 2 } });
  await remote.upsert(records, { transfer: true });
  const rr = await remote.query([1, 0, 0, 0], { probes: 4, rerank: 2, transfer: true, filter: { any: 1 } });
  const viaTarget = await Collection.create({ dim: 4 }, { quiver: w });
  const file: Uint8Array = docs.serialize();
  const back: LocalCollection = q.Collection.load(file);
  const backShared: LocalCollection = await Collection.load(file);
  const backRemote: RemoteCollection = await w.Collection.load(await remote.serialize(), { transfer: true });
  const backRemote2: RemoteCollection = await Collection.load(file, { quiver: w });
  console.log(back.size, backShared.size, await backRemote.size, await backRemote2.size);
  console.log(bytes, values, rr.matches.length, await remote.size, await viaTarget.size);
  await remote[Symbol.asyncDispose]();
  anywhere.dispose();
  docs[Symbol.dispose]();
  flat.dispose();
  await w.terminate();

  // @ts-expect-error an undeclared field in a filter of a collection with declared fields
  docs.query([1], { filter: { title: 'x' } });
  // @ts-expect-error a number field takes numbers
  docs.query([1], { filter: { year: { $gte: '2020' } } });
  // @ts-expect-error $contains is for tags fields
  docs.query([1], { filter: { lang: { $contains: 'e' } } });
  // @ts-expect-error a boolean field has no order
  docs.query([1], { filter: { draft: { $lt: true } } });
  // @ts-expect-error probes is a quantised-index knob, not an HNSW one
  docs.query([1], { probes: 3 });
  // @ts-expect-error ef is an HNSW knob
  flat.query([1], { ef: 3 });
  // @ts-expect-error a declared number field holds a number
  docs.upsert([{ id: 1, values: [1], metadata: { year: '2024' } }]);
  // @ts-expect-error metadata values are strings, numbers, booleans or string arrays
  docs.upsert([{ id: 1, values: [1], metadata: { nested: { a: 1 } } }]);
  // @ts-expect-error ids are strings or numbers
  docs.getByIds([1n]);
  // @ts-expect-error field types are string, number, boolean, tags
  q.Collection.create({ dim: 4, fields: { lang: 'text' } });
  // @ts-expect-error a flat index has no options
  q.Collection.create({ dim: 4, index: 'flat', options: { M: 8 } });
  // @ts-expect-error a local query returns the result, not a Promise
  docs.query([1]).then;
  // @ts-expect-error a remote query returns a Promise
  remote.query([1]).matches;
}

// Declarations that were `any` would accept all of these; tsc fails if an expectation is unused.
export function misuse(q: QuiverModule, h: RemoteHnswIndex): void {
  // @ts-expect-error dim is required
  new q.FlatIndex({ metric: 'l2' });
  // @ts-expect-error unknown metric
  new q.FlatIndex({ dim: 4, metric: 'manhattan' });
  // @ts-expect-error bits are 2 or 4
  new q.QuantizedIndex({ dim: 4, bits: 3 });
  // @ts-expect-error lists is a count or 'auto'
  new q.QuantizedIndex({ dim: 4, lists: 'some' });
  // @ts-expect-error a local search returns the result, not a Promise
  q.load(new Uint8Array()).search([1]).then;
  // @ts-expect-error workerUrl is a string or a URL
  void spawn({ workerUrl: 5 });
  // @ts-expect-error a remote search returns a Promise
  h.search([1]).ids;
  // @ts-expect-error unknown variant
  init({ variant: 'avx2' });
}

// The single-build entries: the core API with one wasm build, and the .wasm a platform imports
// (workerd, wrangler, Deno's import source) typed as a compiled module.
import SimdQuiver, {
  init as initSimd,
  QuiverError as SimdError,
  Collection as SimdCollection,
} from 'quiver-vector/simd';
import { Quiver as BaselineQuiver } from 'quiver-vector/baseline';
import { load as loadSimdMt } from 'quiver-vector/simd-mt';
import simdWasm from 'quiver-vector/wasm/simd/quiver.wasm';

export async function singleBuild(bytes: Uint8Array): Promise<number> {
  const module: WebAssembly.Module = simdWasm;
  const q: QuiverModule = await SimdQuiver.init({ wasmModule: module });
  const b: QuiverModule = await BaselineQuiver.init();
  const index: AnyIndex = await loadSimdMt(bytes);
  const e: SimdError = new SimdError('CORRUPT', 'x');
  const docs = await SimdCollection.create({ dim: 4 });
  void (await initSimd()).variant;
  void docs;
  void b;
  void e;
  // @ts-expect-error a single-build entry has no spawn
  void SimdQuiver.spawn;
  return q.FlatIndex === undefined ? 0 : index.size;
}
