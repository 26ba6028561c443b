'use strict';

// Runs every case of every shared vector file (tests/vectors/*.json, format
// in tests/vectors/README.md) against the Node binding.

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const sfc = require('..');
const { TWITTER } = require('./fixtures/own-epoch');

const VECTOR_DIR = path.join(__dirname, '..', '..', 'tests', 'vectors');
const NOT_VECTORS = new Set(['schema.json']);

function layoutOptions(ref) {
  if (ref.preset !== undefined) return { preset: ref.preset };
  return { layout: ref.spec, epoch: ref.epoch };
}

/** Asserts that fn throws the error kind `kind`; returns the error. */
function assertKind(fn, kind, where) {
  let caught;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `${where}: expected ${kind}, but nothing was thrown`);
  assert.ok(
    caught instanceof sfc.SnowflakeError,
    `${where}: expected ${kind}, got ${caught && caught.stack}`,
  );
  assert.equal(
    caught.code,
    kind,
    `${where}: expected ${kind}, got ${caught.code}: ${caught.message}`,
  );
  assert.equal(caught.name, kind);
  assert.ok(caught.message.length > 0, `${where}: the error has no message`);
  return caught;
}

/** A vector's snake_case name in JavaScript's casing: max_wait_ms → maxWaitMs. */
const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** Asserts every key of `want` (snake_case) in `got` (camelCase); decimal strings stand for numbers. */
function assertFacts(got, want, where) {
  for (const [key, value] of Object.entries(want)) {
    const actual = got[camel(key)];
    if (typeof value === 'string' && typeof actual !== 'string') {
      assert.equal(String(actual), value, `${where}: ${key}`);
    } else {
      assert.deepEqual(actual, value, `${where}: ${key}`);
    }
  }
}

function clearNodeEnv() {
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('SNOWFLAKE_')) delete process.env[name];
  }
}

/** Lets process.emitWarning (which emits on the next tick) deliver. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Every UnguardedWarning text this thread has said: the binding says each
 * text once per thread, so a claims case expects the warning of an unguarded
 * generator only if no earlier generator of any test here said it.
 */
const unguardedSaid = new Set();
process.on('warning', (warning) => {
  if (warning.name === 'UnguardedWarning') unguardedSaid.add(warning.message);
});

/** The options of one side of a claims case: its layout, node values and guard. */
function claimOptions(side) {
  return { ...layoutOptions(side.layout), node: side.node, guard: side.guard };
}

/** Asserts that a started side's stats say its guard: 'held: <claim>' or 'off'. */
function assertGuardStat(g, side, where) {
  const { guard } = g.stats();
  if (side.guard) {
    assert.ok(guard.startsWith('held: '), `${where}: stats().guard is '${guard}', not 'held: …'`);
  } else {
    assert.equal(guard, 'off', `${where}: stats().guard`);
  }
}

/** The start of the UnguardedWarning of a side: its node values as the core writes them. */
const unguardedText = (side) =>
  `node value ${Object.entries(side.node)
    .map(([name, value]) => `${name}=${value}`)
    .join(',')} is not guarded`;

const CONTRACT_NODE = { datacenter: 1, worker: 1 };

/**
 * The generator of the contract's option and call cases: twitter's fields,
 * guard off. The epoch is the test process's own, so that a case that turns
 * the guard on meets no other generator of the machine.
 */
function contractGenerator(option, value) {
  const options = { ...TWITTER, node: CONTRACT_NODE, guard: false };
  if (option !== undefined) options[camel(option)] = value;
  return new sfc.Generator(options);
}

const CONTRACT_CALLS = {
  next_id: (g) => g.nextId(),
  next_ids: (g) => g.nextIds(10),
  stats: (g) => g.stats(),
  close: (g) => g.close(),
};

