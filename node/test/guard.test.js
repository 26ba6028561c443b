'use strict';

// The host-wide guard through the Node binding: one claim per ID space and
// node bits. A second live generator that would issue the same IDs — in this
// thread, a worker thread, a cluster worker or another process, under other
// field names, with or without a stateDir — is refused with
// WorkerUnavailable naming the holder; the value is free again after close()
// or the holder's death; a claim that cannot be taken is a StateError;
// `guard: false` holds nothing and warns. Each test has an epoch of its own,
// so that no generator of another test or suite on the machine shares its
// claims.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, fork, spawnSync } = require('node:child_process');
const cluster = require('node:cluster');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const { Generator, StateError, WorkerUnavailable, decode } = require('..');
const { newEpoch } = require('./fixtures/own-epoch');

const PKG = path.join(__dirname, '..');
const MEMBER = path.join(__dirname, 'fixtures', 'guard-member.js');
const TWITTER_SPEC = 'time:41@1ms,datacenter:5,worker:5,seq:12';
// Twitter's bits under one field: datacenter 1, worker 3 is worker 1 << 5 | 3.
const WORKER_SPEC = 'time:41@1ms,worker:10,seq:12';

/** Twitter's fields, datacenter 1 and worker 3, in an ID space of the test's own. */
function twitter() {
  return { layout: TWITTER_SPEC, epoch: newEpoch(), node: { datacenter: 1, worker: 3 } };
}

/** The name of the claim a guard state ('held: <name>') holds. */
function claimIn(guard) {
  assert.match(guard, /^held: ./);
  return guard.slice('held: '.length);
}

/** Asserts that `message` refuses `node`, naming the holder and its claim. */
function assertRefused(message, { pid, claim, node }) {
  // A holder in this process (of another layout: the same generator again
  // takes the value over) is told apart: close it first.
  const mine = pid === process.pid;
  const by = mine
    ? `node value ${node} is held by live process ${pid}, this process: another of its generators is still open (host-wide claim ${claim})`
    : `node value ${node} is held by live process ${pid} (host-wide claim ${claim})`;
  assert.ok(message.includes(by), `'${by}' is not in: ${message}`);
  assert.ok(message.includes(mine ? 'close that one first' : 'turn the guard off'), message);
}

/** A checker for assert.throws: a WorkerUnavailable refusing as above. */
function refused(expected) {
  return (error) => {
    assert.ok(error instanceof WorkerUnavailable, error && error.stack);
    assert.equal(error.code, 'WorkerUnavailable');
    assertRefused(error.message, expected);
    return true;
  };
}

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-guard-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Lets process.emitWarning (which emits on the next tick) deliver. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

function once(endpoint, event) {
  return new Promise((resolve, reject) => {
    endpoint.once(event, resolve);
    endpoint.once('error', reject);
  });
}

/**
 * Starts a contender ('process', 'cluster' or 'thread') holding a generator
 * made from `options`; resolves with it and its report once it has tried.
 */
async function start(kind, options, members) {
  let member;
  if (kind === 'thread') {
    member = new Worker(MEMBER, { workerData: options });
  } else {
    const env = { ...process.env, SFC_GUARD_OPTIONS: JSON.stringify(options) };
    if (kind === 'cluster') {
      cluster.setupPrimary({ exec: MEMBER });
      member = cluster.fork(env);
    } else {
      member = fork(MEMBER, { env });
    }
  }
  members.push(member);
  const exited = new Promise((resolve) => member.once('exit', resolve));
  const report = await Promise.race([
    once(member, 'message'),
    exited.then((code) => Promise.reject(new Error(`the ${kind} exited early (${code})`))),
  ]);
  return { member, report, exited };
}

/** Tells a contender to close its generator, and waits for it to end. */
async function stop({ member, exited }) {
  const closed = once(member, 'message');
  if (member.postMessage) member.postMessage('close');
  else member.send('close');
  assert.equal(await closed, 'closed');
  await exited;
}

async function killAll(members) {
  for (const m of members) {
    if (m.terminate) await m.terminate();
    else if (m.isDead ? !m.isDead() : m.exitCode === null && m.signalCode === null) {
      m.kill('SIGKILL');
    }
  }
}

