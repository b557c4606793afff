// The JS side of the index kind registry (src/index/common/kind_registry.hpp): which class wraps
// which kind. The C++ registry is the authority on what kinds a module has; the module's
// indexKinds() must name exactly these, in this order, or init() refuses the module (a kind
// added in C++ without its class here, or the other way round, fails at once, never as an
// index that loads but cannot be wrapped).
import { QuiverError } from '../core/errors.js';
import { makeFlatIndexClass } from './flat-index.js';
import { makeQuantizedIndexClass } from './quantized-index.js';
import { makeHnswIndexClass } from './hnsw-index.js';

// name: the registry's; className: the Embind class and the property of init()'s result;
// make: the factory of the JS class (index-base.js's IndexBase below it).
export const KINDS = [
  { name: 'flat', className: 'FlatIndex', make: makeFlatIndexClass },
  { name: 'quantized', className: 'QuantizedIndex', make: makeQuantizedIndexClass },
  { name: 'hnsw', className: 'HnswIndex', make: makeHnswIndexClass },
];

// Throws QuiverError(INTERNAL) unless the module's registry and KINDS agree.
export function checkKinds(mod) {
  const registered = String(mod.indexKinds()).split(',').filter(Boolean);
  const here = KINDS.map((k) => k.name);
  if (registered.join(',') !== here.join(',')) {
    throw new QuiverError(
      'INTERNAL',
      `this module's index kinds (${registered.join(', ')}) are not the package's (${here.join(', ')})`,
    );
  }
}

// The JS class of every kind for one loaded module, and the table the loaders use:
// classes[name] = [JS class, Embind class].
export function makeKindClasses(mod, staging, variant, IndexBase) {
  checkKinds(mod);
  const byClassName = {};
  const classes = {};
  for (const k of KINDS) {
    const Cls = k.make(mod, staging, variant, IndexBase);
    byClassName[k.className] = Cls;
    classes[k.name] = [Cls, mod[k.className]];
  }
  return { byClassName, classes };
}
