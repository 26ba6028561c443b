'use strict';

// snowflake-c for Node.js: the API of api.js over the native addon. Layout
// parsing, generation, decoding, the canonical JSON and every rule about
// options, node values and the preset/layout/epoch trio live in the core.

const binding = require('./binding').load(__dirname);
const errors = require('./errors');
const createApi = require('./api');
const nodeHost = require('./node-host');

module.exports = createApi(binding, errors, nodeHost);
