// Types of 'quiver-vector/worker': the worker-hosted async API.
export { spawn, QuiverError } from './index.js';
export type { RemoteQuiver, RemoteIndex, RemoteFlatIndex, RemoteQuantizedIndex, RemoteHnswIndex, AnyRemoteIndex,
  TransferOption, ProgressOptions, LoadOptions, ErrorCode } from './index.js';
