'use strict';

// snowflake-c's JavaScript API over a binding: the native addon (index.js)
// or the WebAssembly module (wasm/). Layout parsing, generation, decoding,
// the canonical JSON and every rule about options, node values and the
// preset/layout/epoch trio live in the core; this file converts types,
// wraps the results in classes and waits with the host's timers.
//
// This file is the one contract of both backends: it checks every argument
// and writes every message of its own, so that the native addon
// (bindings/node/addon.cc) and the WebAssembly glue (wasm/binding.js) only
// convert values that are already right, call the core and throw its errors.
//
// createApi(binding, errors, host): `errors` the error classes (errors.js,
// error-kinds.js), `host` what differs between Node.js and other hosts:
//   pause(us, signal)               a promise settled about us µs later, or
//                                   at once when `signal` aborts
//   warn(text, type, code, ctor)    says a warning once made (process.emitWarning)
// and `binding` the backend's primitives. IDs and times reach it checked: an
// ID a bigint of 0..2^64 - 1 or a safe non-negative Number, a time a bigint
// of int64 or a safe integer Number; texts are strings without NUL; a value
// for the core is a row [type, i, u, d, text] as an sfc_value (types by the
// numbers of binding.types). Table rows come back with the core's snake_case
// names and UINT values as bigints; the casing and the objects are made here.
//   version, types                        the core's version; sfc_type names by number
//   setErrorClasses(kinds)                the classes to throw
//   textCheck(what, text)                 throws the core's refusal of a text with a NUL
//   layoutResolve(held, preset, spec, epoch, forIds)
//   calls, call(row, args): the core's calls (the binding kit's rows, their
//     numbers by name in `calls`) on arguments each a layout's handle, a
//     value row or a map [[name, row]]; lists come back as arrays, maps as
//     [[name, value]]: layout_facts, parts_json, parts_time, uuid7 ([uuid, unixMs,
//     randA, randB (bigint), json]; the text whole, a NUL inside for the
//     core to name), encode, range, lease_table_sql, statuses, options,
//     presets (the core's tables: rows of [[name, value]]),
//     encoding_number
//   instantParse(text)
//   formatId(id, encoding, form), parseId(text, encoding); form is the
//     core's flags: 0 the encoding's default, 1 shortest, 2 fixed width;
//     formatId of a bigint out of 0..2^64 - 1 is undefined
//   decodeRule(handle) → [maxId, epochUs, unitUs, [[shift, mask], …]] (bigints)
//   generatorNew(handle, [[name|null, value]], [[name, value]]) → { slot,
//     nextAt(nowUs?) → ID | µs to wait, fillAt(nowUs?, out, offset) →
//     [filled, waitUs], nowUs(), stats() → [[name, value | [[key, value]]]],
//     close(), warnings: [[kind, text]] }
//   generatorNext(slot) → ID | µs to wait (or, with nextIo, undefined and
//     the ID there), sleep(us) → false where the host's clock is frozen
//   leaseWanted(handle, node, options) → whether a node field is "lease"
//   leaseNew(handle, node, options), once leaseWanted: { due() → µs to
//     wait | [step, sql, params], done(row | null), failed(why),
//     acquired() → bool, generatorNew(node, options) → as generatorNew's,
//     valid(), release() → [step, sql, params] | null, stats() → [[name,
//     value]], free() }: the core's sfc_lease_*; optional (a backend
//     without it refuses "lease")
// and, optionally, `host.leaseHost(lease, url, errors)` (lease.js: runs
// them through node-postgres) and `host.env(name)`.

// Private state that decode() reads, kept by base classes of every API's
// Layout and Parts, made once for the module: both builds in one process
// (the addon's API and the WebAssembly one) then read it by one private
// name, and the code V8 optimises for decode() stays fast for both.

/** A layout's decode plan (createApi's decodePlan). */
class LayoutBase {
  #decodePlan;
  constructor(plan) {
    this.#decodePlan = plan;
  }
  static planOf(layout) {
    return layout.#decodePlan;
  }
}

/** What a Parts works out on first use, in one object made when first asked for. */
class Later {
  timeUs = undefined;
  timeMs = undefined;
  fields = undefined;
  time = undefined;
  json = undefined;
}

