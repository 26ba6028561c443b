'use strict';

// The WebAssembly module (bindings/wasm/exports.c) behind the primitives that
// api.js takes from a backend (listed there), as the native addon gives them:
// api.js has checked every argument and writes every message of its own;
// this converts values to the module's numbers and memory and back. Every
// decision about layouts, IDs and time is the core's.
//
//   imports(memoryOf, webCrypto)  the module's imports: the host's clocks
//                            (Date.now(), performance.now(), read at each
//                            call), webCrypto.getRandomValues (default:
//                            globalThis.crypto), the makers of the values
//                            the kit's walks give (out_*), and the four
//                            WASI functions its C library asks for
//   createBinding(instance)  the binding over an instance made with them

const CHUNK = 4096; // IDs per call of the core in a batch
/** Reads of a clock that does not move before a wait calls it frozen. */
const FROZEN_READS = 200000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const u64 = (x) => BigInt.asUintN(64, x);
const UINT64_MAX = 2n ** 64n - 1n;

// What the kit's walks (exports.c's *_out) make, through the host functions
// of imports(): each value goes on top, and a put or a push moves the top
// into the list or map (an Array of [key, value]) beneath it.
let made = [];

/** The value that call() makes through the kit's walk. */
function walked(call) {
  const outer = made; // a walk a setter starts inside another
  made = [];
  try {
    call();
    return made[0];
  } finally {
    made = outer;
  }
}

