'use strict';

// docs/integrations/node-drizzle.md's PostgreSQL files (pg-db.js,
// pg-main.js), run as written through `pg` on a server this file starts
// (tests/postgres/serve.py), with the page's CREATE TABLE. Many async tasks
// insert through one process's generator, then pg-main.js runs in three
// processes at once, each with a worker value of its own: no key repeats,
// and every stored key decodes to the worker of the process that drew it.
// Last, a Node cluster of three workers inserts through pg-db.js
// (fixtures/drizzle-cluster.js), each worker with its own value.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { promisify } = require('node:util');

const { decode } = require('..');
const { parseIds } = require('../json');
const { blocks, writeApp, cleanEnv, randomValue } = require('./fixtures/doc-pages');
const postgres = require('./fixtures/postgres');

const PAGE = 'node-drizzle.md';
const skip = postgres.missing() ?? false;
const workerOf = (id) => decode(id, { preset: 'default' }).fields.worker;
// Worker values 100-127 of the default preset are this file's (the host-wide
// guard refuses a value another live generator holds).
const values = (n) => {
  const picked = new Set();
  while (picked.size < n) picked.add(randomValue(100, 127));
  return [...picked];
};

let server;
let app;
let pool;

before(async () => {
  if (skip) return;
  server = await postgres.start();
  app = writeApp(PAGE, ['drizzle-orm', 'pg']);
  const { Pool } = require('pg');
  pool = new Pool({ host: server.host, user: 'postgres', database: 'postgres' });
  const ddl = blocks(PAGE).filter((b) => b.lang === 'sql');
  assert.equal(ddl.length, 1, 'the page gives one CREATE TABLE');
  await pool.query(ddl[0].code);
});

after(async () => {
  await pool?.end();
  await server?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test(
  'async tasks insert through $defaultFn into PostgreSQL: unique keys of this process',
  { skip },
  async () => {
    const [worker] = values(1);
    // The page's Pool reads PGHOST … when it connects: set for the whole test.
    Object.assign(process.env, server.env, { SNOWFLAKE_WORKER: String(worker) });
    const { ids, orders, db, pool: appPool } = require(path.join(app, 'pg-db.js'));
    const { eq } = require(path.join(app, 'node_modules', 'drizzle-orm'));
    try {
      const TASKS = 8;
      const ROWS = 100;
      await Promise.all(
        Array.from({ length: TASKS }, async (_, task) => {
          for (let i = 0; i < ROWS; i++)
            await db.insert(orders).values({ item: `task ${task} row ${i}` });
        }),
      );
      const rows = await db.select().from(orders).where(eq(orders.item, 'task 3 row 7'));
      assert.equal(rows.length, 1);
      assert.equal(typeof rows[0].id, 'bigint');
    } finally {
      await appPool.end();
      ids.close();
      for (const name of ['SNOWFLAKE_WORKER', ...Object.keys(server.env)]) delete process.env[name];
    }
    const { rows } = await pool.query("SELECT id::text AS id FROM orders WHERE item LIKE 'task %'");
    assert.equal(rows.length, 8 * 100);
    const keys = rows.map((r) => BigInt(r.id));
    assert.equal(new Set(keys).size, keys.length, 'no duplicate key');
    for (const key of keys)
      assert.equal(workerOf(key), worker, `${key} decodes to this process's worker`);
  },
);

test(
  'pg-main.js in three processes at once: no duplicates, each its own worker',
  { skip },
  async () => {
    const run = promisify(execFile);
    const workers = values(3);
    const outputs = await Promise.all(
      workers.map((worker) =>
        run(process.execPath, ['pg-main.js'], {
          cwd: app,
          env: cleanEnv({ ...server.env, SNOWFLAKE_WORKER: String(worker) }),
        }),
      ),
    );
    const printed = new Map();
    outputs.forEach(({ stdout }, i) => {
      const rows = parseIds(stdout, { keys: ['id'] });
      assert.deepEqual(rows.map((r) => r.item).sort(), ['cake', 'coffee', 'tea']);
      for (const { id } of rows) printed.set(id, workers[i]);
    });
    // Read back from the server: the nine rows the processes printed, no more.
    const { rows } = await pool.query(
      "SELECT id::text AS id, item FROM orders WHERE item IN ('tea', 'coffee', 'cake')",
    );
    assert.equal(rows.length, 9);
    const stored = rows.map((r) => BigInt(r.id));
    assert.equal(new Set(stored).size, 9, 'no duplicate key');
    for (const key of stored) {
      assert.ok(printed.has(key), `${key} was printed by one of the processes`);
      assert.equal(workerOf(key), printed.get(key), `${key} decodes to its process's worker`);
    }
  },
);

test(
  "Node cluster workers insert through the page's pg-db.js: each its own worker",
  { skip },
  async () => {
    const run = promisify(execFile);
    const workers = values(3);
    const { stdout } = await run(
      process.execPath,
      [path.join(__dirname, 'fixtures', 'drizzle-cluster.js'), app, '200'],
      { cwd: app, env: cleanEnv({ ...server.env, WORKER_VALUES: workers.join(',') }) },
    );
    const workerOfPid = new Map(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .map(({ pid, worker }) => [pid, worker]),
    );
    assert.equal(workerOfPid.size, 3, 'three workers reported');
    const { rows } = await pool.query(
      "SELECT id::text AS id, item FROM orders WHERE item LIKE 'cluster %'",
    );
    assert.equal(rows.length, 3 * 200);
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length, 'no duplicate key');
    for (const { id, item } of rows) {
      const pid = Number(item.split(' ')[1]);
      assert.equal(
        workerOf(BigInt(id)),
        workerOfPid.get(pid),
        `${id} decodes to the worker of process ${pid}`,
      );
    }
  },
);
