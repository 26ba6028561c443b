'use strict';

// Runs every case of every shared vector file (tests/vectors/*.json, format
// in tests/vectors/README.md) against the Node binding.

const runVectors = require('./fixtures/vector-runner');

runVectors(require('..'));
