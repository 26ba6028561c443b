'use strict';

// docs/integrations/node-drizzle.md, run as written: a Drizzle table on
// SQLite (sql.js) whose bigint key comes from $defaultFn. Many async tasks
// insert through one process's generator, and several processes run the
// page's main.js at once: no duplicate, every ID decodes to the node values
// of the process that drew it, and the stored text sorts as the IDs.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { decode } = require('..');
const { writeApp, randomValue, mainInThreeProcesses } = require('./fixtures/doc-pages');

const app = writeApp('node-drizzle.md', ['drizzle-orm', 'sql.js']);
process.on('exit', () => fs.rmSync(app, { recursive: true, force: true }));

const fieldsOf = (id) => decode(id, { preset: 'discord' }).fields;

test('async tasks insert through $defaultFn: unique keys of this process, sorted as IDs', async () => {
  const worker = randomValue(16, 31);
  const proc = randomValue(16, 23); // the process values 16-23 and 10-12 are this file's
  process.env.SNOWFLAKE_WORKER = String(worker);
  process.env.SNOWFLAKE_PROCESS = String(proc);
  let recipe;
  try {
    recipe = require(path.join(app, 'db.js'));
  } finally {
    delete process.env.SNOWFLAKE_WORKER;
    delete process.env.SNOWFLAKE_PROCESS;
  }
  const { ids, orders, openDb } = recipe;
  const { eq, sql } = require(path.join(app, 'node_modules', 'drizzle-orm'));
  try {
    const db = await openDb();
    const TASKS = 8;
    const ROWS = 250;
    await Promise.all(
      Array.from({ length: TASKS }, async (_, task) => {
        for (let i = 0; i < ROWS; i++) {
          await new Promise(setImmediate);
          db.insert(orders)
            .values({ item: `task ${task} row ${i}` })
            .run();
        }
      }),
    );

    const rows = db.select().from(orders).orderBy(orders.id).all();
    assert.equal(rows.length, TASKS * ROWS);
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length, 'no duplicate key');
    for (const { id } of rows) {
      assert.equal(typeof id, 'bigint');
      const { worker: w, process: p } = fieldsOf(id);
      assert.deepEqual([w, p], [worker, proc], `${id} decodes to this process's values`);
    }
    // The tasks interleaved, and the text order is the numeric order.
    const byInsertion = db.all(sql`SELECT item FROM orders ORDER BY rowid`).map((r) => r.item);
    assert.notDeepEqual(
      byInsertion.slice(0, ROWS),
      Array.from({ length: ROWS }, (_, i) => `task 0 row ${i}`),
      'the tasks ran at the same time',
    );
    assert.deepEqual(
      rows.map((r) => r.item),
      byInsertion,
      'keys ordered as inserted',
    );
    const sorted = rows.map((r) => r.id);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i - 1] < sorted[i]);
    // A row found by its key, and the value stored: the ID's 20 decimal digits.
    const [one] = db.select().from(orders).where(eq(orders.id, rows[7].id)).all();
    assert.equal(one.item, rows[7].item);
    const [stored] = db.all(sql`SELECT id FROM orders LIMIT 1`);
    assert.match(stored.id, /^\d{20}$/);
  } finally {
    ids.close();
  }
});

test("several processes run the page's main.js at once: no duplicates, each its own values", () =>
  mainInThreeProcesses(app, 9));