test('in one process: the same generator again takes the value over', () => {
  const options = twitter();
  const first = new Generator(options);
  const claim = claimIn(first.stats().guard);
  const before = first.nextIds(100);
  // A REPL line or a reload run twice: the newer one starts after every ID
  // of the older, which is closed and says why.
  const again = new Generator(options);
  try {
    assert.equal(claimIn(again.stats().guard), claim, 'the same value, the same claim');
    assert.ok(again.nextId() > before[before.length - 1]);
    assert.throws(() => first.nextId(), {
      code: 'InvalidArgument',
      message:
        'the generator is closed: a newer generator of this process took node value ' +
        'datacenter=1,worker=3 (a cell or a reload run again); use that one',
    });
    // Another value is another claim; the same value in another epoch
    // issues the same integers at other times: refused, not taken over.
    const other = new Generator({ ...options, node: { datacenter: 1, worker: 4 } });
    assert.notEqual(claimIn(other.stats().guard), claim);
    other.close();
    assert.throws(
      () => new Generator({ ...options, epoch: options.epoch + 1 }),
      refused({ pid: process.pid, claim, node: 'datacenter=1,worker=3' }),
    );
    assert.ok(again.nextId() > 0n, 'the holder goes on');
  } finally {
    first.close();
    again.close();
  }
});

test('across processes: refused, naming the holder; free once it closes or dies', async () => {
  const options = twitter();
  const node = 'datacenter=1,worker=3';
  const members = [];
  try {
    const holder = await start('process', options, members);
    assert.equal(holder.report.issued, true, JSON.stringify(holder.report));
    const claim = claimIn(holder.report.guard);
    const pid = holder.member.pid;

    const second = await start('process', options, members);
    assert.equal(second.report.code, 'WorkerUnavailable', JSON.stringify(second.report));
    assertRefused(second.report.message, { pid, claim, node });
    assert.throws(() => new Generator(options), refused({ pid, claim, node }));

    await Promise.all([holder, second].map(stop));
    const after = await start('process', options, members);
    assert.equal(after.report.issued, true, 'the value is free once its holder has closed');
    after.member.kill('SIGKILL');
    await after.exited;
    const g = new Generator(options);
    assert.equal(claimIn(g.stats().guard), claim, "a killed holder's value is free at once");
    g.close();
  } finally {
    await killAll(members);
  }
});

test('across worker threads: one process, so the newest takes the value over', async () => {
  const options = twitter();
  const node = 'datacenter=1,worker=3';
  const members = [];
  try {
    const both = await Promise.all([0, 1].map(() => start('thread', options, members)));
    const reports = JSON.stringify(both.map((m) => m.report));
    const held = both.filter((m) => m.report.guard !== undefined);
    const others = both.filter((m) => m.report.code !== undefined);
    // Made at once, the later one takes the earlier over; one made while the
    // other is still starting is refused, naming this process.
    assert.ok(held.length >= 1, reports);
    for (const m of held) assert.equal(m.report.pid, process.pid);
    const claim = claimIn(held[0].report.guard);
    for (const m of others) {
      // Taken over before its first ID, or refused while the other started.
      if (m.report.code === 'InvalidArgument') {
        assert.match(m.report.message, /a newer generator of this process took/);
      } else assertRefused(m.report.message, { pid: process.pid, claim, node });
    }
    // The main thread makes it again: it takes the value over from the threads.
    const g = new Generator(options);
    try {
      assert.equal(claimIn(g.stats().guard), claim);
      assert.ok(g.nextId() > 0n);
      await Promise.all(both.map(stop));
    } finally {
      g.close();
    }
  } finally {
    await killAll(members);
  }
});

test('two cluster workers with the same value: one is refused', async () => {
  const options = twitter();
  const members = [];
  try {
    const both = await Promise.all([0, 1].map(() => start('cluster', options, members)));
    const reports = JSON.stringify(both.map((m) => m.report));
    const held = both.filter((m) => m.report.guard !== undefined);
    const others = both.filter((m) => m.report.code !== undefined);
    assert.equal(held.length, 1, reports);
    assert.equal(others.length, 1, reports);
    assertRefused(others[0].report.message, {
      pid: held[0].report.pid,
      claim: claimIn(held[0].report.guard),
      node: 'datacenter=1,worker=3',
    });
    await Promise.all(both.map(stop));
  } finally {
    await killAll(members);
  }
});

test('field names do not split the claim', async () => {
  const epoch = newEpoch();
  const split = { layout: TWITTER_SPEC, epoch, node: { datacenter: 1, worker: 3 } };
  const wide = { layout: WORKER_SPEC, epoch, node: { worker: 35 } };
  const a = new Generator(split);
  const claim = claimIn(a.stats().guard);
  try {
    // The two issue the same IDs.
    assert.equal(decode(a.nextId(), { layout: WORKER_SPEC, epoch }).fields.worker, 35);
    assert.throws(
      () => new Generator(wide),
      refused({ pid: process.pid, claim, node: 'worker=35' }),
    );
    // Another value of the wide field is other bits: another claim.
    new Generator({ ...wide, node: { worker: 36 } }).close();
  } finally {
    a.close();
  }

  // The other way round, across processes.
  const members = [];
  try {
    const holder = await start('process', wide, members);
    assert.equal(claimIn(holder.report.guard), claim);
    const second = await start('process', split, members);
    assert.equal(second.report.code, 'WorkerUnavailable', JSON.stringify(second.report));
    assertRefused(second.report.message, {
      pid: holder.member.pid,
      claim,
      node: 'datacenter=1,worker=3',
    });
    await Promise.all([holder, second].map(stop));
  } finally {
    await killAll(members);
  }
});

