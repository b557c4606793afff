// `import { spawn } from 'quiver-vector/worker'`: the worker-hosted async API alone (spawn.js).
export { spawn } from './spawn.js';
export { QuiverError } from './errors.js';
