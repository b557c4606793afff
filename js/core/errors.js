// QuiverError: every failure the package reports. `code` is the stable name of the C++
// error code (e.g. 'DIMENSION_MISMATCH'); `message` is the C++ message unchanged.
export class QuiverError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'QuiverError';
    this.code = code;
  }
}

// What the binding returns for a failed call (bindings/errors.hpp): nothing is thrown across
// the wasm boundary (a JS exception unwinding wasm frames leaks their stack and the caught
// C++ exception), so a failure is a sentinel and the code and message wait in the module's
// error slot.
export const FAILED_COUNT = -1;

// `result` of a binding call, or a QuiverError for its sentinel: -1 (counts and sizes),
// false (calls without a result), null (a new index) or '' (a string).
export function checked(mod, result) {
  if (result === FAILED_COUNT || result === false || result === null || result === '') {
    throw new QuiverError(mod.lastErrorCode() || 'INTERNAL', mod.lastErrorMessage() || 'the call failed');
  }
  return result;
}
