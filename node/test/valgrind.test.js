'use strict';

// The native glue under valgrind's memcheck: no invalid reads or writes, no
// use of uninitialised memory. Skipped (and says so) without valgrind.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const valgrind = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });

test('every entry point is clean under valgrind', { timeout: 300000 }, (t) => {
  if (valgrind.error || valgrind.status !== 0) {
    t.skip('valgrind is not installed');
    return;
  }
  const run = spawnSync(
    'valgrind',
    [
      '--error-exitcode=9',
      '-q',
      process.execPath,
      '--jitless',
      path.join(__dirname, 'fixtures', 'exercise.js'),
    ],
    { encoding: 'utf8', timeout: 280000 },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'done\n');
});
