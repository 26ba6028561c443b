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
// longer (the default, 50 runs, takes about 40 s); a failure prints
// fast-check's seed, path and commands' replay path, which
// SNOWFLAKE_C_MODEL_SEED, SNOWFLAKE_C_MODEL_PATH and SNOWFLAKE_C_MODEL_REPLAY
// replay.
//
// Where Linux lets it, the run has network and mount namespaces of its own
// with a /dev/shm of its own: the guard's claims (abstract sockets) and
// hand-over records are then the run's alone, so that no generator of
// another program of the host (a process another test left exiting, a
// suite beside this one) refuses its generators — the claim is on
// integers, whatever the epoch, and a pool refused by an outsider is a
// failure of the model.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const FIXTURE = path.join(__dirname, 'fixtures', 'model-run.js');
const LONG = process.env.SNOWFLAKE_C_MODEL_RUNS !== undefined;

/** A command prefix that runs a program in namespaces of its own with a fresh /dev/shm, or []. */
function isolation() {
  if (process.platform !== 'linux') return [];
  const script = 'mount -t tmpfs -o mode=1777 snowflake-c-model /dev/shm && exec "$@"';
  for (const unshare of [
    ['unshare', '--net', '--mount'],
    ['unshare', '--map-root-user', '--net', '--mount'],
  ]) {
    const prefix = [...unshare, 'sh', '-c', script, 'sh'];
    const r = spawnSync(prefix[0], [...prefix.slice(1), 'true'], {
      stdio: 'ignore',
      timeout: 30000,
    });
    if (r.status === 0) return prefix;
  }
  return [];
}

/** The runner's exit status and output. */
function runModel(prefix) {
  const command = [...prefix, process.execPath, '--expose-gc', '--no-warnings', FIXTURE];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
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
    const prefix = isolation();
    const { status, signal, out } = await runModel(prefix);
    assert.equal(status, 0, `the model run failed (${signal ?? status}):\n${out}`);
    const summary = JSON.parse(out.trim().split('\n').pop());
    t.diagnostic(
      `the model's runs${prefix.length ? ', in namespaces of their own' : ''}: ${JSON.stringify(summary)}`,
    );
    // Alone in its namespaces, no other program holds what it claims.
    if (prefix.length) assert.equal(summary.refusedByOthers, 0, out);
    // The runs reached what the model is there for (counts, never times).
    for (const key of ['refusedAsExpected', 'pooled', 'dropped', 'pendingAtClose']) {
      assert.ok(summary[key] > 0, `no ${key} in ${out}`);
    }
    assert.ok(summary.created.native > 0 && summary.created.wasm > 0, out);
    assert.ok(summary.callerTimedIds > 0 && summary.ids > summary.callerTimedIds, out);
  },
);
