'use strict';

// snowflake-c for Node.js beside the popular npm Snowflake generators, in one
// run: repetitions interleaved (every contestant once per round), medians
// reported. Every timed run keeps every ID, as a user does (into one
// BigUint64Array sized for the run, the same for every contestant, each
// calling from a loop of its own), and the kept IDs of every run are checked
// for duplicates outside the timed part. Then the string forms: formatId /
// parseId beside a base62 package that writes the same text.
//
//   npm install && node bench.js [--rounds N] [--seconds S] [--json PATH]
//     [--dup-count N] [--keep-max N] [--only NAME,NAME…]
//
// --keep-max caps the IDs kept by one run (the array's length, 8 bytes
// each): a faster contestant's run is then shorter than S seconds.
// --only times the named contestants alone (nextId and batch rows), for a
// focused side-by-side: no string forms, decode or classic runs, and a JSON
// file that the report does not read.
//
// Needs the addon built in ../../node (cd node && npm install).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const sfc = require(path.join(__dirname, '..', '..', 'node'));
// The same core compiled to WebAssembly (snowflake-c/wasm; its module built
// by bindings/wasm/build): a row of its own where it is built.
let wasm;
let wasmMissing;
try {
  wasm = require(path.join(__dirname, '..', '..', 'node', 'wasm'));
} catch (error) {
  wasmMissing = error.message.split('\n')[0];
}
// The floor of the design: a minimal Node-API addon doing nextId()'s work
// (benchmarks/node/floor, built by benchmarks/run): a reference row of its own.
let floorAddon;
let floorMissing;
try {
  floorAddon = require(path.join(__dirname, 'floor', 'build', 'Release', 'sfc_floor.node'));
} catch (error) {
  floorMissing = error.message.split('\n')[0];
}
const { Snowflake: Sapphire } = require('@sapphire/snowflake');
const {
  default: Snowflakify,
  TimestampFragment,
  WorkerFragment,
  ProcessFragment,
  SequenceFragment,
} = require('snowflakify');
const { SnowflakeIdv1 } = require('simple-flakeid');
const { Snowflake: NodejsSnowflake } = require('nodejs-snowflake');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const ROUNDS = Number(option('rounds', 5));
const SECONDS = Number(option('seconds', 0.4));
const DUP_COUNT = Number(option('dup-count', 1000000));
const KEEP_MAX = Number(option('keep-max', 16 * 1024 * 1024));
const ONLY = option('only', undefined)?.split(',');
const JSON_PATH = option('json', undefined);

const WIDE = {
  layout: 'time:41@1ms,worker:2,seq:20',
  epoch: 1704067200000,
  node: { worker: 1 },
};
const CLASSIC = { preset: 'twitter', node: { datacenter: 1, worker: 1 } };
// The kept-IDs runs take another node value: the guard refuses a second live
// generator with the classic contestant's.
const CLASSIC_KEPT = { preset: 'twitter', node: { datacenter: 2, worker: 1 } };
const CLASSIC_LIMIT = 4096000;
// The WebAssembly row: the wide layout on a node value of its own (it has
// no host-wide claim to meet the native row's, and needs none).
const WIDE_WASM = { ...WIDE, node: { worker: 2 } };
// Ours again, the wall clock read only once the processor's counter shows its
// millisecond over; a node value of its own (the guard refuses a second one).
const WIDE_COUNTER = { ...WIDE, node: { worker: 3 }, timeSource: 'counter' };

