'use strict';

// nextId() goes through the generator's own function while it is the
// program's only one, and through one native function for every generator
// once there are two, given the generator's slot in the addon's table:
// generators used in turn each keep their own IDs, a slot freed by a
// collected generator serves the next one, and no other value reaches a
// generator.

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

test("a program's only generator calls its own function, then the shared one once a second exists", () => {
  // In a process of its own: the first generator made is the only one until
  // the second; its IDs stay increasing across the switch, and a closed
  // generator answers the closed error on both paths.
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

test("the addon's generatorNext takes nothing but a live generator's slot", () => {
  const binding = load(PKG);
  const g = new Generator({ ...FOUR, node: { worker: 1 } });
  try {
    for (const bad of [2 ** 31, 2 ** 32 - 1, 2 ** 32 + 2 ** 31, -1, 'next', {}, undefined]) {
      assert.throws(() => binding.generatorNext(bad), InvalidArgument, String(bad));
    }
    assert.throws(() => binding.generatorNext(), InvalidArgument);
  } finally {
    g.close();
  }
});
