// Saving and loading index files: a file path (Node), IndexedDB and the Origin Private File
// System (browsers). Every helper takes any index with serialize() — a synchronous one or a
// worker-hosted one (spawn.js) — and loads through `quiver` (the option): a module from Quiver.init(), a
// worker from spawn(), or, when omitted, the shared module of Quiver.load.
import { QuiverError } from './errors.js';
import { Quiver } from './index.js';

async function bytesOf(index) {
  if (!index || typeof index.serialize !== 'function') {
    throw new QuiverError('INVALID_ARGUMENT', 'expected an index (something with serialize())');
  }
  return index.serialize();
}

function loadWith(quiver, bytes) {
  return quiver ? quiver.load(bytes) : Quiver.load(bytes);
}

function checkName(name, what) {
  if (typeof name !== 'string' || name.length === 0) {
    throw new QuiverError('INVALID_ARGUMENT', `${what} must be a non-empty string`);
  }
}

// ---- Node: a file path ----------------------------------------------------------------------

// Reached through getBuiltinModule, not import: browser bundles must hold no node: import.
function nodeFs() {
  if (typeof process !== 'object' || typeof process.getBuiltinModule !== 'function') {
    throw new QuiverError('UNSUPPORTED', 'files need Node, Deno or Bun (use IndexedDB or OPFS in a browser)');
  }
  return process.getBuiltinModule('node:fs/promises');
}

// Writes the index file atomically: a temporary file next to the target is written, flushed
// to disk and renamed over it, so a crash leaves either the old file or the new one.
export async function saveToFile(index, path) {
  const { open, rename, rm } = nodeFs();
  const bytes = await bytesOf(index);
  const target = String(path instanceof URL ? decodeURIComponent(path.pathname) : path);
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    const file = await open(temp, 'w');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
  } catch (e) {
    await rm(temp, { force: true }).catch(() => {});
    throw e instanceof QuiverError ? e : new QuiverError('IO_ERROR', `saving ${target}: ${e.message}`);
  }
  return bytes.length;
}

export async function loadFromFile(path, { quiver } = {}) {
  const { readFile } = nodeFs();
  const bytes = await readFile(path).catch((e) => {
    throw new QuiverError(e.code === 'ENOENT' ? 'NOT_FOUND' : 'IO_ERROR', `loading ${path}: ${e.message}`);
  });
  return loadWith(quiver, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

// ---- Browser: IndexedDB ---------------------------------------------------------------------

function openDatabase(database, store) {
  if (typeof indexedDB === 'undefined') {
    return Promise.reject(new QuiverError('UNSUPPORTED', 'IndexedDB is not available here'));
  }
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(database);
    request.onupgradeneeded = () => request.result.createObjectStore(store);
    request.onsuccess = () => {
      const db = request.result;
      if (db.objectStoreNames.contains(store)) { resolve(db); return; }
      // The database exists without this store: add it with a version upgrade.
      const version = db.version + 1;
      db.close();
      const upgrade = indexedDB.open(database, version);
      upgrade.onupgradeneeded = () => upgrade.result.createObjectStore(store);
      upgrade.onsuccess = () => resolve(upgrade.result);
      upgrade.onerror = () => reject(new QuiverError('IO_ERROR', `IndexedDB: ${upgrade.error?.message}`));
    };
    request.onerror = () => reject(new QuiverError('IO_ERROR', `IndexedDB: ${request.error?.message}`));
  });
}

async function withStore(database, store, mode, fn) {
  const db = await openDatabase(database, store);
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(store, mode);
      let result;
      const request = fn(tx.objectStore(store));
      request.onsuccess = () => { result = request.result; };
      // Resolve on commit, so a save has reached the database when the promise settles.
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(new QuiverError('IO_ERROR', `IndexedDB: ${tx.error?.message}`));
      tx.onabort = () => reject(new QuiverError('IO_ERROR', `IndexedDB: ${tx.error?.message ?? 'transaction aborted'}`));
    });
  } finally {
    db.close();
  }
}

const IDB_DEFAULTS = { database: 'quiver', store: 'indexes' };

export async function saveToIndexedDB(index, key, { database = IDB_DEFAULTS.database, store = IDB_DEFAULTS.store } = {}) {
  checkName(key, 'key');
  const bytes = await bytesOf(index);
  await withStore(database, store, 'readwrite', (s) => s.put(bytes, key));
  return bytes.length;
}

export async function loadFromIndexedDB(key, { quiver, database = IDB_DEFAULTS.database, store = IDB_DEFAULTS.store } = {}) {
  checkName(key, 'key');
  const bytes = await withStore(database, store, 'readonly', (s) => s.get(key));
  if (bytes === undefined) throw new QuiverError('NOT_FOUND', `no index saved under '${key}' in IndexedDB ${database}/${store}`);
  return loadWith(quiver, bytes);
}

export async function deleteFromIndexedDB(key, { database = IDB_DEFAULTS.database, store = IDB_DEFAULTS.store } = {}) {
  checkName(key, 'key');
  await withStore(database, store, 'readwrite', (s) => s.delete(key));
}

// ---- Browser: Origin Private File System -----------------------------------------------------

async function opfsRoot() {
  if (typeof navigator === 'undefined' || !navigator.storage?.getDirectory) {
    throw new QuiverError('UNSUPPORTED', 'the Origin Private File System is not available here');
  }
  return navigator.storage.getDirectory();
}

// createWritable() writes to a swap file that replaces the old contents only on close(), so a
// save is atomic.
export async function saveToOpfs(index, name) {
  checkName(name, 'name');
  const bytes = await bytesOf(index);
  const handle = await (await opfsRoot()).getFileHandle(name, { create: true });
  const writable = await handle.createWritable();
  try {
    await writable.write(bytes);
    await writable.close();
  } catch (e) {
    await writable.abort().catch(() => {});
    throw new QuiverError('IO_ERROR', `OPFS: ${e.message}`);
  }
  return bytes.length;
}

export async function loadFromOpfs(name, { quiver } = {}) {
  checkName(name, 'name');
  const root = await opfsRoot();
  const handle = await root.getFileHandle(name).catch((e) => {
    throw new QuiverError(e.name === 'NotFoundError' ? 'NOT_FOUND' : 'IO_ERROR', `OPFS ${name}: ${e.message}`);
  });
  const file = await handle.getFile();
  return loadWith(quiver, new Uint8Array(await file.arrayBuffer()));
}

export async function deleteFromOpfs(name) {
  checkName(name, 'name');
  await (await opfsRoot()).removeEntry(name).catch((e) => {
    if (e.name !== 'NotFoundError') throw new QuiverError('IO_ERROR', `OPFS ${name}: ${e.message}`);
  });
}
