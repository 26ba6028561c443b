'use strict';

// The WebAssembly module (bindings/wasm/exports.c) behind the native addon's
// interface (bindings/node/addon.cc): the same functions, the same
// conversions of JavaScript values and the same messages, so that api.js
// runs over either. Every decision about layouts, IDs and time is the core's.
//
//   imports(memoryOf, webCrypto)  the module's imports: the host's clocks
//                            (Date.now(), performance.now(), read at each
//                            call), webCrypto.getRandomValues (default:
//                            globalThis.crypto), and the four WASI functions
//                            its C library asks for
//   createBinding(instance)  the binding over an instance made with them

const SYNC_WAIT_US = 10000;
const CHUNK = 4096; // IDs per call of the core in a batch
/** Reads of a clock that does not move before a wait calls it frozen. */
const FROZEN_READS = 200000;

const TYPE = {
  NONE: 0,
  BOOL: 1,
  INT: 2,
  UINT: 3,
  DOUBLE: 4,
  TEXT: 5,
  LIST: 9,
  MAP: 10,
};
// The core's fixed sfc_status numbers (snowflake_c.h).
const STATUS = { OK: 0, INVALID_ARGUMENT: 2, CLOCK_MOVED_BACKWARDS: 3, WAIT: 8, OUT_OF_MEMORY: 9 };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const u64 = (x) => BigInt.asUintN(64, x);

