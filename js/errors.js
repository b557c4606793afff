// QuiverError: every failure the package reports. `code` is the stable name of the C++
// error code (e.g. 'DIMENSION_MISMATCH'); `message` is the C++ message unchanged.
export class QuiverError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'QuiverError';
    this.code = code;
  }
}

// Runs fn and rethrows errors coming out of the wasm module (plain Errors with a `code`,
// set by bindings/errors.hpp) as QuiverError.
export function rethrowing(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof QuiverError) throw e;
    if (e && typeof e.code === 'string' && typeof e.message === 'string') {
      throw new QuiverError(e.code, e.message);
    }
    throw e;
  }
}
