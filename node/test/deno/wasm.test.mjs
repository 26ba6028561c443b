// The WebAssembly build in Deno, through the entry for browsers and Deno
// (wasm/browser.mjs: the module fetched and compiled as it streams): the
// shared vectors and the wasm cases, with the runners of the Node tests
// (node:test runs under `deno test`). Run by test/deno/run.
import { createRequire } from 'node:module';
import snowflake from '../../wasm/browser.mjs';

const require = createRequire(import.meta.url);
const runVectors = require('../fixtures/vector-runner.js');
const runWasmCases = require('../fixtures/wasm-cases.js');

runVectors(snowflake, { hostClaim: false, stateFiles: false });
runWasmCases(snowflake);
