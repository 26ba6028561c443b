'use strict';

// The ES module entries export every name of the API, error kinds included:
// their lists are written by scripts/esm-entries.js from the API itself, and
// a list edited by hand, or a kind added to the core's status table without
// running the script, fails here.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

test('the ES module entries list what scripts/esm-entries.js writes', () => {
  const script = path.join(__dirname, '..', 'scripts', 'esm-entries.js');
  const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
});
