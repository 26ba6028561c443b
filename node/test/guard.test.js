'use strict';

// The host-wide guard through the Node binding: a second live generator with
// the same layout and node values — in this process, a worker thread, a
// cluster worker or another process — is refused with WorkerUnavailable
// naming the holder; the value is free again after close() or the holder's
// death; `guard: false` shares; an unusable folder never stops a generator.
// Each test has a guard folder of its own, so that it never meets generators
// of other tests or suites running meanwhile (but one: the default folder,
// with a layout no one else uses).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, fork } = require('node:child_process');
const cluster = require('node:cluster');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const { Generator, WorkerUnavailable } = require('..');

const MEMBER = path.join(__dirname, 'fixtures', 'guard-member.js');
const TWITTER = { preset: 'twitter', node: { datacenter: 1, worker: 3 } };
const TWITTER_SPEC = 'time:41@1ms,datacenter:5,worker:5,seq:12';

/** A guard folder of the test's own, removed after it; its real path. */
function ownGuardDir(t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-guard-test-')));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

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

function assertRefusedBy(report, holderPid, dir) {
  assert.equal(report.code, 'WorkerUnavailable', report.message);
  assert.ok(report.message.includes('datacenter=1,worker=3'), report.message);
  assert.ok(report.message.includes(`live process ${holderPid} `), report.message);
  assert.ok(report.message.includes(`(guard folder ${dir})`), report.message);
  assert.ok(report.message.includes('turn the guard off'), report.message);
}

test('a second process with the same value is refused, naming the holder', async (t) => {
  const dir = ownGuardDir(t);
  const options = { ...TWITTER, guardDir: dir };
  const members = [];
  try {
    const holder = await start('process', options, members);
    assert.equal(holder.report.issued, true);
    assert.ok(holder.report.guard.startsWith(`held: ${dir}/guard-`), holder.report.guard);
    assert.ok(holder.report.guard.endsWith('.datacenter-1.worker-3.lock'), holder.report.guard);

    const second = await start('process', options, members);
    assertRefusedBy(second.report, holder.member.pid, dir);
    assert.throws(
      () => new Generator(options),
      (e) =>
        e instanceof WorkerUnavailable && e.message.includes(`live process ${holder.member.pid} `),
    );

    // Another value, or the same value in another layout, is not refused.
    const other = await start(
      'process',
      { ...options, node: { datacenter: 1, worker: 4 } },
      members,
    );
    const { node } = TWITTER;
    const otherEpoch = { layout: TWITTER_SPEC, epoch: '2024-01-01', node, guardDir: dir };
    const moved = await start('process', otherEpoch, members);
    assert.equal(other.report.issued, true, JSON.stringify(other.report));
    assert.equal(moved.report.issued, true, JSON.stringify(moved.report));

    await Promise.all([holder, second, other, moved].map(stop));
    const after = await start('process', options, members);
    assert.equal(after.report.issued, true, 'the value is free once its holder has closed');
    await stop(after);
  } finally {
    await killAll(members);
  }
});

test('in one process: refused while the first lives, allowed after close()', (t) => {
  const dir = ownGuardDir(t);
  const options = { ...TWITTER, guardDir: dir };
  const first = new Generator(options);
  try {
    assert.throws(
      () => new Generator(options),
      (e) =>
        e instanceof WorkerUnavailable &&
        e.code === 'WorkerUnavailable' &&
        e.message.includes(`live process ${process.pid} `),
    );
    assert.ok(first.nextId() > 0n, 'the holder goes on');
  } finally {
    first.close();
  }
  const again = new Generator(options);
  assert.ok(again.stats().guard.startsWith(`held: ${dir}/`));
  again.close();
  // A folder of its own is another guard: it does not meet this one.
  const elsewhere = ownGuardDir(t);
  const a = new Generator(options);
  const b = new Generator({ ...options, guardDir: elsewhere });
  a.close();
  b.close();
});

test('a generator collected without close() frees its value', async (t) => {
  const dir = ownGuardDir(t);
  const options = { ...TWITTER, guardDir: dir };
  const out = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '-e',
      `const { Generator } = require(${JSON.stringify(path.join(__dirname, '..'))});
       const options = ${JSON.stringify(options)};
       (() => { new Generator(options); })();
       let refused = false;
       try { new Generator(options); } catch (e) { refused = e.code === 'WorkerUnavailable'; }
       gc();
       setImmediate(() => { gc(); setTimeout(() => {
         const g = new Generator(options);
         console.log(refused, g.stats().guard.startsWith('held: '));
         g.close();
       }, 10); });`,
    ],
    { encoding: 'utf8', timeout: 60000 },
  );
  assert.equal(out, 'true true\n');
});

