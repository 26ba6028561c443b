// Generation in workerd (npm `workerd`, the Workers runtime), through
// snowflake-c/wasm's entry for workers, the .wasm imported as a compiled
// module (workerd/config.capnp). Each request freezes the clock as
// production Workers do and draws IDs until the generator stops: borrowed
// ticks within maxDrift, then ClockMovedBackwards saying the clock is frozen;
// across requests the IDs only increase.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const workerd = join(here, 'node_modules', '.bin', 'workerd');
const EPOCH = Date.UTC(2024, 0, 1);
const MAX_DRIFT_MS = 20;
const PER_TICK = 4; // seq:2

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

let child;
let origin;
let log = '';

before(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  child = spawn(
    workerd,
    ['serve', join(here, 'workerd', 'config.capnp'), '--socket-addr', `http=127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  for (let i = 0; ; i++) {
    try {
      await fetch(`${origin}/ready`, { method: 'HEAD' });
      return;
    } catch (error) {
      if (i > 100 || child.exitCode !== null)
        throw new Error(`workerd did not start: ${log}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});

after(() => child?.kill());

async function request() {
  const response = await fetch(`${origin}/generate?epoch=${EPOCH}&maxDrift=${MAX_DRIFT_MS}`);
  const text = await response.text();
  assert.equal(response.status, 200, `${text}\n${log}`);
  return JSON.parse(text);
}

test('a frozen clock in workerd: borrowed ticks, increasing IDs, a clear error, never a repeat', async () => {
  const all = [];
  let borrowed = 0;
  for (let round = 0; round < 3; round++) {
    // The real clock moves between requests: each request has ticks to borrow.
    await new Promise((resolve) => setTimeout(resolve, 3 * MAX_DRIFT_MS));
    const r = await request();
    const where = `request ${round}`;
    assert.ok(r.ids.length >= PER_TICK, `${where}: ${r.ids.length} IDs`);
    // Stopped by the frozen clock, with the core's explanation.
    assert.ok(r.error, `${where}: no error after ${r.ids.length} IDs`);
    assert.equal(r.error.name, 'ClockMovedBackwards');
    assert.ok(r.error.isClockMovedBackwards, `${where}: instanceof the exported class`);
    assert.match(r.error.message, /frozen/);
    // Every ID from the frozen instant to maxDrift past it, of node 7.
    for (const t of r.timesMs) {
      assert.ok(t <= r.wall + MAX_DRIFT_MS + 1, `${where}: ${t - r.wall} ms ahead`);
    }
    assert.ok(Math.max(...r.timesMs) > r.wall, `${where}: ticks borrowed ahead`);
    assert.ok(r.workers.every((w) => w === 7));
    assert.ok(r.stats.borrowedTicks > borrowed, `${where}: borrowedTicks ${r.stats.borrowedTicks}`);
    borrowed = r.stats.borrowedTicks;
    assert.equal(r.stats.guard, 'off');
    all.push(...r.ids.map(BigInt));
    assert.equal(r.stats.idsIssued, all.length);
  }
  for (let i = 1; i < all.length; i++) assert.ok(all[i] > all[i - 1], `ID ${i} after ${i - 1}`);
  assert.equal(new Set(all).size, all.length);
});
