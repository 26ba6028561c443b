'use strict';

// The addon in worker threads and across garbage collection: per-thread
// state, and node values released when a generator is collected or its
// thread ends without close().

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const { Generator } = require('..');
const { TWITTER, own } = require('./fixtures/own-epoch');

const PKG = path.join(__dirname, '..');
const ONE_WORKER = own('time:41@1ms,worker:1,seq:21');

function runWorker(code, workerData) {
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData });
    let message;
    w.on('message', (m) => (message = m));
    w.on('error', reject);
    w.on('exit', (exitCode) =>
      exitCode === 0 ? resolve(message) : reject(new Error(`exit ${exitCode}`)),
    );
  });
}

test(
  'each worker thread has its own error classes and generators',
  { timeout: 60000 },
  async () => {
    const results = await Promise.all(
      [0, 1, 2].map((worker) =>
        runWorker(
          `const { parentPort, workerData } = require('node:worker_threads');
         const sfc = require(${JSON.stringify(PKG)});
         let kind;
         try { sfc.Layout.preset('nope'); } catch (e) { kind = e instanceof sfc.InvalidLayout && e.code; }
         const g = new sfc.Generator({ ...workerData.layout, node: { datacenter: 0, worker: workerData.worker } });
         const ids = g.nextIds(1000);
         parentPort.postMessage({ kind, last: ids[999], worker: sfc.decode(ids[0], g.layout).fields.worker });`,
          { worker, layout: TWITTER },
        ),
      ),
    );
    assert.deepEqual(
      results.map((r) => [r.kind, r.worker]),
      [
        ['InvalidLayout', 0],
        ['InvalidLayout', 1],
        ['InvalidLayout', 2],
      ],
    );
  },
);

test(
  'a worker thread that ends without close() releases its node value',
  { timeout: 60000 },
  async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-thread-'));
    try {
      const options = { ...ONE_WORKER, node: { worker: 'auto' }, stateDir };
      const first = await runWorker(
        `const { parentPort, workerData } = require('node:worker_threads');
       const { Generator } = require(${JSON.stringify(PKG)});
       const g = new Generator(workerData);
       parentPort.postMessage(g.stats().node.worker);`,
        options,
      );
      const again = new Generator(options);
      assert.equal(again.stats().node.worker, first);
      again.close();
    } finally {
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  },
);

test('a collected generator releases its node value', () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-gc-'));
  try {
    const out = execFileSync(
      process.execPath,
      [
        '--expose-gc',
        '-e',
        `const { Generator } = require(${JSON.stringify(PKG)});
         const options = ${JSON.stringify({ ...ONE_WORKER, node: { worker: 'auto' }, stateDir })};
         (() => { new Generator(options); new Generator(options); })();
         let full = false;
         try { new Generator(options); } catch (e) { full = e.code === 'WorkerUnavailable'; }
         gc();
         setImmediate(() => { gc(); setTimeout(() => {
           const g = new Generator(options);
           console.log(full, g.stats().nodeSources.worker);
         }, 10); });`,
      ],
      { encoding: 'utf8', timeout: 60000 },
    );
    assert.equal(out, 'true pool\n');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
