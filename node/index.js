'use strict';

// snowflake-c for Node.js: the API of api.js over the native addon. Layout
// parsing, generation, decoding, the canonical JSON and every rule about
// options, node values and the preset/layout/epoch trio live in the core.
// Where no addon fits (no platform package, no build from source), the same
// API over the core compiled to WebAssembly (./wasm), with a warning, once,
// that says why; SNOWFLAKE_C_IMPLEMENTATION=native|wasm chooses instead.
// `implementation` says which one loaded (not enumerable: it is no part of
// the API that both builds share).

const { choose, IMPLEMENTATION_ENV } = require('./binding');

const chosen = choose(__dirname);
let api;
if (chosen.implementation === 'native') {
  api = require('./api')(chosen.addon, require('./errors'), require('./node-host'));
} else {
  try {
    api = { ...require('./wasm') };
  } catch (error) {
    if (!chosen.fallback) throw error;
    chosen.fallback.message += ` (nor does the WebAssembly build load: ${error.message})`;
    throw chosen.fallback;
  }
  if (chosen.fallback) {
    process.emitWarning(
      `${chosen.fallback.message} Using the WebAssembly ` +
        'build instead: the same API and IDs, slower, with no host-wide guard, pool or ' +
        `state directory. ${IMPLEMENTATION_ENV}=wasm chooses it without this warning; ` +
        `${IMPLEMENTATION_ENV}=native makes a missing addon an error.`,
      { type: 'WasmFallbackWarning', code: 'SNOWFLAKE_C_WASM_FALLBACK' },
    );
  }
}
Object.defineProperty(api, 'implementation', { value: chosen.implementation });

module.exports = api;