function textIn(memory, ptr, len) {
  return decoder.decode(new Uint8Array(memory.buffer, ptr >>> 0, len >>> 0));
}
/** A NUL-terminated text, null for NULL. */
function cstringIn(memory, ptr) {
  if (ptr >>> 0 === 0) return null;
  const bytes = new Uint8Array(memory.buffer, ptr >>> 0);
  return decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
}

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
  const into = (v) => made[made.length - 1].push(v);
  return {
    snowflake_c: {
      wall_us: wallUs,
      monotonic_us: monotonicUs,
      random,
      out_bool: (b) => made.push(b !== 0),
      out_number: (d) => made.push(d),
      out_uint: (u) => made.push(u64(u)),
      out_text: (ptr, len) => made.push(ptr === 0 ? null : textIn(memoryOf(), ptr, len)),
      out_list: () => made.push([]),
      out_push: () => into(made.pop()),
      out_put: (key) => into([cstringIn(memoryOf(), key), made.pop()]),
    },
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

function createBinding(instance) {
  const w = instance.exports;
  const memory = w.memory;
  if (typeof w._initialize === 'function') w._initialize();

  let classes = {};

  // ---- Memory and texts ----

  const cstring = (ptr) => cstringIn(memory, ptr);
  const textAt = (ptr, len) => textIn(memory, ptr, len);

  // The header's numbers, from the module's own tables.
  const types = [];
  for (let i = 0; cstring(w.type_name(i)) !== 'unknown'; i++) types.push(cstring(w.type_name(i)));
  // The core's calls by name (the binding kit's rows: call(row, args)).
  const calls = {};
  for (let row = 0, name; (name = cstring(w.call_at(row))) !== null; row++) calls[name] = row;
  const statusRows = walked(() => {
    w.args_clear();
    w.call(calls.statuses);
  }).map((row) => Object.fromEntries(row));
  const statusNames = [];
  for (const row of statusRows) statusNames[row.status] = row.name;
  const STATUS = Object.fromEntries(statusRows.map((row) => [row.name, row.status]));

  /** `text` as UTF-8 in the module's memory, NUL-terminated: [ptr, byte length]. */
  function put(text) {
    const bytes = encoder.encode(text);
    const ptr = w.alloc(bytes.length + 1) >>> 0;
    if (ptr === 0) throw makeError(STATUS.OutOfMemory, 'out of memory');
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
    return makeError(STATUS.InvalidArgument, message);
  }
  function check(status) {
    if (status !== STATUS.Ok) throw fail(status);
  }

  // ---- Values ----

  /** An sfc_value row as the module's arguments: type, i, u, d, text, len. */
  function valueArgs([type, i, u, d, text], keep) {
    const [ptr, len] = text === undefined ? [0, 0] : keep(text);
    return [type, i, u, d, ptr, len];
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

  function layoutHandle(ptr) {
    if (layouts !== undefined) {
      const handle = new LayoutHandle(ptr);
      layouts.register(handle, ptr);
      return handle;
    }
    const facts = new Map(layoutFacts(new LayoutHandle(ptr)));
    const key = `${facts.get('spec')}@${facts.get('epoch_ms')}`;
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

  function layoutResolve(held, preset, spec, epoch, forIds) {
    const heldPtr = held === undefined ? 0 : getLayout(held);
    const text = (t, keep) => (t === undefined ? 0 : keep(t)[0]);
    const ptr =
      scoped((keep) =>
        w.layout_resolve(
          heldPtr,
          text(preset, keep),
          text(spec, keep),
          text(epoch, keep),
          forIds ? 1 : 0,
        ),
      ) >>> 0;
    if (ptr === 0) throw fail(w.error_status());
    return layoutHandle(ptr);
  }

  function layoutFacts(handle) {
    return call(calls.layout_facts, [handle]);
  }

  // ---- The kit's calls ----

  // call(row, args) → the core's call of that row (its number by name in
  // `calls`): each argument a layout handle, a value row [type, i, u, d,
  // text], or a map [[name, row], …].

  function call(row, args) {
    return scoped((keep) => {
      const value = (arg) => check(w.arg_value(...valueArgs(arg, keep)));
      w.args_clear();
      for (const arg of args) {
        if (arg instanceof LayoutHandle) check(w.arg_layout(arg.ptr));
        else if (typeof arg[0] === 'number') value(arg);
        else {
          check(w.arg_map());
          for (const [name, row] of arg) {
            w.arg_key(...keep(name));
            value(row);
          }
        }
      }
      let status = STATUS.Ok;
      const made = walked(() => {
        status = w.call(row);
      });
      check(status);
      return made;
    });
  }

  // ---- Tables and texts ----

  function textCheck(what, text) {
    scoped((keep) => {
      const [ptr, len] = keep(text);
      check(w.text_check(keep(what)[0], ptr, len));
    });
  }

  function instantParse(text) {
    return scoped((keep) => {
      check(w.epoch_parse(keep(text)[0]));
      return Number(w.out_i());
    });
  }

  function formatId(id, encoding, form) {
    if (typeof id === 'bigint' && (id < 0n || id > UINT64_MAX)) return undefined;
    const n = w.id_format(BigInt(id), encoding, form);
    return textAt(w.text(), n);
  }

  function parseId(text, encoding) {
    return scoped((keep) => {
      const [ptr, len] = keep(text);
      check(w.id_parse(ptr, len, encoding));
      return u64(w.out_u());
    });
  }

  // ---- Decode, encode, range ----

  // decodeRule(handle): [maxId, epochUs, unitUs, [[shift, mask], …]] as
  // bigints, from the module's words (exports.c's decode_rule).
  function decodeRule(handle) {
    const ptr = w.decode_rule(getLayout(handle)) >>> 0;
    const count = Number(new BigUint64Array(memory.buffer, ptr, 4)[3]);
    const words = new BigUint64Array(memory.buffer, ptr, 4 + 2 * count);
    const fields = [];
    for (let i = 0; i < count; i++) fields.push([words[4 + 2 * i], words[5 + 2 * i]]);
    return [words[0], BigInt.asIntN(64, words[1]), BigInt.asIntN(64, words[2]), fields];
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

  /** made(l): a call of the module on the options and node values gathered. */
  function withOptions(handle, node, opts, made) {
    const l = getLayout(handle);
    return scoped((keep) => {
      w.options_clear();
      for (const [name, value] of node) {
        check(w.node_add(name === null ? 0 : keep(name)[0], ...valueArgs(value, keep)));
      }
      for (const [name, value] of opts) {
        const [namePtr, nameLen] = keep(name);
        check(w.options_set(namePtr, nameLen, ...valueArgs(value, keep)));
      }
      return made(l);
    });
  }

  /** Whether a node value is "lease" (which this build cannot run: api.js says so). */
  function leaseWanted(handle, node, opts) {
    return withOptions(handle, node, opts, (l) => w.lease_wanted(l)) !== 0;
  }

  function generatorNew(handle, node, opts) {
    const gen = withOptions(handle, node, opts, (l) => w.generator_new(l)) >>> 0;
    if (gen === 0) throw fail(w.error_status());

    // JavaScript may run inside a call before it is done with the generator
    // (the clock imports the core calls, a BigUint64Array subclass's
    // methods) and close it there: `calls` counts the calls under way, and
    // while there are any close() only closes; the last call out frees.
    const box = { gen, calls: 0, closed: false };
    const leave = () => {
      if (--box.calls === 0 && box.closed && box.gen !== 0) {
        w.generator_free(box.gen);
        box.gen = 0;
      }
    };

    /** fn() as a call under way. */
    function held(fn) {
      box.calls++;
      try {
        return fn();
      } finally {
        leave();
      }
    }

    const live = () => {
      check(w.generator_check(box.closed ? 0 : box.gen));
      return box.gen;
    };

    /** The result of one attempt: the ID, or the µs to wait. */
    function issued(st) {
      if (st === STATUS.Ok) return u64(w.out_u());
      if (st === STATUS.Wait) return Number(w.out_wait());
      throw fail(st);
    }

    // Fills out[offset..] with the core's calls on chunks of a buffer in the
    // module's memory; stops at the first wait. [filled, waitUs].
    function fill(out, offset, now) {
      const g = live();
      const want = out.length - offset;
      const chunk = Math.min(CHUNK, Math.max(want, 1));
      const buf = w.alloc(chunk * 8) >>> 0;
      if (buf === 0) throw makeError(STATUS.OutOfMemory, 'out of memory');
      let filled = 0;
      try {
        while (filled < want) {
          const n = Math.min(chunk, want - filled);
          const st = now === undefined ? w.next_ids_now(g, buf, n) : w.next_ids_at(g, now, buf, n);
          const got = w.out_len() >>> 0;
          out.set(new BigUint64Array(memory.buffer, buf, got), offset + filled);
          filled += got;
          if (st === STATUS.Wait) return [filled, Number(w.out_wait())];
          if (st !== STATUS.Ok) {
            const error = fail(st);
            error.filled = filled;
            throw error;
          }
        }
        return [filled, 0];
      } finally {
        w.free(buf);
      }
    }

    const methods = {
      // 0 once freed, which the core answers "closed".
      slot: () => held(() => issued(w.next_now(box.gen))),
      nextAt(now) {
        return held(() => {
          const g = live();
          return issued(now === undefined ? w.next_now(g) : w.next_at(g, BigInt(now)));
        });
      },
      fillAt(now, out, offset) {
        live();
        if (!(out instanceof BigUint64Array)) throw invalid('expected a BigUint64Array.');
        return held(() => fill(out, offset, now === undefined ? undefined : BigInt(now)));
      },
      nowUs() {
        return held(() => w.now_us(live()));
      },
      stats() {
        return held(() => walked(() => w.stats_out(live())));
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
    methods.warnings = walked(() => w.warnings_out(gen));
    generators?.register(methods, box);
    return methods;
  }

  /** generatorNext(slot): a generator's slot here is its next() itself. */
  function generatorNext(slot) {
    return slot();
  }

  /**
   * Waits by spinning on the host's clock: an instance cannot sleep. False
   * where the clock does not move at all (a Worker's between I/O).
   */
  function sleep(waitUs) {
    const start = monotonicMs();
    const deadline = start + waitUs / 1000;
    let now = start;
    let still = 0;
    while (now < deadline) {
      const next = monotonicMs();
      still = next === now ? still + 1 : 0;
      now = next;
      if (still >= FROZEN_READS) return false;
    }
    return true;
  }

  function setErrorClasses(kinds) {
    for (const row of statusRows) {
      if (row.is_error && typeof kinds[row.name] !== 'function') {
        throw invalid(`no error class for ${row.name}.`);
      }
    }
    classes = { ...kinds };
  }

  return {
    types,
    setErrorClasses,
    textCheck,
    layoutResolve,
    layoutFacts,
    instantParse,
    formatId,
    parseId,
    decodeRule,
    calls,
    call,
    generatorNew,
    generatorNext,
    leaseWanted,
    sleep,
    version: cstring(w.version()),
    kind: 'wasm',
  };
}

const wasmBinding = { imports, createBinding };

module.exports = wasmBinding;