test('a stateDir generator beside a guard-only one: one claim, taken over in one process', (t) => {
  const options = twitter();
  const [one, two] = [tempDir(t), tempDir(t)];
  const takenOver = { code: 'InvalidArgument', message: /a newer generator of this process took/ };
  const guardOnly = new Generator(options);
  const claim = claimIn(guardOnly.stats().guard);
  const withState = new Generator({ ...options, stateDir: one });
  const other = new Generator({ ...options, stateDir: two }); // another folder, the same claim
  try {
    assert.throws(() => guardOnly.nextId(), takenOver);
    assert.throws(() => withState.nextId(), takenOver);
    assert.equal(claimIn(other.stats().guard), claim);
    other.nextId();
  } finally {
    for (const g of [guardOnly, withState, other]) g.close();
  }
  // The pool passes over a value held without a stateDir.
  const small = { layout: 'time:41@1ms,worker:2,seq:20', epoch: options.epoch };
  const held = new Generator({ ...small, node: 0 });
  const pooled = new Generator({ ...small, node: 'auto', stateDir: two });
  try {
    assert.equal(pooled.stats().nodeSources.worker, 'pool');
    assert.notEqual(pooled.stats().node.worker, 0);
  } finally {
    pooled.close();
    held.close();
  }
});

test('a generator collected without close() frees its value', () => {
  const options = twitter();
  const out = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '-e',
      `const { Generator } = require(${JSON.stringify(PKG)});
       const options = ${JSON.stringify(options)};
       (() => { new Generator(options); })();
       // The same integers at another epoch: refused while the first lives
       // (the same generator again would take it over).
       const other = { ...options, epoch: options.epoch + 1 };
       let refused = false;
       try { new Generator(other); } catch (e) { refused = e.code === 'WorkerUnavailable'; }
       gc();
       setImmediate(() => { gc(); setTimeout(() => {
         const g = new Generator(other);
         console.log(refused, g.stats().guard.startsWith('held: '));
         g.close();
       }, 10); });`,
    ],
    { encoding: 'utf8', timeout: 60000 },
  );
  assert.equal(out, 'true true\n');
});

test('a claim that cannot be taken is a StateError, never an unguarded start', (t) => {
  if (process.platform === 'win32') {
    t.skip('needs a shell to lower the limit on open files');
    return;
  }
  // With every descriptor in use, the claim cannot be made.
  const options = twitter();
  const run = spawnSync(
    '/bin/sh',
    [
      '-c',
      'ulimit -n 64 && exec "$0" "$@"',
      process.execPath,
      '-e',
      `const fs = require('node:fs');
       const { Generator } = require(${JSON.stringify(PKG)});
       const options = ${JSON.stringify(options)};
       const fds = [];
       try { for (;;) fds.push(fs.openSync(${JSON.stringify(__filename)}, 'r')); } catch {}
       let out;
       try {
         out = { guard: new Generator(options).stats().guard };
       } catch (e) {
         out = { code: e.code, message: e.message, state: e instanceof require(${JSON.stringify(PKG)}).StateError };
       }
       for (const fd of fds) fs.closeSync(fd);
       const g = new Generator(options);
       out.after = g.stats().guard;
       g.close();
       console.log(JSON.stringify(out));`,
    ],
    { encoding: 'utf8', timeout: 60000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.equal(out.code, StateError.code, run.stdout);
  assert.equal(out.state, true);
  assert.match(out.message, /host-wide claim/);
  assert.match(out.after, /^held: /, 'taken once descriptors are free');
});

test('IDs given back ahead of the clock are handed over to the next holder', () => {
  // Four IDs a second, borrowed up to 20 s ahead: 40 IDs end ~10 s ahead.
  const options = {
    layout: 'time:30@1s,worker:4,seq:2',
    epoch: newEpoch(),
    node: 5,
    rollback: 'borrow',
    maxDrift: '20s',
  };
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      `const { Generator } = require(${JSON.stringify(PKG)});
       const g = new Generator(${JSON.stringify(options)});
       const ids = g.nextIds(40);
       g.close();
       console.log(String(ids[39]));`,
    ],
    { encoding: 'utf8', timeout: 60000 },
  );
  const last = BigInt(out.trim());
  const g = new Generator(options);
  try {
    assert.ok(decode(last, g.layout).timeMs > Date.now() + 2000, 'the first holder went ahead');
    const next = g.nextId();
    assert.ok(next > last, `${next} comes after the last ID handed over (${last})`);
  } finally {
    g.close();
  }
});

