// Types of the quiver package (hand-written; checked against tests/js/types/*.ts by tsc).
// Symbol.dispose / Symbol.asyncDispose, for projects whose `lib` predates them:
/// <reference lib="esnext.disposable" />

// Options, in every call (constructors, search, searchBatch, add, init, load, loadFrom, spawn,
// the worker calls and the persistence helpers): a key the call does not take — a typo, or an
// option of another kind or call (`probes` on a flat index, `ef` on a quantised one) — or a value
// of the wrong type is refused with QuiverError INVALID_ARGUMENT naming the key; nothing is
// ignored. null means "not given" everywhere: an option set to null (or undefined) gets its
// default, and a null options argument is the same as none. The schemas are js/core/options.js.

/** The wasm builds: SIMD128 + pthreads, SIMD128, neither. */
export type Variant = 'simd-mt' | 'relaxed-simd' | 'simd' | 'baseline';
export type Metric = 'l2' | 'cosine' | 'ip';
export type IndexKind = 'flat' | 'quantized' | 'hnsw';

/** Every `code` a QuiverError can carry. */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'DIMENSION_MISMATCH'
  | 'NON_FINITE'
  | 'DUPLICATE_ID'
  | 'UNKNOWN_ID'
  | 'INVALID_K'
  | 'EMPTY_INDEX'
  | 'OUT_OF_MEMORY'
  | 'UNSUPPORTED_ISA'
  | 'CORRUPT'
  | 'TRUNCATED'
  | 'CHECKSUM_MISMATCH'
  | 'BAD_MAGIC'
  | 'UNSUPPORTED_VERSION'
  | 'UNKNOWN_INDEX_KIND'
  | 'IO_ERROR'
  /** The wasm module could not be compiled or instantiated (wrong bytes, wrong variant). */
  | 'LOAD_FAILED'
  /** Using an index after dispose(). */
  | 'DISPOSED'
  /** A worker-hosted call whose worker was terminated or crashed. */
  | 'WORKER_EXITED'
  /** A persistence helper found nothing under the key / name / path. */
  | 'NOT_FOUND'
  /** The environment lacks the API a helper needs (IndexedDB, OPFS). */
  | 'UNSUPPORTED'
  /** An unexpected JS error inside a worker. */
  | 'INTERNAL'
  /** A worker-hosted add()/load() cancelled through its AbortSignal. */
  | 'ABORTED'
  /** quiver-vector/cloudflare: shards that did not answer in time or failed (error.missing names them). */
  | 'SHARD_UNAVAILABLE'
  /** quiver-vector/cloudflare: a write some shards made and others did not (error.applied, error.failed). */
  | 'PARTIAL_WRITE'
  /** quiver-vector/cloudflare: a shard holds another layout (shard count or collection) than the router's. */
  | 'LAYOUT_MISMATCH';

/** Every failure the package reports: the C++ error's code and message. */
/** The long steps inside one call that report their progress (setWorkObserver, a worker add's onProgress). */
export type WorkStep = 'training' | 'assigning';

export class QuiverError extends Error {
  constructor(code: ErrorCode, message: string);
  readonly name: 'QuiverError';
  readonly code: ErrorCode;
}

/** Ids: a number, an array of numbers or bigints, a Uint32Array, a Float64Array or a BigUint64Array. Integers in [0, 2^53 - 1]; strings and other types are refused (INVALID_ARGUMENT), never converted. */
export type Ids = number | bigint | ArrayLike<number> | ArrayLike<bigint> | Uint32Array | Float64Array | BigUint64Array;
/** Vectors: a Float32Array of n × dim values, an array of numbers, or an array of rows. */
export type Vectors = Float32Array | ArrayLike<number> | ArrayLike<ArrayLike<number>>;
/** Index file bytes. */
export type Bytes = Uint8Array | ArrayBufferLike | ArrayBufferView;

/** The real hits of one query, closest first, ties broken by id: at most k (fewer only when an allow list admits fewer). */
export interface SearchResult {
  ids: Float64Array;
  distances: Float32Array;
}
/**
 * The rows of a batch, the same rule for every index kind. `k` = min(requested k, size) and
 * every row has exactly `k` slots: row q occupies [q * k, (q + 1) * k) of ids and distances,
 * its hits first (closest first, ties by id), then padding — id -1 and distance Infinity —
 * for the slots it could not fill (an allow list that admits fewer ids, an approximate search
 * that reached fewer). `counts[q]` is the number of hits in row q.
 */
export interface BatchSearchResult extends SearchResult {
  /** Slots per row: min(requested k, size). */
  k: number;
  /** Rows (queries). */
  count: number;
  /** Hits per row; slots past counts[q] in row q are padding (id -1, distance Infinity). */
  counts: Uint32Array;
}

