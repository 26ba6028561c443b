'use strict';

// nextId() goes through one native function for every generator, given the
// generator's slot in the addon's table through the addon's ArrayBuffer
// nextIo, which carries the ID back: generators used in turn each keep their
// own IDs, a slot freed by a collected generator serves the next one, no
// other value reaches a generator, and worker threads each have their own.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const { Generator, InvalidArgument, decode } = require('..');
const { load } = require('../binding');
const { own } = require('./fixtures/own-epoch');

const PKG = path.join(__dirname, '..');
const FOUR = own('time:41@1ms,worker:2,seq:20');

test('generators used in turn each issue their own increasing IDs', () => {
  const gens = [0, 1, 2, 3].map((worker) => new Generator({ ...FOUR, node: { worker } }));
  try {
    const last = [0n, 0n, 0n, 0n];
    for (let i = 0; i < 4000; i++) {
      const w = i % 4;
      const id = gens[w].nextId();
      assert.ok(id > last[w]);
      assert.equal(decode(id, gens[w].layout).fields.worker, w);
      last[w] = id;
    }
    gens[1].close();
    assert.throws(() => gens[1].nextId(), InvalidArgument);
    assert.equal(decode(gens[2].nextId(), gens[2].layout).fields.worker, 2);
  } finally {
    for (const g of gens) g.close();
  }
});

test('a slot freed by a collected generator serves a new one', () => {
  const out = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '-e',
      `const { Generator, decode } = require(${JSON.stringify(PKG)});
       const layout = ${JSON.stringify(FOUR)};
       (() => { for (let w = 0; w < 4; w++) new Generator({ ...layout, node: { worker: w } }).nextId(); })();
       gc();
       setImmediate(() => { gc(); setTimeout(() => {
         const gens = [3, 2, 1, 0].map((worker) => new Generator({ ...layout, node: { worker } }));
         const seen = [];
         for (let i = 0; i < 400; i++) seen.push(decode(gens[i % 4].nextId(), gens[i % 4].layout).fields.worker);
         console.log([...new Set(seen)].join(','));
       }, 10); });`,
    ],
    { encoding: 'utf8', timeout: 60000 },
  );
  assert.equal(out, '3,2,1,0\n');
});

test("a program's only generator, then two, issue increasing IDs of their own", () => {
  // In a process of its own: the first generator made is the only one until
  // the second; its IDs stay increasing once a second exists, and a closed
  // generator answers the closed error.
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      `const { Generator, decode } = require(${JSON.stringify(PKG)});
       const layout = ${JSON.stringify(FOUR)};
       const a = new Generator({ ...layout, node: { worker: 1 } });
       let last = 0n, bad = 0;
       for (let i = 0; i < 20000; i++) { const id = a.nextId(); if (id <= last || decode(id, a.layout).fields.worker !== 1) bad++; last = id; }
       const b = new Generator({ ...layout, node: { worker: 2 } });
       for (let i = 0; i < 20000; i++) { const id = a.nextId(); if (id <= last) bad++; last = id; if (decode(b.nextId(), b.layout).fields.worker !== 2) bad++; }
       a.close();
       let closed = 0;
       try { a.nextId(); } catch (e) { closed = e.name === 'InvalidArgument' ? 1 : 0; }
       b.close();
       console.log(bad + ' ' + closed);`,
    ],
    { encoding: 'utf8', timeout: 60000 },
  );
  assert.equal(out, '0 1\n');
});

test("the addon's generatorNext serves nothing but a live generator's slot", () => {
  const binding = load(PKG);
  const slotIn = new Uint32Array(binding.nextIo, 8, 1);
  const idOut = new BigUint64Array(binding.nextIo, 0, 1);
  const g = new Generator({ ...FOUR, node: { worker: 1 } });
  try {
    const id = g.nextId();
    assert.equal(idOut[0], id, 'the ID comes back through nextIo');
    for (const bad of [2 ** 31, 2 ** 32 - 1, 1000000]) {
      slotIn[0] = bad;
      idOut[0] = 0n;
      assert.throws(() => binding.generatorNext(), /expected a generator's slot/, String(bad));
      assert.throws(() => binding.generatorNext(), InvalidArgument, String(bad));
      assert.equal(idOut[0], 0n, 'no ID written for a bad slot');
    }
    assert.ok(g.nextId() > id, 'the generator writes its own slot before each call');
  } finally {
    g.close();
  }
  assert.throws(() => g.nextId(), /closed/);
});

test('worker threads each exchange through their own nextIo', async () => {
  const { Worker } = require('node:worker_threads');
  const code = `const { parentPort, workerData } = require('node:worker_threads');
    const { Generator, decode } = require(${JSON.stringify(PKG)});
    const gens = workerData.workers.map((worker) => new Generator({ ...workerData.layout, node: { worker } }));
    let bad = 0; const last = gens.map(() => 0n);
    for (let i = 0; i < 200000; i++) {
      const k = i % gens.length, id = gens[k].nextId();
      if (id <= last[k] || decode(id, gens[k].layout).fields.worker !== workerData.workers[k]) bad++;
      last[k] = id;
    }
    for (const g of gens) g.close();
    parentPort.postMessage(bad);`;
  const run = (workers) =>
    new Promise((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: { layout: FOUR, workers } });
      w.once('message', resolve);
      w.once('error', reject);
    });
  assert.deepEqual(await Promise.all([run([0, 1]), run([2, 3])]), [0, 0]);
});
