'use strict';

// The binding's state machines driven through its real API by fast-check's
// commands, against a model of what each generator may issue (DESIGN.md
// §8a): generators of the addon and of the WebAssembly build, created,
// called in every form, closed with calls pending, dropped and collected;
// after every command, no integer issued twice, IDs increasing per
// generator, the node values in every ID, the guard's refusals where
// integers meet and starts where they do not, the closed error after
// close(). test/fixtures/model-run.js says what it checks; it runs in a
// process of its own, with --expose-gc. SNOWFLAKE_C_MODEL_RUNS=N runs
// longer (the default, 80 runs, takes about a minute); a failure prints
// fast-check's seed, path and commands' replay path, which
// SNOWFLAKE_C_MODEL_SEED, SNOWFLAKE_C_MODEL_PATH and SNOWFLAKE_C_MODEL_REPLAY
// replay.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');

const FIXTURE = path.join(__dirname, 'fixtures', 'model-run.js');
const LONG = process.env.SNOWFLAKE_C_MODEL_RUNS !== undefined;

/** The runner's exit status and output. */
function runModel() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--no-warnings', FIXTURE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, signal, out }));
  });
}

test(
  'the model: every generator of a run issues its own integers, and the guard refuses only where they meet',
  { timeout: LONG ? Infinity : 900000 },
  async (t) => {
    const { status, signal, out } = await runModel();
    assert.equal(status, 0, `the model run failed (${signal ?? status}):\n${out}`);
    const summary = JSON.parse(out.trim().split('\n').pop());
    t.diagnostic(`the model's runs: ${JSON.stringify(summary)}`);
    // The runs reached what the model is there for (counts, never times).
    for (const key of ['refusedAsExpected', 'pooled', 'dropped', 'pendingAtClose']) {
      assert.ok(summary[key] > 0, `no ${key} in ${out}`);
    }
    assert.ok(summary.created.native > 0 && summary.created.wasm > 0, out);
    assert.ok(summary.callerTimedIds > 0 && summary.ids > summary.callerTimedIds, out);
  },
);
