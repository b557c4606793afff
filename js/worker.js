// `import { spawn } from 'quiver-vector/worker'`: the worker-hosted async API alone (spawn.js).
export { spawn } from './worker/spawn.js';
export { QuiverError } from './core/errors.js';
