'use strict';

// docs/integrations/node-cluster.md's PM2 files (ecosystem.config.js,
// pm2-server.js), run as written under pm2-runtime (PM2 in the foreground,
// its home in a folder of the test's own), in cluster mode with four
// instances on a Unix socket. Requests on fresh connections until every
// instance has answered: no duplicate ID, four processes with the worker
// values 0 to 3 (PM2's instance numbers), one value per process, and every
// ID decoding to the datacenter of the environment and the worker of the
// process that answered.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const { decode } = require('..');
const { writeApp, cleanEnv, randomValue, PKG } = require('./fixtures/doc-pages');

const PM2_RUNTIME = path.join(
  PKG,
  '..',
  'build',
  'tools',
  'pm2',
  'node_modules',
  '.bin',
  'pm2-runtime',
);
const INSTANCES = 4;
const skip = fs.existsSync(PM2_RUNTIME)
  ? false
  : `PM2 is not installed in ${path.dirname(PM2_RUNTIME)} (scripts/setup installs it)`;

function get(socketPath) {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath, path: '/', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
  });
}

test(
  'PM2 cluster instances: each its own worker value, no duplicate',
  { skip, timeout: 90000 },
  async () => {
    const app = writeApp('node-cluster.md');
    const socket = path.join(app, 'orders.sock');
    const datacenter = randomValue(8, 15); // 8-15: this file's (16-31: cluster.test.js)
    const pm2 = spawn(PM2_RUNTIME, ['start', 'ecosystem.config.js'], {
      cwd: app,
      env: cleanEnv({
        PM2_HOME: path.join(app, '.pm2'),
        PORT: socket,
        SNOWFLAKE_DATACENTER: String(datacenter),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: stopped whole below
    });
    let log = '';
    pm2.stdout.on('data', (d) => (log += d));
    pm2.stderr.on('data', (d) => (log += d));
    const exited = new Promise((resolve) => pm2.once('exit', resolve));
    const answers = [];
    try {
      const deadline = Date.now() + 60000;
      const pids = () => new Set(answers.map((a) => a.pid));
      while (answers.length < 300 || pids().size < INSTANCES) {
        assert.ok(Date.now() < deadline, `instances seen: ${[...pids()]}\n${log}`);
        assert.equal(pm2.exitCode, null, `pm2-runtime exited\n${log}`);
        try {
          answers.push(...(await Promise.all(Array.from({ length: 10 }, () => get(socket)))));
        } catch (e) {
          if (!['ENOENT', 'ECONNREFUSED'].includes(e.code)) throw e;
          await new Promise((resolve) => setTimeout(resolve, 100)); // not listening yet
        }
      }
    } finally {
      try {
        process.kill(-pm2.pid, 'SIGINT'); // pm2-runtime stops its instances
      } catch {}
      const timer = setTimeout(() => {
        try {
          process.kill(-pm2.pid, 'SIGKILL');
        } catch {}
      }, 15000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(app, { recursive: true, force: true });
    }

    const ids = answers.map((a) => BigInt(a.id));
    assert.equal(new Set(ids).size, ids.length, 'no duplicate ID');
    const valueOf = new Map(); // pid -> worker value
    for (const { id, worker, pid } of answers) {
      const fields = decode(id, { preset: 'twitter' }).fields;
      assert.equal(fields.datacenter, datacenter, `${id}: the datacenter of the environment`);
      assert.equal(fields.worker, worker, `${id}: the worker value of the process`);
      if (!valueOf.has(pid)) valueOf.set(pid, worker);
      assert.equal(valueOf.get(pid), worker, `process ${pid} kept one worker value`);
    }
    assert.equal(valueOf.size, INSTANCES);
    assert.deepEqual(
      [...valueOf.values()].sort(),
      [0, 1, 2, 3],
      "PM2's instance numbers, one per process",
    );
  },
);
