// Saving and loading index files: a file path (Node), IndexedDB and the Origin Private File
// System (browsers). Every helper takes any index with serialize() — a synchronous one or a
// worker-hosted one (spawn.js) — and loads through `quiver` (the option): a module from Quiver.init(), a
// worker from spawn(), or, when omitted, the shared module of Quiver.load.
import { QuiverError } from '../core/errors.js';
import { Quiver } from '../index.js';
import {
  IDB_LOAD_OPTIONS,
  IDB_OPTIONS,
  LOAD_FROM_FILE_OPTIONS,
  OPFS_LOAD_OPTIONS,
  readOptions,
} from '../core/options.js';

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

// Temporary names are unique per call, not per millisecond: a counter for this thread plus
// random bytes (other threads and processes), and the file is created exclusively ('wx'), so
// two saves never write into the same temporary file.
let saveCounter = 0;
function tempName(target) {
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  saveCounter = (saveCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${target}.${process.pid}.${saveCounter}.${randomBytes(6).toString('hex')}.tmp`;
}

// Flushes the directory entry (the rename) where the platform lets a directory be opened and
// synced; elsewhere (Windows, some file systems) the rename is as durable as the OS makes it.
async function syncDirectory(open, dir) {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // EISDIR / EPERM / EINVAL: not supported here; the rename itself is still atomic.
  } finally {
    await handle?.close().catch(() => {});
  }
}

// Writes the index file atomically: a temporary file next to the target (a name of its own for
// every call) is written, flushed to disk and renamed over it, then the directory is flushed,
// so a crash leaves either the old file or the new one. Concurrent saves to one path each
// rename a whole file of their own: the path always holds one of them whole (the last rename
// wins), never a mix, and no temporary file is left behind.
export async function saveToFile(index, path) {
  const { open, rename, rm } = nodeFs();
  const { dirname } = process.getBuiltinModule('node:path');
  const bytes = await bytesOf(index);
  const target = String(path instanceof URL ? decodeURIComponent(path.pathname) : path);
  let temp;
  try {
    let file;
    for (let attempt = 0; !file; attempt++) {
      temp = tempName(target);
      try {
        file = await open(temp, 'wx');
      } catch (e) {
        temp = undefined;
        if (e.code !== 'EEXIST' || attempt >= 8) throw e;
      }
    }
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
    temp = undefined;
    await syncDirectory(open, dirname(target));
  } catch (e) {
    if (temp !== undefined) await rm(temp, { force: true }).catch(() => {});
    throw e instanceof QuiverError ? e : new QuiverError('IO_ERROR', `saving ${target}: ${e.message}`);
  }
  return bytes.length;
}

// Reads the file through a handle opened non-blocking and refuses anything that is not a
// regular file (a FIFO would block the read forever, a device never ends) with IO_ERROR, before
// a byte is read. Checking the open handle (not the path first) leaves no window in which the
// path could be swapped for something else.
export async function loadFromFile(path, options) {
  const { quiver } = readOptions(options, LOAD_FROM_FILE_OPTIONS);
  const { open } = nodeFs();
  const { constants } = process.getBuiltinModule('node:fs');
  const where = path instanceof URL ? path.href : String(path);
  const fail = (e) => {
    throw new QuiverError(e.code === 'ENOENT' ? 'NOT_FOUND' : 'IO_ERROR', `loading ${where}: ${e.message}`);
  };
  const file = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(fail);
  let bytes;
  try {
    const stat = await file.stat().catch(fail);
    if (!stat.isFile()) {
      const what = stat.isFIFO()
        ? 'a FIFO'
        : stat.isDirectory()
          ? 'a directory'
          : stat.isSocket()
            ? 'a socket'
            : stat.isCharacterDevice() || stat.isBlockDevice()
              ? 'a device'
              : 'not a regular file';
      throw new QuiverError('IO_ERROR', `loading ${where}: it is ${what}, not a regular file; nothing was read`);
    }
    bytes = await file.readFile().catch(fail);
  } finally {
    await file.close().catch(() => {});
  }
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
      if (db.objectStoreNames.contains(store)) {
        resolve(db);
        return;
      }
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
      request.onsuccess = () => {
        result = request.result;
      };
      // Resolve on commit, so a save has reached the database when the promise settles.
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(new QuiverError('IO_ERROR', `IndexedDB: ${tx.error?.message}`));
      tx.onabort = () =>
        reject(new QuiverError('IO_ERROR', `IndexedDB: ${tx.error?.message ?? 'transaction aborted'}`));
    });
  } finally {
    db.close();
  }
}

const IDB_DEFAULTS = { database: 'quiver', store: 'indexes' };

export async function saveToIndexedDB(index, key, options) {
  const { database = IDB_DEFAULTS.database, store = IDB_DEFAULTS.store } = readOptions(options, IDB_OPTIONS);
  checkName(key, 'key');
  const bytes = await bytesOf(index);
  await withStore(database, store, 'readwrite', (s) => s.put(bytes, key));
  return bytes.length;
}

export async function loadFromIndexedDB(key, options) {
  const {
    quiver,
    database = IDB_DEFAULTS.database,
    store = IDB_DEFAULTS.store,
  } = readOptions(options, IDB_LOAD_OPTIONS);
  checkName(key, 'key');
  const bytes = await withStore(database, store, 'readonly', (s) => s.get(key));
  if (bytes === undefined)
    throw new QuiverError('NOT_FOUND', `no index saved under '${key}' in IndexedDB ${database}/${store}`);
  return loadWith(quiver, bytes);
}

export async function deleteFromIndexedDB(key, options) {
  const { database = IDB_DEFAULTS.database, store = IDB_DEFAULTS.store } = readOptions(options, IDB_OPTIONS);
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

export async function loadFromOpfs(name, options) {
  const { quiver } = readOptions(options, OPFS_LOAD_OPTIONS);
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