test('guard: false holds nothing, says off and warns once per text', async () => {
  const options = { layout: TWITTER_SPEC, epoch: newEpoch(), node: { datacenter: 2, worker: 9 } };
  const warnings = [];
  const listen = (warning) => warnings.push(warning);
  process.on('warning', listen);
  const gens = [];
  try {
    gens.push(
      new Generator(options),
      new Generator({ ...options, node: { datacenter: 2, worker: 8 } }),
    );
    await settled();
    assert.deepEqual(warnings, [], 'a guarded generator does not warn');

    gens.push(
      new Generator({ ...options, guard: false }),
      new Generator({ ...options, guard: false }),
    );
    await settled();
    assert.equal(warnings.length, 1, warnings.map(String).join('\n'));
    const [warning] = warnings;
    assert.equal(warning.name, 'UnguardedWarning');
    assert.equal(warning.code, 'SNOWFLAKE_C_UNGUARDED');
    assert.match(warning.message, /^node value datacenter=2,worker=9 is not guarded/);
    for (const g of gens.slice(2)) {
      assert.equal(g.stats().guard, 'off');
      assert.ok(g.nextId() > 0n);
    }
    // Unguarded generators hold nothing: the guarded one is still alone (the
    // same integers at another epoch are refused; the same generator again
    // would take it over).
    assert.throws(() => new Generator({ ...options, epoch: options.epoch + 1 }), WorkerUnavailable);

    // The same text again (another ID space) is not repeated; another is said.
    gens.push(
      new Generator({ ...options, epoch: newEpoch(), guard: false }),
      new Generator({ ...options, node: { datacenter: 2, worker: 10 }, guard: false }),
    );
    await settled();
    assert.equal(warnings.length, 2, warnings.map(String).join('\n'));
    assert.match(warnings[1].message, /^node value datacenter=2,worker=10 is not guarded/);
    assert.throws(() => new Generator({ ...options, guard: 'off' }), /guard must be true or false/);
  } finally {
    process.off('warning', listen);
    for (const g of gens) g.close();
  }
});

test('a layout whose time runs out within ten years warns at creation', async () => {
  // 2^28 s is 8.5 years: from an epoch a year ago, the layout ends in 7.5.
  const epoch = (Math.floor(Date.now() / 1000) - 365 * 86400) * 1000;
  const warnings = [];
  const listen = (warning) => warnings.push(warning);
  process.on('warning', listen);
  try {
    const options = { layout: 'time:28@1s,worker:4,seq:13', epoch, node: { worker: 12 } };
    const ending = new Generator(options);
    ending.close();
    const lasting = new Generator({ layout: WORKER_SPEC, epoch: newEpoch(), node: { worker: 12 } });
    lasting.close();
    // The same text again is not emitted again, and is kept all the same.
    const again = new Generator(options);
    again.close();
    await settled();
    assert.equal(warnings.length, 1, warnings.map(String).join('\n'));
    assert.equal(warnings[0].name, 'LayoutEndingWarning');
    assert.equal(warnings[0].code, 'SNOWFLAKE_C_LAYOUT_ENDING');
    assert.match(warnings[0].message, /runs out on .* in 7\.5 years/);
    for (const g of [ending, again]) {
      assert.deepEqual(g.warnings, [{ kind: 'LayoutEnding', message: warnings[0].message }]);
    }
    assert.deepEqual(lasting.warnings, []);
    assert.throws(() => ending.warnings.push({}), TypeError);
  } finally {
    process.off('warning', listen);
  }
});

test('the warning is printed once, and once in each worker thread', () => {
  const options = { layout: TWITTER_SPEC, epoch: newEpoch(), node: { datacenter: 2, worker: 11 } };
  const make = `const { Generator } = require(${JSON.stringify(PKG)});
    const options = ${JSON.stringify({ ...options, guard: false })};
    new Generator(options).close();
    new Generator(options).close();`;
  const run = spawnSync(
    process.execPath,
    [
      '-e',
      `${make}
       const { Worker } = require('node:worker_threads');
       new Worker(${JSON.stringify(make)}, { eval: true });`,
    ],
    { encoding: 'utf8', timeout: 60000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const said = run.stderr
    .split('\n')
    .filter((line) => line.includes('[SNOWFLAKE_C_UNGUARDED] UnguardedWarning: node value'));
  assert.equal(said.length, 2, run.stderr);
  for (const line of said) assert.ok(line.includes('datacenter=2,worker=11 is not guarded'), line);
});