/** A Parts' values worked out so far (one private field: each costs decode() its store). */
class PartsBase {
  #later;
  static laterOf(parts) {
    return (parts.#later ??= new Later());
  }
}

function createApi(binding, errors, host) {
  const { InvalidArgument, ClockMovedBackwards } = errors;

  const MAX_BATCH = 2 ** 32 - 1;
  const SYNC_WAIT_US = 10000;
  const UINT64_MAX = 2n ** 64n - 1n;
  const INT64_MIN = -(2n ** 63n);
  const INT64_MAX = 2n ** 63n - 1n;
  const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
  const TYPE = {};
  binding.types.forEach((name, i) => {
    TYPE[name] = i;
  });

  function invalid(message, options) {
    return new InvalidArgument(message, options);
  }

  /** A table name in JavaScript's casing: "max_wait_ms" → "maxWaitMs". */
  const camel = (name) => name.replace(/_+([^_])/g, (_, c) => c.toUpperCase()).replace(/_+$/, '');

  /** Table rows [[name, value]] as an object (defined: no setter runs), in JavaScript's casing. */
  const fromRows = (rows, value) => Object.fromEntries(rows.map(([n, v]) => [camel(n), value(v)]));

  const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';

  /** A Number as JavaScript prints it, for messages: 0.1 stays "0.1". */
  function shown(value) {
    const text = String(value);
    return text.length > 40 ? `${text.slice(0, 40)}...` : text;
  }

  /** Text for the core: a string, without a NUL (which C would cut; the core says where). */
  function toText(value, what) {
    if (typeof value !== 'string') throw invalid(`${what} must be a string.`);
    if (value.includes('\0')) binding.textCheck(what, value);
    return value;
  }

  const optionalText = (value, what) =>
    value === undefined || value === null ? undefined : toText(value, what);

  const DEC = call('encoding_number', coreValue('dec'));
  // The string forms' backend calls, read once: the addon's exports object
  // has too many properties for V8 to keep fast, and a lookup in it each
  // call is a good part of a string form's cost.
  const { formatId: formatIn, parseId: parseIn } = binding;

  /** An unsigned 64-bit value (IDs): a bigint, a decimal string or a safe integer Number. */
  function toU64(value, what) {
    switch (typeof value) {
      case 'bigint':
        if (value < 0n || value > UINT64_MAX) {
          throw invalid(`${what} is out of range: it must be between 0 and 2^64 - 1.`);
        }
        return value;
      case 'number':
        if (!Number.isSafeInteger(value) || value < 0) {
          throw invalid(
            `${what} (${shown(value)}) is not a non-negative safe integer: a Number holds ` +
              'integers exactly only up to 2^53 - 1. Pass a bigint (123n) or a decimal string.',
          );
        }
        return value;
      case 'string':
        return parseIn(value, DEC);
      default:
        throw invalid(`${what} must be a bigint, a decimal string or a safe integer.`);
    }
  }

  /** A signed 64-bit value (times): a bigint or a safe integer Number. */
  function toI64(value, what) {
    if (typeof value === 'bigint') {
      if (value < INT64_MIN || value > INT64_MAX) {
        throw invalid(`${what} is out of the signed 64-bit range.`);
      }
      return value;
    }
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value)) {
        throw invalid(
          `${what} (${shown(value)}) is not a safe integer: pass a bigint or an integer ` +
            'Number up to 2^53 - 1.',
        );
      }
      return value;
    }
    throw invalid(`${what} must be a bigint or an integer Number.`);
  }

  /**
   * A JavaScript value as the core takes one (an sfc_value row [type, i, u,
   * d, text]): undefined and null are "not given", a safe integer is INT and
   * any other Number DOUBLE, a bigint INT or UINT (beyond: the nearest
   * DOUBLE, so that the core says it is too large), a string TEXT; an array
   * or an object goes as a LIST or MAP, which the core refuses, naming the
   * option.
   */
  function coreValue(value) {
    switch (typeof value) {
      case 'undefined':
        return [TYPE.none, 0n, 0n, 0, undefined];
      case 'boolean':
        return [TYPE.bool, value ? 1n : 0n, 0n, 0, undefined];
      case 'number':
        return Number.isSafeInteger(value)
          ? [TYPE.int, BigInt(value), 0n, value, undefined]
          : [TYPE.double, 0n, 0n, value, undefined];
      case 'bigint':
        if (value >= INT64_MIN && value <= INT64_MAX) return [TYPE.int, value, 0n, 0, undefined];
        if (value >= 0n && value <= UINT64_MAX) return [TYPE.uint, 0n, value, 0, undefined];
        return [TYPE.double, 0n, 0n, Number(value), undefined];
      case 'string':
        return [TYPE.text, 0n, 0n, 0, value];
      default:
        if (value === null) return [TYPE.none, 0n, 0n, 0, undefined];
        return [Array.isArray(value) ? TYPE.list : TYPE.map, 0n, 0n, 0, undefined];
    }
  }

  /**
   * The core's call of that name (the kit's row): each argument a layout's
   * handle, or a JavaScript value (as coreValue makes it), or a map as
   * namedValues makes it.
   */
  function call(name, ...args) {
    return binding.call(binding.calls[name], args);
  }

  /** `object`'s keys as the core's names, with `object`'s values as rows. */
  function namedValues(object, what) {
    const rows = [];
    for (const key in object) rows.push([toText(key, what), coreValue(object[key])]);
    return rows;
  }

  /** Node values: by field name, or one value for the layout's only node field. */
  function nodeValues(given) {
    if (given === undefined || given === null) return [];
    if (!isObject(given) || Array.isArray(given)) return [[null, coreValue(given)]];
    return namedValues(given, 'node field name');
  }

  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  /**
   * A field value for encode: a bigint, a decimal string or a safe integer
   * Number, as an int64 bigint. Values beyond int64 are clamped so that the
   * core, which checks every value against its field, names the field.
   */
  function fieldValue(value, name) {
    switch (typeof value) {
      case 'bigint':
        if (value < INT64_MIN) return INT64_MIN;
        return value > INT64_MAX ? INT64_MAX : value;
      case 'string': {
        toText(value, name);
        let x;
        try {
          x = parseIn(value, DEC);
        } catch {
          const first = decoder.decode(encoder.encode(value).subarray(0, 40));
          throw invalid(`field '${name}' must be a decimal integer (digits only), not '${first}'.`);
        }
        return x > INT64_MAX ? INT64_MAX : x;
      }
      case 'number':
        if (!Number.isSafeInteger(value)) {
          throw invalid(
            `field '${name}' (${shown(value)}) is not a safe integer: a Number holds integers ` +
              'exactly only up to 2^53 - 1. Pass a bigint or a decimal string.',
          );
        }
        return BigInt(value);
      default:
        throw invalid(`field '${name}' must be a bigint, a decimal string or a safe integer.`);
    }
  }

  // Encodings by name, once the core knew them; the last one asked for
  // first (a loop formats in one encoding, and a Map lookup cost a string
  // form a tenth of its time).
  const encodings = new Map();
  let lastName;
  let lastEncoding;

  function encodingOf(name) {
    if (name === lastName) return lastEncoding;
    let e = encodings.get(name);
    if (e === undefined) {
      toText(name, 'encoding');
      e = call('encoding_number', coreValue(name));
      encodings.set(name, e);
    }
    lastName = name;
    lastEncoding = e;
    return e;
  }

  /** An ID as text in `encoding`. */
  function parseAs(text, encoding) {
    if (typeof text !== 'string') throw invalid('an encoded ID must be a string.');
    return parseIn(text, encoding);
  }

  /** A value for an error message, whatever it is. */
  function show(value) {
    try {
      return typeof value === 'string' ? `'${value}'` : String(value);
    } catch {
      return typeof value;
    }
  }

  /** Unix ms from a Date, a safe integer, a bigint or a string (ISO-8601 or ms). */
  function toMs(value, what) {
    if (value instanceof Date) {
      const ms = value.getTime();
      if (Number.isNaN(ms)) throw invalid(`${what} is an invalid Date.`);
      return ms;
    }
    if (typeof value === 'string') {
      // The core's instant parser, the same as for epochs; here a bad instant
      // is a bad argument, not a bad layout.
      try {
        return binding.instantParse(toText(value, 'time'));
      } catch (error) {
        if (error instanceof errors.InvalidLayout) {
          throw invalid(`${what}: ${error.message}`, { cause: error });
        }
        throw error;
      }
    }
    if (typeof value === 'number' || typeof value === 'bigint') return value;
    throw invalid(
      `${what} must be a Date, Unix milliseconds (number or bigint) or an ISO-8601 string.`,
    );
  }

  /** A clock reading in Unix µs: a bigint, a safe integer or a decimal string. */
  function toUs(value, what) {
    if (typeof value === 'string') {
      if (!/^-?[0-9]+$/.test(value)) {
        throw invalid(`${what} must be a decimal integer string, not ${show(value)}.`);
      }
      return BigInt(value);
    }
    return value;
  }

  function checkCount(n) {
    if (!Number.isSafeInteger(n) || n < 0 || n > MAX_BATCH) {
      throw invalid(`the count must be an integer from 0 to ${MAX_BATCH}, not ${show(n)}.`);
    }
  }

  /** An epoch as the core takes it: text, a number or a Date written in decimal ms. */
  function epochText(epoch) {
    if (epoch instanceof Date) return String(epoch.getTime());
    if (typeof epoch === 'number' || typeof epoch === 'bigint') return String(epoch);
    return epoch;
  }

  function checkKeys(object, allowed, what) {
    for (const key of Object.keys(object)) {
      if (!allowed.includes(key)) {
        throw invalid(`unknown ${what} '${key}'; known: ${allowed.join(', ')}.`);
      }
    }
  }

  let handleOf;
  let decodePlanOf;

  /**
   * What decode() applies for a layout, worked out once: the core's decode
   * rule (binding.decodeRule: its steps are sfc_layout_decode_rule's, in
   * snowflake_c.h) with the field names, each field but time as { name,
   * shift, mask, wide: more than a Number holds exactly (a bigint) }, and
   * whether any is wide (then toJSON keeps its digits exactly).
   */
  function decodePlan(handle, fields) {
    const [maxId, epochUs, unitUs, rule] = binding.decodeRule(handle);
    const values = rule.slice(1).map(([shift, mask], i) => ({
      name: fields[i + 1].name,
      shift,
      mask,
      wide: mask > MAX_SAFE,
    }));
    const [timeShift, timeMask] = rule[0];
    return {
      maxId,
      epochUs,
      unitUs,
      timeShift,
      timeMask,
      values,
      wide: values.some((v) => v.wide),
    };
  }

  /**
   * How IDs are packed: an ordered list of fields plus an epoch. Immutable.
   * Get one with `Layout.parse(spec, epoch)` or `Layout.preset(name)`.
   */
  class Layout extends LayoutBase {
    #handle;
    #info;

    static {
      handleOf = (layout) => layout.#handle;
      decodePlanOf = LayoutBase.planOf;
    }

    /** @private use Layout.parse() or Layout.preset() */
    constructor(handle, token) {
      if (token !== handleOf) {
        throw invalid('use Layout.parse(spec, epoch) or Layout.preset(name).');
      }
      const info = fromRows(call('layout_facts', handle), (v) =>
        Array.isArray(v) ? v.map((field) => fromRows(field, (x) => x)) : v,
      );
      for (const field of info.fields) Object.freeze(field);
      Object.freeze(info.fields);
      super(decodePlan(handle, info.fields));
      this.#handle = handle;
      this.#info = info;
      Object.freeze(this);
    }

    /** Parses a spec such as `'time:41@1ms,worker:10,seq:12'` with its epoch. */
    static parse(spec, epoch) {
      if (typeof spec !== 'string') {
        throw invalid(`a layout spec must be a string, not ${show(spec)}.`);
      }
      return layoutOf(undefined, spec, epochText(epoch));
    }

    /** One of the presets: see `presets()`. */
    static preset(name) {
      if (typeof name !== 'string') {
        throw invalid(`a preset name must be a string, not ${show(name)}.`);
      }
      return layoutOf(name, undefined, undefined);
    }

    /** The preset's name when the layout is one (same spec and epoch), else null. */
    get name() {
      return this.#info.name;
    }
    /** The canonical spec, the time unit always given. */
    get spec() {
      return this.#info.spec;
    }
    /** Unix ms of time value 0. */
    get epochMs() {
      return this.#info.epochMs;
    }
    /** Length of one tick in µs. */
    get unitUs() {
      return this.#info.unitUs;
    }
    get totalBits() {
      return this.#info.totalBits;
    }
    /** The fields, most significant first: `{ name, kind, bits, shift, max }`. */
    get fields() {
      return this.#info.fields;
    }

    /** What the layout can do, with the core's facts in its order. */
    describe() {
      return { ...this.#info, fields: this.#info.fields.map((f) => ({ ...f })) };
    }

    toString() {
      return this.#info.spec;
    }

    toJSON() {
      return { spec: this.#info.spec, epochMs: this.#info.epochMs };
    }

    [Symbol.for('nodejs.util.inspect.custom')]() {
      return `Layout { spec: '${this.#info.spec}', epochMs: ${this.#info.epochMs} }`;
    }
  }

  // Layouts by their trio (preset → spec → epoch, undefined where not given),
  // so that decode(id, { preset }) parses nothing. Only text is a key.
  const layoutCache = new Map();
  const LAYOUT_CACHE_MAX = 64;
  let layoutCount = 0;

  const isKey = (value) => value === undefined || typeof value === 'string';

  function remember(preset, spec, epoch, layout) {
    if (layoutCount >= LAYOUT_CACHE_MAX) {
      layoutCache.clear();
      layoutCount = 0;
    }
    let bySpec = layoutCache.get(preset);
    if (bySpec === undefined) layoutCache.set(preset, (bySpec = new Map()));
    let byEpoch = bySpec.get(spec);
    if (byEpoch === undefined) bySpec.set(spec, (byEpoch = new Map()));
    byEpoch.set(epoch, layout);
    layoutCount++;
  }

  /**
   * A layout handle by the core's one rule (sfc_layout_resolve); undefined and null are not given.
   * `forIds`: for IDs made elsewhere, which no layout is assumed for (sfc_layout_resolve_for_ids).
   */
  function resolve(held, preset, spec, epoch, forIds = false) {
    return binding.layoutResolve(
      held,
      optionalText(preset, 'preset'),
      optionalText(spec, 'layout'),
      optionalText(epoch, 'epoch'),
      forIds,
    );
  }

  /** The layout of the trio, by the core's one rule (sfc_layout_resolve); null is not given. */
  function layoutOf(preset, spec, epoch, forIds = false) {
    const p = preset ?? undefined;
    const s = spec ?? undefined;
    const e = epoch ?? undefined;
    if (forIds && p === undefined && s === undefined && e === undefined) {
      resolve(undefined, p, s, e, true); // the core refuses: none is assumed
    }
    const keep = isKey(p) && isKey(s) && isKey(e);
    let layout = keep ? layoutCache.get(p)?.get(s)?.get(e) : undefined;
    if (layout === undefined) {
      layout = new Layout(resolve(undefined, p, s, e), handleOf);
      if (keep) remember(p, s, e, layout);
    }
    return layout;
  }

  /**
   * The layout named by `{ preset }`, `{ layout, epoch }`, a Layout or a preset name. `forIds`:
   * for IDs made elsewhere (decode, encode, range), where none given is refused, not the default.
   */
  function resolveLayout(options, what, forIds = false) {
    if (options === undefined || options === null)
      return layoutOf(undefined, undefined, undefined, forIds);
    if (options instanceof Layout) return options;
    if (typeof options === 'string') return layoutOf(options);
    if (typeof options !== 'object') {
      throw invalid(`${what} takes { preset } or { layout, epoch }.`);
    }
    const { preset, layout, epoch } = options;
    if (layout instanceof Layout) {
      // The core's rule: a Layout object goes alone (it carries its epoch).
      resolve(handleOf(layout), preset ?? undefined, undefined, epochText(epoch ?? undefined));
      return layout;
    }
    return layoutOf(preset, layout, epochText(epoch), forIds);
  }

  /** The value of a field of the ID, by the decode rule. */
  function readValue(id, v) {
    const value = (id >> v.shift) & v.mask;
    return v.wide ? value : Number(value);
  }

  /**
   * The decoded fields by name, in layout order. The first six are stored
   * line by line: a store site that sees one key (per layout) stays fast,
   * where a loop's one site for every key cost a third of decode().
   */
  function readFields(id, values) {
    const n = values.length;
    const fields = {};
    if (n > 0) fields[values[0].name] = readValue(id, values[0]);
    if (n > 1) fields[values[1].name] = readValue(id, values[1]);
    if (n > 2) fields[values[2].name] = readValue(id, values[2]);
    if (n > 3) fields[values[3].name] = readValue(id, values[3]);
    if (n > 4) fields[values[4].name] = readValue(id, values[4]);
    if (n > 5) fields[values[5].name] = readValue(id, values[5]);
    for (let i = 6; i < n; i++) fields[values[i].name] = readValue(id, values[i]);
    return Object.freeze(fields);
  }

  let newParts;

  /**
   * The parts of one ID. `JSON.stringify(parts)` is the canonical JSON of the
   * core, byte for byte: `{"id":"…","time_ms":…,"time":"…",<fields>}`. The
   * times and the fields are worked out on first use, by the core's decode
   * rule; the ISO time and the JSON are the core's, made on first use too.
   */
  class Parts extends PartsBase {
    static {
      newParts = (id, layout) => new Parts(id, layout, newParts);
    }

    /** @private use decode() */
    constructor(id, layout, token) {
      if (token !== newParts) throw invalid('use decode(id, options).');
      super();
      /** The ID (a bigint given is the ID: no other bigint is made). */
      this.id = id;
      this.layout = layout;
      // Not frozen: Object.freeze cost decode() two thirds of its time. The
      // worked-out values are getters, and `fields` is frozen when made.
    }

    /** Unix ms of the ID's tick, rounded down. */
    get timeMs() {
      const known = PartsBase.laterOf(this);
      known.timeMs ??= Number(this.timeUs / 1000n);
      return known.timeMs;
    }

    /** Unix µs of the tick's start. */
    get timeUs() {
      const known = PartsBase.laterOf(this);
      if (known.timeUs === undefined) {
        const plan = decodePlanOf(this.layout);
        known.timeUs = plan.epochUs + ((this.id >> plan.timeShift) & plan.timeMask) * plan.unitUs;
      }
      return known.timeUs;
    }

    /** Every field but time, by name, in layout order. */
    get fields() {
      const known = PartsBase.laterOf(this);
      known.fields ??= readFields(this.id, decodePlanOf(this.layout).values);
      return known.fields;
    }

    /** ISO-8601 UTC with milliseconds (the core's, made on first use). */
    get time() {
      const known = PartsBase.laterOf(this);
      known.time ??= call('parts_time', handleOf(this.layout), coreValue(this.id));
      return known.time;
    }

    /** The tick's start as a Date (millisecond precision). */
    get date() {
      return new Date(this.timeMs);
    }

    /** The canonical JSON line, as the core wrote it. */
    toString() {
      const known = PartsBase.laterOf(this);
      known.json ??= call('parts_json', handleOf(this.layout), coreValue(this.id));
      return known.json;
    }

    /** In Node.js's console: the properties, `time` too (an accessor). */
    [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
      const { id, timeMs, timeUs, time, fields, layout } = this;
      return `Parts ${inspect({ id, timeMs, timeUs, time, fields, layout }, options)}`;
    }

    /** The core's canonical JSON as an object, so that JSON.stringify() reproduces it. */
    toJSON() {
      const json = this.toString();
      if (!decodePlanOf(this.layout).wide) return JSON.parse(json);
      // Fields wider than 53 bits: keep their digits exactly, or refuse.
      if (typeof JSON.rawJSON === 'function') {
        return JSON.parse(json, (key, value, context) =>
          typeof value === 'number' && !Number.isSafeInteger(value)
            ? JSON.rawJSON(context.source)
            : value,
        );
      }
      const object = JSON.parse(json);
      for (const [key, value] of Object.entries(object)) {
        if (typeof value === 'number' && !Number.isSafeInteger(value)) {
          throw invalid(
            `field '${key}' is wider than a JSON number holds exactly in this Node.js (no JSON.rawJSON): use String(parts) for the canonical JSON.`,
          );
        }
      }
      return object;
    }
  }

  /**
   * Splits an ID into its time and fields.
   * @param {bigint|string|number} id a bigint, a decimal string, or a safe integer Number
   * @param {{preset?: string} | {layout: string|Layout, epoch?: number|bigint|string|Date} | Layout | string} [options]
   */
  function decode(id, options) {
    const layout = resolveLayout(options, 'decode', true);
    const encoding = options !== null && typeof options === 'object' ? options.encoding : undefined;
    const x = encoding === undefined ? toU64(id, 'id') : parseAs(id, encodingOf(encoding));
    const big = typeof x === 'bigint' ? x : BigInt(x);
    // An ID past the layout's largest: the core refuses it, with its message.
    if (big > decodePlanOf(layout).maxId) call('parts_time', handleOf(layout), coreValue(big));
    return newParts(big, layout);
  }

  /**
   * An ID as text: `'dec'`, `'hex'`, `'base32'` (Crockford), `'base36'`,
   * `'base58'` (Bitcoin) or `'base62'`. By default dec is the plain number
   * (as JSON prints it) and the others are fixed width, so that the strings
   * sort as the IDs do; `{ pad: true }` gives the fixed width in any
   * encoding (dec's 20 digits), `{ pad: false }` the shortest form.
   * @param {bigint|string|number} id a bigint, a decimal string, or a safe integer Number
   * @param {string} encoding
   * @param {{pad?: boolean}} [options]
   * @returns {string}
   */
  function formatId(id, encoding, options) {
    let form = 0; // the encoding's default (the core's flags 0)
    if (options !== undefined) {
      if (options === null || typeof options !== 'object') {
        throw invalid('formatId takes options { pad }.');
      }
      checkKeys(options, ['pad'], 'formatId option');
      const pad = options.pad;
      if (pad !== undefined) {
        if (typeof pad !== 'boolean') throw invalid(`pad must be true or false, not ${show(pad)}.`);
        form = pad ? 2 : 1; // SFC_FORMAT_FIXED : SFC_FORMAT_SHORTEST
      }
    }
    // A bigint in an encoding known already: the backend reads its 64 bits
    // itself, undefined when they are out of range (toU64 then says so).
    if (typeof id === 'bigint' && encoding === lastName) {
      const text = formatIn(id, lastEncoding, form);
      if (text !== undefined) return text;
    }
    return formatIn(toU64(id, 'id'), encodingOf(encoding), form);
  }

  /**
   * The ID an encoded string stands for (fixed or shortest form; hex, base32
   * and base36 in any case).
   * @param {string} text
   * @param {string} encoding
   * @returns {bigint}
   */
  function parseId(text, encoding) {
    return parseAs(text, encodingOf(encoding));
  }

  let newUuid7;

  /**
   * A UUIDv7 (RFC 9562) split into its time and random bits, by the core.
   * `JSON.stringify(u)` is the core's canonical JSON, byte for byte:
   * `{"uuid":"…","version":7,"time_ms":…,"time":"…","rand_a":…,"rand_b":"…"}`.
   */
  class Uuid7 {
    #json;

    static {
      newUuid7 = (row) => new Uuid7(row, newUuid7);
    }

    /** @private use decodeUuid7() */
    constructor(row, token) {
      if (token !== newUuid7) throw invalid('use decodeUuid7(text).');
      /** The canonical text: 8-4-4-4-12, lowercase. */
      this.uuid = row[0];
      /** Unix ms: the UUID's 48-bit time. */
      this.unixMs = row[1];
      /** The 12 bits of rand_a. */
      this.randA = row[2];
      /** The 62 bits of rand_b, as a bigint. */
      this.randB = row[3];
      this.#json = row[4];
      Object.freeze(this);
    }

    /** ISO-8601 UTC with milliseconds (the core's, from its JSON). */
    get time() {
      return JSON.parse(this.#json).time;
    }

    /** The time as a Date. */
    get date() {
      return new Date(this.unixMs);
    }

    /** The canonical JSON line, as the core wrote it. */
    toString() {
      return this.#json;
    }

    /** In Node.js's console: the properties, `time` too (an accessor). */
    [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
      const { uuid, unixMs, time, randA, randB } = this;
      return `Uuid7 ${inspect({ uuid, unixMs, time, randA, randB }, options)}`;
    }

    /** The core's canonical JSON as an object, so that JSON.stringify() reproduces it. */
    toJSON() {
      return JSON.parse(this.#json);
    }
  }

  /**
   * Splits a UUIDv7 (8-4-4-4-12 or 32 hex digits, either case) into its time
   * and random bits. Any other text is InvalidArgument with the core's
   * message (another length, a character that is not hex, a misplaced
   * hyphen, another version or variant).
   * @param {string} text
   * @returns {Uuid7}
   */
  function decodeUuid7(text) {
    if (typeof text !== 'string') throw invalid(`decodeUuid7 takes a string, not ${show(text)}.`);
    return newUuid7(call('uuid7', coreValue(text)));
  }

  const TIME_KEYS = ['timeMs', 'time_ms', 'timeUs', 'time'];

  /**
   * Packs a time and field values into an ID (the inverse of decode). Give
   * the time (one of `timeMs`, `time_ms`, `timeUs`, `time`) and every other
   * field of the layout exactly once; the core checks each value against its
   * field.
   * @param {object} parts `{ timeMs, worker: 1, process: 0, seq: 7 }`, or a decoded Parts
   */
  function encode(parts, options) {
    const layout = resolveLayout(options, 'encode', true);
    if (parts === null || typeof parts !== 'object') {
      throw invalid('encode takes an object: { timeMs, <field>: value, … }.');
    }
    let timeUs;
    let fields;
    if (parts instanceof Parts) {
      timeUs = parts.timeUs;
      fields = parts.fields;
    } else {
      const given = TIME_KEYS.filter((k) => parts[k] !== undefined);
      if (given.length !== 1) {
        throw invalid(
          `encode needs exactly one of ${TIME_KEYS.join(', ')}${given.length ? `, not ${given.join(' and ')}` : ''}.`,
        );
      }
      const key = given[0];
      if (key === 'timeUs') {
        timeUs = toUs(parts.timeUs, 'timeUs');
      } else {
        const ms = toMs(parts[key], key);
        if (typeof ms === 'number' && !Number.isSafeInteger(ms)) {
          throw invalid(`${key} must be an integer number of milliseconds, not ${ms}.`);
        }
        timeUs = BigInt(ms) * 1000n;
      }
      fields = {};
      for (const [name, value] of Object.entries(parts)) {
        if (!TIME_KEYS.includes(name)) fields[name] = value;
      }
    }
    const time = toI64(timeUs, 'time');
    const named = [];
    for (const name in fields) {
      named.push([toText(name, 'field name'), coreValue(fieldValue(fields[name], name))]);
    }
    return call('encode', handleOf(layout), coreValue(time), named);
  }

  /**
   * The smallest and largest IDs whose time lies in [t0, t1): t1 excluded, so
   * that consecutive windows (days, pages) never share an ID.
   * @returns {{min: bigint, max: bigint}}
   */
  function range(t0, t1, options) {
    const layout = resolveLayout(options, 'range', true);
    const t0Ms = toMs(t0, 't0');
    const t1Ms = toMs(t1, 't1');
    const [min, max] = call(
      'range',
      handleOf(layout),
      coreValue(toI64(t0Ms, 'start time')),
      coreValue(toI64(t1Ms, 'end time')),
    );
    return { min, max };
  }

  /** The presets: `[{ name, spec, epochMs }]`. */
  function presets() {
    return call('presets').map((row) => {
      const { name, spec, epoch_ms: epochMs } = Object.fromEntries(row);
      return { name, spec, epochMs };
    });
  }

  /**
   * The options a Generator takes besides its layout and node values, from the
   * core's table: `[{ name, type, default, min?, max?, choices?, doc }]`.
   */
  function options() {
    return call('options').map((pairs) => {
      const { name, type, default: dflt, min, max, choices, doc } = Object.fromEntries(pairs);
      const row = { name: camel(name), type, default: dflt };
      if (type === 'duration') {
        row.min = min;
        row.max = max;
      }
      if (choices !== null) row.choices = choices;
      row.doc = doc;
      return row;
    });
  }

  /**
   * The SQL that creates the table of leased node values (idempotent): for a
   * migration, or `await client.query(leaseTableSql())` once. The same text
   * as `snowflake-c lease sql` and sql/leases.sql.
   */
  function leaseTableSql() {
    return call('lease_table_sql');
  }

  /** Waits without blocking the event loop, in the host's idiom; close() ends it early. */
  function pause(us, signal) {
    return host.pause(us, signal);
  }

  /**
   * The warnings emitted so far: each text once. Per thread, as the `process`
   * events are: a worker thread loads its own copy of this module (and per
   * API made by createApi).
   */
  const warned = new Set();

  /**
   * Says what the core said about a new generator ([[kind, text]]: its node
   * value unguarded, its layout ending), each as a `<kind>Warning` with the
   * code `SNOWFLAKE_C_<KIND>`. Whether to warn is the core's decision; this
   * only emits.
   */
  function warnOnce(warnings) {
    for (const [kind, text] of warnings) {
      if (warned.has(text)) continue;
      warned.add(text);
      const code = `SNOWFLAKE_C_${kind.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase()}`;
      host.warn(text, `${kind}Warning`, code, Generator);
    }
  }

  // nextId()'s call: one function for every generator, so that its call site
  // sees a single target and stays optimised. The addon exchanges through
  // its ArrayBuffer nextIo (the generator's slot in, the ID out: no argument
  // to read and no BigInt to make in C++); the WebAssembly build, which has
  // none, takes the slot as the argument and returns the ID. Either gives
  // the µs to wait instead where the clock asks.
  const { generatorNext, nextIo } = binding;
  const nextIdOut = nextIo ? new BigUint64Array(nextIo, 0, 1) : undefined;
  const nextSlotIn = nextIo ? new Uint32Array(nextIo, 8, 1) : undefined;

  // The generator Generator.create() made on a leased value, with its lease's
  // host, for the constructor it calls to adopt.
  let adopted;

  const SYNC_LEASE =
    "a node value 'lease' is taken from PostgreSQL, which takes a round trip: " +
    "create the generator with await Generator.create({ …, lease: 'postgresql://…' }) " +
    '(or SNOWFLAKE_LEASE_URL), not new Generator().';
  const NO_LEASE =
    "a node value 'lease' runs its statements through node-postgres, which this build " +
    'cannot reach: use the native package (snowflake-c) on Node.js.';

  /**
   * Issues unique, time-ordered IDs for one layout and one node value.
   *
   * Synchronous calls wait for the clock at most one tick (at least 10 ms) at a
   * time, so the event loop is never blocked for long; a longer wait (the clock
   * behind the last ID issued) throws ClockMovedBackwards. The async methods
   * wait any length with timers.
   */
  class Generator {
    #h;
    #slot;
    #layout;
    #lease; // the host of a leased node value (lease.js), or undefined
    #closing; // aborted by close(): ends the async calls' waits
    #syncLimitUs; // the longest wait of a synchronous call: a tick, at least 10 ms
    #warnings; // what the core said of this generator at its creation

    /**
     * @param {object} [options]
     * @param {string} [options.preset] a preset name (default `'default'`)
     * @param {string|Layout} [options.layout] a spec or a Layout, instead of a preset
     * @param {number|bigint|string|Date} [options.epoch] with a layout spec
     * @param {number|bigint|string|Record<string, number|bigint|string>} [options.node]
     *   node values by field, or one value for the layout's only node field: a
     *   number, `'auto'` (the pool in stateDir), `'host'` (host-name ordinal) or
     *   `'env:NAME'` (the environment variable NAME, read now)
     * Every other key is an option of the core's table (see `options()`): it
     * goes to the core by name, which checks it and refuses an unknown one.
     * An unguarded generator (`guard: false`) emits an `UnguardedWarning`, and
     * one whose layout runs out within ten years a `LayoutEndingWarning`
     * (each text once per thread); `warnings` keeps what this one said.
     */
    constructor(options = {}) {
      if (options === null || typeof options !== 'object') {
        throw invalid('Generator takes an options object.');
      }
      // `lease` is Generator.create()'s: a generator made here leases nothing.
      const { preset, layout, epoch, node, lease, ...rest } = options;
      this.#layout = resolveLayout({ preset, layout, epoch }, 'Generator');
      if (adopted !== undefined) {
        ({ handle: this.#h, host: this.#lease } = adopted);
        adopted = undefined;
      } else {
        this.#h = newHandle(
          handleOf(this.#layout),
          nodeValues(node),
          namedValues(rest, 'option name'),
        );
      }
      this.#slot = this.#h.slot;
      this.#syncLimitUs = Math.max(this.#layout.unitUs, SYNC_WAIT_US);
      this.#warnings = Object.freeze(
        this.#h.warnings.map(([kind, message]) => Object.freeze({ kind, message })),
      );
      warnOnce(this.#h.warnings);
    }

    /**
     * A generator, made asynchronously: the only way to one whose node value
     * is leased from PostgreSQL (`node: { worker: 'lease' }` or
     * SNOWFLAKE_WORKER=lease), and the same as `new Generator(options)` for
     * every other. The database is `options.lease` (a postgresql:// URL or
     * libpq's key=value text), else SNOWFLAKE_LEASE_URL, reached through
     * node-postgres (`npm install pg`); `leaseDuration` and `leaseKey` as
     * the CLI's --lease-duration and --lease-key. The value is acquired
     * before the promise resolves, renewed on timers that keep no process
     * alive, and given back by close() (closeAsync() resolves once it is).
     * Past a lease without a renewal, calls throw LeaseExpired until one
     * succeeds (docs/leases.md).
     */
    static async create(options = {}) {
      if (options === null || typeof options !== 'object') {
        throw invalid('Generator.create takes an options object.');
      }
      const { preset, layout, epoch, node, lease: url, ...rest } = options;
      const resolved = resolveLayout({ preset, layout, epoch }, 'Generator.create');
      const nodeRows = nodeValues(node);
      const optionRows = namedValues(rest, 'option name');
      const lease = leaseOf(handleOf(resolved), nodeRows, optionRows);
      if (lease === null) return new this(options);
      let leaseHost;
      try {
        const given = optionalText(url, 'lease') || host.env?.('SNOWFLAKE_LEASE_URL') || undefined;
        if (given === undefined) {
          throw invalid(
            "a node value 'lease' needs the database: give lease: 'postgresql://…' or " +
              'SNOWFLAKE_LEASE_URL.',
          );
        }
        leaseHost = host.leaseHost(lease, given, errors);
      } catch (error) {
        lease.free();
        throw error;
      }
      await leaseHost.acquire();
      let generator;
      let handle;
      try {
        handle = lease.generatorNew(nodeRows, optionRows);
        adopted = { handle, host: leaseHost };
        generator = new this(options);
      } catch (error) {
        adopted = undefined;
        handle?.close();
        await leaseHost.giveBack(); // a value taken but never used goes back at once
        throw error;
      }
      leaseHost.start(() => generator.close());
      return generator;
    }

    /** The generator's layout. */
    get layout() {
      return this.#layout;
    }

    /**
     * What the core said of this generator at its creation, in its order, each
     * `{ kind, message }`: the kinds `Unguarded` and `LayoutEnding`, emitted
     * as `<kind>Warning` (each text once per thread, so that this is where a
     * program reads them for itself); `[]` when it said nothing.
     */
    get warnings() {
      return this.#warnings;
    }

    /** The next ID. @returns {bigint} */
    nextId() {
      for (;;) {
        let r;
        if (nextIdOut === undefined) {
          r = generatorNext(this.#slot);
          if (typeof r === 'bigint') return r;
        } else {
          nextSlotIn[0] = this.#slot;
          r = generatorNext();
          if (r === undefined) return nextIdOut[0];
        }
        this.#syncWait(r);
      }
    }

    /**
     * Waits `waitUs` in a synchronous call: briefly, or an error. A longer wait
     * (the clock behind the last ID issued, under the `wait` or `borrow`
     * strategies) would block the event loop; a host's clock that never moves
     * (a Worker's between I/O) would never get there.
     */
    #syncWait(waitUs) {
      if (waitUs > this.#syncLimitUs) {
        throw new ClockMovedBackwards(
          `the generator must wait ${waitUs} us for the clock to catch up, longer than a ` +
            `synchronous call may block the event loop (${this.#syncLimitUs} us): use ` +
            'nextIdAsync() / nextIdsAsync(), or retry later.',
        );
      }
      if (binding.sleep(waitUs) === false) {
        throw new ClockMovedBackwards(
          `the generator must wait ${waitUs} us for the clock to move, but the host's ` +
            "clock is frozen (as a Worker's is until it does I/O): it issued every ID " +
            'that max_drift lets it borrow ahead of the clock. Use nextIdAsync() / ' +
            'nextIdsAsync(), which wait with timers, or a larger maxDrift.',
        );
      }
    }

    /** The next ID as a decimal string. */
    nextIdString() {
      return String(this.nextId());
    }

    /**
     * `n` consecutive IDs, filled in one native call. On an error, the IDs
     * issued before it are on the error as `ids`.
     * @returns {BigUint64Array}
     */
    nextIds(n) {
      checkCount(n);
      const out = new BigUint64Array(n);
      let filled = 0;
      try {
        for (;;) {
          let got;
          let waitUs;
          try {
            [got, waitUs] = this.#h.fillAt(undefined, out, filled);
          } catch (error) {
            if (typeof error?.filled === 'number') error.filled += filled;
            throw error;
          }
          filled += got;
          if (filled >= n) return out;
          try {
            this.#syncWait(waitUs);
          } catch (error) {
            error.filled = filled;
            throw error;
          }
        }
      } catch (error) {
        throw withIds(error, out);
      }
    }

    /**
     * The deterministic entry: one attempt at `nowUs` (Unix µs), never waits.
     * @returns {{id: bigint} | {waitUs: number}}
     */
    nextIdAt(nowUs) {
      const r = this.#h.nextAt(toI64(toUs(nowUs, 'nowUs'), 'nowUs'));
      return typeof r === 'bigint' ? { id: r } : { waitUs: r };
    }

    /**
     * The deterministic batch: up to `n` IDs at `nowUs`; `waitUs` is present
     * when fewer were issued and the caller should wait that long.
     * @returns {{ids: BigUint64Array, waitUs?: number}}
     */
    nextIdsAt(nowUs, n) {
      checkCount(n);
      const now = toI64(toUs(nowUs, 'nowUs'), 'nowUs');
      const out = new BigUint64Array(n);
      let filled;
      let waitUs;
      try {
        [filled, waitUs] = this.#h.fillAt(now, out, 0);
      } catch (error) {
        throw withIds(error, out);
      }
      const ids = filled === n ? out : out.slice(0, filled);
      return waitUs > 0 ? { ids, waitUs } : { ids };
    }

    /** The next ID, waiting with timers (never blocking) if the clock asks. */
    async nextIdAsync() {
      for (;;) {
        const r = this.#h.nextAt();
        if (typeof r === 'bigint') return r;
        await pause(r, this.#signal());
      }
    }

    /** What close() aborts, for a wait of the async calls. */
    #signal() {
      this.#closing ??= new AbortController();
      return this.#closing.signal;
    }

    /** `n` IDs, waiting with timers (never blocking) if the clock asks. */
    async nextIdsAsync(n) {
      checkCount(n);
      const out = new BigUint64Array(n);
      let filled = 0;
      while (filled < n) {
        let got;
        let waitUs;
        try {
          [got, waitUs] = this.#h.fillAt(undefined, out, filled);
        } catch (error) {
          if (typeof error.filled === 'number') error.filled += filled;
          throw withIds(error, out);
        }
        filled += got;
        if (waitUs > 0) await pause(waitUs, this.#signal());
      }
      return out;
    }

    /** The generator's clock in Unix µs. @returns {bigint} */
    nowUs() {
      return this.#h.nowUs();
    }

    /** Counters, the node identity in force and the guard's state. */
    stats() {
      // UINT counters as Numbers, as they have always been; a node value a
      // bigint only for a field wider than 53 bits (as in decoded parts).
      const wide = this.#layout.fields.filter((f) => f.bits > 53).map((f) => f.name);
      const narrow = (v) => (typeof v === 'bigint' ? Number(v) : v);
      const out = fromRows(this.#h.stats(), (v) =>
        Array.isArray(v)
          ? Object.fromEntries(v.map(([k, x]) => [k, wide.includes(k) ? x : narrow(x)]))
          : narrow(v),
      );
      // A leased value's lease: state, field, value, expiresMs, horizonMs,
      // renewals, failures, error, durationMs.
      if (this.#lease !== undefined) out.lease = fromRows(this.#lease.stats(), narrow);
      return out;
    }

    /**
     * Writes the state file (if any), releases the node value and frees the
     * generator. Further calls throw InvalidArgument. Idempotent. A leased
     * value's renewer stops, and the value is given back in the background
     * with the last tick issued (closeAsync() waits for it).
     */
    close() {
      this.#h.close();
      this.#closing?.abort(); // a pending async call wakes to the closed error
      this.#lease?.close();
    }

    /** close(), settled once a leased node value is given back. Never rejects. */
    async closeAsync() {
      this.close();
      await this.#lease?.close();
    }
  }

  if (typeof Symbol.dispose === 'symbol') {
    Generator.prototype[Symbol.dispose] = Generator.prototype.close;
  }
  if (typeof Symbol.asyncDispose === 'symbol') {
    Generator.prototype[Symbol.asyncDispose] = Generator.prototype.closeAsync;
  }

  /** A generator's handle; a node value "lease" is refused in the Node.js user's terms. */
  function newHandle(layoutHandle, nodeRows, optionRows) {
    try {
      return binding.generatorNew(layoutHandle, nodeRows, optionRows);
    } catch (error) {
      let wanted = false;
      try {
        wanted = binding.leaseWanted?.(layoutHandle, nodeRows, optionRows) === true;
      } catch {
        // the generator's error says what is wrong
      }
      if (wanted) throw invalid(canLease() ? SYNC_LEASE : NO_LEASE, { cause: error });
      throw error;
    }
  }

  /** Whether this backend and host run a lease's statements. */
  function canLease() {
    return binding.leaseNew !== undefined && host.leaseHost !== undefined;
  }

  /** The core's lease for a node value "lease", or null when none is leased. */
  function leaseOf(layoutHandle, nodeRows, optionRows) {
    if (binding.leaseWanted?.(layoutHandle, nodeRows, optionRows) !== true) return null;
    if (!canLease()) throw invalid(NO_LEASE);
    return binding.leaseNew(layoutHandle, nodeRows, optionRows);
  }

  function withIds(error, out) {
    if (error !== null && typeof error === 'object' && typeof error.filled === 'number') {
      error.ids = out.slice(0, error.filled);
    }
    return error;
  }

  return {
    Generator,
    Layout,
    Parts,
    Uuid7,
    decode,
    decodeUuid7,
    encode,
    formatId,
    parseId,
    range,
    presets,
    options,
    leaseTableSql,
    version: binding.version,
    ...errors,
  };
}

module.exports = createApi;