// Each contestant: make() returns { next() → one ID, batch?(n) → n IDs }.
// Peers run on their own default layout and, where they can be configured,
// on the same wide layout as snowflake-c.
const EPOCH = 1704067200000;
const allContestants = [
  {
    name: 'snowflake-c',
    layout: 'time:41@1ms,worker:2,seq:20',
    make: () => {
      const g = new sfc.Generator(WIDE);
      return { next: () => g.nextId(), batch: (n) => g.nextIds(n) };
    },
  },
  {
    name: 'snowflake-c (twitter)',
    layout: 'time:41@1ms,datacenter:5,worker:5,seq:12',
    ours: true,
    make: () => {
      const g = new sfc.Generator(CLASSIC);
      return { next: () => g.nextId(), batch: (n) => g.nextIds(n) };
    },
  },
  {
    name: '@sapphire/snowflake',
    layout: 'discord: time:42,worker:5,process:5,seq:12',
    make: () => {
      const s = new Sapphire(1420070400000n);
      return { next: () => s.generate() };
    },
  },
  {
    name: 'snowflakify',
    layout: 'default: time:42,worker:5,process:5,seq:12',
    make: () => {
      const s = new Snowflakify({ epoch: EPOCH });
      return { next: () => s.nextId() };
    },
  },
  {
    name: 'snowflakify (wide)',
    layout: 'time:41,worker:2,seq:20',
    make: () => {
      const s = new Snowflakify({
        fragmentArray: [
          new TimestampFragment(41, EPOCH),
          new WorkerFragment(2),
          new SequenceFragment(20),
        ],
      });
      return { next: () => s.nextId() };
    },
  },
  {
    name: 'simple-flakeid',
    layout: 'default: worker:6,seq:6 (drift)',
    make: () => {
      const s = new SnowflakeIdv1({ workerId: 1 });
      return { next: () => s.NextBigId() };
    },
  },
  {
    name: 'simple-flakeid (wide)',
    layout: 'worker:2,seq:20 (drift)',
    make: () => {
      const s = new SnowflakeIdv1({
        workerId: 1,
        workerIdBitLength: 2,
        seqBitLength: 20,
        baseTime: EPOCH,
      });
      return { next: () => s.NextBigId() };
    },
  },
  {
    name: 'nodejs-snowflake',
    layout: 'fixed: time:42,instance:10,seq:12',
    make: () => {
      const s = new NodejsSnowflake({ instance_id: 1, custom_epoch: EPOCH });
      return { next: () => s.getUniqueID() };
    },
  },
  ...(wasm
    ? [
        {
          name: 'snowflake-c (wasm)',
          layout: 'time:41@1ms,worker:2,seq:20',
          make: () => {
            const g = new wasm.Generator(WIDE_WASM);
            return { next: () => g.nextId(), batch: (n) => g.nextIds(n) };
          },
        },
      ]
    : []),
  {
    name: 'snowflake-c (time_source=counter)',
    layout: 'time:41@1ms,worker:2,seq:20',
    make: () => {
      const g = new sfc.Generator(WIDE_COUNTER);
      return { next: () => g.nextId(), batch: (n) => g.nextIds(n) };
    },
  },
  ...(floorAddon
    ? [
        {
          name: 'minimal binding (floor)',
          layout: 'time:41@1ms,worker:2,seq:20',
          reference: true,
          make: () => {
            const f = floorAddon.create(EPOCH, 2, 20, 1);
            return { next: () => f.next() };
          },
        },
      ]
    : []),
];
const contestants = ONLY ? allContestants.filter((c) => ONLY.includes(c.name)) : allContestants;
if (ONLY && contestants.length !== ONLY.length) {
  const names = allContestants.map((c) => c.name).join(', ');
  throw new Error(`--only: unknown contestant among ${ONLY.join(', ')} (there are: ${names})`);
}

const now = () => Number(process.hrtime.bigint()) / 1e9;

/** Calls/s of `fn()` for SECONDS, results not kept (only the last one): Date.now. */
function timeCallsOnly(fn) {
  let count = 0;
  let sink;
  const start = now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 4096; i++) sink = fn();
    count += 4096;
    elapsed = now() - start;
  } while (elapsed < SECONDS);
  if (sink === -1) console.log(sink);
  return count / elapsed;
}

// Every timed run's IDs, as a user keeps them: one array for all, checked
// after each run (outside the timed part), before the next writes over it.
const kept = new BigUint64Array(KEEP_MAX);
const BATCH = 1000;

/**
 * A timed run of a contestant: n IDs into kept[0..n), in a loop compiled for
 * this contestant alone, so that its call site sees one target, as a user's
 * does (one shared loop would be megamorphic and tax every contestant
 * alike). A native batch fills `kept` BATCH IDs per call; a contestant
 * without one calls next() in the loop. Returns the seconds taken.
 */
function keptRun(impl, batch) {
  const body = batch
    ? 'for (let i = 0; i < n; i += size) kept.set(fill(size), i);'
    : 'for (let i = 0; i < n; i++) kept[i] = fill();';
  // eslint-disable-next-line no-new-func
  const loop = new Function('kept', 'fill', 'size', 'n', body);
  const fill = batch ? impl.batch : impl.next;
  return (n) => {
    const start = now();
    loop(kept, fill, BATCH, n);
    return now() - start;
  };
}