function monotonicMs() {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/** The host's clocks in µs, read anew at each call: a frozen clock stays frozen. */
function wallUs() {
  return BigInt(Math.trunc(Date.now() * 1000));
}
function monotonicUs() {
  return BigInt(Math.trunc(monotonicMs() * 1000));
}

/**
 * The module's imports. `memoryOf()` gives the instance's memory once it
 * exists (the imports are made before it).
 */
function imports(memoryOf, webCrypto = globalThis.crypto) {
  const random = (ptr, n) => {
    if (!webCrypto || typeof webCrypto.getRandomValues !== 'function') return 0;
    const bytes = new Uint8Array(memoryOf().buffer, ptr >>> 0, n >>> 0);
    for (let i = 0; i < bytes.length; i += 65536) {
      webCrypto.getRandomValues(bytes.subarray(i, i + 65536));
    }
    return 1;
  };
  return {
    snowflake_c: { wall_us: wallUs, monotonic_us: monotonicUs, random },
    // What the C library asks for: no environment (node value 'env:NAME'
    // finds nothing, and says so), randomness, and an exit that is an error.
    wasi_snapshot_preview1: {
      environ_sizes_get(countPtr, sizePtr) {
        const view = new DataView(memoryOf().buffer);
        view.setUint32(countPtr >>> 0, 0, true);
        view.setUint32(sizePtr >>> 0, 0, true);
        return 0;
      },
      environ_get() {
        return 0;
      },
      random_get(ptr, n) {
        return random(ptr, n) === 1 ? 0 : 52; // ENOSYS
      },
      proc_exit(code) {
        throw new Error(`snowflake-c: the WebAssembly core exited (${code}).`);
      },
    },
  };
}

/** A value as JavaScript would print it, for messages: 0.1 stays "0.1". */
function shown(value) {
  let text;
  try {
    text = String(value);
  } catch {
    text = typeof value;
  }
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

/** C's %.17g. */
function g17(d) {
  if (Number.isNaN(d)) return 'nan';
  if (!Number.isFinite(d)) return d < 0 ? '-inf' : 'inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(d)));
  const strip = (s) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);
  if (exp < -4 || exp >= 17) {
    const [m, e] = d.toExponential(16).split('e');
    const n = Number(e);
    return `${strip(m)}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return strip(d.toFixed(Math.max(0, 16 - exp)));
}

const isSafeInteger = (d) => Number.isSafeInteger(d);

/** A table name in JavaScript's casing: "max_wait_ms" → "maxWaitMs". */
const camel = (name) => name.replace(/_+([^_])/g, (_, c) => c.toUpperCase()).replace(/_+$/, '');

function createBinding(instance) {
  const w = instance.exports;
  const memory = w.memory;
  if (typeof w._initialize === 'function') w._initialize();

  let classes = {};
  const statusNames = [];

  // ---- Memory and texts ----

  function cstring(ptr) {
    const p = ptr >>> 0;
    if (p === 0) return null;
    const bytes = new Uint8Array(memory.buffer, p);
    const end = bytes.indexOf(0);
    return decoder.decode(bytes.subarray(0, end));
  }
  function textAt(ptr, len) {
    return decoder.decode(new Uint8Array(memory.buffer, ptr >>> 0, len >>> 0));
  }

  /** `text` as UTF-8 in the module's memory, NUL-terminated: [ptr, byte length]. */
  function put(text) {
    const bytes = encoder.encode(text);
    const ptr = w.alloc(bytes.length + 1) >>> 0;
    if (ptr === 0) throw makeError(STATUS.OUT_OF_MEMORY, 'out of memory');
    const view = new Uint8Array(memory.buffer, ptr, bytes.length + 1);
    view.set(bytes);
    view[bytes.length] = 0;
    return [ptr, bytes.length];
  }

  /** Runs fn with memory that lives until it returns: `keep(text)` puts a text. */
  function scoped(fn) {
    const held = [];
    const keep = (text) => {
      const r = put(text);
      held.push(r[0]);
      return r;
    };
    try {
      return fn(keep);
    } finally {
      for (const p of held) w.free(p);
    }
  }

  // ---- Errors ----

  function makeError(status, message) {
    const cls = classes[statusNames[status]];
    if (cls) return new cls(message);
    const error = new Error(message);
    error.code = statusNames[status] ?? 'Unknown';
    return error;
  }
  function fail(status) {
    return makeError(status, cstring(w.error_message()));
  }
  function invalid(message) {
    return makeError(STATUS.INVALID_ARGUMENT, message);
  }
  function check(status) {
    if (status !== STATUS.OK) throw fail(status);
  }

  // ---- Conversions (addon.cc's, message for message) ----

  function toText(value, what, keep) {
    if (typeof value !== 'string') throw invalid(`${what} must be a string.`);
    const [ptr, len] = keep(value);
    const [whatPtr] = keep(what);
    check(w.text_check(whatPtr, ptr, len));
    return [ptr, len];
  }

  function parseDec(text, keep) {
    const [ptr, len] = keep(text);
    const st = w.id_parse(ptr, len, 0);
    return st === STATUS.OK ? { id: u64(w.out_u()) } : { status: st };
  }

  function toU64(value, what) {
    switch (typeof value) {
      case 'bigint':
        if (value < 0n || value > UINT64_MAX) {
          throw invalid(`${what} is out of range: it must be between 0 and 2^64 - 1.`);
        }
        return value;
      case 'number':
        if (!isSafeInteger(value) || value < 0) {
          throw invalid(
            `${what} (${shown(value)}) is not a non-negative safe integer: a Number holds ` +
              'integers exactly only up to 2^53 - 1. Pass a bigint (123n) or a decimal string.',
          );
        }
        return BigInt(value);
      case 'string':
        return scoped((keep) => {
          const r = parseDec(value, keep);
          if (r.status !== undefined) throw fail(r.status);
          return r.id;
        });
      default:
        throw invalid(`${what} must be a bigint, a decimal string or a safe integer.`);
    }
  }

  function toI64(value, what) {
    if (typeof value === 'bigint') {
      if (value < INT64_MIN || value > INT64_MAX) {
        throw invalid(`${what} is out of the signed 64-bit range.`);
      }
      return value;
    }
    if (typeof value === 'number') {
      if (!isSafeInteger(value)) {
        throw invalid(
          `${what} (${shown(value)}) is not a safe integer: pass a bigint or an integer ` +
            'Number up to 2^53 - 1.',
        );
      }
      return BigInt(value);
    }
    throw invalid(`${what} must be a bigint or an integer Number.`);
  }

  /** A field value: a Number up to 53 bits wide, a bigint beyond. */
  const fieldValue = (bits, x) => (bits <= 53 ? Number(x) : x);

  const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';

  /**
   * A JavaScript value as the core takes one: [type, i, u, d, textPtr, len].
   * A string is put with `keep`, which must outlive the call it is for.
   */
  function toValue(value, keep) {
    switch (typeof value) {
      case 'undefined':
        return [TYPE.NONE, 0n, 0n, 0, 0, 0];
      case 'boolean':
        return [TYPE.BOOL, value ? 1n : 0n, 0n, 0, 0, 0];
      case 'number':
        return isSafeInteger(value)
          ? [TYPE.INT, BigInt(value), 0n, value, 0, 0]
          : [TYPE.DOUBLE, 0n, 0n, value, 0, 0];
      case 'bigint':
        if (value >= INT64_MIN && value <= INT64_MAX) return [TYPE.INT, value, 0n, 0, 0, 0];
        if (value >= 0n && value <= UINT64_MAX) return [TYPE.UINT, 0n, value, 0, 0, 0];
        return [TYPE.DOUBLE, 0n, 0n, Number(value), 0, 0];
      case 'string': {
        const [ptr, len] = keep(value);
        return [TYPE.TEXT, 0n, 0n, 0, ptr, len];
      }
      default:
        if (value === null) return [TYPE.NONE, 0n, 0n, 0, 0, 0];
        return [Array.isArray(value) ? TYPE.LIST : TYPE.MAP, 0n, 0n, 0, 0, 0];
    }
  }

  function fromValue(wide) {
    switch (w.value_type()) {
      case TYPE.BOOL:
        return w.value_i() !== 0n;
      case TYPE.INT:
        return Number(w.value_i());
      case TYPE.UINT: {
        const u = u64(w.value_u());
        return wide ? u : Number(u);
      }
      case TYPE.DOUBLE:
        return w.value_d();
      case TYPE.TEXT: {
        const ptr = w.value_text() >>> 0;
        return ptr === 0 ? null : textAt(ptr, w.value_len());
      }
      default:
        return null;
    }
  }

  // ---- Layouts ----

  class LayoutHandle {
    constructor(ptr) {
      this.ptr = ptr;
    }
  }
  // A layout lives in the module's memory until its handle is collected.
  // A runtime without FinalizationRegistry (Workers before their 2025
  // compatibility dates) never says when: there, equal layouts share one
  // copy, kept for the instance's life, so that the memory grows with the
  // distinct layouts a program uses, never with its calls.
  const layouts =
    typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry((ptr) => w.layout_free(ptr))
      : undefined;
  const sharedLayouts = new Map(); // `${spec}@${epochMs}` → pointer
  let keyFacts;

  function layoutHandle(ptr) {
    if (layouts !== undefined) {
      const handle = new LayoutHandle(ptr);
      layouts.register(handle, ptr);
      return handle;
    }
    keyFacts ??= rows(w.layout_fact_name, (i, name) => name).flatMap((name, i) =>
      name === 'spec' || name === 'epoch_ms' ? [i] : [],
    );
    const key = keyFacts
      .map((i) => {
        check(w.layout_fact(ptr, i));
        return String(fromValue(true));
      })
      .join('@');
    const shared = sharedLayouts.get(key);
    if (shared === undefined) {
      sharedLayouts.set(key, ptr);
      return new LayoutHandle(ptr);
    }
    w.layout_free(ptr);
    return new LayoutHandle(shared);
  }

  function getLayout(value) {
    if (!(value instanceof LayoutHandle)) throw invalid('expected a layout handle.');
    return value.ptr;
  }

  function optionalText(value, what, keep) {
    if (value === undefined || value === null) return 0;
    return toText(value, what, keep)[0];
  }

  function layoutResolve(held, preset, spec, epoch) {
    const heldPtr = held === undefined ? 0 : getLayout(held);
    const ptr =
      scoped((keep) =>
        w.layout_resolve(
          heldPtr,
          optionalText(preset, 'preset', keep),
          optionalText(spec, 'layout', keep),
          optionalText(epoch, 'epoch', keep),
        ),
      ) >>> 0;
    if (ptr === 0) throw fail(w.error_status());
    return layoutHandle(ptr);
  }

  function rows(nameAt, fill) {
    const out = [];
    for (let i = 0; ; i++) {
      const name = cstring(nameAt(i));
      if (name === null) return out;
      out.push(fill(i, name));
    }
  }

  function layoutDescribe(handle) {
    const l = getLayout(handle);
    const out = {};
    rows(w.layout_fact_name, (i, name) => {
      if (w.layout_fact_type(i) !== TYPE.LIST) {
        if (w.layout_fact(l, i) !== STATUS.OK) {
          throw invalid('the layout facts table is broken.');
        }
        out[camel(name)] = fromValue(true);
        return;
      }
      const fields = [];
      for (let f = 0; f < w.layout_field_count(l); f++) {
        const field = {};
        rows(w.field_fact_name, (j, fname) => {
          if (w.field_fact(l, f, j) !== STATUS.OK) {
            throw invalid('the field facts table is broken.');
          }
          field[camel(fname)] = fromValue(true);
        });
        fields.push(field);
      }
      out[camel(name)] = fields;
    });
    return out;
  }

  // ---- Tables ----

  function statuses() {
    return rows(w.status_name, (i, name) => ({
      status: w.status_number(i),
      name,
      message: cstring(w.status_message(i)),
      isError: w.status_is_error(i) !== 0,
    }));
  }
  for (const row of statuses()) statusNames[row.status] = row.name;

  function options() {
    return rows(w.option_name, (i, name) => {
      const type = cstring(w.option_type(i));
      const row = { name: camel(name), type, default: cstring(w.option_default(i)) };
      if (type === 'duration') {
        row.min = Number(w.option_min(i));
        row.max = Number(w.option_max(i));
      }
      const choices = rows(
        (j) => w.option_choice(i, j),
        (j, choice) => choice,
      );
      if (choices.length > 0 || w.option_choice(i, 0) !== 0) row.choices = choices;
      row.doc = cstring(w.option_doc(i));
      return row;
    });
  }

  function presets() {
    const out = [];
    for (let i = 0; i < w.preset_count(); i++) {
      const name = cstring(w.preset_at(i));
      if (name === null) throw invalid('preset table out of range.');
      out.push({ name, spec: cstring(w.out_key()), epochMs: Number(w.out_i()) });
    }
    return out;
  }

  function instantParse(text) {
    return scoped((keep) => {
      const [ptr] = toText(text, 'time', keep);
      check(w.epoch_parse(ptr));
      return Number(w.out_i());
    });
  }

  // ---- String forms ----

  function toEncoding(value, keep) {
    const [ptr, len] = toText(value, 'encoding', keep);
    const e = w.encoding_by_name(ptr, len);
    if (e < 0) throw fail(w.error_status());
    return e;
  }

  function parseAs(value, encoding, keep) {
    if (typeof value !== 'string') throw invalid('an encoded ID must be a string.');
    const [ptr, len] = keep(value);
    check(w.id_parse(ptr, len, encoding));
    return u64(w.out_u());
  }

  function formatId(id, encoding, shortest) {
    const x = toU64(id, 'id');
    return scoped((keep) => {
      const e = toEncoding(encoding, keep);
      const n = w.id_format(x, e, shortest ? 1 : 0);
      return textAt(w.text(), n);
    });
  }

  function parseId(text, encoding) {
    return scoped((keep) => parseAs(text, toEncoding(encoding, keep), keep));
  }

  // ---- Decode, encode, range ----

  /** The words of decode's `out` (addon.cc's DecodeSlots), as 32-bit halves. */
  let lastOut;
  let lastOutWords;
  function decodeWords(out, fields) {
    if (out !== lastOut) {
      if (!(out instanceof ArrayBuffer)) {
        throw invalid(`decode needs an ArrayBuffer of ${3 + fields} 64-bit words.`);
      }
      lastOutWords = new Uint32Array(out, 0, out.byteLength >>> 2);
      lastOut = out;
    }
    if (lastOutWords.length < 2 * (3 + fields)) {
      throw invalid(`decode needs an ArrayBuffer of ${3 + fields} 64-bit words.`);
    }
    return lastOutWords;
  }

  /** The module's result words (exports.c's `decoded`), as 32-bit halves. */
  let decodedBuffer;
  let decodedWords;
  function decodedResult() {
    if (memory.buffer !== decodedBuffer) {
      decodedBuffer = memory.buffer;
      decodedWords = new Uint32Array(decodedBuffer, w.decoded() >>> 0);
    }
    return decodedWords;
  }

  // decode(handle, id, encoding, out): the parts in `out`, as the addon
  // writes them (the words are copied as integers: a double's NaN bits
  // could change on the way through a Number).
  function decode(handle, id, encoding, out) {
    const l = getLayout(handle);
    const x =
      encoding === undefined
        ? toU64(id, 'id')
        : scoped((keep) => parseAs(id, toEncoding(encoding, keep), keep));
    const fields = w.layout_field_count(l);
    const words = decodeWords(out, fields);
    check(w.decode(l, x));
    const result = decodedResult();
    for (let i = 0; i < 2 * (3 + fields); i++) words[i] = result[i];
  }

  function partsJson(handle, id) {
    check(w.parts_json(getLayout(handle), toU64(id, 'id')));
    return textAt(w.text(), w.out_len());
  }

  function partsTime(handle, id) {
    check(w.parts_time(getLayout(handle), toU64(id, 'id')));
    return textAt(w.iso(), w.out_len());
  }

  function toFieldValue(value, name, keep) {
    switch (typeof value) {
      case 'bigint':
        if (value < INT64_MIN) return INT64_MIN;
        return value > INT64_MAX ? INT64_MAX : value;
      case 'string': {
        toText(value, name, keep);
        const r = parseDec(value, keep);
        if (r.status !== undefined) {
          const bytes = encoder.encode(value).subarray(0, 40);
          throw invalid(
            `field '${name}' must be a decimal integer (digits only), not '${decoder.decode(bytes)}'.`,
          );
        }
        return r.id > INT64_MAX ? INT64_MAX : r.id;
      }
      case 'number':
        if (!isSafeInteger(value)) {
          throw invalid(
            `field '${name}' (${g17(value)}) is not a safe integer: a Number holds integers ` +
              'exactly only up to 2^53 - 1. Pass a bigint or a decimal string.',
          );
        }
        return BigInt(value);
      default:
        throw invalid(`field '${name}' must be a bigint, a decimal string or a safe integer.`);
    }
  }

  function keysOf(object) {
    const keys = [];
    for (const key in object) keys.push(key);
    return keys;
  }

  function encode(handle, timeUs, fields) {
    const l = getLayout(handle);
    const time = toI64(timeUs, 'time');
    if (!isObject(fields)) throw invalid('fields must be an object of field values by name.');
    return scoped((keep) => {
      w.list_clear();
      for (const key of keysOf(fields)) {
        const [namePtr] = toText(key, 'field name', keep);
        check(w.encode_add(namePtr, toFieldValue(fields[key], key, keep)));
      }
      check(w.encode(l, time));
      return u64(w.out_u());
    });
  }

  function range(handle, t0, t1) {
    const l = getLayout(handle);
    check(w.range(l, toI64(t0, 'start time'), toI64(t1, 'end time')));
    return [u64(w.out_u()), u64(w.out_u2())];
  }

  // ---- Generators ----

  // close() frees a generator, and so does the collection of its handle
  // where the runtime has a FinalizationRegistry (elsewhere close() is the
  // only way).
  const generators =
    typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry((box) => {
          if (box.gen !== 0) w.generator_free(box.gen);
        })
      : undefined;

  function setNode(given, keep) {
    if (given === undefined || given === null) return;
    const add = (namePtr, value) => {
      const [type, i, u, d, t, len] = toValue(value, keep);
      check(w.node_add(namePtr, type, i, u, d, t, len));
    };
    if (!isObject(given) || Array.isArray(given)) {
      add(0, given);
      return;
    }
    for (const key of keysOf(given)) {
      const [namePtr] = toText(key, 'node field name', keep);
      add(namePtr, given[key]);
    }
  }

  function toIdArray(value) {
    if (!(value instanceof BigUint64Array)) throw invalid('expected a BigUint64Array.');
    return value;
  }

  function withFilled(error, filled) {
    error.filled = filled;
    return error;
  }

  function generatorNew(handle, node, opts) {
    const l = getLayout(handle);
    if (!isObject(opts)) throw invalid('options must be an object.');
    const gen =
      scoped((keep) => {
        w.options_clear();
        setNode(node, keep);
        for (const key of keysOf(opts)) {
          const [namePtr, nameLen] = toText(key, 'option name', keep);
          const [type, i, u, d, t, len] = toValue(opts[key], keep);
          check(w.options_set(namePtr, nameLen, type, i, u, d, t, len));
        }
        return w.generator_new(l);
      }) >>> 0;
    if (gen === 0) throw fail(w.error_status());

    // JavaScript may run inside a call before it is done with the generator
    // (the clock imports the core calls, a wait's reads of the clock, a
    // BigUint64Array subclass's methods, a setter that stats() meets) and
    // close it there: `calls` counts the calls under way, and while there
    // are any close() only closes; the last call out frees.
    const box = { gen, calls: 0, closed: false };
    const leave = () => {
      if (--box.calls === 0 && box.closed && box.gen !== 0) {
        w.generator_free(box.gen);
        box.gen = 0;
      }
    };
    const unitUs = Number(describeUnit(l));
    const syncLimitUs = unitUs > SYNC_WAIT_US ? unitUs : SYNC_WAIT_US;
    const fieldBits = new Map();
    for (let i = 0; i < w.layout_field_count(l); i++) {
      fieldBits.set(i, w.layout_field_bits(l, i));
    }

    const live = () => {
      check(w.generator_check(box.closed ? 0 : box.gen));
      return box.gen;
    };

    // Waits up to one tick (at least 10 ms) by spinning on the host's
    // clock: an instance cannot sleep. A clock that does not move at all
    // (a Worker's between I/O) would never get there: an error, never a
    // hang and never a repeat.
    function syncWait(waitUs) {
      if (waitUs > syncLimitUs) {
        return makeError(
          STATUS.CLOCK_MOVED_BACKWARDS,
          `the generator must wait ${waitUs} us for the clock to catch up, longer than a ` +
            `synchronous call may block the event loop (${syncLimitUs} us): use ` +
            'nextIdAsync() / nextIdsAsync(), or retry later.',
        );
      }
      const start = monotonicMs();
      const deadline = start + waitUs / 1000;
      let now = start;
      let still = 0;
      while (now < deadline) {
        const next = monotonicMs();
        still = next === now ? still + 1 : 0;
        now = next;
        if (still >= FROZEN_READS) {
          return makeError(
            STATUS.CLOCK_MOVED_BACKWARDS,
            `the generator must wait ${waitUs} us for the clock to move, but the host's ` +
              "clock is frozen (as a Worker's is until it does I/O): it issued every ID " +
              'that max_drift lets it borrow ahead of the clock. Use nextIdAsync() / ' +
              'nextIdsAsync(), which wait with timers, or a larger maxDrift.',
          );
        }
      }
      return undefined;
    }

    function next() {
      box.calls++;
      try {
        const g = box.gen; // 0 once freed, which the core answers "closed"
        let st = w.next_now(g);
        while (st !== STATUS.OK) {
          if (st !== STATUS.WAIT) throw fail(st);
          const error = syncWait(Number(w.out_wait()));
          if (error) throw error;
          st = w.next_now(g);
        }
        return u64(w.out_u());
      } finally {
        leave();
      }
    }

    /** fn() as a call under way. */
    function held(fn) {
      box.calls++;
      try {
        return fn();
      } finally {
        leave();
      }
    }

    // Fills out[offset..] with the core's calls on chunks of a buffer in the
    // module's memory; stops at the first wait. [filled, status, waitUs].
    function fill(out, offset, now) {
      const g = live();
      const want = out.length - offset;
      const chunk = Math.min(CHUNK, Math.max(want, 1));
      const buf = w.alloc(chunk * 8) >>> 0;
      if (buf === 0) throw makeError(STATUS.OUT_OF_MEMORY, 'out of memory');
      let filled = 0;
      try {
        while (filled < want) {
          const n = Math.min(chunk, want - filled);
          const st = now === undefined ? w.next_ids_now(g, buf, n) : w.next_ids_at(g, now, buf, n);
          const got = w.out_len() >>> 0;
          out.set(new BigUint64Array(memory.buffer, buf, got), offset + filled);
          filled += got;
          if (st === STATUS.WAIT) return [filled, st, Number(w.out_wait())];
          if (st !== STATUS.OK) throw withFilled(fail(st), filled);
        }
        return [filled, STATUS.OK, 0];
      } finally {
        w.free(buf);
      }
    }

    const methods = {
      next,
      slot: next,
      nextString() {
        live();
        return String(next());
      },
      nextIds(value) {
        live();
        const out = toIdArray(value);
        held(() => {
          let filled = 0;
          while (filled < out.length) {
            let got;
            let st;
            let waitUs;
            try {
              [got, st, waitUs] = fill(out, filled, undefined);
            } catch (error) {
              if (typeof error.filled === 'number') error.filled += filled;
              throw error;
            }
            filled += got;
            if (st === STATUS.WAIT) {
              const error = syncWait(waitUs);
              if (error) throw withFilled(error, filled);
            }
          }
        });
      },
      nextAt(now) {
        return held(() => {
          const g = live();
          const st = now === undefined ? w.next_now(g) : w.next_at(g, toI64(now, 'nowUs'));
          if (st === STATUS.OK) return u64(w.out_u());
          if (st === STATUS.WAIT) return Number(w.out_wait());
          throw fail(st);
        });
      },
      fillAt(now, value, offsetValue) {
        live();
        const out = toIdArray(value);
        const offset = toU64(offsetValue, 'offset');
        if (offset > BigInt(out.length)) throw invalid('offset is past the end of the array.');
        const at = now === undefined ? undefined : toI64(now, 'nowUs');
        const [got, st, waitUs] = held(() => fill(out, Number(offset), at));
        return [got, st === STATUS.WAIT ? waitUs : 0];
      },
      nowUs() {
        return held(() => w.now_us(live()));
      },
      // Read whole before any property is set: a setter on Object.prototype
      // would otherwise run between the reads of the module's result slots,
      // which another call may overwrite (fromEntries sets none).
      stats() {
        return held(() => {
          w.stats_read(live());
          const entries = rows(w.stats_fact_name, (i, name) => {
            if (w.stats_fact_type(i) !== TYPE.MAP) {
              if (w.stats_fact(i) !== STATUS.OK) throw invalid('the stats table is broken.');
              return [camel(name), fromValue(false)];
            }
            const map = [];
            for (let j = 0; w.stats_entry(i, j) !== 0; j++) {
              const key = cstring(w.out_key());
              const index = scoped((keep) => w.layout_field_index(l, keep(key)[0]));
              map.push([
                key,
                w.value_type() === TYPE.UINT && index >= 0
                  ? fieldValue(fieldBits.get(index), u64(w.value_u()))
                  : fromValue(false),
              ]);
            }
            return [camel(name), Object.fromEntries(map)];
          });
          return Object.fromEntries(entries);
        });
      },
      close() {
        if (box.closed) return;
        box.closed = true;
        if (box.calls === 0) {
          w.generator_free(box.gen);
          box.gen = 0;
        } else {
          w.generator_close(box.gen);
        }
      },
    };
    const warning = cstring(w.generator_warning(gen));
    if (warning !== null) methods.warning = warning;
    generators?.register(methods, box);
    return methods;
  }

  /** generatorNext(slot): a generator's slot here is its next() itself. */
  function generatorNext(slot) {
    return slot();
  }

  function describeUnit(l) {
    for (let i = 0; ; i++) {
      const name = cstring(w.layout_fact_name(i));
      if (name === null) return SYNC_WAIT_US;
      if (name === 'unit_us') {
        check(w.layout_fact(l, i));
        return fromValue(true);
      }
    }
  }

  function setErrorClasses(kinds) {
    if (!isObject(kinds)) throw invalid('expected the error classes by kind name.');
    for (const row of statuses()) {
      if (!row.isError) continue;
      if (typeof kinds[row.name] !== 'function') throw invalid(`no error class for ${row.name}.`);
    }
    classes = { ...kinds };
  }

  return {
    statuses,
    options,
    presets,
    layoutResolve,
    layoutDescribe,
    instantParse,
    decode,
    partsJson,
    partsTime,
    formatId,
    parseId,
    encode,
    range,
    generatorNew,
    generatorNext,
    setErrorClasses,
    version: cstring(w.version()),
    kind: 'wasm',
  };
}

const wasmBinding = { imports, createBinding };

module.exports = wasmBinding;