const CONTRACT_TABLES = {
  options: () => sfc.options().map((o) => o.name),
  errors: () =>
    Object.values(sfc)
      .filter((v) => typeof v === 'function' && v.prototype instanceof sfc.SnowflakeError)
      .sort((a, b) => a.status - b.status)
      .map((cls) => cls.name),
  stats: () => {
    const g = contractGenerator();
    try {
      return Object.keys(g.stats());
    } finally {
      g.close();
    }
  },
  describe: () => Object.keys(sfc.Layout.preset('default').describe()),
  fields: () => Object.keys(sfc.Layout.preset('default').describe().fields[0]),
};

const runners = {
  async 'claims.json'(c) {
    clearNodeEnv();
    const warnings = [];
    const listen = (warning) => warnings.push(warning);
    const saidBefore = [...unguardedSaid];
    const unguarded = [];
    let first;
    let second;
    process.on('warning', listen);
    try {
      first = new sfc.Generator(claimOptions(c.first));
      assertGuardStat(first, c.first, 'first');
      if (!c.first.guard) unguarded.push(c.first);
      const makeSecond = () => {
        second = new sfc.Generator(claimOptions(c.second));
      };
      if (c.second_starts) {
        makeSecond();
        assertGuardStat(second, c.second, 'second');
        if (!c.second.guard) unguarded.push(c.second);
      } else {
        const error = assertKind(makeSecond, 'WorkerUnavailable', 'creating the second');
        assert.ok(error instanceof sfc.WorkerUnavailable, error.stack);
        for (const part of c.message) {
          assert.ok(error.message.includes(part), `'${part}' is not in: ${error.message}`);
        }
        // This process's pid, whole: not the start of another number.
        assert.match(error.message, new RegExp(`live process ${process.pid}(?![0-9])`));
      }
      await settled();
    } finally {
      process.off('warning', listen);
      try {
        if (second) second.close();
      } finally {
        if (first) first.close();
      }
    }
    // Only the unguarded generators warn, each text once per thread.
    const expected = [...new Set(unguarded.map(unguardedText))].filter(
      (text) => !saidBefore.some((said) => said.startsWith(text)),
    );
    const said = warnings.map((w) => `${w.name} [${w.code}] ${w.message}`);
    assert.equal(warnings.length, expected.length, `warnings: ${said.join('\n') || 'none'}`);
    warnings.forEach((warning, i) => {
      assert.equal(warning.name, 'UnguardedWarning', said[i]);
      assert.equal(warning.code, 'SNOWFLAKE_C_UNGUARDED', said[i]);
      assert.ok(
        warning.message.startsWith(expected[i]),
        `'${expected[i]}' does not start: ${said[i]}`,
      );
    });
  },

  'encodings.json'(c) {
    if (c.error !== undefined) {
      const run =
        c.text !== undefined
          ? () => sfc.parseId(c.text, c.encoding)
          : () => sfc.formatId(BigInt(c.id), c.encoding);
      const error = assertKind(run, c.error, c.encoding);
      for (const part of c.message_has ?? []) {
        assert.ok(error.message.includes(part), `'${part}' is not in: ${error.message}`);
      }
      return;
    }
    const id = BigInt(c.id);
    if (c.text !== undefined) {
      assert.equal(sfc.parseId(c.text, c.encoding), id);
      return;
    }
    assert.equal(sfc.formatId(id, c.encoding), c.fixed);
    assert.equal(sfc.formatId(id, c.encoding, { pad: false }), c.shortest);
    assert.equal(sfc.parseId(c.fixed, c.encoding), id);
    assert.equal(sfc.parseId(c.shortest, c.encoding), id);
  },

  'durations.json'(c) {
    // The duration as a Number of ms, possibly fractional.
    const ms = Number(c.seconds) * 1000 + c.nanos / 1e6;
    const option = camel(c.option);
    const make = () =>
      new sfc.Generator({ ...TWITTER, node: { datacenter: 0, worker: 0 }, [option]: ms });
    if (c.error !== undefined) {
      const error = assertKind(make, c.error, option);
      assert.ok(error.message.includes(option), error.message);
      return;
    }
    const g = make();
    try {
      const stat = g.stats()[camel(`${c.option}_ms`)];
      if (option !== 'stateReserve') assert.equal(stat, Number(c.ms));
    } finally {
      g.close();
    }
  },

  'layouts.json'(c) {
    const make = () =>
      c.preset !== undefined ? sfc.Layout.preset(c.preset) : sfc.Layout.parse(c.spec, c.epoch);
    if (c.error !== undefined) {
      assertKind(make, c.error, 'layout');
      return;
    }
    const d = make().describe();
    // time_end, the ISO form of time_end_ms, is no fact of describe().
    const { time_end: timeEnd, fields, ...facts } = c.expect;
    assertFacts(d, facts, 'describe()');
    assert.deepEqual(
      d.fields.map((f) => ({ ...f, max: String(f.max) })),
      fields,
    );
    assert.equal(new Date(d.timeEndMs).toISOString(), timeEnd);
  },

  'decode.json'(c) {
    const options = layoutOptions(c.layout);
    if (c.error !== undefined) {
      assertKind(() => sfc.decode(c.id, options), c.error, 'decode');
      if (/^[0-9]+$/.test(c.id)) {
        assertKind(() => sfc.decode(BigInt(c.id), options), c.error, 'decode (bigint)');
      }
      return;
    }
    const parts = sfc.decode(c.id, options);
    assert.equal(JSON.stringify(parts), c.json, 'canonical JSON');
    assert.equal(String(parts), c.json, 'String(parts)');
    assert.equal(parts.id, BigInt(c.id));
    const fields = Object.fromEntries(Object.entries(parts.fields).map(([k, v]) => [k, String(v)]));
    assert.deepEqual(fields, c.fields);
    assert.equal(JSON.stringify(sfc.decode(BigInt(c.id), options)), c.json, 'bigint input');
    assert.equal(sfc.encode(parts, options), BigInt(c.id), 'encodes back');
  },

  'encode.json'(c) {
    const options = layoutOptions(c.layout);
    const input = { timeMs: BigInt(c.time_ms), ...c.fields };
    if (c.error !== undefined) {
      assertKind(() => sfc.encode(input, options), c.error, 'encode');
      return;
    }
    assert.equal(sfc.encode(input, options), BigInt(c.id));
  },

  'range.json'(c) {
    const options = layoutOptions(c.layout);
    const run = () => sfc.range(BigInt(c.t0_ms), BigInt(c.t1_ms), options);
    if (c.error !== undefined) {
      assertKind(run, c.error, 'range');
      return;
    }
    const { min, max } = run();
    assert.deepEqual({ min: String(min), max: String(max) }, { min: c.min, max: c.max });
  },

  'generate.json'(c) {
    // The vectors name durations in ms (max_wait_ms); the option is maxWait.
    // The guard is off (README): the script's clock is its own, and a
    // hand-over from a real generator of the machine would move it on.
    const options = { ...layoutOptions(c.layout), guard: false };
    for (const [key, value] of Object.entries(c.options)) {
      options[camel(key.replace(/_ms$/, ''))] = value;
    }
    clearNodeEnv();
    if (c.error !== undefined) {
      assertKind(() => new sfc.Generator(options), c.error, 'creating the generator');
      return;
    }
    const g = new sfc.Generator(options);
    try {
      c.steps.forEach((step, i) => {
        const where = `step ${i} (${step.call} at ${step.now_us})`;
        const e = step.expect;
        if (step.call === 'next') {
          if (e.error !== undefined) {
            assertKind(() => g.nextIdAt(step.now_us), e.error, where);
            return;
          }
          const r = g.nextIdAt(step.now_us);
          const got = 'id' in r ? { id: String(r.id) } : { wait_us: String(r.waitUs) };
          assert.deepEqual(got, e, where);
        } else if (step.call === 'next_ids') {
          let got;
          try {
            const r = g.nextIdsAt(step.now_us, step.n);
            got = { ids: Array.from(r.ids, String) };
            if (r.waitUs !== undefined) got.wait_us = String(r.waitUs);
          } catch (error) {
            if (!(error instanceof sfc.SnowflakeError)) throw error;
            got = { ids: Array.from(error.ids || [], String), error: error.code };
          }
          const want = { ids: [], ...e };
          assert.deepEqual(got, want, where);
        } else {
          assert.fail(`${where}: unknown call '${step.call}'`);
        }
      });
    } finally {
      g.close();
    }
  },

  'contract.json'(c) {
    if (c.table !== undefined) {
      const names = CONTRACT_TABLES[c.table];
      assert.ok(names, `unknown table '${c.table}': teach the runner`);
      const want = c.table === 'errors' ? c.names : c.names.map(camel);
      assert.deepEqual(names(), want);
      return;
    }
    if (c.call !== undefined) {
      const call = CONTRACT_CALLS[c.call];
      assert.ok(call, `unknown call '${c.call}': teach the runner`);
      const g = contractGenerator();
      g.close();
      if (c.error !== undefined) {
        const error = assertKind(() => call(g), c.error, c.call);
        assert.match(error.message, /closed/);
      } else {
        call(g);
      }
      return;
    }
    clearNodeEnv();
    let make;
    if (c.option !== undefined) {
      make = () => contractGenerator(c.option, c.value);
    } else {
      const options = { node: c.node, guard: false };
      if (c.args.preset !== undefined) options.preset = c.args.preset;
      if (c.args.layout !== undefined) options.layout = c.args.layout;
      if (c.args.epoch !== undefined) options.epoch = c.args.epoch;
      const object = c.args.layout_object;
      if (object !== undefined) {
        // The Layout object is made first; the generator takes it as its layout.
        const held =
          object.preset !== undefined
            ? sfc.Layout.preset(object.preset)
            : sfc.Layout.parse(object.spec, object.epoch);
        if (options.layout !== undefined) throw new Error('a case gives layout and layout_object');
        options.layout = held;
      }
      make = () => new sfc.Generator(options);
    }
    if (c.error !== undefined) {
      const error = assertKind(make, c.error, 'creating the generator');
      if (c.option !== undefined) assert.ok(error.message.includes(camel(c.option)), error.message);
      return;
    }
    const g = make();
    try {
      if (c.describe !== undefined) assertFacts(g.layout.describe(), c.describe, 'describe()');
      if (c.stats !== undefined) assertFacts(g.stats(), c.stats, 'stats()');
    } finally {
      g.close();
    }
  },
};

