// Generation in workerd (npm `workerd`, the Workers runtime), through
// snowflake-c/wasm's entry for workers, the .wasm imported as a compiled
// module (workerd/config.capnp). Each request freezes the clock as
// production Workers do and draws IDs until the generator stops: borrowed
// ticks within maxDrift, then ClockMovedBackwards saying the clock is frozen;
// across requests the IDs only increase. The same worker runs at a
// compatibility date before 2025 too, which has no FinalizationRegistry nor
// WeakRef: there close() is the way to release.
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

// The worker's origin by compatibility date (workerd/config.capnp's sockets).
const DATES = { '2025-09-01': 'http', '2024-09-01': 'http-2024' };
const origins = {};
let child;
let log = '';

before(async () => {
  const addresses = [];
  for (const [date, socket] of Object.entries(DATES)) {
    const port = await freePort();
    origins[date] = `http://127.0.0.1:${port}`;
    addresses.push('--socket-addr', `${socket}=127.0.0.1:${port}`);
  }
  child = spawn(workerd, ['serve', join(here, 'workerd', 'config.capnp'), ...addresses], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  for (let i = 0; ; i++) {
    try {
      for (const origin of Object.values(origins)) {
        await fetch(`${origin}/ready`, { method: 'HEAD' });
      }
      return;
    } catch (error) {
      if (i > 100 || child.exitCode !== null)
        throw new Error(`workerd did not start: ${log}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});

after(() => child?.kill());

async function request(date, path) {
  const response = await fetch(`${origins[date]}${path}`);
  const text = await response.text();
  assert.equal(response.status, 200, `${text}\n${log}`);
  return JSON.parse(text);
}

// Each date's worker draws from its own node value: the two isolates are
// two generators.
for (const [date, node] of [
  ['2025-09-01', 7],
  ['2024-09-01', 6],
]) {
  test(`a frozen clock in workerd (${date}): borrowed ticks, increasing IDs, a clear error, never a repeat`, async () => {
    const all = [];
    let borrowed = 0;
    for (let round = 0; round < 3; round++) {
      // The real clock moves between requests: each request has ticks to borrow.
      await new Promise((resolve) => setTimeout(resolve, 3 * MAX_DRIFT_MS));
      const r = await request(
        date,
        `/generate?epoch=${EPOCH}&maxDrift=${MAX_DRIFT_MS}&node=${node}`,
      );
      const where = `request ${round}`;
      assert.ok(r.ids.length >= PER_TICK, `${where}: ${r.ids.length} IDs`);
      // Stopped by the frozen clock, with the core's explanation.
      assert.ok(r.error, `${where}: no error after ${r.ids.length} IDs`);
      assert.equal(r.error.name, 'ClockMovedBackwards');
      assert.ok(r.error.isClockMovedBackwards, `${where}: instanceof the exported class`);
      assert.match(r.error.message, /frozen/);
      // Every ID from the frozen instant to maxDrift past it, of its node value.
      for (const t of r.timesMs) {
        assert.ok(t <= r.wall + MAX_DRIFT_MS + 1, `${where}: ${t - r.wall} ms ahead`);
      }
      assert.ok(Math.max(...r.timesMs) > r.wall, `${where}: ticks borrowed ahead`);
      assert.ok(r.workers.every((w) => w === node));
      assert.ok(
        r.stats.borrowedTicks > borrowed,
        `${where}: borrowedTicks ${r.stats.borrowedTicks}`,
      );
      borrowed = r.stats.borrowedTicks;
      assert.equal(r.stats.guard, 'off');
      all.push(...r.ids.map(BigInt));
      assert.equal(r.stats.idsIssued, all.length);
    }
    for (let i = 1; i < all.length; i++) assert.ok(all[i] > all[i - 1], `ID ${i} after ${i - 1}`);
    assert.equal(new Set(all).size, all.length);
  });

  test(`workerd (${date}): close() releases a generator, layouts made again and again`, async () => {
    const r = await request(date, `/release?epoch=${EPOCH}`);
    assert.equal(r.weakRefs, date >= '2025', 'FinalizationRegistry and WeakRef from 2025 on');
    assert.equal(r.issued, 100);
    assert.deepEqual(r.afterClose, { name: 'InvalidArgument', isInvalidArgument: true });
  });
}