/**
 * The run's length for SECONDS, from runs of growing length (which warm the
 * contestant up): a multiple of BATCH, at most KEEP_MAX. `tally` counts
 * their IDs too.
 */
function runLength(run, tally) {
  const cap = Math.floor(KEEP_MAX / BATCH) * BATCH;
  let n = 4 * BATCH;
  let t = run(n);
  check(tally, n);
  while (t < SECONDS / 8 && n < cap) {
    n = Math.min(cap, n * 4);
    t = run(n);
    check(tally, n);
  }
  return Math.min(cap, Math.max(BATCH, Math.ceil((n * SECONDS) / t / BATCH) * BATCH));
}

const newTally = () => ({
  checked: 0,
  duplicates: 0,
  notIncreasing: 0,
  last: undefined,
});

/**
 * Counts the duplicates and the steps back among kept[0..n), a run's IDs
 * (a step back from the contestant's last run too), into `tally`. A run
 * that only increases has no duplicates; any other is sorted (a copy) and
 * counted.
 */
function check(tally, n) {
  const ids = kept.subarray(0, n);
  let back = tally.last !== undefined && ids[0] <= tally.last ? 1 : 0;
  for (let i = 1; i < n; i++) if (ids[i] <= ids[i - 1]) back++;
  let dup = 0;
  if (back > 0) {
    const sorted = ids.slice().sort();
    for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1]) dup++;
  }
  tally.last = ids[n - 1];
  tally.checked += n;
  tally.duplicates += dup;
  tally.notIncreasing += back;
}

/** Calls per second of `fn` over the inputs, round and round, for SECONDS. */
function timeCalls(fn, inputs) {
  let count = 0;
  let sink;
  const start = now();
  let elapsed = 0;
  do {
    for (let i = 0; i < inputs.length; i++) sink = fn(inputs[i]);
    count += inputs.length;
    elapsed = now() - start;
  } while (elapsed < SECONDS);
  if (sink === undefined) throw new Error('no result');
  return count / elapsed;
}

/**
 * The string forms, fixed width, on IDs of the wide layout: snowflake-c's
 * base32 (Crockford) and base62, and @sindresorhus/base62 (same alphabet,
 * 0-9A-Za-z; its shortest text padded to snowflake-c's 11 characters). No
 * npm package writes an integer in Crockford's base32, so base32 is ours
 * alone. Every peer's output is checked against snowflake-c's first: only
 * the same work is compared.
 */
function encodingContestants(ids, base62) {
  const texts = {};
  const list = [];
  for (const encoding of ['base32', 'base62']) {
    texts[encoding] = ids.map((id) => sfc.formatId(id, encoding));
    list.push(
      {
        encoding,
        op: 'format',
        name: 'snowflake-c',
        package: 'snowflake-c',
        call: `formatId(id, '${encoding}')`,
        fn: (id) => sfc.formatId(id, encoding),
        inputs: ids,
      },
      {
        encoding,
        op: 'parse',
        name: 'snowflake-c',
        package: 'snowflake-c',
        call: `parseId(text, '${encoding}')`,
        fn: (text) => sfc.parseId(text, encoding),
        inputs: texts[encoding],
      },
    );
  }
  if (floorAddon) {
    // The floor: the least a Node-API function does to turn an ID into a
    // string of the same length and back (benchmarks/node/floor).
    for (const encoding of ['base32', 'base62']) {
      const n = texts[encoding][0].length;
      list.push(
        {
          encoding,
          op: 'format',
          name: 'minimal binding (floor)',
          package: '-',
          call: `text(id, ${n})`,
          fn: (id) => floorAddon.text(id, n),
          inputs: ids,
          floor: true,
        },
        {
          encoding,
          op: 'parse',
          name: 'minimal binding (floor)',
          package: '-',
          call: 'id(text)',
          fn: (text) => floorAddon.id(text),
          inputs: texts[encoding],
          floor: true,
        },
      );
    }
  }
  const width = texts.base62[0].length;
  list.push(
    {
      encoding: 'base62',
      op: 'format',
      name: '@sindresorhus/base62',
      package: '@sindresorhus/base62',
      call: `encodeBigInt(id).padStart(${width}, '0')`,
      fn: (id) => base62.encodeBigInt(id).padStart(width, '0'),
      inputs: ids,
    },
    {
      encoding: 'base62',
      op: 'parse',
      name: '@sindresorhus/base62',
      package: '@sindresorhus/base62',
      call: 'decodeBigInt(text)',
      fn: (text) => base62.decodeBigInt(text),
      inputs: texts.base62,
    },
  );
  for (const c of list) {
    const want = c.op === 'format' ? texts[c.encoding] : ids;
    c.inputs.forEach((input, i) => {
      const got = c.fn(input);
      // The floor's output is its own: of the same type, and as long when text.
      const same = c.floor
        ? typeof got === typeof want[i] && (c.op === 'parse' || got.length === want[i].length)
        : got === want[i];
      if (!same) {
        throw new Error(`${c.name} ${c.call}: ${input} gives ${got}, snowflake-c ${want[i]}`);
      }
    });
  }
  return list;
}

