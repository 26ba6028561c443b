'use strict';

// snowflake-c/wasm for Node.js: the API of api.js over the core compiled to
// WebAssembly (bindings/wasm/), the same classes, types and errors as the
// native package's. The module is read from this folder and compiled once.

const fs = require('node:fs');
const path = require('node:path');
const { webcrypto } = require('node:crypto');
const { imports, createBinding } = require('./binding');
const defineErrors = require('../error-kinds');
const createApi = require('../api');
const nodeHost = require('../node-host');

const WASM_FILE = path.join(__dirname, 'snowflake_c.wasm');

let memory;
const module_ = new WebAssembly.Module(fs.readFileSync(WASM_FILE));
// Node.js 18 has no global crypto: its Web Crypto object, named.
const instance = new WebAssembly.Instance(
  module_,
  imports(() => memory, webcrypto),
);
memory = instance.exports.memory;

const binding = createBinding(instance);
const errors = defineErrors(binding.call(binding.calls.statuses, []));
const { SnowflakeError, ...kinds } = errors;
binding.setErrorClasses(kinds);

module.exports = createApi(binding, errors, nodeHost);
