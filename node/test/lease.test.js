'use strict';

// Node values leased from PostgreSQL (node: { worker: 'lease' }), on a real
// server this file starts (tests/postgres/serve.py: an unprivileged user, a
// Unix socket, no TCP port), through node-postgres. The protocol is the
// core's; these tests hold the Node.js host (lease.js) to it: distinct
// values, the stats, the release at close (and at the process's end), the
// key's value taken again, every value held, no database, the fence while
// the database is away and the resumption after it returns.

const { test, before, after, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { promisify } = require('node:util');

const sfc = require('..');
const postgres = require('./fixtures/postgres');

const { Generator } = sfc;
const LAYOUT = 'time:41@1ms,worker:3,seq:12';
const EPOCH = 1719792000000; // this file's ID space: no other test's guard claims meet it
const HOLDER = path.join(__dirname, 'fixtures', 'lease-holder.js');

const skip =
  postgres.missing() ??
  (sfc.implementation === 'native' ? false : 'the WebAssembly build leases nothing');

// A test that hangs (a renewer that keeps its process alive) fails instead.
const withServer = { skip, timeout: 60000 };

/** The time field of an ID of LAYOUT: ms since the epoch. */
const tick = (id) => BigInt(id) >> 15n;

let server;
let db; // the test's own connection, for the table: null once lost (an outage)
let url; // libpq's key=value text for the server

/** A statement on the test's own connection, made again after an outage. */
async function sql(text, params) {
  if (!db) {
    const { Client } = require('pg');
    const client = new Client({ host: server.host, user: 'postgres', database: 'postgres' });
    client.on('error', () => {
      if (db === client) db = null;
    });
    await client.connect();
    db = client;
  }
  return db.query(text, params);
}

before(async () => {
  if (skip) return;
  server = await postgres.start();
  await sql(sfc.leaseTableSql());
  url = `host=${server.host} user=postgres dbname=postgres`;
});

after(async () => {
  await db?.end();
  await server?.stop();
});

beforeEach(async () => {
  if (!skip) await sql('DELETE FROM snowflake_c_leases');
});

function leased(options = {}) {
  return Generator.create({
    layout: LAYOUT,
    epoch: EPOCH,
    node: { worker: 'lease' },
    lease: url,
    leaseDuration: '2s',
    ...options,
  });
}

/** The row of a value: holder, horizon, previous, and whether it is free. */
async function row(value) {
  const { rows } = await sql(
    "SELECT holder, horizon::text, previous::text, expires_at = '-infinity' AS free " +
      'FROM snowflake_c_leases WHERE space = $1 AND node = $2',
    [`${LAYOUT}@${EPOCH}`, value],
  );
  assert.equal(rows.length, 1, `a row for value ${value}`);
  return { ...rows[0], horizon: BigInt(rows[0].horizon), previous: BigInt(rows[0].previous) };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('new Generator() refuses a leased node value, pointing at Generator.create', () => {
  assert.throws(
    () => new Generator({ layout: LAYOUT, epoch: EPOCH, node: { worker: 'lease' } }),
    (error) =>
      error instanceof sfc.InvalidArgument &&
      error.message.includes('Generator.create') &&
      error.message.includes('lease:') &&
      !error.message.includes('sfc_lease_new'),
  );
});

test("leaseTableSql() is the core's table, the text of sql/leases.sql", () => {
  const text = sfc.leaseTableSql();
  assert.match(text, /CREATE TABLE IF NOT EXISTS snowflake_c_leases/);
  const file = fs.readFileSync(path.join(__dirname, '..', '..', 'sql', 'leases.sql'), 'utf8');
  assert.ok(file.includes(text.trim()), 'sql/leases.sql holds the same statement');
});

test('Generator.create() makes any other generator as new Generator() does', async () => {
  const g = await Generator.create({ layout: LAYOUT, epoch: EPOCH, node: 5 });
  try {
    assert.ok(g instanceof Generator);
    assert.deepEqual(g.stats().node, { worker: 5 });
    assert.equal(g.stats().lease, undefined);
  } finally {
    await g.closeAsync();
  }
});

test('a leased node value needs the database', async () => {
  const saved = process.env.SNOWFLAKE_LEASE_URL;
  delete process.env.SNOWFLAKE_LEASE_URL;
  try {
    await assert.rejects(
      Generator.create({ layout: LAYOUT, epoch: EPOCH, node: { worker: 'lease' } }),
      (error) => error instanceof sfc.InvalidArgument && /SNOWFLAKE_LEASE_URL/.test(error.message),
    );
  } finally {
    if (saved !== undefined) process.env.SNOWFLAKE_LEASE_URL = saved;
  }
});

test('without node-postgres, the error says how to install it', withServer, async () => {
  // pg made unresolvable in a child, as a package without it is.
  const script = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === 'pg') throw Object.assign(new Error("Cannot find module 'pg'"), { code: 'MODULE_NOT_FOUND' });
      return resolve.call(this, request, ...rest);
    };
    const { Generator } = require(${JSON.stringify(path.join(__dirname, '..'))});
    Generator.create({ layout: ${JSON.stringify(LAYOUT)}, epoch: ${EPOCH}, node: { worker: 'lease' }, lease: 'host=/nowhere' })
      .then(() => console.log('made'), (error) => console.log(error.message));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
  assert.equal(
    stdout.trim(),
    "a node value 'lease' runs its statements through node-postgres: npm install pg",
  );
});

