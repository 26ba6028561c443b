'use strict';

// The WebAssembly build (snowflake-c/wasm): the shared vectors through the
// same runner as the native addon's, and generation on a clock that does
// not move, as a Worker's does not between I/O.

const { test } = require('node:test');
const assert = require('node:assert/strict');

const runVectors = require('./fixtures/vector-runner');
const native = require('..');
const sfc = require('../wasm');
const runWasmCases = require('./fixtures/wasm-cases');
const { TWITTER } = require('./fixtures/own-epoch');

// What the wasm build has no place for, by design (DESIGN.md): no host-wide
// claim, no state files.
runVectors(sfc, { hostClaim: false, stateFiles: false });

test('the wasm API has the native API names', () => {
  assert.deepEqual(Object.keys(sfc).sort(), Object.keys(native).sort());
  assert.equal(sfc.version, native.version);
});

runWasmCases(sfc);

test("the core's messages name options as JavaScript does, in both builds", () => {
  for (const build of [native, sfc]) {
    assert.throws(
      () => new build.Generator({ ...TWITTER, node: { datacenter: 1 } }),
      (error) =>
        error.code === 'InvalidArgument' &&
        error.message.includes('worker=auto with a stateDir') &&
        !error.message.includes('state_dir'),
    );
  }
});

test('an unguarded wasm generator says why, once', async () => {
  const said = [];
  const listen = (warning) => said.push(warning);
  process.on('warning', listen);
  try {
    // A node value of its own, so that no earlier generator said this text.
    const g = new sfc.Generator({ ...TWITTER, node: { datacenter: 31, worker: 30 } });
    g.close();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listen);
  }
  // Earlier tests' warnings may arrive meanwhile: this generator's, once.
  const mine = said.filter((w) => w.message.includes('datacenter=31,worker=30'));
  assert.equal(mine.length, 1, said.map(String).join('\n'));
  assert.equal(mine[0].name, 'UnguardedWarning');
  assert.match(mine[0].message, /^node value datacenter=31,worker=30 is not guarded: /);
  assert.match(mine[0].message, /WebAssembly has no host-wide claim/);
});

test('the wasm build refuses a leased node value in its own terms', async () => {
  const options = { preset: 'default', node: { worker: 'lease' }, lease: 'host=/nowhere' };
  const runsNoStatements = (error) =>
    error instanceof sfc.InvalidArgument &&
    error.message.includes('node-postgres') &&
    error.message.includes('native package');
  assert.throws(() => new sfc.Generator(options), runsNoStatements);
  assert.equal(sfc.leaseTableSql(), native.leaseTableSql());
  await assert.rejects(sfc.Generator.create(options), runsNoStatements);
  const g = await sfc.Generator.create({ preset: 'default', node: 3, guard: false });
  assert.equal(typeof g.nextId(), 'bigint');
  await g.closeAsync();
});
