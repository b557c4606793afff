// Types of 'quiver-vector/worker': the worker-hosted async API. The options and their limits
// (ef ≤ 2^20, k × rerank ≤ 2^31 − 1, unknown keys refused) are those of index.d.ts, where each
// is documented.
export { spawn, QuiverError } from './index.js';
export type {
  RemoteQuiver,
  RemoteIndex,
  RemoteFlatIndex,
  RemoteQuantizedIndex,
  RemoteHnswIndex,
  AnyRemoteIndex,
  RemoteCollection,
  RemoteCollectionClass,
  CollectionOptions,
  CollectionRecord,
  CollectionQueryOptions,
  CollectionQueryResult,
  Filter,
  TransferOption,
  ProgressOptions,
  LoadOptions,
  ErrorCode,
} from './index.js';