test('a postgresql:// URL over the Unix socket: the stats show the lease', withServer, async () => {
  const socketUrl = `postgresql:///postgres?host=${encodeURIComponent(server.host)}&user=postgres`;
  const g = await leased({ lease: socketUrl, leaseDuration: '1.5s' });
  try {
    const stats = g.stats();
    assert.deepEqual(stats.nodeSources, { worker: 'lease' });
    assert.deepEqual(stats.node, { worker: 0 });
    const { lease } = stats;
    assert.equal(lease.state, 'held');
    assert.equal(lease.field, 'worker');
    assert.equal(lease.value, 0);
    assert.equal(lease.durationMs, 1500);
    // index.d.ts names what the core's lease stats hold, in their order.
    const dts = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8');
    const typed = /export interface LeaseStats \{([\s\S]*?)\n\}/.exec(dts)[1];
    assert.deepEqual(
      [...typed.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]),
      Object.keys(lease),
    );
    assert.ok(Object.keys(stats).includes('lease'));
    assert.equal(lease.failures, 0);
    assert.equal(lease.error, '');
    const now = Date.now();
    assert.ok(now < lease.expiresMs && lease.expiresMs <= now + 1500, 'expires within a lease');
    assert.ok(lease.horizonMs >= lease.expiresMs - 100, 'the horizon a lease ahead');
    assert.equal((await row(0)).free, false);
    await pause(800); // renewed at a third of the lease
    assert.ok(g.stats().lease.renewals >= 1, 'renewed');
    assert.equal(typeof g.nextId(), 'bigint');
  } finally {
    await g.closeAsync();
  }
});

/**
 * A holder process (fixtures/lease-holder.js): `first` its first line, {
 * value, ids }; ask(line) its answer to a line ("next", "stats").
 */
