'use strict';

// How synchronous and async calls wait for the clock. The clock is put
// "behind" by issuing an ID at a reading 60 ms in the future through the
// deterministic entry; the next real-clock call then has to wait ~60 ms.
// The layouts have the test process's own epoch: a borrowing generator
// gives its value back ahead of the clock, and its hand-over must reach no
// generator of another test or suite.

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { Generator, decode, ClockMovedBackwards } = require('..');
const { TWITTER, SONYFLAKE } = require('./fixtures/own-epoch');

const AHEAD_US = 60000n;

function aheadGenerator(options, aheadUs = AHEAD_US) {
  const g = new Generator({ ...TWITTER, node: { datacenter: 2, worker: 5 }, ...options });
  const ahead = g.nowUs() + aheadUs;
  const { id } = g.nextIdAt(ahead);
  assert.ok(id);
  return { g, id, ahead };
}

test('a synchronous call refuses to block the event loop for a long wait', () => {
  // A minute ahead (within max_wait): had a call blocked until the clock
  // caught up, the clock would be past that point when it returned.
  const { g, ahead } = aheadGenerator({ rollback: 'wait', maxWait: 120000 }, 60_000_000n);
  assert.throws(
    () => g.nextId(),
    (e) => e instanceof ClockMovedBackwards && /nextIdAsync/.test(e.message),
  );
  assert.throws(
    () => g.nextIds(3),
    (e) =>
      e instanceof ClockMovedBackwards && e.ids instanceof BigUint64Array && e.ids.length === 0,
  );
  assert.ok(g.nowUs() < ahead, 'returned before the clock caught up: it did not block');
  g.close();
});

test('the async forms wait with timers and go on', async () => {
  const { g, id, ahead } = aheadGenerator({ rollback: 'wait', maxWait: 1000 });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const next = await g.nextIdAsync();
  // The wait happened: the clock was read in or after the tick (1 ms) of
  // the ID issued ahead.
  assert.ok(g.nowUs() / 1000n >= ahead / 1000n, 'the clock has caught up with the ID issued ahead');
  const batch = await g.nextIdsAsync(10);
  clearInterval(timer);
  assert.ok(next > id && batch[0] > next);
  assert.ok(ticks >= 3, `the event loop ran while waiting (${ticks} timer ticks)`);
  g.close();
});

test('rollback error and borrow answer at once', () => {
  const refused = aheadGenerator({ rollback: 'error' });
  assert.throws(() => refused.g.nextId(), ClockMovedBackwards);
  assert.ok(refused.g.stats().rollbacksRefused >= 1);
  refused.g.close();

  const borrowed = aheadGenerator({ rollback: 'borrow' });
  const next = borrowed.g.nextId();
  assert.ok(next > borrowed.id);
  const { layout } = borrowed.g;
  assert.equal(decode(next, layout).timeMs, decode(borrowed.id, layout).timeMs);
  borrowed.g.close();
});

test('a full tick waits briefly in a synchronous call', () => {
  const g = new Generator({ ...SONYFLAKE, node: { machine: 3 } });
  const ids = g.nextIds(1000); // 256 per 10 ms tick
  assert.ok(g.stats().waits >= 3);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i]);
  g.close();
});

// close() while an async call waits with timers (a timer of the caller's,
// here): the call ends with the closed error at once, not when its timer
// fires, and no timer of its own keeps the event loop alive. For the addon
// and the WebAssembly build.
for (const [kind, entry] of [
  ['addon', '..'],
  ['wasm', '../wasm'],
]) {
  test(`${kind}: close() ends a pending nextIdAsync() or nextIdsAsync()`, async () => {
    const { Generator: Made, InvalidArgument } = require(entry);
    for (const [i, call] of [(g) => g.nextIdAsync(), (g) => g.nextIdsAsync(5)].entries()) {
      const g = new Made({
        ...TWITTER,
        node: { datacenter: kind === 'addon' ? 3 : 4, worker: i },
        rollback: 'wait',
        maxWait: 10000,
        guard: kind === 'addon',
      });
      g.nextIdAt(g.nowUs() + 3000000n); // the next ID waits 3 s
      const pending = call(g);
      setTimeout(() => g.close(), 20);
      // The closed error, not the IDs the 3 s wait would have ended with.
      await assert.rejects(
        pending,
        (e) => e instanceof InvalidArgument && /closed/.test(e.message),
      );
    }
  });
}
