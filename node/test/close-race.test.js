'use strict';

// close() from wherever it comes while a call of the same generator is under
// way — JavaScript that the call itself runs (a setter that stats() meets,
// the host's clock that the WebAssembly core reads, a typed array's
// methods), a timer while an async wait is pending, a worker thread ended
// while its call waits: the call ends with the closed error (or its IDs)
// and never reaches freed memory. The addon in a child process with freed
// memory perturbed and under valgrind; the WebAssembly build through an
// instance whose exports note every call into the module.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { webcrypto } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { own } = require('./fixtures/own-epoch');

const PKG = path.join(__dirname, '..');
const WASM = path.join(PKG, 'wasm');
const FIXTURE = path.join(__dirname, 'fixtures', 'close-race.js');
const CLOSED = 'InvalidArgument: the generator is closed: create a new one';

/** The fixture's findings, run by node (after `wrap`, with `nodeArgs`). */
function runFixture(entry, { wrap = [], nodeArgs = [], env = {} } = {}) {
  const [command, ...args] = [...wrap, process.execPath, ...nodeArgs, FIXTURE, entry];
  const run = spawnSync(command, args, {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 280000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop());
}

// api.js defines stats()'s properties, over either build: a setter on
// Object.prototype never runs (the generator stays open).
function checkFixture(out, guard, setterMet) {
  assert.deepEqual(out.stats, {
    node: { worker: 1 },
    nodeSources: { worker: 'explicit' },
    guard,
  });
  assert.equal(out.setterMet, setterMet);
  assert.equal(out.afterStats, setterMet ? CLOSED : 'an ID');
  assert.equal(out.again, undefined, 'the value was given back at close()');
  assert.equal(out.async, CLOSED);
  assert.equal(out.worker, 'terminated');
}

test('the addon: close() inside a call, freed memory perturbed', { timeout: 60000 }, () => {
  checkFixture(runFixture(PKG, { env: { MALLOC_PERTURB_: '165' } }), 'held', false);
});

const valgrind = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });

test('the addon: close() inside a call, under valgrind', { timeout: 300000 }, (t) => {
  if (valgrind.error || valgrind.status !== 0) {
    t.skip('valgrind is not installed');
    return;
  }
  const wrap = ['valgrind', '--error-exitcode=9', '-q'];
  checkFixture(runFixture(PKG, { wrap, nodeArgs: ['--jitless'] }), 'held', false);
});

test('the WebAssembly build: close() inside a call', { timeout: 60000 }, () => {
  checkFixture(runFixture(WASM), 'off', false);
});

// ---- The WebAssembly build, every call into the module watched ----

// The exports whose first argument is a generator.
const ON_GENERATOR = new Set([
  'generator_close',
  'warnings_out',
  'generator_memory',
  'now_us',
  'next_now',
  'next_at',
  'next_ids_now',
  'next_ids_at',
  'stats_out',
]);

/**
 * The wasm API over an instance whose exports note every call: a free while
 * a call into the module is under way (the stats walked, say) or a call on a
 * freed generator is a fault.
 */
function watchedWasm() {
  const { imports, createBinding } = require('../wasm/binding');
  const defineErrors = require('../error-kinds');
  const createApi = require('../api');
  const nodeHost = require('../node-host');
  let memory;
  const module_ = new WebAssembly.Module(fs.readFileSync(path.join(WASM, 'snowflake_c.wasm')));
  const instance = new WebAssembly.Instance(
    module_,
    imports(() => memory, webcrypto),
  );
  memory = instance.exports.memory;
  const faults = [];
  const freed = new Set();
  let depth = 0;
  const exports = {};
  for (const [name, value] of Object.entries(instance.exports)) {
    if (typeof value !== 'function') {
      exports[name] = value;
      continue;
    }
    exports[name] = (...args) => {
      const gen = args[0] >>> 0;
      if (name === 'generator_free') {
        if (depth > 0) faults.push('generator_free while a call is under way');
        freed.add(gen);
      } else if (ON_GENERATOR.has(name) && freed.has(gen)) {
        faults.push(`${name} on a freed generator`);
      }
      depth++;
      try {
        const r = value(...args);
        if (name === 'generator_new') freed.delete(r >>> 0);
        return r;
      } finally {
        depth--;
      }
    };
  }
  const binding = createBinding({ exports });
  const errors = defineErrors(binding.call(binding.calls.statuses, []));
  const { SnowflakeError, ...kinds } = errors;
  binding.setErrorClasses(kinds);
  return { sfc: createApi(binding, errors, nodeHost), faults };
}