function holder(mode) {
  const child = spawn(process.execPath, [HOLDER, LAYOUT, String(EPOCH), url, mode], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const waiting = [];
  readline
    .createInterface({ input: child.stdout })
    .on('line', (line) => waiting.shift()?.resolve(JSON.parse(line)));
  exited.then((code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the holder exited (${code})`));
  });
  const next = () => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  const first = next();
  const ask = (line) => {
    const answer = next();
    child.stdin.write(`${line}\n`);
    return answer;
  };
  return { child, exited, first, ask };
}

test('two processes lease distinct values and issue distinct IDs', withServer, async () => {
  const a = holder('wait');
  const b = holder('wait');
  try {
    const [x, y] = await Promise.all([a.first, b.first]);
    assert.deepEqual(new Set([x.value, y.value]), new Set([0, 1]));
    const ids = new Set([...x.ids, ...y.ids]);
    assert.equal(ids.size, 2000);
    for (const [got, value] of [
      [x, x.value],
      [y, y.value],
    ]) {
      assert.equal(
        sfc.decode(BigInt(got.ids[0]), { layout: LAYOUT, epoch: EPOCH }).fields.worker,
        value,
      );
      assert.equal((await row(value)).free, false);
    }
  } finally {
    a.child.stdin.end();
    b.child.stdin.end();
    assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
  }
  assert.equal((await row(0)).free, true);
  assert.equal((await row(1)).free, true);
});

test(
  'close gives the value back with its last tick; the key takes it again',
  { skip },
  async () => {
    const other = await leased();
    const g = await leased({ leaseKey: 'orders-1' });
    assert.deepEqual(g.stats().node, { worker: 1 });
    const last = g.nextId();
    await other.closeAsync();
    await g.closeAsync();
    const got = await row(1);
    assert.equal(got.free, true);
    assert.equal(got.holder, 'orders-1');
    assert.equal(got.horizon, tick(last)); // the exact last tick, not the lease ahead
    // Value 0 is free and lower, but the key's value comes back to it.
    const again = await leased({ leaseKey: 'orders-1' });
    try {
      assert.deepEqual(again.stats().node, { worker: 1 });
      assert.ok(tick(again.nextId()) > tick(last));
    } finally {
      await again.closeAsync();
    }
    const fresh = await leased();
    try {
      assert.deepEqual(fresh.stats().node, { worker: 0 });
    } finally {
      fresh.close(); // the synchronous close gives it back too
    }
    for (let i = 0; !(await row(0)).free; i++) {
      assert.ok(i < 100, 'close() gave the value back');
      await pause(20);
    }
  },
);

test('a process that ends with its generator open gives the value back', withServer, async () => {
  const h = holder('leave');
  const { value, ids } = await h.first;
  assert.equal(await h.exited, 0); // the renewer keeps no process alive
  const got = await row(value);
  assert.equal(got.free, true);
  assert.equal(got.horizon, tick(ids[ids.length - 1]));
});

test('every value leased is WorkerUnavailable', withServer, async () => {
  const held = [];
  try {
    for (let i = 0; i < 8; i++) held.push(await leased());
    await assert.rejects(
      leased(),
      (error) =>
        error instanceof sfc.WorkerUnavailable &&
        /every value of node field worker \(0\.\.7\) is leased/.test(error.message),
    );
  } finally {
    await Promise.all(held.map((g) => g.closeAsync()));
  }
});

test(
  'a database that cannot be reached is WorkerUnavailable within a lease',
  { skip },
  async () => {
    const nowhere = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-no-pg-'));
    const started = Date.now();
    try {
      await assert.rejects(
        leased({ lease: `host=${nowhere} user=nobody dbname=none`, leaseDuration: '1s' }),
        (error) =>
          error instanceof sfc.WorkerUnavailable &&
          /cannot connect to the lease database/.test(error.message),
      );
    } finally {
      fs.rmSync(nowhere, { recursive: true, force: true });
    }
    assert.ok(Date.now() - started < 5000, "gave up within the core's time");
  },
);

test('the environment path: SNOWFLAKE_WORKER=lease, SNOWFLAKE_LEASE_URL', withServer, async () => {
  process.env.SNOWFLAKE_WORKER = 'lease';
  process.env.SNOWFLAKE_LEASE_URL = url;
  let g;
  try {
    g = await Generator.create({ layout: LAYOUT, epoch: EPOCH, leaseDuration: 2000 });
    assert.deepEqual(g.stats().nodeSources, { worker: 'lease' });
    assert.equal(g.stats().lease.value, 0);
  } finally {
    delete process.env.SNOWFLAKE_WORKER;
    delete process.env.SNOWFLAKE_LEASE_URL;
    await g?.closeAsync();
  }
});

test("the README's example runs on the test's database", withServer, async () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const [code] = [...readme.matchAll(/```js\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((c) => c.includes("worker: 'lease'"));
  assert.ok(code, 'the README has an example that leases');
  // The package by its name, and the test's server for the README's.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-lease-readme-'));
  try {
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(
      path.join(__dirname, '..'),
      path.join(dir, 'node_modules', 'snowflake-c'),
      'dir',
    );
    const file = path.join(dir, 'example.js');
    fs.writeFileSync(file, code.replace('postgresql://app@db/app', url));
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      cwd: dir,
      timeout: 30000,
    });
    assert.match(stdout, /^\d+n?\n/);
    assert.match(stdout, /state: 'held'/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const { rows } = await sql(
    "SELECT count(*)::int AS n FROM snowflake_c_leases WHERE expires_at = '-infinity'",
  );
  assert.equal(rows[0].n, 1, 'the example gave its value back');
});

test(
  'a holder paused past its lease loses the value, for good, and gives back nothing',
  withServer,
  async () => {
    const a = holder('wait');
    let b;
    try {
      const { value, ids } = await a.first;
      const last = tick(ids[ids.length - 1]);
      process.kill(a.child.pid, 'SIGSTOP');
      // Free a lease plus a grace (a tenth) after its last renewal, by the database's clock.
      const free =
        "SELECT expires_at + interval '200 ms' <= now() AS free FROM snowflake_c_leases WHERE node = $1";
      for (let i = 0; !(await sql(free, [value])).rows[0].free; i++) {
        assert.ok(i < 200, "the paused holder's value came free");
        await pause(50);
      }
      // Another host's generator, as far as this host's guard goes.
      b = await leased({ guard: false });
      assert.equal(b.stats().lease.value, value, 'the value taken over');
      assert.ok(tick(b.nextId()) > last, "after the paused holder's horizon");
      const found = (await row(value)).previous;
      assert.ok(found >= last, "the acquire found the paused holder's horizon");
      process.kill(a.child.pid, 'SIGCONT');
      assert.deepEqual(await a.ask('next'), { error: 'LeaseExpired' });
      for (let i = 0; (await a.ask('stats')).state !== 'lost'; i++) {
        assert.ok(i < 100, 'its renewal found the value taken');
        await pause(50);
      }
      assert.deepEqual(await a.ask('next'), { error: 'LeaseExpired' }); // for good
    } catch (error) {
      await b?.closeAsync();
      throw error;
    } finally {
      process.kill(a.child.pid, 'SIGCONT');
      a.child.stdin.end();
    }
    assert.equal(await a.exited, 0);
    try {
      const got = await row(b.stats().lease.value);
      assert.equal(got.free, false, 'the lost holder gave back nothing');
      assert.equal(b.stats().lease.state, 'held');
      b.nextId();
    } finally {
      await b.closeAsync();
    }
  },
);

test(
  'the database away past the lease: LeaseExpired, then IDs once it returns',
  withServer,
  async () => {
    const g = await leased({ leaseDuration: '1s' });
    try {
      g.nextId();
      await server.outage();
      try {
        const deadline = Date.now() + 5000;
        for (;;) {
          try {
            g.nextId();
          } catch (error) {
            assert.ok(error instanceof sfc.LeaseExpired, `LeaseExpired, not ${error}`);
            assert.match(error.message, /lease/);
            break;
          }
          assert.ok(Date.now() < deadline, 'IDs went on past the lease');
          await pause(10);
        }
        const { lease } = g.stats();
        assert.equal(lease.state, 'expired');
        assert.ok(lease.failures >= 1);
        assert.match(lease.error, /lease database/);
        assert.throws(() => g.nextIds(10), sfc.LeaseExpired);
        await assert.rejects(g.nextIdAsync(), sfc.LeaseExpired);
      } finally {
        await server.resume();
      }
      const deadline = Date.now() + 10000;
      for (;;) {
        try {
          g.nextId();
          break;
        } catch (error) {
          assert.ok(error instanceof sfc.LeaseExpired, `LeaseExpired, not ${error}`);
          assert.ok(Date.now() < deadline, 'generation did not resume');
          await pause(50);
        }
      }
      assert.equal(g.stats().lease.state, 'held');
    } finally {
      await g.closeAsync();
    }
  },
);