/**
 * decode() on Discord IDs (@sapphire/snowflake's own layout): snowflake-c
 * native and WebAssembly, @sapphire/snowflake's deconstruct() and
 * snowflakify's destructure() (pure JavaScript, configured to the same
 * layout). Each gives the time and every field of each ID; every result is
 * checked against snowflake-c's first, so that only the same work is timed.
 * (nodejs-snowflake reads the time and the instance of an ID, not its
 * sequence: not the same work. simple-flakeid has no decode.)
 */
function decodeContestants(ids) {
  const layout = sfc.Layout.preset('discord');
  const ours = (r) => [BigInt(r.timeMs), r.fields.worker, r.fields.process, r.fields.seq];
  const sapphire = new Sapphire(BigInt(layout.epochMs));
  const snowflakify = new Snowflakify({
    fragmentArray: [
      new TimestampFragment(42, layout.epochMs),
      new WorkerFragment(5),
      new ProcessFragment(5),
      new SequenceFragment(12),
    ],
  });
  const list = [
    {
      name: 'snowflake-c',
      package: 'snowflake-c',
      call: "decode(id, Layout.preset('discord'))",
      fn: (id) => sfc.decode(id, layout),
      facts: ours,
    },
  ];
  if (wasm) {
    const wasmLayout = wasm.Layout.preset('discord');
    list.push({
      name: 'snowflake-c (wasm)',
      package: 'snowflake-c',
      call: "decode(id, Layout.preset('discord'))",
      fn: (id) => wasm.decode(id, wasmLayout),
      facts: ours,
    });
  }
  list.push(
    {
      name: '@sapphire/snowflake',
      package: '@sapphire/snowflake',
      call: 'deconstruct(id)',
      fn: (id) => sapphire.deconstruct(id),
      facts: (r) => [r.timestamp, Number(r.workerId), Number(r.processId), Number(r.increment)],
    },
    {
      name: 'snowflakify',
      package: 'snowflakify',
      call: 'destructure(id)',
      fn: (id) => snowflakify.destructure(id),
      facts: (r) => r.map((fragment) => fragment.value),
    },
  );
  for (const id of ids) {
    const want = list[0].facts(list[0].fn(id)).join();
    for (const c of list) {
      const got = c.facts(c.fn(id)).join();
      if (got !== want) {
        throw new Error(`${c.name} ${c.call}: ${id} gives ${got}, snowflake-c ${want}`);
      }
    }
  }
  return list.map((c) => ({ ...c, inputs: ids }));
}

/**
 * The classic layout with every ID kept: into one BigUint64Array (by nextId()
 * or nextIds(1000)), and into a JS Array; the kept IDs counted into `tally`.
 */
function timeClassicKept(kind, tally) {
  const g = new sfc.Generator(CLASSIC_KEPT);
  const n = Math.min(
    Math.floor(KEEP_MAX / BATCH) * BATCH,
    Math.max(4 * BATCH, Math.round((CLASSIC_LIMIT * SECONDS) / BATCH) * BATCH),
  );
  const start = now();
  let array;
  if (kind === 'typed') {
    for (let i = 0; i < n; i++) kept[i] = g.nextId();
  } else if (kind === 'batch') {
    for (let i = 0; i < n; i += BATCH) kept.set(g.nextIds(BATCH), i);
  } else {
    array = new Array(n);
    for (let i = 0; i < n; i++) array[i] = g.nextId();
  }
  const elapsed = now() - start;
  g.close();
  if (array) kept.set(array);
  tally.last = undefined; // a new generator each run
  check(tally, n);
  return n / elapsed;
}

