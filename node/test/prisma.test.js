'use strict';

// docs/integrations/node-prisma.md, run as written with Prisma 7 (installed
// by scripts/setup into build/tools/prisma): `prisma generate` on the page's
// schema, the page's tsc command, then main.js in three processes at once on
// a PostgreSQL server this file starts with the SQL extension preloaded,
// after the page's SQL. No key repeats; each order's key decodes to the
// worker of the process that created it (the client extension's default),
// each payment's to the server's (the column's default).
//
// `prisma generate` runs no engine, but Prisma's CLI first fetches its schema
// engine (for migrate and db push) from binaries.prisma.sh, outside the npm
// registry: PRISMA_SCHEMA_ENGINE_BINARY names a program that does nothing in
// its place, and the tables come from the page's SQL, not `prisma migrate`.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { promisify } = require('node:util');

const { decode } = require('..');
const { parseIds } = require('../json');
const {
  blocks,
  writeApp,
  compileAsThePageSays,
  cleanEnv,
  randomValue,
  PKG,
} = require('./fixtures/doc-pages');
const postgres = require('./fixtures/postgres');

const PAGE = 'node-prisma.md';
const TOOLS = path.join(PKG, '..', 'build', 'tools', 'prisma', 'node_modules');
const skip =
  postgres.extensionMissing() ??
  (fs.existsSync(path.join(TOOLS, 'prisma'))
    ? false
    : `Prisma is not installed in ${TOOLS} (scripts/setup installs it)`);
// Worker values of the default preset: the server 80-89, the processes
// 64-79; this file's (the host-wide guard refuses a value held twice).
const SERVER_WORKER = randomValue(80, 89);
const workerOf = (id) => decode(id, { preset: 'default' }).fields.worker;

let server;
let app;
let env;

/** The packages of build/tools/prisma, linked into the app as npm would install them. */
function linkTools(modules) {
  for (const name of fs.readdirSync(TOOLS)) {
    const scoped = name.startsWith('@')
      ? fs.readdirSync(path.join(TOOLS, name)).map((n) => `${name}/${n}`)
      : [name];
    for (const entry of scoped) {
      const link = path.join(modules, entry);
      if (fs.existsSync(link)) continue;
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(path.join(TOOLS, entry), link, 'dir');
    }
  }
}

before(async () => {
  if (skip) return;
  server = await postgres.start({
    preload: true,
    settings: { 'snowflake_c.preset': 'default', 'snowflake_c.node': `worker=${SERVER_WORKER}` },
  });
  app = writeApp(PAGE, ['@types/node']);
  linkTools(path.join(app, 'node_modules'));
  env = cleanEnv({
    DATABASE_URL: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(server.host)}`,
    PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1', // no telemetry request
  });
  const { Client } = require('pg');
  const client = new Client({ host: server.host, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    const sql = blocks(PAGE).filter((b) => b.lang === 'sql');
    assert.equal(sql.length, 1, 'the page gives one SQL block');
    await client.query(sql[0].code);
  } finally {
    await client.end();
  }
});

after(async () => {
  await server?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test('prisma generate and the tsc command of the page', { skip, timeout: 180000 }, () => {
  const prisma = path.join(TOOLS, 'prisma', 'build', 'index.js');
  execFileSync(process.execPath, [prisma, 'generate'], {
    cwd: app,
    env,
    encoding: 'utf8',
    stdio: 'pipe',
  });
  assert.ok(fs.existsSync(path.join(app, 'generated', 'client.ts')));
  compileAsThePageSays(PAGE, app);
  assert.ok(fs.existsSync(path.join(app, 'main.js')));
});

test(
  'main.js in three processes at once: unique keys, orders of their process, payments of the server',
  { skip, timeout: 120000 },
  async () => {
    const run = promisify(execFile);
    const workers = new Set();
    while (workers.size < 3) workers.add(randomValue(64, 79));
    const outputs = await Promise.all(
      [...workers].map((worker) =>
        run(process.execPath, ['main.js'], {
          cwd: app,
          env: { ...env, SNOWFLAKE_WORKER: String(worker) },
        }),
      ),
    );
    const seen = new Set();
    [...workers].forEach((worker, i) => {
      const rows = parseIds(outputs[i].stdout, { keys: ['id', 'paymentId'] });
      assert.deepEqual(rows.map((r) => r.item).sort(), ['cake', 'coffee', 'tea']);
      for (const { id, paymentId } of rows) {
        assert.equal(workerOf(id), worker, `order ${id}: the worker of its process`);
        assert.equal(
          workerOf(paymentId),
          SERVER_WORKER,
          `payment ${paymentId}: the server's worker`,
        );
        for (const key of [id, paymentId]) {
          assert.ok(!seen.has(key), `duplicate ${key}`);
          seen.add(key);
        }
      }
    });
    // Read back: the rows the processes printed, each payment of its order.
    const { Client } = require('pg');
    const client = new Client({ host: server.host, user: 'postgres', database: 'postgres' });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT o.id::text AS id, p.id::text AS payment FROM "Order" o JOIN "Payment" p ON p."orderId" = o.id',
      );
      assert.equal(rows.length, 9);
      assert.deepEqual(
        new Set(rows.flatMap((r) => [BigInt(r.id), BigInt(r.payment)])),
        seen,
        'the keys stored are the keys printed',
      );
    } finally {
      await client.end();
    }
  },
);