export interface LoadOptions {
  /** Force a build instead of choosing (default 'auto'). */
  variant?: Variant | 'auto';
  /** simd-mt: pthread workers to pre-spawn, which caps the search pool (default: CPU count). */
  threads?: number;
  /** Where quiver.wasm is (string or URL; a filesystem path in Node). */
  wasmUrl?: string | URL;
  /** Emscripten-style: the URL of any file the module asks for (quiver.wasm, pthread-worker.js). */
  locateFile?: (file: string, prefix: string) => string | URL;
  /** The .wasm bytes of the chosen variant. */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /** A compiled module of the chosen variant (edge runtimes that import .wasm as a module),
   *  or the path/URL of the .wasm (what Bun's `import wasm from '….wasm'` gives). */
  wasmModule?: WebAssembly.Module | string | URL;
  /** Milliseconds start-up may take before it rejects with LOAD_FAILED (default 30000; Infinity, or past 2^31 - 1 ms: no limit). */
  timeout?: number;
}

export interface IndexOptions {
  /** An integer in [1, 2^24] (HNSW sq8 storage: at most 65536). */
  dim: number;
  /** Default 'l2'. */
  metric?: Metric;
}
export interface QuantizedIndexOptions extends IndexOptions {
  /** Code bits per dimension (default 4). */
  bits?: 2 | 4;
  /** Seed of the random rotation (default 42). */
  seed?: number | bigint;
  /** Keep the f32 vectors for exact rerank (default true). */
  keepVectors?: boolean;
  /** Bits of the refine plane, 0..5 (default 0): codes-only re-scoring without the f32 vectors. */
  refineBits?: number;
  /**
   * Inverted lists: 0 (default) scans every code; 'auto' partitions into min(n / 256,
   * round(3·√n)) lists for the n trained at (256 at 100,000 vectors, 2,048 at 1,000,000) once
   * 4096 vectors are in; a count in [1, 65536] is trained once the index holds 32 per list.
   * Re-trained whenever the index grows to 2× the size of the last training.
   */
  lists?: number | 'auto';
}
export interface HnswIndexOptions extends IndexOptions {
  /** Links per node (default 16). */
  M?: number;
  /** Beam width while inserting (default 200); an integer in [0, 2^20] (1048576). */
  efConstruction?: number;
  /** Default beam width of search (default 64); an integer in [0, 2^20] (1048576). */
  efSearch?: number;
  /** Seed of the level draw (default 42). */
  seed?: number | bigint;
  /** How node vectors are stored: 'f32' (default) or 'sq8' (8-bit codes, about a quarter of the bytes). */
  storage?: 'f32' | 'sq8';
  /** sq8 storage: also keep the f32 vectors, for the exact rerank (default true). */
  keepVectors?: boolean;
  /**
   * sq8 storage: store each node's neighbours' 1-bit codes beside its level-0 links (default
   * false), so a search scores only the neighbours whose estimate could enter its beam. Costs
   * 32 × (dim / 8 + 8) bytes per node; the graph and files are otherwise the same.
   */
  neighborCodes?: boolean;
}

/**
 * Exact re-scoring depth, one meaning in every index kind: 0 off; r ≥ 1 takes the best k × r
 * candidates by the index's approximate distance, re-scores them exactly with the kept f32
 * vectors and returns the best k. Absent: the kind's default. An index that keeps no f32
 * vectors (QuantizedIndex or sq8 HnswIndex with keepVectors false) rejects r ≥ 1 with
 * INVALID_ARGUMENT; where distances are exact already (FlatIndex, f32 HnswIndex) it changes
 * nothing but HnswIndex's beam width (at least k × r). A non-negative integer with
 * k × r ≤ 2^31 − 1 (2147483647); a larger product is refused with INVALID_ARGUMENT.
 */
export type RerankDepth = number;

/** Per-call search options of FlatIndex. */
export interface FlatSearchOptions {
  /** Only these ids may be returned (an empty list: no hits). */
  allow?: Ids;
  /** Accepted like every kind's; a flat index is exact, so it changes nothing. */
  rerank?: RerankDepth;
}
export interface QuantizedSearchOptions {
  /** 0 or absent: codes only; r ≥ 1: re-score the best k × r exactly (needs keepVectors). */
  rerank?: RerankDepth;
  /** Only these ids may be returned. */
  allow?: Ids;
  /**
   * Partitioned index: lists to scan, nearest first. 0 or absent: adaptive per query (stops once
   * its answer settled and the next list is clearly further; with `allow`/`allowBits`,
   * `defaultProbes` lists and at least 8192 vectors).
   */
  probes?: number;
}
export interface HnswSearchOptions {
  /** Beam width (0 or absent: the index's efSearch; raised to k, and to k × rerank): an integer
   *  in [0, 2^20] (1048576); a larger value is refused with INVALID_ARGUMENT. */
  ef?: number;
  /** Only these ids may be returned. */
  allow?: Ids;
  /**
   * A depth (see RerankDepth). Absent: sq8 storage with kept vectors re-scores every final
   * candidate with exact f32 distances, other storage returns its own. 0: code distances.
   * r ≥ 1: the beam is at least k × r wide and its best k × r by code distance are re-scored.
   * `true` / `false` (the older switch) mean absent / 0.
   */
  rerank?: RerankDepth | boolean;
}
export interface HnswAddOptions {
  /** Pool workers the insertion may use (0 or absent: all). */
  threads?: number;
}