/**
 * Duplicates among up to DUP_COUNT IDs issued back to back (at most 3 s of
 * them for slow generators), all kept and sorted.
 */
function duplicates(impl, useBatch) {
  const all = new BigUint64Array(DUP_COUNT);
  const start = now();
  let n = 0;
  while (n < DUP_COUNT && now() - start < 3) {
    const end = Math.min(n + 1000, DUP_COUNT);
    if (useBatch) {
      all.set(impl.batch(end - n), n);
      n = end;
    } else {
      for (; n < end; n++) all[n] = BigInt(impl.next());
    }
  }
  const ids = all.subarray(0, n);
  let notIncreasing = 0;
  for (let i = 1; i < n; i++) if (ids[i] <= ids[i - 1]) notIncreasing++;
  ids.sort();
  let dup = 0;
  for (let i = 1; i < n; i++) if (ids[i] === ids[i - 1]) dup++;
  return { checked: n, duplicates: dup, notIncreasing };
}

/** --only: ns per ID of the contestants named, and the ratios to the first. */
function focusedReport(results) {
  const ns = (r) => 1e9 / r.nextId;
  console.log(
    `\nNode ${process.version}, ${ROUNDS} interleaved rounds of ${SECONDS} s, medians, every ID kept\n`,
  );
  for (const r of results) {
    const samples = r.nextIdSamples.map((x) => (1e9 / x).toFixed(1)).join(' ');
    console.log(
      `${r.name.padEnd(36)}${ns(r).toFixed(1).padStart(7)} ns  x${(ns(results[0]) / ns(r)).toFixed(3)}  dups ${r.duplicates}/${r.checked}  [${samples}]`,
    );
  }
  if (JSON_PATH) {
    fs.writeFileSync(JSON_PATH, JSON.stringify({ node: process.version, results }, null, 2) + '\n');
    console.log(`\nwrote ${JSON_PATH} (a focused run: not for the report)`);
  }
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
  const impls = contestants.map((c) => {
    const impl = c.make();
    const tally = newTally();
    const batchTally = newTally();
    const next = keptRun(impl, false);
    const batch = keptRun(impl, Boolean(impl.batch));
    return {
      ...c,
      impl,
      tally,
      batchTally,
      next,
      batch,
      nextLength: runLength(next, tally),
      batchLength: runLength(batch, batchTally),
    };
  });
  const extras = !ONLY;
  // IDs of the wide layout, from the contestant holding it.
  const encodings = extras
    ? encodingContestants(
        Array.from(impls[0].impl.batch(4096)),
        (await import('@sindresorhus/base62')).default, // an ES module: its functions as `default`
      )
    : [];
  const sapphireIds = extras && contestants.find((c) => c.name === '@sapphire/snowflake').make();
  const decoders = extras
    ? decodeContestants(Array.from({ length: 4096 }, () => sapphireIds.next()))
    : [];
  const classicTally = newTally();
  const samples = {};
  const add = (key, v) => (samples[key] ||= []).push(v);

  for (let round = 0; round < ROUNDS; round++) {
    for (const c of impls) {
      add(`${c.name}|nextId`, c.nextLength / c.next(c.nextLength));
      check(c.tally, c.nextLength);
    }
    for (const c of impls) {
      add(`${c.name}|batch1000`, c.batchLength / c.batch(c.batchLength));
      check(c.batchTally, c.batchLength);
    }
    if (extras) {
      add('clock|Date.now', timeCallsOnly(Date.now));
      add('snowflake-c classic|kept-typed', timeClassicKept('typed', classicTally));
      add('snowflake-c classic|kept-batch', timeClassicKept('batch', classicTally));
      add('snowflake-c classic|kept-array', timeClassicKept('array', classicTally));
      for (const e of encodings) add(`${e.name}|${e.op}-${e.encoding}`, timeCalls(e.fn, e.inputs));
      for (const d of decoders) add(`${d.name}|decode`, timeCalls(d.fn, d.inputs));
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS}\r`);
  }
  process.stderr.write('\n');

  const results = impls.map((c) => {
    // Besides every timed run: IDs issued back to back and sorted.
    const dups = duplicates(c.impl, false);
    const batchDups = c.impl.batch ? duplicates(c.impl, true) : undefined;
    const tallies = [dups, c.tally, c.batchTally, ...(batchDups ? [batchDups] : [])];
    if (c.name === 'snowflake-c (twitter)') tallies.push(classicTally);
    const sum = (key) => tallies.reduce((a, t) => a + t[key], 0);
    return {
      name: c.name,
      layout: c.layout,
      nextId: median(samples[`${c.name}|nextId`]),
      batch1000: median(samples[`${c.name}|batch1000`]),
      nextIdSamples: samples[`${c.name}|nextId`],
      batch1000Samples: samples[`${c.name}|batch1000`],
      nativeBatch: Boolean(c.impl.batch),
      reference: Boolean(c.reference),
      checked: sum('checked'),
      duplicates: sum('duplicates'),
      notIncreasing: sum('notIncreasing'),
      keptPerRun: { nextId: c.nextLength, batch1000: c.batchLength },
    };
  });
  const M = (x) => (x / 1e6).toFixed(2).padStart(8);
  if (!extras) {
    focusedReport(results);
    return;
  }
  const clockReads = median(samples['clock|Date.now']);
  const classic = {
    limit: CLASSIC_LIMIT,
    keptTyped: median(samples['snowflake-c classic|kept-typed']),
    keptBatch: median(samples['snowflake-c classic|kept-batch']),
    keptArray: median(samples['snowflake-c classic|kept-array']),
    samples: {
      keptTyped: samples['snowflake-c classic|kept-typed'],
      keptBatch: samples['snowflake-c classic|kept-batch'],
      keptArray: samples['snowflake-c classic|kept-array'],
    },
  };

  console.log(
    `\nNode ${process.version}, ${os.cpus()[0].model}, ${ROUNDS} interleaved rounds of ${SECONDS} s, medians, million IDs/s\n`,
  );
  console.log(
    `${'generator'.padEnd(22)}${'nextId'.padStart(8)}  ${'1000/call'.padStart(9)}  ${'checked'.padStart(8)}  ${'dups'.padStart(6)}  ${'non-incr'.padStart(8)}  layout`,
  );
  for (const r of results) {
    console.log(
      `${r.name.padEnd(22)}${M(r.nextId)}  ${M(r.batch1000)}${r.nativeBatch ? '*' : ' '} ${String(r.checked).padStart(8)}  ${String(r.duplicates).padStart(6)}  ${String(r.notIncreasing).padStart(8)}  ${r.layout}`,
    );
  }
  console.log(
    `  * nextIds(1000): one native call per 1000 IDs, each kept; others: a loop of next() calls`,
  );
  console.log(
    `  dups / non-incr: among every ID of every timed run, and ${DUP_COUNT} more issued back to back`,
  );
  console.log(
    `  reference: Date.now() alone ${M(clockReads).trim()} M calls/s, the ceiling of any generator that reads the clock for each ID\n`,
  );
  console.log(
    `snowflake-c, classic layout (twitter, limit ${M(CLASSIC_LIMIT).trim()} M/s), every ID kept:`,
  );
  console.log(
    `  nextId() into a BigUint64Array  ${M(classic.keptTyped)}  (${((100 * classic.keptTyped) / CLASSIC_LIMIT).toFixed(1)} % of the limit)`,
  );
  console.log(
    `  nextIds(1000) into one array    ${M(classic.keptBatch)}  (${((100 * classic.keptBatch) / CLASSIC_LIMIT).toFixed(1)} % of the limit)`,
  );
  console.log(
    `  nextId() into a JS Array        ${M(classic.keptArray)}  (${((100 * classic.keptArray) / CLASSIC_LIMIT).toFixed(1)} % of the limit; GC of kept BigInts)`,
  );

  console.log('\nstring forms, fixed width, IDs of the wide layout: million IDs per second');
  const encodingResults = encodings.map((e) => ({
    encoding: e.encoding,
    op: e.op,
    name: e.name,
    package: e.package,
    call: e.call,
    layout: WIDE.layout,
    median: median(samples[`${e.name}|${e.op}-${e.encoding}`]),
    samples: samples[`${e.name}|${e.op}-${e.encoding}`],
    checked: e.inputs.length,
  }));
  for (const r of encodingResults) {
    console.log(`  ${`${r.op} ${r.encoding}`.padEnd(14)}${M(r.median)}  ${r.name}: ${r.call}`);
  }

  console.log("\ndecode, Discord IDs (@sapphire/snowflake's layout): million IDs per second");
  const decodeResults = decoders.map((d) => ({
    name: d.name,
    package: d.package,
    call: d.call,
    layout: 'discord',
    median: median(samples[`${d.name}|decode`]),
    samples: samples[`${d.name}|decode`],
    checked: d.inputs.length,
  }));
  for (const r of decodeResults) console.log(`  ${M(r.median)}  ${r.name}: ${r.call}`);
  if (!wasm) console.log(`\n(no WebAssembly row: ${wasmMissing}; run bindings/wasm/build)`);
  if (!floorAddon) console.log(`\n(no floor row: ${floorMissing}; benchmarks/run builds it)`);

  const ours = results[0];
  const oursClassic = results[1];
  const peers = results.filter((r) => !r.name.startsWith('snowflake-c') && !r.reference);
  const cleanPeers = peers.filter((r) => r.duplicates === 0);
  const fastest = (list) =>
    list.reduce((a, r) => (r.nextId > a.nextId ? r : a), {
      nextId: 0,
      name: 'none',
    });
  // Peers as published (their own default layout), and peers reconfigured
  // to the same wide layout as snowflake-c (where they can be).
  const fastestPeer = fastest(cleanPeers.filter((r) => !r.name.endsWith('(wide)')));
  const fastestWide = fastest(cleanPeers.filter((r) => r.name.endsWith('(wide)')));
  const targets = [
    [
      `nextId() >= 3x the fastest peer without duplicates, default layouts (${fastestPeer.name})`,
      ours.nextId >= 3 * fastestPeer.nextId,
      `${(ours.nextId / fastestPeer.nextId).toFixed(2)}x`,
    ],
    [
      `nextId() >= 3x the fastest peer without duplicates, wide layout (${fastestWide.name})`,
      ours.nextId >= 3 * fastestWide.nextId,
      `${(ours.nextId / fastestWide.nextId).toFixed(2)}x`,
    ],
    ['nextId() >= 15 M IDs/s, every ID kept', ours.nextId >= 15e6, `${M(ours.nextId).trim()} M/s`],
    ['nextIds(1000) >= 150 M IDs/s', ours.batch1000 >= 150e6, `${M(ours.batch1000).trim()} M/s`],
    [
      'classic layout >= 95 % of 4.096 M/s, all kept',
      Math.max(classic.keptTyped, classic.keptBatch) >= 0.95 * CLASSIC_LIMIT,
      `${((100 * Math.max(classic.keptTyped, classic.keptBatch)) / CLASSIC_LIMIT).toFixed(1)} %`,
    ],
    [
      'snowflake-c issued no duplicates, strictly increasing',
      [ours, oursClassic].every((r) => r.duplicates === 0 && r.notIncreasing === 0),
      `${ours.duplicates + oursClassic.duplicates}`,
    ],
  ];
  console.log('\ntargets:');
  for (const [what, ok, got] of targets)
    console.log(`  ${ok ? 'met   ' : 'MISSED'}  ${what}: ${got}`);
  const peersWithDups = peers.filter((r) => r.duplicates > 0);
  if (peersWithDups.length) {
    console.log(
      `\npeers that issued duplicates: ${peersWithDups.map((r) => `${r.name} (${r.duplicates})`).join(', ')}`,
    );
  }

  if (JSON_PATH) {
    const out = {
      node: process.version,
      cpu: os.cpus()[0].model,
      date: new Date().toISOString(),
      rounds: ROUNDS,
      secondsPerSample: SECONDS,
      duplicateSample: DUP_COUNT,
      unit: 'IDs per second (median)',
      results,
      clockReadsPerSecond: clockReads,
      classic,
      encodings: encodingResults,
      decode: decodeResults,
      targets: targets.map(([what, met, got]) => ({ what, met, got })),
    };
    fs.writeFileSync(JSON_PATH, JSON.stringify(out, null, 2) + '\n');
    console.log(`\nwrote ${JSON_PATH}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
