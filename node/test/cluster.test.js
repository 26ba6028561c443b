'use strict';

// docs/integrations/node-cluster.md, run as written: a cluster of three
// workers, each with its own generator taking `worker: 'auto'` from one
// stateDir, serving IDs over HTTP. 300 requests on fresh connections (so
// that the primary spreads them over the workers): no duplicate, one worker
// value per process, three processes with three values, and every ID
// decodes to the datacenter and worker of the process that answered.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const { decode } = require('..');
const { writeApp, cleanEnv, randomValue } = require('./fixtures/doc-pages');

const WORKERS = 3;
const REQUESTS = 300;
const AT_ONCE = 15;

function get(port) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
  });
}

// Resolves with the port once every worker listens.
function listening(server) {
  return new Promise((resolve, reject) => {
    const pids = new Set();
    const lines = readline.createInterface({ input: server.stdout });
    lines.on('line', (line) => {
      const m = /^worker (\d+) listening on port (\d+)$/.exec(line);
      if (!m) return;
      pids.add(m[1]);
      if (pids.size === WORKERS) resolve(Number(m[2]));
    });
    server.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test(
  'cluster workers serve IDs from a shared pool: unique, one value per process',
  { timeout: 60000 },
  async () => {
    const app = writeApp('node-cluster.md');
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-cluster-'));
    const datacenter = randomValue(16, 31);
    const server = spawn(process.execPath, ['server.js'], {
      cwd: app,
      env: cleanEnv({
        WORKERS: String(WORKERS),
        PORT: '0',
        SNOWFLAKE_DATACENTER: String(datacenter),
        APP_SNOWFLAKE_DIR: stateDir,
      }),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const answers = [];
    try {
      const port = await listening(server);
      let next = 0;
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          while (next < REQUESTS) {
            next++;
            answers.push(await get(port));
          }
        }),
      );
    } finally {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }

    assert.equal(answers.length, REQUESTS);
    const ids = answers.map((a) => BigInt(a.id));
    assert.equal(new Set(ids).size, REQUESTS, 'no duplicate ID');

    const valueOf = new Map(); // pid -> worker value
    for (const { id, worker, pid } of answers) {
      const fields = decode(id, { preset: 'twitter' }).fields;
      assert.equal(fields.datacenter, datacenter, `${id}: the datacenter of the environment`);
      assert.equal(fields.worker, worker, `${id}: the worker value of the process`);
      if (!valueOf.has(pid)) valueOf.set(pid, worker);
      assert.equal(valueOf.get(pid), worker, `process ${pid} kept one worker value`);
    }
    assert.equal(valueOf.size, WORKERS, `every worker answered: ${[...valueOf.keys()]}`);
    assert.equal(new Set(valueOf.values()).size, WORKERS, 'each worker its own value');
    for (const value of valueOf.values()) assert.ok(value >= 0 && value < WORKERS, `${value}`);

    // The workers leave with the primary (their channel closes).
    const deadline = Date.now() + 10000;
    while ([...valueOf.keys()].some(alive) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stragglers = [...valueOf.keys()].filter(alive);
    for (const pid of stragglers) process.kill(pid, 'SIGKILL');
    assert.deepEqual(stragglers, [], 'every worker ended with the primary');
    fs.rmSync(app, { recursive: true, force: true });
    fs.rmSync(stateDir, { recursive: true, force: true });
  },
);