// A file named after a known format uses its runner; any other file's cases
// are recognised by their shape (README: the same case shapes everywhere).
function runnerFor(file, c) {
  if (runners[file]) return runners[file];
  if (c.first !== undefined && c.second !== undefined) return runners['claims.json'];
  if (c.option !== undefined && c.nanos !== undefined) return runners['durations.json'];
  if (c.steps !== undefined || c.options !== undefined) return runners['generate.json'];
  if (c.t0_ms !== undefined) return runners['range.json'];
  if (c.time_ms !== undefined) return runners['encode.json'];
  if (c.id !== undefined && c.layout !== undefined) return runners['decode.json'];
  if (c.layout === undefined && (c.spec !== undefined || c.preset !== undefined)) {
    return runners['layouts.json'];
  }
  return undefined;
}

const files = fs
  .readdirSync(VECTOR_DIR)
  .filter((f) => f.endsWith('.json') && !NOT_VECTORS.has(f))
  .sort();

test('the vector directory has files', () => {
  assert.ok(files.length > 0, `no vector files in ${VECTOR_DIR}`);
});

for (const file of files) {
  const cases = JSON.parse(fs.readFileSync(path.join(VECTOR_DIR, file), 'utf8'));
  describe(file, () => {
    test('holds cases', () => {
      assert.ok(Array.isArray(cases) && cases.length > 0, `${file} holds no cases`);
    });
    if (!Array.isArray(cases)) return;
    cases.forEach((c, i) => {
      test(`#${i} ${c.description}`, () => {
        const run = runnerFor(file, c);
        assert.ok(run, `no runner knows this case of ${file}: teach test/vectors.test.js`);
        return run(c);
      });
    });
  });
}
