// Types of quiver-vector/cloudflare: a sharded collection on Durable Objects (docs/sharded.md).
import type {
  CollectionIndexKind,
  CollectionOptions as AnyCollectionOptions,
  CollectionRecord,
  CollectionQueryOptions,
  CollectionMatch,
  FieldDeclarations,
} from './index.js';

export { QuiverError } from './index.js';

/** Collection.create()'s options, of any kind. */
type CollectionOptions = AnyCollectionOptions<FieldDeclarations, CollectionIndexKind>;

/** What every shard is given with every call; a shard refuses a layout other than the one it holds. */
export interface ShardLayout {
  name: string;
  shard: number;
  shards: number;
  collection: Required<Pick<CollectionOptions, 'dim' | 'metric' | 'index' | 'options' | 'fields'>>;
}

/** A shard's answer: the result, or the refusal (a QuiverError's code and message). */
export type ShardAnswer<T> =
  { ok: T; error?: undefined } | { ok?: undefined; error: { code: string; message: string } };

/** The Durable Object class of a shard: export it from the Worker and bind it (SQLite-backed). */
export declare class QuiverShard {
  constructor(ctx: unknown, env: unknown);
  /** Write a snapshot when the log holds more than this many bytes (default 8 MiB). */
  compactLogBytes: number;
  /** ... or more than this many writes (default 2,000). */
  compactLogWrites: number;
  readonly ctx: unknown;
  readonly env: unknown;
  check(layout: ShardLayout, op: 'upsert' | 'insert' | 'delete', payload: unknown[]): Promise<ShardAnswer<true>>;
  upsert(layout: ShardLayout, records: CollectionRecord[]): Promise<ShardAnswer<{ size: number }>>;
  insert(layout: ShardLayout, records: CollectionRecord[]): Promise<ShardAnswer<{ size: number }>>;
  remove(layout: ShardLayout, ids: (string | number)[]): Promise<ShardAnswer<{ size: number }>>;
  get(
    layout: ShardLayout,
    ids: (string | number)[],
    options?: { returnValues?: boolean },
  ): Promise<ShardAnswer<unknown[]>>;
  query(layout: ShardLayout, vector: Float32Array, options?: CollectionQueryOptions): Promise<ShardAnswer<unknown>>;
  compact(layout: ShardLayout): Promise<ShardAnswer<SnapshotInfo | null>>;
  describe(layout: ShardLayout): Promise<ShardAnswer<ShardDescription>>;
}

export interface SnapshotInfo {
  parts: number;
  bytes: number;
  /** The last logged write the snapshot holds. */
  through: number;
}

export interface ShardDescription {
  shard: number;
  size: number;
  memory: { index: number; ids: number; metadata: number; columns: number; total: number };
  stored: boolean;
  log: { bytes: number; writes: number };
  snapshot: SnapshotInfo | null;
  /** How this shard's object started: module instantiation, snapshot load and log replay (ms). */
  coldStart: {
    moduleMs: number;
    snapshotBytes: number;
    snapshotMs: number;
    replayedWrites: number;
    replayMs: number;
    totalMs: number;
  };
  [key: string]: unknown;
}

/** The Durable Object namespace binding the router is given (env.SHARDS). */
export interface ShardNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): unknown;
}

export interface RouterOptions {
  /** The collection's name: its shards are the objects named "<name>/<shard>". */
  name: string;
  /** The shard count (1 to 1024). Changing it is a re-shard (docs/sharded.md). */
  shards: number;
  /** Collection.create()'s options, the same on every shard. */
  collection: CollectionOptions;
  /** 'id' (default): a record's shard is a hash of its id. 'namespace': of its namespace. */
  placement?: 'id' | 'namespace';
  /** How long a call waits for a shard (default 10,000 ms). */
  deadlineMs?: number;
  /** A query some shards did not answer: 'error' (default, SHARD_UNAVAILABLE) or 'partial'. */
  onPartial?: 'error' | 'partial';
}

export interface MissingShard {
  shard: number;
  reason: 'deadline' | 'error';
  message: string;
}

export type RouterQueryOptions = CollectionQueryOptions & {
  /** How long to wait for the shards (default: the router's). */
  deadlineMs?: number;
  /** What a shard that does not answer makes of the query (default: the router's). */
  onPartial?: 'error' | 'partial';
};

export interface RouterQueryResult {
  matches: CollectionMatch[];
  plan: { strategy: Record<string, number>; matching: number; total: number; shards: number };
  /** True when some shards did not answer (onPartial: 'partial'); `missing` names them. */
  partial: boolean;
  missing: MissingShard[];
}

export interface WriteResult {
  count: number;
  /** The shards that wrote a part. */
  shards: number[];
}

export declare class QuiverRouter {
  constructor(namespace: ShardNamespace, options: RouterOptions);
  readonly name: string;
  readonly shards: number;
  readonly placement: 'id' | 'namespace';
  readonly dim: number;
  /** The shard that holds this id (and namespace, under placement 'namespace'). */
  shardFor(id: string | number | null, namespace?: string): number;
  upsert(records: CollectionRecord[], options?: { deadlineMs?: number }): Promise<WriteResult>;
  insert(records: CollectionRecord[], options?: { deadlineMs?: number }): Promise<WriteResult>;
  deleteByIds(ids: (string | number)[], options?: { namespace?: string; deadlineMs?: number }): Promise<WriteResult>;
  getByIds(
    ids: (string | number)[],
    options?: { returnValues?: boolean; namespace?: string; deadlineMs?: number },
  ): Promise<(unknown | null)[]>;
  query(vector: ArrayLike<number>, options?: RouterQueryOptions): Promise<RouterQueryResult>;
  describe(options?: { deadlineMs?: number }): Promise<{
    name: string;
    shards: number;
    placement: 'id' | 'namespace';
    collection: ShardLayout['collection'];
    size: number;
    memoryBytes: number;
    perShard: ShardDescription[];
  }>;
  compact(options?: { deadlineMs?: number }): Promise<(SnapshotInfo | null)[]>;
}

/** The router as a JSON-over-HTTP API (null for a path it does not serve). */
export declare function handleRouterRequest(request: Request, router: QuiverRouter): Promise<Response | null>;
/** The placement key of an id: "s:<string>" or "n:<integer>". */
export declare function idKey(id: string | number): string;
/** The shard in [0, shards) that holds `key` (rendezvous hashing). */
export declare function shardOf(key: string, shards: number): number;
export declare function mergeTopK(
  answers: {
    shard: number;
    result: { matches: CollectionMatch[]; plan: { strategy: string; matching: number; total: number } };
  }[],
  topK: number,
): Omit<RouterQueryResult, 'partial' | 'missing'>;