const watched = watchedWasm();
let nextNode = 0;

/** A generator of the watched build, of a node value of its own. */
function watchedGenerator(options = {}) {
  return new watched.sfc.Generator({
    ...own('time:41@1ms,worker:6,seq:16'),
    node: nextNode++,
    guard: false,
    ...options,
  });
}

function outcome(call) {
  try {
    const r = call();
    return typeof r === 'bigint' ? 'an ID' : r;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}

/** Runs call() with `object[key]` replaced by a function that closes `g` once, then itself. */
function closingInside(object, key, g, call) {
  const original = object[key];
  let closed = false;
  object[key] = function (...args) {
    if (!closed) {
      closed = true;
      g.close();
    }
    return original.apply(this, args);
  };
  try {
    return { result: outcome(call), closed };
  } finally {
    object[key] = original;
  }
}

test('wasm: Date.now() read by the core inside nextId() closes the generator', () => {
  watched.faults.length = 0;
  const g = watchedGenerator();
  const r = closingInside(Date, 'now', g, () => g.nextId());
  assert.ok(r.closed);
  assert.deepEqual(watched.faults, []);
  assert.equal(
    outcome(() => g.nextId()),
    CLOSED,
  );
});

test('wasm: Date.now() inside nowUs(), a batch and an async call closes the generator', async () => {
  watched.faults.length = 0;
  const pending = [];
  for (const call of [
    (g) => g.nowUs(),
    (g) => g.nextIds(3),
    (g) => g.nextIdsAt(g.nowUs(), 3), // the deterministic entry after the live clock
    (g) => pending.push(g.nextIdAsync().catch((e) => `${e.name}: ${e.message}`)),
  ]) {
    const g = watchedGenerator();
    const r = closingInside(Date, 'now', g, () => call(g));
    assert.ok(r.closed);
  }
  assert.deepEqual(await Promise.all(pending), [CLOSED]);
  assert.deepEqual(watched.faults, []);
});

test('wasm: performance.now() read by a synchronous wait closes the generator', () => {
  watched.faults.length = 0;
  const g = watchedGenerator({ rollback: 'wait', maxWait: 1000 });
  g.nextIdAt(g.nowUs() + 5000n); // the next ID waits 5 ms, within one call
  const r = closingInside(performance, 'now', g, () => g.nextId());
  assert.ok(r.closed);
  assert.equal(r.result, CLOSED);
  assert.deepEqual(watched.faults, []);
});

test("wasm: a BigUint64Array's set() inside a batch closes the generator", () => {
  watched.faults.length = 0;
  const g = watchedGenerator();
  // 10,000 IDs of one 65,536-ID tick: chunks of 4,096, each copied out by set().
  const r = closingInside(BigUint64Array.prototype, 'set', g, () => g.nextIds(10000));
  assert.ok(r.closed);
  assert.equal(r.result, CLOSED);
  assert.deepEqual(watched.faults, []);
});

test('wasm: a setter on Object.prototype that stats() could meet closes the generator', () => {
  watched.faults.length = 0;
  const g = watchedGenerator();
  let met = false;
  Object.defineProperty(Object.prototype, 'idsIssued', {
    configurable: true,
    set() {
      met = true;
      g.close();
    },
  });
  let s;
  try {
    s = g.stats();
  } finally {
    delete Object.prototype.idsIssued;
  }
  assert.equal(met, false, 'stats() sets no property through a setter');
  assert.equal(s.idsIssued, 0);
  assert.deepEqual(watched.faults, []);
  g.close();
});
