// Types of the CommonJS entry (js/main.cjs): `const quiver = require('quiver-vector')`.
// Every function is async and forwards to the ES module, whose types these reuse.
type Api = typeof import('./index.js');

/** The whole ES module API (QuiverError, chooseVariant, persistence helpers, ...). */
export declare function esm(): Promise<Api>;
export declare function init(...args: Parameters<Api['init']>): ReturnType<Api['init']>;
export declare function load(...args: Parameters<Api['load']>): ReturnType<Api['load']>;
export declare function spawn(...args: Parameters<Api['spawn']>): ReturnType<Api['spawn']>;
export declare function saveToFile(...args: Parameters<Api['saveToFile']>): ReturnType<Api['saveToFile']>;
export declare function loadFromFile(...args: Parameters<Api['loadFromFile']>): ReturnType<Api['loadFromFile']>;
/** Collection.create(options, target) of the ES module (async there too). */
export declare const Collection: { create: Api['Collection']['create'] };
