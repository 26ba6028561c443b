'use strict';

// docs/integrations/node-typeorm.md's PostgreSQL files (pg-order.ts,
// pg-main.ts), compiled by the page's tsc command and run as written through
// `pg` on a server this file starts with the SQL extension preloaded, after
// the page's CREATE EXTENSION and CREATE TABLE: the key is the column's
// default, snowflake_c.next_id(). Many async saves from this process, then
// pg-main.js in three processes at once: no key repeats, every key was read
// back into its entity as a bigint, and each decodes to the server's node
// value.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
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
} = require('./fixtures/doc-pages');
const postgres = require('./fixtures/postgres');

const PAGE = 'node-typeorm.md';
const skip = postgres.extensionMissing() ?? false;
// The server's worker value of the default preset: 90-99 are this file's (the
// host-wide guard refuses a value another live generator holds).
const SERVER_WORKER = randomValue(90, 99);
const workerOf = (id) => decode(id, { preset: 'default' }).fields.worker;

let server;
let app;
let pool;

before(async () => {
  if (skip) return;
  server = await postgres.start({
    preload: true,
    settings: { 'snowflake_c.preset': 'default', 'snowflake_c.node': `worker=${SERVER_WORKER}` },
  });
  app = writeApp(PAGE, ['typeorm', 'pg', 'reflect-metadata', '@types/node']);
  const { Pool } = require('pg');
  pool = new Pool({ host: server.host, user: 'postgres', database: 'postgres' });
  const ddl = blocks(PAGE).filter((b) => b.lang === 'sql');
  assert.equal(ddl.length, 1, 'the page gives one schema block');
  await pool.query(ddl[0].code);
});

after(async () => {
  await pool?.end();
  await server?.stop();
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

test("the page's PostgreSQL TypeScript compiles with its tsc command", { skip }, () => {
  compileAsThePageSays(PAGE, app, 'pg-main.ts');
  assert.ok(fs.existsSync(path.join(app, 'pg-order.js')));
  assert.ok(fs.existsSync(path.join(app, 'pg-main.js')));
});

test(
  'async saves from one process: keys drawn by the server, read back as bigints',
  { skip },
  async () => {
    require(path.join(app, 'node_modules', 'reflect-metadata'));
    const { Order } = require(path.join(app, 'pg-order.js'));
    const { DataSource } = require(path.join(app, 'node_modules', 'typeorm'));
    const db = new DataSource({
      type: 'postgres',
      host: server.host,
      username: 'postgres',
      database: 'postgres',
      entities: [Order],
    });
    await db.initialize();
    const saved = [];
    try {
      const orders = db.getRepository(Order);
      await Promise.all(
        Array.from({ length: 6 }, async (_, task) => {
          for (let i = 0; i < 100; i++)
            saved.push(await orders.save(orders.create({ item: `task ${task} row ${i}` })));
        }),
      );
      const found = await orders.findOneBy({ id: saved[42].id });
      assert.equal(found.item, saved[42].item);
    } finally {
      await db.destroy();
    }
    assert.ok(saved.every((o) => typeof o.id === 'bigint'));
    const { rows } = await pool.query(
      "SELECT id::text AS id, item FROM orders WHERE item LIKE 'task %'",
    );
    assert.equal(rows.length, 600);
    const stored = new Map(rows.map((r) => [BigInt(r.id), r.item]));
    assert.equal(stored.size, 600, 'no duplicate key');
    for (const { id, item } of saved)
      assert.equal(stored.get(id), item, `${id}: the entity holds its row's key`);
    for (const key of stored.keys())
      assert.equal(workerOf(key), SERVER_WORKER, `${key}: the server's node value`);
  },
);

test(
  'pg-main.js in three processes at once: unique keys, all of the server',
  { skip },
  async () => {
    const run = promisify(execFile);
    // The application's processes hold no generator: no node value of their own.
    const outputs = await Promise.all(
      [1, 2, 3].map(() =>
        run(process.execPath, ['pg-main.js'], { cwd: app, env: cleanEnv(server.env) }),
      ),
    );
    const printed = outputs.flatMap(({ stdout }) => {
      const rows = parseIds(stdout, { keys: ['id'] });
      assert.deepEqual(rows.map((r) => r.item).sort(), ['cake', 'coffee', 'tea']);
      return rows.map((r) => r.id);
    });
    const { rows } = await pool.query(
      "SELECT id::text AS id FROM orders WHERE item IN ('tea', 'coffee', 'cake')",
    );
    const stored = rows.map((r) => BigInt(r.id));
    assert.equal(new Set(stored).size, 9, 'no duplicate key');
    assert.deepEqual(
      [...stored].sort(),
      [...printed].sort(),
      'the keys printed are the keys stored',
    );
    for (const key of stored)
      assert.equal(workerOf(key), SERVER_WORKER, `${key}: the server's node value`);
  },
);