/** What every index class has. Sizes and ids are numbers; vectors are Float32Array. */
export interface Index {
  readonly dim: number;
  readonly metric: Metric;
  /** The kernel set this index runs: 'wasm128' or 'scalar'. */
  readonly isa: string;
  readonly variant: Variant;
  readonly size: number;
  readonly memoryBytes: number;
  /** True after dispose(). */
  readonly disposed: boolean;
  /** All-or-nothing: bad input throws QuiverError and adds nothing. */
  add(ids: Ids, vectors: Vectors): void;
  remove(ids: Ids): void;
  /** Any other type of id (a string, null) throws INVALID_ARGUMENT. */
  has(id: number | bigint): boolean;
  /** k: an integer in [1, 2^32 - 1] (default 10); results are sized by min(k, size). */
  search(query: Vectors, k?: number): SearchResult;
  searchBatch(queries: Vectors, k?: number): BatchSearchResult;
  /** The index file: the same bytes the native library and CLI write. */
  serialize(): Uint8Array;
  /** Frees the wasm memory. Again is a no-op; any other use afterwards throws DISPOSED. */
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface FlatIndex extends Index {
  search(query: Vectors, k?: number, options?: FlatSearchOptions): SearchResult;
  searchBatch(queries: Vectors, k?: number, options?: FlatSearchOptions): BatchSearchResult;
}
export interface FlatIndexClass {
  new (options: IndexOptions): FlatIndex;
  load(bytes: Bytes): FlatIndex;
}

export interface QuantizedIndex extends Index {
  readonly bits: 2 | 4;
  readonly seed: number;
  readonly keepVectors: boolean;
  readonly refineBits: number;
  /** The lists option as given ('auto', a count, or 0: not partitioned). */
  readonly listsOption: number | 'auto';
  /** Lists the index is split into now: 0 unpartitioned, 1 until trained. */
  readonly lists: number;
  /** The probe count a filtered search (allow set) budgets from when it does not say; unfiltered searches adapt. */
  readonly defaultProbes: number;
  search(query: Vectors, k?: number, options?: QuantizedSearchOptions): SearchResult;
  searchBatch(queries: Vectors, k?: number, options?: QuantizedSearchOptions): BatchSearchResult;
}
export interface QuantizedIndexClass {
  new (options: QuantizedIndexOptions): QuantizedIndex;
  load(bytes: Bytes): QuantizedIndex;
}

export interface HnswIndex extends Index {
  readonly M: number;
  readonly efConstruction: number;
  readonly seed: number;
  /** The beam width of a search without an ef option. */
  readonly efSearch: number;
  readonly storage: 'f32' | 'sq8';
  readonly keepVectors: boolean;
  /** Whether neighbours' codes are stored beside the level-0 links (the neighborCodes option). */
  readonly neighborCodes: boolean;
  /** memoryBytes divided by the slots in use. */
  readonly bytesPerVector: number;
  /** Bytes per node of the level-0 stride. */
  readonly nodeBytes: number;
  /** Highest level of the graph (-1 while empty). */
  readonly maxLevel: number;
  add(ids: Ids, vectors: Vectors, options?: HnswAddOptions): void;
  search(query: Vectors, k?: number, options?: HnswSearchOptions): SearchResult;
  searchBatch(queries: Vectors, k?: number, options?: HnswSearchOptions): BatchSearchResult;
  /** Drops removed nodes for good: links rebuilt around them, storage shrunk; ids and answers' ids kept. */
  compact(): void;
}
export interface HnswIndexClass {
  new (options: HnswIndexOptions): HnswIndex;
  load(bytes: Bytes): HnswIndex;
}

export type AnyIndex = FlatIndex | QuantizedIndex | HnswIndex;

/** One loaded wasm module and the index classes bound to it (Quiver.init). */
export interface QuiverModule {
  readonly variant: Variant;
  readonly version: string;
  /** The kernel set of this module: 'wasm128' or 'scalar'. */
  readonly isa: string;
  readonly availableIsas: string[];
  /** Kernel paths past the ISA level: ['relaxed-dot'] where the relaxed-simd variant's engine
   * computes relaxed_dot exactly (checked at start-up), else []. Answers are the same either way. */
  readonly kernelFeatures: string[];
  readonly FlatIndex: FlatIndexClass;
  readonly QuantizedIndex: QuantizedIndexClass;
  readonly HnswIndex: HnswIndexClass;
  /** Collections in this module: q.Collection.create(options). */
  readonly Collection: CollectionClass;
  /** An index of the class the bytes hold. */
  load(bytes: Bytes): AnyIndex;
  /** The same from a Response, ReadableStream or Blob, read into the wasm heap chunk by chunk
   *  (the file is never whole in JS). size: its length when the source does not say (an integer ≥ 0; -1, NaN or "300" are refused). */
  loadFrom(
    source: Bytes | Response | ReadableStream<Uint8Array> | Blob,
    options?: {
      size?: number;
      onProgress?: (progress: { done: number; total?: number }) => void;
      signal?: AbortSignal;
    },
  ): Promise<AnyIndex>;
  /** Hears the pieces of the long steps inside one call (a partitioned quantised add's k-means training and re-assignment); returning false stops that call with ABORTED, the index as it was. One per module; null removes it. */
  setWorkObserver(
    observer: ((progress: { step: WorkStep; done: number; total: number }) => boolean | void) | null,
  ): void;
  /** Bytes of wasm memory the module has reserved. */
  heapBytes(): number;
  /** Bytes of it the staging buffers (copies of call inputs and results) keep between calls: at most 8 MiB. */
  stagingBytes(): number;
  /** The deterministic unit-Gaussian workload (same floats as the native generator). */
  unitGaussianVectors(n: number, dim: number, seed: number): Float32Array;
  /** simd-mt pthread workers: pre-spawned, and hosting a thread now (0 and 0 single-threaded). */
  threadPool(): { workers: number; running: number };
  /** Ends the module's pthread workers (so Node can exit). Again is a no-op. */
  terminate(): void;
}

// ---- Collections ---------------------------------------------------------------------------

/** The index kinds a collection can sit on. */
export type CollectionIndexKind = IndexKind;
/** A record id: a string (1-256 bytes of UTF-8) or an integer in [0, 2^53 - 1]. 7 and '7' are different ids. */
export type RecordId = string | number;
/** The types of filterable fields. */
export type FieldType = 'string' | 'number' | 'boolean' | 'tags';
/** The filterable fields of a collection: name -> type (at most 32; a name is 1-64 bytes and does not start with '$'). */
export type FieldDeclarations = Record<string, FieldType>;

/** A metadata value: a string, a finite number, a boolean, or an array of at most 256 strings (no null, no nested objects). */
export type MetadataValue = string | number | boolean | string[];
/** A record's metadata: at most 64 fields and 10 KiB as compact JSON. Declared fields must hold their type (a tags field: a string or an array of strings). */
export type Metadata<F extends FieldDeclarations = FieldDeclarations> = { [K in keyof F]?: FieldValue<F[K]> } & {
  [field: string]: MetadataValue;
};
/** The value a declared field holds in metadata. */
export type FieldValue<T extends FieldType> = T extends 'string'
  ? string
  : T extends 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : string | string[];

/** What upsert() and insert() take. */
export interface CollectionRecord<F extends FieldDeclarations = FieldDeclarations> {
  id: RecordId;
  /** dim numbers (normalised under cosine when stored). */
  values: Float32Array | ArrayLike<number>;
  metadata?: Metadata<F> | null;
  /** At most 64 bytes; '' or absent: none. */
  namespace?: string | null;
}
/** A stored record (getByIds): metadata is {} for a record without any; namespace only when it has one. */
export interface StoredRecord<F extends FieldDeclarations = FieldDeclarations> {
  id: RecordId;
  metadata: Metadata<F>;
  namespace?: string;
  /** With returnValues: the stored vector (normalised under cosine). */
  values?: Float32Array;
}

/** The comparison operators of the filter language (Cloudflare Vectorize's, plus tag $contains). */
export type ComparisonOperator = '$eq' | '$ne' | '$lt' | '$lte' | '$gt' | '$gte' | '$in' | '$nin' | '$contains';
/** The logical operators: nesting. */
export type LogicalOperator = '$and' | '$or' | '$not';
export type FilterOperator = ComparisonOperator | LogicalOperator;

/** Conditions on a string field: a string is $eq; strings order by their UTF-8 bytes. */
export type StringCondition =
  | string
  | {
      $eq?: string;
      $ne?: string;
      $lt?: string;
      $lte?: string;
      $gt?: string;
      $gte?: string;
      $in?: string[];
      $nin?: string[];
    };
/** Conditions on a number field: a number is $eq. */
export type NumberCondition =
  | number
  | {
      $eq?: number;
      $ne?: number;
      $lt?: number;
      $lte?: number;
      $gt?: number;
      $gte?: number;
      $in?: number[];
      $nin?: number[];
    };
/** Conditions on a boolean field (no order): a boolean is $eq. */
export type BooleanCondition = boolean | { $eq?: boolean; $ne?: boolean; $in?: boolean[]; $nin?: boolean[] };
/** Conditions on a tags field: a string is $contains; $in: any of; $nin: none of. */
export type TagsCondition = string | { $contains?: string; $in?: string[]; $nin?: string[] };
export type FieldCondition<T extends FieldType> = T extends 'string'
  ? StringCondition
  : T extends 'number'
    ? NumberCondition
    : T extends 'boolean'
      ? BooleanCondition
      : TagsCondition;
export type AnyFieldCondition = StringCondition | NumberCondition | BooleanCondition | TagsCondition;

/**
 * A filter: conditions on declared fields (several keys: all must hold; several operators on a
 * field: all must hold) nested with $and / $or / $not. Applied first: the results are the top k
 * of the records it admits. A record without the field matches only $ne and $nin (and $not of
 * what it fails). An unknown operator, an undeclared field or a value of the wrong type is
 * INVALID_ARGUMENT; so is a value JSON cannot hold (undefined, NaN, a bigint).
 * With the collection's fields declared as literal types, only those fields are allowed.
 */
export type Filter<F extends FieldDeclarations = FieldDeclarations> = string extends keyof F
  ? LooseFilter
  : TypedFilter<F>;
export type TypedFilter<F extends FieldDeclarations> = { [K in keyof F]?: FieldCondition<F[K]> } & {
  $and?: TypedFilter<F>[];
  $or?: TypedFilter<F>[];
  $not?: TypedFilter<F>;
};
export interface LooseFilter {
  $and?: LooseFilter[];
  $or?: LooseFilter[];
  $not?: LooseFilter;
  [field: string]: AnyFieldCondition | LooseFilter | LooseFilter[] | undefined;
}

/** The index options a collection passes on to its kind (those of the kind's class but dim and metric). */
export type CollectionKindOptions<K extends CollectionIndexKind> = K extends 'flat'
  ? Record<string, never>
  : K extends 'quantized'
    ? Omit<QuantizedIndexOptions, 'dim' | 'metric'>
    : Omit<HnswIndexOptions, 'dim' | 'metric'>;

export interface CollectionOptions<
  F extends FieldDeclarations = FieldDeclarations,
  K extends CollectionIndexKind = 'hnsw',
> {
  /** An integer in [1, 2^24]. */
  dim: number;
  /** Default 'cosine'. */
  metric?: Metric;
  /** The index kind underneath (default 'hnsw'); 'flat' is exact. */
  index?: K;
  /** The kind's options (M, efConstruction, bits, lists, ...). */
  options?: CollectionKindOptions<K>;
  /** The filterable fields: typed column indexes. */
  fields?: F;
}

interface BaseQueryOptions<F extends FieldDeclarations> {
  /** An integer in [1, 2^32 - 1] (default 10); anything else is INVALID_K. */
  topK?: number;
  filter?: Filter<F>;
  /** Only this namespace ('' = the records without one). */
  namespace?: string;
  /** The matches' vectors, from a kind that keeps its f32 vectors (flat; HNSW f32, or sq8 with keepVectors; quantised with keepVectors — the defaults); others refuse with INVALID_ARGUMENT. */
  returnValues?: boolean;
  /** The matches' metadata ({} for a record without any). */
  returnMetadata?: boolean;
}
/** query() options: the collection's and its kind's search knobs. */
export type CollectionQueryOptions<
  F extends FieldDeclarations = FieldDeclarations,
  K extends CollectionIndexKind = CollectionIndexKind,
> = BaseQueryOptions<F> &
  (K extends 'flat'
    ? Omit<FlatSearchOptions, 'allow'>
    : K extends 'quantized'
      ? Omit<QuantizedSearchOptions, 'allow'>
      : Omit<HnswSearchOptions, 'allow'>);

export interface CollectionMatch<F extends FieldDeclarations = FieldDeclarations> {
  id: RecordId;
  /** The index's distance: smaller is closer (l2: squared; ip and cosine: 1 - similarity). */
  distance: number;
  /** Present when the record has one. */
  namespace?: string;
  /** With returnMetadata. */
  metadata?: Metadata<F>;
  /** With returnValues. */
  values?: Float32Array;
}
/** How a query was answered. */
export interface QueryPlan {
  /**
   * 'unfiltered': every vector searched (no filter, or one every record passes); 'prefilter': the
   * filter was evaluated on the column indexes first and the matching vectors given to the index
   * as an allow list; 'filtered-walk': HNSW walked its graph testing each node against the
   * matching rows (many match); 'filtered-walk+allow-list': that walk came back short and the
   * query ran again with the allow list; 'empty': nothing matched.
   */
  strategy: 'unfiltered' | 'prefilter' | 'filtered-walk' | 'filtered-walk+allow-list' | 'empty';
  /** Records the filter and namespace admit. */
  matching: number;
  /** Records in the collection. */
  total: number;
}
export interface CollectionQueryResult<F extends FieldDeclarations = FieldDeclarations> {
  /** min(topK, plan.matching) matches, closest first. */
  matches: CollectionMatch<F>[];
  plan: QueryPlan;
}
export interface CollectionDescription {
  size: number;
  dim: number;
  metric: Metric;
  index: CollectionIndexKind;
  /** The kind's parameters in a few words. */
  indexDetail: string;
  fields: FieldDeclarations;
  /** Namespaces in use. */
  namespaces: number;
  /** Bytes, by part; total = memoryBytes. */
  memory: { index: number; ids: number; metadata: number; columns: number; total: number };
}

/** A collection in a module (q.Collection.create). Every call validates first: a refused call changes nothing. */
export interface LocalCollection<
  F extends FieldDeclarations = FieldDeclarations,
  K extends CollectionIndexKind = CollectionIndexKind,
> {
  readonly dim: number;
  readonly size: number;
  readonly memoryBytes: number;
  readonly metric: Metric;
  readonly index: K;
  readonly variant: Variant;
  /** True after dispose(). */
  readonly disposed: boolean;
  /** Adds the records, replacing those whose id is present. All or nothing. */
  upsert(records: readonly CollectionRecord<F>[]): void;
  /** As upsert, but an id already present is DUPLICATE_ID. */
  insert(records: readonly CollectionRecord<F>[]): void;
  /** null for an id not present. returnValues: from a kind that keeps its f32 vectors (INVALID_ARGUMENT otherwise). */
  getByIds(ids: readonly RecordId[], options?: { returnValues?: boolean }): (StoredRecord<F> | null)[];
  /** An id not present is UNKNOWN_ID (a repeated one DUPLICATE_ID), and nothing is removed. */
  deleteByIds(ids: readonly RecordId[]): void;
  query(vector: Vectors, options?: CollectionQueryOptions<F, K>): CollectionQueryResult<F>;
  describe(): CollectionDescription;
  /** The collection's file: its index's file plus the ids, metadata and fields (the bytes the native library writes). */
  serialize(): Uint8Array;
  /** The same file handed to onPart in parts of at most partBytes (never whole in JS); returns its length. */
  serializeParts(partBytes: number, onPart: (part: Uint8Array) => void): number;
  /** Frees the wasm memory. Again is a no-op; any other use afterwards throws DISPOSED. */
  dispose(): void;
  [Symbol.dispose](): void;
}
/** q.Collection: makes collections in that module, synchronously. */
export interface CollectionClass {
  create<const F extends FieldDeclarations = {}, K extends CollectionIndexKind = 'hnsw'>(
    options: CollectionOptions<F, K>,
  ): LocalCollection<F, K>;
  /** The collection in a file (serialize(), the native library, `quiver collection build`); an index file without a collection is INVALID_ARGUMENT. */
  load(bytes: Bytes): LocalCollection;
  /** As load(), from the file in parts consumed one at a time (each copied into the heap as it comes), whose lengths add up to totalBytes: fewer bytes are TRUNCATED, more CORRUPT. */
  loadParts(totalBytes: number, parts: Iterable<Bytes>): LocalCollection;
}
/** A collection living in a worker (spawn()): the same methods, returning Promises. */
export interface RemoteCollection<
  F extends FieldDeclarations = FieldDeclarations,
  K extends CollectionIndexKind = CollectionIndexKind,
> {
  readonly dim: number;
  readonly metric: Metric;
  readonly index: K;
  readonly variant: Variant;
  readonly size: Promise<number>;
  readonly memoryBytes: Promise<number>;
  /** transfer: move the records' values buffers into the worker. */
  upsert(records: readonly CollectionRecord<F>[], options?: TransferOption): Promise<void>;
  insert(records: readonly CollectionRecord<F>[], options?: TransferOption): Promise<void>;
  getByIds(ids: readonly RecordId[], options?: { returnValues?: boolean }): Promise<(StoredRecord<F> | null)[]>;
  deleteByIds(ids: readonly RecordId[]): Promise<void>;
  query(vector: Vectors, options?: CollectionQueryOptions<F, K> & TransferOption): Promise<CollectionQueryResult<F>>;
  describe(): Promise<CollectionDescription>;
  serialize(): Promise<Uint8Array>;
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
export interface RemoteCollectionClass {
  create<const F extends FieldDeclarations = {}, K extends CollectionIndexKind = 'hnsw'>(
    options: CollectionOptions<F, K>,
  ): Promise<RemoteCollection<F, K>>;
  /** transfer: move the bytes' buffer into the worker. */
  load(bytes: Bytes, options?: TransferOption): Promise<RemoteCollection>;
}

/**
 * The package's Collection: every collection is an instance of it. Collection.create(options,
 * { quiver }) makes one in `quiver` — a module from init() (there q.Collection.create is the
 * synchronous form) or a worker from spawn() (a RemoteCollection) — or, without a target, in the
 * module Quiver.load shares.
 */
export declare class Collection {
  protected constructor();
  static create<const F extends FieldDeclarations = {}, K extends CollectionIndexKind = 'hnsw'>(
    options: CollectionOptions<F, K>,
    target?: { quiver?: QuiverModule },
  ): Promise<LocalCollection<F, K>>;
  static create<const F extends FieldDeclarations = {}, K extends CollectionIndexKind = 'hnsw'>(
    options: CollectionOptions<F, K>,
    target: { quiver: RemoteQuiver },
  ): Promise<RemoteCollection<F, K>>;
  /** The collection in a file, in `quiver` or the shared module. */
  static load(bytes: Bytes, target?: { quiver?: QuiverModule }): Promise<LocalCollection>;
  static load(bytes: Bytes, target: { quiver: RemoteQuiver }): Promise<RemoteCollection>;
}

// ---- Worker-hosted async API --------------------------------------------------------------

/**
 * `{ transfer: true }` moves the caller's buffers into the worker instead of copying them (they
 * are detached here afterwards). An input whose buffer is already detached is refused with
 * INVALID_ARGUMENT before anything is sent (with or without transfer); a SharedArrayBuffer-backed
 * input is sent without transfer (the worker sees the same memory; it stays usable here).
 */
export interface TransferOption {
  transfer?: boolean;
}

/** Worker-hosted add(): with onProgress or signal the worker adds in chunks, all or nothing: a
 *  cancelled (ABORTED) or rejected add leaves the index as it was, byte for byte (serialize()
 *  unchanged). A flat index removes the rows it added; the other kinds (whose remove() is no
 *  exact inverse: free lists, tombstones, a re-trained partition) keep a snapshot — the index
 *  file, about `memoryBytes`, in the worker's JS memory — while an add of more than one chunk
 *  runs, and a rollback loads it in place of the changed index (both briefly in the wasm heap). */
export interface ProgressOptions {
  /** After each chunk ({ done, total } rows), and during a long step inside one (the k-means training and re-assignment of a partitioned quantised index): `step` names it and counts its pieces. */
  onProgress?: (progress: {
    done: number;
    total: number;
    step?: { name: WorkStep; done: number; total: number };
  }) => void;
  /** Stops the add (ABORTED, the index as it was) between chunks, and inside a training step where the worker can share memory (Node, Deno, Bun, a cross-origin isolated page). */
  signal?: AbortSignal;
  /** Rows per chunk (default 1024): an integer ≥ 1. */
  chunkSize?: number;
}

/** An index living in a worker: the same methods, returning Promises. */
export interface RemoteIndex<S = {}, A = {}> {
  readonly kind: IndexKind;
  readonly dim: number;
  readonly metric: Metric;
  readonly isa: string;
  readonly variant: Variant;
  readonly size: Promise<number>;
  readonly memoryBytes: Promise<number>;
  /** Any other read-only property of the index in the worker (bits, M, maxLevel, ...). */
  property(name: string): Promise<unknown>;
  add(ids: Ids, vectors: Vectors, options?: A & TransferOption & ProgressOptions): Promise<void>;
  remove(ids: Ids): Promise<void>;
  has(id: number | bigint): Promise<boolean>;
  search(query: Vectors, k?: number, options?: S & TransferOption): Promise<SearchResult>;
  searchBatch(queries: Vectors, k?: number, options?: S & TransferOption): Promise<BatchSearchResult>;
  serialize(): Promise<Uint8Array>;
  /** HNSW only. */
  compact(): Promise<void>;
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
export type RemoteFlatIndex = RemoteIndex<FlatSearchOptions>;
export type RemoteQuantizedIndex = RemoteIndex<QuantizedSearchOptions>;
export type RemoteHnswIndex = RemoteIndex<HnswSearchOptions, HnswAddOptions>;
export type AnyRemoteIndex = RemoteFlatIndex | RemoteQuantizedIndex | RemoteHnswIndex;

export interface RemoteQuiver {
  readonly variant: Variant;
  readonly version: string;
  readonly isa: string;
  readonly availableIsas: string[];
  /** As QuiverModule.kernelFeatures, for the worker's module. */
  readonly kernelFeatures: string[];
  create(kind: 'flat', options: IndexOptions): Promise<RemoteFlatIndex>;
  create(kind: 'quantized', options: QuantizedIndexOptions): Promise<RemoteQuantizedIndex>;
  create(kind: 'hnsw', options: HnswIndexOptions): Promise<RemoteHnswIndex>;
  /** Collections in the worker: w.Collection.create(options). */
  readonly Collection: RemoteCollectionClass;
  /** Bytes, or a Response / ReadableStream / Blob streamed to the worker and read into its heap
   *  chunk by chunk: onProgress in bytes, signal stops the read (ABORTED, nothing loaded). With
   *  bytes, a load that ends after the signal fired is freed and rejects with ABORTED. */
  load(
    source: Bytes | Response | ReadableStream<Uint8Array> | Blob,
    options?: TransferOption & {
      signal?: AbortSignal;
      onProgress?: (progress: { done: number; total?: number }) => void;
      size?: number;
    },
  ): Promise<AnyRemoteIndex>;
  threadPool(): Promise<{ workers: number; running: number }>;
  unitGaussianVectors(n: number, dim: number, seed: number): Promise<Float32Array>;
  /** Stops the worker at once, even in the middle of an add or a build (the thread is ended from
   *  this side, not asked to stop), and with it every index it holds. Every pending and every
   *  later call rejects with WORKER_EXITED. Resolves once the thread has ended; again is a no-op. */
  terminate(): Promise<void>;
}

/** Options are sent to the worker, so `locateFile` (a function) cannot be one of them; use `wasmUrl`. */
export interface SpawnOptions extends Omit<LoadOptions, 'locateFile'> {
  /** The worker script, when a bundler did not put the package's one beside it (esbuild: bundle
   *  `quiver-vector/worker-entry` as an entry point and pass the output's URL). A script that
   *  does not start rejects with LOAD_FAILED naming it. */
  workerUrl?: string | URL;
}
/** Starts a Worker (browser) / worker_thread (Node) with its own module. */
export function spawn(options?: SpawnOptions): Promise<RemoteQuiver>;

// ---- Persistence ---------------------------------------------------------------------------

/** Anything with serialize(): a local index or a worker-hosted one. */
export type Serializable = { serialize(): Uint8Array | Promise<Uint8Array> };
/** Where loaded indexes go: a module, a worker, or (omitted) the module Quiver.load shares. */
export interface LoadTarget<Q extends QuiverModule | RemoteQuiver = QuiverModule> {
  quiver?: Q;
}
type Loaded<Q> = Q extends RemoteQuiver ? AnyRemoteIndex : AnyIndex;

/** Node: writes the index file atomically (temp file, fsync, rename). Resolves to the byte count. */
export function saveToFile(index: Serializable, path: string | URL): Promise<number>;
export function loadFromFile<Q extends QuiverModule | RemoteQuiver = QuiverModule>(
  path: string | URL,
  options?: LoadTarget<Q>,
): Promise<Loaded<Q>>;

export interface IndexedDBOptions {
  /** Default 'quiver'. */
  database?: string;
  /** Default 'indexes'. */
  store?: string;
}
export function saveToIndexedDB(index: Serializable, key: string, options?: IndexedDBOptions): Promise<number>;
export function loadFromIndexedDB<Q extends QuiverModule | RemoteQuiver = QuiverModule>(
  key: string,
  options?: IndexedDBOptions & LoadTarget<Q>,
): Promise<Loaded<Q>>;
export function deleteFromIndexedDB(key: string, options?: IndexedDBOptions): Promise<void>;
/** Origin Private File System; the write replaces the file atomically on close. */
export function saveToOpfs(index: Serializable, name: string): Promise<number>;
export function loadFromOpfs<Q extends QuiverModule | RemoteQuiver = QuiverModule>(
  name: string,
  options?: LoadTarget<Q>,
): Promise<Loaded<Q>>;
export function deleteFromOpfs(name: string): Promise<void>;

// ---- Entry points --------------------------------------------------------------------------

export const VARIANTS: readonly Variant[];
/** The build `init` would load: simd-mt with SharedArrayBuffer (+ cross-origin isolation), else relaxed-simd if relaxed SIMD validates, else simd if SIMD128 validates, else baseline. */
export function chooseVariant(requested?: Variant | 'auto'): Variant;
/** Loads a wasm module (a new one each call). */
export function init(options?: LoadOptions): Promise<QuiverModule>;
/** The index in `source` (bytes, Response, ReadableStream, Blob), in a module shared by every call with the same variant. */
export function load(
  source: Bytes | Response | ReadableStream<Uint8Array> | Blob,
  options?: LoadOptions,
): Promise<AnyIndex>;

export interface QuiverStatic {
  init: typeof init;
  load: typeof load;
  /** The module Quiver.load uses for these options' variant. */
  shared(options?: LoadOptions): Promise<QuiverModule>;
  spawn: typeof spawn;
  chooseVariant: typeof chooseVariant;
  VARIANTS: typeof VARIANTS;
  Collection: typeof Collection;
  saveToFile: typeof saveToFile;
  loadFromFile: typeof loadFromFile;
  saveToIndexedDB: typeof saveToIndexedDB;
  loadFromIndexedDB: typeof loadFromIndexedDB;
  deleteFromIndexedDB: typeof deleteFromIndexedDB;
  saveToOpfs: typeof saveToOpfs;
  loadFromOpfs: typeof loadFromOpfs;
  deleteFromOpfs: typeof deleteFromOpfs;
}
export const Quiver: QuiverStatic;
export default Quiver;