for (const kind of ['thread', 'cluster']) {
  test(`two ${kind} workers with the same value: one is refused`, async (t) => {
    const dir = ownGuardDir(t);
    const options = { ...TWITTER, guardDir: dir };
    const members = [];
    try {
      const both = await Promise.all([0, 1].map(() => start(kind, options, members)));
      const held = both.filter((m) => m.report.guard !== undefined);
      const refused = both.filter((m) => m.report.code !== undefined);
      assert.equal(held.length, 1, JSON.stringify(both.map((m) => m.report)));
      assert.equal(refused.length, 1, JSON.stringify(both.map((m) => m.report)));
      assert.equal(held[0].report.issued, true);
      assertRefusedBy(refused[0].report, held[0].report.pid, dir);
      if (kind === 'thread') assert.equal(held[0].report.pid, process.pid);
      await Promise.all(both.map(stop));
    } finally {
      await killAll(members);
    }
  });
}

test('guard: false shares a value, and says so', (t) => {
  const dir = ownGuardDir(t);
  const options = { ...TWITTER, guardDir: dir };
  const guarded = new Generator(options);
  const shared = [
    new Generator({ ...options, guard: false }),
    new Generator({ ...TWITTER, guard: false }),
  ];
  try {
    for (const g of shared) {
      assert.equal(g.stats().guard, 'off');
      assert.ok(g.nextId() > 0n);
    }
    // Unguarded generators hold nothing: the guarded one is still alone.
    assert.throws(() => new Generator(options), WorkerUnavailable);
    assert.throws(() => new Generator({ ...options, guard: 'off' }), /guard must be true or false/);
    assert.throws(
      () => new Generator({ ...options, guardDir: 7 }),
      /guardDir must be a folder's path/,
    );
  } finally {
    guarded.close();
    for (const g of shared) g.close();
  }
  new Generator({ ...options, guard: true }).close();
});

test('an unusable guard folder never stops a generator: stats say why', (t) => {
  const dir = ownGuardDir(t);
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, '');
  const cases = [[file, /^unavailable: .*a-file.* not a directory/]];
  if (process.platform !== 'win32') {
    const link = path.join(dir, 'a-link');
    fs.mkdirSync(path.join(dir, 'target'));
    fs.symlinkSync(path.join(dir, 'target'), link);
    cases.push([link, /^unavailable: .*a-link/]);
  }
  for (const [guardDir, why] of cases) {
    const options = { ...TWITTER, guardDir };
    const a = new Generator(options);
    const b = new Generator(options);
    try {
      for (const g of [a, b]) {
        assert.match(g.stats().guard, why);
        assert.ok(g.nextId() > 0n);
      }
    } finally {
      a.close();
      b.close();
    }
  }
});

test("a killed holder's value is free at once", async (t) => {
  const dir = ownGuardDir(t);
  const options = { ...TWITTER, guardDir: dir };
  const members = [];
  try {
    const holder = await start('process', options, members);
    assert.equal(holder.report.issued, true);
    assert.throws(() => new Generator(options), WorkerUnavailable);
    holder.member.kill('SIGKILL');
    await holder.exited;
    const g = new Generator(options);
    assert.ok(g.stats().guard.startsWith(`held: ${dir}/`));
    g.close();
  } finally {
    await killAll(members);
  }
});

test('with no configuration, the default folder guards between processes', async (t) => {
  // A layout whose epoch is this run's own: the same guard as everyone's,
  // but no generator of another test or suite can have these values.
  const epoch = 1704067200000 + (process.pid % 100000) * 1000 + Math.floor(Math.random() * 1000);
  const options = { layout: TWITTER_SPEC, epoch, node: TWITTER.node };
  const probe = new Generator(options);
  const state = probe.stats().guard;
  probe.close();
  if (!state.startsWith('held: ')) {
    t.skip(`no default guard folder here (${state})`);
    return;
  }
  const members = [];
  try {
    const holder = await start('process', options, members);
    assert.ok(holder.report.guard.startsWith(state.slice(0, state.lastIndexOf('/'))));
    const second = await start('process', options, members);
    assert.equal(second.report.code, 'WorkerUnavailable');
    assert.ok(second.report.message.includes(`live process ${holder.member.pid} `));
    await Promise.all([holder, second].map(stop));
  } finally {
    await killAll(members);
  }
});
