// The package entry ('quiver-vector'): the synchronous API of index.js (with Collection) plus the worker-hosted async
// API (spawn.js) and the persistence helpers (persistence.js). index.js itself does not
// import spawn.js: the worker script imports index.js, and a bundler (Vite) rejects a worker
// whose own imports start the same worker again.
import { Quiver as Core, init, QuiverError, chooseVariant, VARIANTS, Collection } from './index.js';
import { spawn } from './worker/spawn.js';
import {
  saveToFile,
  loadFromFile,
  saveToIndexedDB,
  loadFromIndexedDB,
  deleteFromIndexedDB,
  saveToOpfs,
  loadFromOpfs,
  deleteFromOpfs,
} from './io/persistence.js';

export const Quiver = {
  ...Core,
  spawn,
  saveToFile,
  loadFromFile,
  saveToIndexedDB,
  loadFromIndexedDB,
  deleteFromIndexedDB,
  saveToOpfs,
  loadFromOpfs,
  deleteFromOpfs,
};
export const load = Core.load;
export { init, spawn, QuiverError, chooseVariant, VARIANTS, Collection };
export {
  saveToFile,
  loadFromFile,
  saveToIndexedDB,
  loadFromIndexedDB,
  deleteFromIndexedDB,
  saveToOpfs,
  loadFromOpfs,
  deleteFromOpfs,
};
export default Quiver;
