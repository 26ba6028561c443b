'use strict';

// Several generators taking `worker: 'auto'` from one state directory at the
// same time — 4 worker threads and 2 cluster workers — get distinct workers
// and issue no duplicate IDs.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const cluster = require('node:cluster');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const { decode } = require('..');
const { EPOCH } = require('./fixtures/own-epoch');

const MEMBER = path.join(__dirname, 'fixtures', 'pool-member.js');

function collect(endpoint) {
  return new Promise((resolve, reject) => {
    endpoint.once('message', resolve);
    endpoint.once('error', reject);
    endpoint.once('exit', (code) => reject(new Error(`pool member exited early (${code})`)));
  });
}

test(
  '4 worker threads and 2 cluster workers share a pool without duplicates',
  { timeout: 120000 },
  async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-pool-'));
    const config = {
      layout: 'time:41@1ms,worker:4,seq:18',
      epoch: EPOCH,
      stateDir,
      count: 40000,
    };
    const members = [];
    try {
      for (let i = 0; i < 4; i++) members.push(new Worker(MEMBER, { workerData: config }));
      cluster.setupPrimary({ exec: MEMBER, silent: false });
      for (let i = 0; i < 2; i++) {
        members.push(cluster.fork({ SFC_POOL_CONFIG: JSON.stringify(config) }));
      }
      const reports = await Promise.all(members.map(collect));

      const workers = reports.map((r) => r.worker);
      assert.deepEqual(
        reports.map((r) => r.source),
        Array(6).fill('pool'),
      );
      assert.equal(new Set(workers).size, 6, `workers: ${workers}`);

      const seen = new Set();
      for (const r of reports) {
        const ids = new BigUint64Array(Uint8Array.from(Buffer.from(r.ids, 'base64')).buffer);
        assert.equal(ids.length, config.count);
        for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], 'increasing');
        assert.equal(
          decode(ids[0], { layout: config.layout, epoch: config.epoch }).fields.worker,
          r.worker,
        );
        for (const id of ids) seen.add(id);
      }
      assert.equal(seen.size, 6 * config.count, 'no duplicates');

      await Promise.all(
        members.map((m) => {
          const closed = collect(m);
          m.send ? m.send('close') : m.postMessage('close');
          return closed;
        }),
      );
    } finally {
      for (const m of members) {
        if (m.terminate) await m.terminate();
        else if (!m.isDead()) m.kill();
      }
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  },
);
