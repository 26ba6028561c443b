'use strict';

// docs/integrations/node-typeorm.md, compiled by the page's tsc command
// (types checked) and run as written: a TypeORM entity on SQLite (sql.js)
// whose bigint key is drawn by @BeforeInsert and stored as fixed-width text
// through a transformer. Many async tasks save through one process's
// generator, and several processes run the page's main.js at once: no
// duplicate, every ID decodes to the node values of its process, the column
// holds the IDs' decimal digits and sorts as the IDs.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { decode } = require('..');
const {
  writeApp,
  compileAsThePageSays,
  randomValue,
  mainInThreeProcesses,
} = require('./fixtures/doc-pages');

const PAGE = 'node-typeorm.md';
const app = writeApp(PAGE, ['typeorm', 'sql.js', 'reflect-metadata', '@types/node']);
process.on('exit', () => fs.rmSync(app, { recursive: true, force: true }));

const fieldsOf = (id) => decode(id, { preset: 'discord' }).fields;

test("the page's TypeScript compiles with its tsc command", () => {
  compileAsThePageSays(PAGE, app);
  assert.ok(fs.existsSync(path.join(app, 'order.js')));
  assert.ok(fs.existsSync(path.join(app, 'main.js')));
});

test('async tasks save entities: @BeforeInsert keys, unique, of this process', async () => {
  const worker = randomValue(16, 31);
  const proc = randomValue(24, 31); // the process values 24-31 and 13-15 are this file's
  process.env.SNOWFLAKE_WORKER = String(worker);
  process.env.SNOWFLAKE_PROCESS = String(proc);
  let recipe;
  try {
    require(path.join(app, 'node_modules', 'reflect-metadata'));
    recipe = require(path.join(app, 'order.js'));
  } finally {
    delete process.env.SNOWFLAKE_WORKER;
    delete process.env.SNOWFLAKE_PROCESS;
  }
  const { Order, ids } = recipe;
  const { DataSource } = require(path.join(app, 'node_modules', 'typeorm'));
  const db = new DataSource({ type: 'sqljs', entities: [Order], synchronize: true });
  await db.initialize();
  try {
    const orders = db.getRepository(Order);
    const TASKS = 6;
    const ROWS = 100;
    await Promise.all(
      Array.from({ length: TASKS }, async (_, task) => {
        for (let i = 0; i < ROWS; i++) {
          await orders.save(orders.create({ item: `task ${task} row ${i}` }));
        }
      }),
    );

    const rows = await orders.find({ order: { id: 'ASC' } });
    assert.equal(rows.length, TASKS * ROWS);
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length, 'no duplicate key');
    for (const { id } of rows) {
      assert.equal(typeof id, 'bigint');
      const { worker: w, process: p } = fieldsOf(id);
      assert.deepEqual([w, p], [worker, proc], `${id} decodes to this process's values`);
    }
    // The column's text: the IDs' decimal digits, in the IDs' order.
    const stored = (await db.query('SELECT id FROM orders ORDER BY id')).map((r) => r.id);
    assert.ok(stored.every((text) => /^\d{20}$/.test(text)));
    assert.deepEqual(
      stored.map((text) => BigInt(text)),
      rows.map((r) => r.id),
    );
    const numeric = [...rows.map((r) => r.id)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(
      rows.map((r) => r.id),
      numeric,
    );
    // Found by its bigint key; an entity given a key keeps it.
    const found = await orders.findOneBy({ id: rows[42].id });
    assert.equal(found?.item, rows[42].item);
    const own = await orders.save(orders.create({ id: rows[0].id - 1n, item: 'imported' }));
    assert.equal((await orders.findOneBy({ id: own.id }))?.item, 'imported');
  } finally {
    await db.destroy();
    ids.close();
  }
});

test("several processes run the page's main.js at once: no duplicates, each its own values", () =>
  mainInThreeProcesses(app, 12));
