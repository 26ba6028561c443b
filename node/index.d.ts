/// <reference lib="esnext.disposable" />
/**
 * snowflake-c — 64-bit, time-ordered unique IDs (the Snowflake family) from a
 * lock-free C core. IDs are `bigint` (or decimal strings on request) and
 * never pass through a lossy `number`.
 *
 * @example
 * ```js
 * const { Generator, decode } = require('snowflake-c');
 * const g = new Generator({ preset: 'twitter', node: { datacenter: 1, worker: 3 } });
 * const id = g.nextId(); // 1724551110456389632n
 * JSON.stringify(decode(175928847299117063n, { preset: 'discord' }));
 * // {"id":"175928847299117063","time_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z","worker":1,"process":0,"seq":7}
 * ```
 * @module snowflake-c
 * @packageDocumentation
 */

/** An ID as input: a `bigint`, a decimal string, or a `number` that is a safe integer. */
export type IdInput = bigint | string | number;

/** A point in time: a `Date`, Unix milliseconds, or an ISO-8601 UTC string. */
export type TimeInput = Date | number | bigint | string;

/** An epoch: Unix milliseconds or an ISO-8601 UTC instant. */
export type EpochInput = number | bigint | string | Date;

// <!-- generated: preset-name -->
/** The preset names. */
export type PresetName =
  'default' | 'twitter' | 'discord' | 'sonyflake' | 'baidu' | 'instagram' | 'jssafe';
// <!-- end generated -->

/** Names a layout: a preset, or a spec with its epoch, or a Layout. */
export type LayoutOptions =
  | { preset?: PresetName; layout?: undefined; epoch?: undefined }
  | { layout: string; epoch: EpochInput; preset?: undefined }
  | { layout: Layout; epoch?: undefined; preset?: undefined };

/** A layout argument: options, a Layout, or a preset name. Omitted: the `default` preset. */
export type LayoutArg = LayoutOptions | Layout | PresetName;

/** One field of a layout, most significant first. */
export interface Field {
  // <!-- generated: field-facts -->
  /** The field's name. */
  readonly name: string;
  /** Time, seq, clock or node. */
  readonly kind: 'time' | 'seq' | 'clock' | 'node';
  /** Width in bits. */
  readonly bits: number;
  /** Position of the lowest bit. */
  readonly shift: number;
  /** Largest value: 2^bits - 1. */
  readonly max: bigint;
  // <!-- end generated -->
}

/**
 * What a layout can do: the core's layout facts, keys in its order (the same
 * facts as in every language, in JavaScript's casing).
 */
export interface LayoutDescription {
  // <!-- generated: layout-facts -->
  /** The preset's name, none for other layouts. */
  name: PresetName | null;
  /** The canonical spec, time unit always given. */
  spec: string;
  /** Unix ms of time value 0. */
  epochMs: number;
  /** Length of one tick, in microseconds. */
  unitUs: number;
  /** Bits used by the fields (at most 64). */
  totalBits: number;
  /** IDs per second per node value. */
  idsPerSecond: number;
  /** Distinct node values. */
  nodeCapacity: number;
  /** First Unix ms the time field cannot hold. */
  timeEndMs: number;
  /** Largest ID the layout can hold. */
  maxId: bigint;
  /** The fields, most significant first. */
  fields: Field[];
  // <!-- end generated -->
}

/** How IDs are packed: ordered fields plus an epoch. Immutable. */
export class Layout {
  private constructor();
  /**
   * Parses a spec such as `'time:41@1ms,worker:10,seq:12'` with its epoch.
   * @throws {InvalidLayout} naming the problem
   */
  static parse(spec: string, epoch: EpochInput): Layout;
  /** A preset: `default`, `twitter`, `discord`, `sonyflake`, `baidu`, `instagram`, `jssafe`. */
  static preset(name: PresetName): Layout;
  /** The preset's name when the layout is one (same spec and epoch), else null. */
  readonly name: PresetName | null;
  /** The canonical spec, the time unit always given. */
  readonly spec: string;
  /** Unix ms of time value 0. */
  readonly epochMs: number;
  /** Length of one tick in microseconds. */
  readonly unitUs: number;
  readonly totalBits: number;
  readonly fields: readonly Field[];
  describe(): LayoutDescription;
  toString(): string;
  toJSON(): { spec: string; epochMs: number };
}

/** The parts of one ID. `JSON.stringify(parts)` gives the canonical JSON. */
export class Parts {
  private constructor();
  readonly id: bigint;
  /** Unix ms of the ID's tick, rounded down. */
  readonly timeMs: number;
  /** Unix µs of the tick's start. */
  readonly timeUs: bigint;
  /** ISO-8601 UTC with milliseconds, e.g. `2016-04-30T11:18:25.796Z`. */
  readonly time: string;
  /**
   * Every field but time, by name, in layout order: a `number` for fields of
   * up to 53 bits, a `bigint` for wider ones.
   */
  readonly fields: Readonly<Record<string, number | bigint>>;
  readonly layout: Layout;
  /** The tick's start as a Date. */
  readonly date: Date;
  /** The canonical JSON line, as the core wrote it. */
  toString(): string;
  /** The canonical JSON as an object: `{ id, time_ms, time, ...fields }`. */
  toJSON(): Record<string, string | number>;
}

/**
 * Splits an ID into its time and fields, under the layout it was made with: none is assumed.
 * @throws {InvalidArgument} when no layout is given, the ID does not fit the layout, or is an
 * unsafe `number`
 */
export function decode(id: IdInput, layout: LayoutArg): Parts;
/**
 * Splits an ID given as text in `options.encoding` (fixed or shortest form).
 * @throws {InvalidArgument} when the text is not an ID in that encoding
 */
export function decode(id: string, options: LayoutOptions & { encoding: Encoding }): Parts;

/**
 * A UUIDv7 (RFC 9562) split into its time and random bits by the core.
 * `JSON.stringify(u)` gives the canonical JSON:
 * `{"uuid":"…","version":7,"time_ms":…,"time":"…","rand_a":…,"rand_b":"…"}`.
 */
export class Uuid7 {
  private constructor();
  /** The canonical text: 8-4-4-4-12, lowercase. */
  readonly uuid: string;
  /** Unix ms: the UUID's 48-bit time. */
  readonly unixMs: number;
  /** ISO-8601 UTC with milliseconds, e.g. `2022-02-22T19:22:22.000Z`. */
  readonly time: string;
  /** The time as a Date. */
  readonly date: Date;
  /** The 12 bits of rand_a. */
  readonly randA: number;
  /** The 62 bits of rand_b. */
  readonly randB: bigint;
  /** The canonical JSON line, as the core wrote it. */
  toString(): string;
  /** The canonical JSON as an object: `{ uuid, version, time_ms, time, rand_a, rand_b }`. */
  toJSON(): {
    uuid: string;
    version: 7;
    time_ms: number;
    time: string;
    rand_a: number;
    rand_b: string;
  };
}

/**
 * Splits a UUIDv7 (8-4-4-4-12 or 32 hex digits, either case) into its time and random bits.
 * @throws {InvalidArgument} with the core's message: another length, a character that is not
 * hex, a misplaced hyphen, a version other than 7 or a variant other than RFC 9562's
 */
export function decodeUuid7(text: string): Uuid7;

// <!-- generated: encoding -->
/** The string forms of an ID; see {@link formatId}. */
export type Encoding = 'dec' | 'hex' | 'base32' | 'base36' | 'base58' | 'base62';
// <!-- end generated -->

/**
 * An ID as text: `dec` (up to 20 digits), `hex` (16), `base32` (Crockford,
 * 13, as tsid-creator), `base36` (13), `base58` (Bitcoin, 11) or `base62`
 * (0-9A-Za-z, 11, as CosId). By default `dec` is the plain number, as JSON
 * and every API print it, and the others are fixed width, left-padded with
 * the alphabet's zero so that the strings sort as the IDs do; `{ pad: true }`
 * gives the fixed width in any encoding (`dec`'s 20 digits), `{ pad: false }`
 * the shortest form.
 * @throws {InvalidArgument} for an unknown encoding or an ID outside 0 … 2^64 - 1
 */
export function formatId(id: IdInput, encoding: Encoding, options?: { pad?: boolean }): string;

/**
 * The ID a string stands for, in either form (hex, base36 in any case; base32
 * in any case with Crockford's I, L → 1 and O → 0).
 * @throws {InvalidArgument} naming the bad character and its position, or the limit
 */
export function parseId(text: string, encoding: Encoding): bigint;

/** Input of {@link encode}: exactly one time key, then every other field of the layout. */
export type EncodeInput =
  | Parts
  | ({
      timeMs?: number | bigint;
      time_ms?: number | bigint | string;
      timeUs?: bigint | number | string;
      time?: TimeInput;
    } & Record<string, IdInput | TimeInput | undefined>);

/**
 * Packs a time and field values into an ID; the inverse of decode.
 * @example encode({ timeMs: 1462015105796, worker: 1, process: 0, seq: 7 }, 'discord') // 175928847299117063n
 * @throws {InvalidArgument} when a field is missing, unknown or does not fit, or the time is outside the layout's life
 */
export function encode(parts: EncodeInput, layout: LayoutArg): bigint;

/**
 * The smallest and largest IDs whose time lies in `[t0, t1)` (t1 excluded, so
 * that consecutive windows never share an ID),
 * for range scans and pagination.
 */
export function range(
  t0: TimeInput,
  t1: TimeInput,
  layout: LayoutArg,
): { min: bigint; max: bigint };

/** The presets. */
export function presets(): { name: PresetName; spec: string; epochMs: number }[];

/** One option of a Generator, from the core's table. */
export interface OptionInfo {
  /** The option's name as a Generator takes it, e.g. `'maxWait'`. */
  name: keyof GeneratorSettings;
  // <!-- generated: option-types -->
  type: 'choice' | 'duration' | 'bool' | 'path' | 'text';
  // <!-- end generated -->
  /** The default, in words. */
  default: string;
  /** A duration's smallest value, ms. */
  min?: number;
  /** A duration's largest value, ms. */
  max?: number;
  /** A choice's names. */
  choices?: string[];
  /** One line. */
  doc: string;
}

/** The options a Generator takes besides its layout and node values. */
export function options(): OptionInfo[];

/** The C core's version. */
export const version: string;

/**
 * The SQL that creates the table of leased node values (idempotent): for a
 * migration, or run once (`snowflake-c lease init` does the same). The same
 * text as sql/leases.sql.
 */
export function leaseTableSql(): string;

/**
 * Which build `snowflake-c` loaded: the native addon, or the WebAssembly
 * build where no addon fits the platform (or SNOWFLAKE_C_IMPLEMENTATION=wasm).
 * `snowflake-c/wasm` is always the WebAssembly build and has no such export.
 */
export const implementation: 'native' | 'wasm';

/**
 * A node value: a number, `'auto'` (from the pool in `stateDir`), `'host'`
 * (host-name ordinal), `'env:NAME'` (the environment variable NAME, read
 * when the generator is created: `'env:JOB_COMPLETION_INDEX'` in an Indexed
 * Job) or `'lease'` (leased from PostgreSQL: {@link Generator.create}).
 */
export type NodeValue = number | bigint | 'auto' | 'host' | 'lease' | `env:${string}` | `${number}`;

/**
 * A duration: ms as a number (a fraction rounds up to the next whole ms) or a
 * bigint, or text with an optional unit: `'250'`, `'250ms'`, `'1.5s'`, `'800us'`.
 */
export type Duration = number | bigint | `${number}` | `${number}${'ms' | 's' | 'us'}`;

/**
 * The options of the core's table ({@link options}); `undefined` or `null`
 * is the option's default. The core checks each one and throws
 * {@link InvalidArgument} naming it, for an unknown option too.
 *
 * The guard (`guard`), on by default, is one claim per ID space and node bits
 * on the host. A second live generator that would issue the same IDs, in
 * this process or another of the host or container, throws
 * {@link WorkerUnavailable} naming the holder. `false` only where sharing a
 * value is meant: the generator then emits an `UnguardedWarning` (code
 * `SNOWFLAKE_C_UNGUARDED`) through `process.emitWarning`.
 *
 * The members are written from the core's table by scripts/docs.
 */
export interface GeneratorSettings {
  // <!-- generated: settings -->
  /** What to do when the wall clock goes backwards. Default: `'default'`. */
  rollback?: 'default' | 'error' | 'wait' | 'clock' | 'borrow' | 'switch' | null;
  /**
   * Longest wait for the clock to catch up after it steps back. Takes a duration, 0 to 1 day.
   * Default: the strategy's: 5 ms (default, switch), 0 ms (error, clock), 1000 ms (wait, borrow).
   */
  maxWait?: Duration | null;
  /**
   * How far ahead of the clock IDs may be issued. Takes a duration, 0 to 1 day. Default: the
   * strategy's: 0 ms (default, error, wait, clock, switch), 1000 ms (borrow).
   */
  maxDrift?: Duration | null;
  /** Start each tick's sequence at a random value in its lower half. Default: `false`. */
  randomStart?: boolean | null;
  /**
   * Wall: read the wall clock on every call; monotonic: read it once; counter: read it when the
   * processor's counter shows its tick over. Default: `'wall'`.
   */
  timeSource?: 'wall' | 'monotonic' | 'counter' | null;
  /**
   * Folder of lock and state files: restarts, the pool (auto), the mark. Takes a folder. Default:
   * none.
   */
  stateDir?: string | null;
  /**
   * How far ahead the state file's high-water mark is reserved. Takes a duration, 1 ms to 1 hour.
   * Default: 1000 ms.
   */
  stateReserve?: Duration | null;
  /**
   * Claim the node value host-wide: refuse a second live generator that could issue the same IDs.
   * Default: `true`.
   */
  guard?: boolean | null;
  /**
   * How long a leased node value is held by the database's clock (renewed at a third of it). Takes
   * a duration, 1 s to 1 hour. Default: 15000 ms.
   */
  leaseDuration?: Duration | null;
  /**
   * The instance's stable key: its last leased value is taken again when free. Takes text, 1 to 120
   * characters. Default: none.
   */
  leaseKey?: string | null;
  // <!-- end generated -->
}

export type GeneratorOptions = LayoutOptions &
  GeneratorSettings & {
    /**
     * Node values by field name, e.g. `{ worker: 3 }` or `{ worker: 'auto' }`,
     * or one value for the layout's only node field (`node: 3`). A field not
     * given is read from `SNOWFLAKE_<FIELD>`; with no value at all, the
     * constructor throws: there is no silent default.
     */
    node?: NodeValue | Record<string, NodeValue> | null;
    /**
     * The PostgreSQL of a node value `'lease'` (`node: { worker: 'lease' }`,
     * or SNOWFLAKE_WORKER=lease): a `postgresql://` URL or libpq's key=value
     * text; else SNOWFLAKE_LEASE_URL. Read by {@link Generator.create} only,
     * through node-postgres (`npm install pg`).
     */
    lease?: string | null;
  };

// <!-- generated: node-source -->
/** Where a node value came from. */
export type NodeSource = 'explicit' | 'env' | 'host' | 'pool' | 'lease';
// <!-- end generated -->

/**
 * The counters of a generator and its node identity: the core's stats, keys
 * in its order (the same stats as in every language, in JavaScript's
 * casing). Counters are exact up to 2^53.
 */
export interface GeneratorStats {
  // <!-- generated: stats -->
  /** IDs issued. */
  idsIssued: number;
  /** Times a call waited for the next tick. */
  waits: number;
  /** Ticks issued ahead of the clock. */
  borrowedTicks: number;
  /** Clock steps backwards beyond max_drift. */
  rollbacks: number;
  /** Rollbacks waited out. */
  rollbacksWaited: number;
  /** Rollbacks answered with an error. */
  rollbacksRefused: number;
  /** Times the clock field was bumped. */
  clockBumps: number;
  /** Pool values taken by rollback=switch. */
  nodeSwitches: number;
  /** Unix ms of the last tick issued. */
  lastTimeMs: number;
  /** The clock field's value (0 without one). */
  clock: number;
  /** The rollback strategy in force. */
  rollback: 'error' | 'wait' | 'clock' | 'borrow' | 'switch';
  /** The longest wait in force, in ms. */
  maxWaitMs: number;
  /** The drift allowed, in ms. */
  maxDriftMs: number;
  /** The node values, by field. */
  node: Record<string, number | bigint>;
  /** Where each node value came from. */
  nodeSources: Record<string, NodeSource>;
  /** Held: <the host-wide claim>, or off. */
  guard: string;
  // <!-- end generated -->
  /** A leased node value's lease (a generator of {@link Generator.create} on `'lease'`). */
  lease?: LeaseStats;
}

/** The lease of a leased node value: the core's table of a lease's stats in JavaScript's casing. */
export interface LeaseStats {
  // <!-- generated: lease-stats -->
  /**
   * Acquiring, held, expired (no renewal within a lease: no IDs until one succeeds), lost or
   * released.
   */
  state: 'acquiring' | 'held' | 'expired' | 'lost' | 'released';
  /** The node field leased. */
  field: string;
  /** The node value held, -1 before one is held. */
  value: number;
  /** Unix ms: the deadline on this host's clock, past which no ID is issued. */
  expiresMs: number;
  /** Unix ms: no ID past it (the horizon written in the database). */
  horizonMs: number;
  /** Renewals of the lease that succeeded. */
  renewals: number;
  /** Statements of the lease that could not be run. */
  failures: number;
  /** The last failure, or empty. */
  error: string;
  /**
   * The lease in ms, by the database's clock: an acquire gives up after one, a statement times out
   * at a third.
   */
  durationMs: number;
  // <!-- end generated -->
}

/**
 * Issues unique, time-ordered IDs for one layout and one node value.
 *
 * Synchronous methods wait for the clock at most one tick (at least 10 ms)
 * at a time, so the event loop is never blocked for long; a longer wait (the
 * clock behind the last ID issued) throws {@link ClockMovedBackwards}. The
 * async methods wait any length with timers.
 */
/** A warning of a new generator: its kind (`Unguarded`, `LayoutEnding`) and its text. */
export interface GeneratorWarning {
  readonly kind: string;
  readonly message: string;
}

export class Generator {
  /**
   * Emits an `UnguardedWarning` (code `SNOWFLAKE_C_UNGUARDED`) through
   * `process.emitWarning` when the generator runs unguarded (`guard: false`),
   * and a `LayoutEndingWarning` (code `SNOWFLAKE_C_LAYOUT_ENDING`) when its
   * layout runs out within ten years, once per text in each thread.
   * @throws {InvalidArgument | InvalidLayout}
   * @throws {StateError} when the host-wide claim cannot be taken, or the state
   *   directory cannot be used
   * @throws {WorkerUnavailable} when another live generator holds the node value
   */
  constructor(options?: GeneratorOptions);
  /**
   * A generator, made asynchronously: the only way to one whose node value is
   * leased from PostgreSQL (`node: { worker: 'lease' }` with `lease`), which
   * it acquires before it resolves, then renews on timers that keep no
   * process alive; the same as `new Generator(options)` otherwise. Past a
   * lease without a renewal, calls throw {@link LeaseExpired} until one
   * succeeds.
   * @throws {WorkerUnavailable} every value held, or the database not reached in a lease
   */
  static create<T extends Generator>(
    this: new (options?: GeneratorOptions) => T,
    options?: GeneratorOptions,
  ): Promise<T>;
  readonly layout: Layout;
  /**
   * What the core said of this generator at its creation, in its order: its
   * node value unguarded (`Unguarded`), its layout's time running out within
   * ten years or run out (`LayoutEnding`). Each is emitted as a
   * `<kind>Warning` too, once per text in each thread; `[]` when it said
   * nothing.
   */
  readonly warnings: readonly GeneratorWarning[];
  /** The next ID. */
  nextId(): bigint;
  /** The next ID as a decimal string. */
  nextIdString(): string;
  /**
   * `n` consecutive IDs, filled in one native call. On an error, the IDs
   * issued before it are on the error as `ids`.
   */
  nextIds(n: number): BigUint64Array;
  /** The deterministic entry: one attempt at `nowUs` (Unix µs); never waits. */
  nextIdAt(nowUs: bigint | number | string): { id: bigint } | { waitUs: number };
  /** Up to `n` IDs at `nowUs`; `waitUs` when fewer were issued. */
  nextIdsAt(nowUs: bigint | number | string, n: number): { ids: BigUint64Array; waitUs?: number };
  /** The next ID, waiting with timers if the clock asks. */
  nextIdAsync(): Promise<bigint>;
  /** `n` IDs, waiting with timers if the clock asks. */
  nextIdsAsync(n: number): Promise<BigUint64Array>;
  /** The generator's clock, Unix µs. */
  nowUs(): bigint;
  stats(): GeneratorStats;
  /**
   * Persists the state, releases the node value, frees the generator.
   * Idempotent. A leased value is given back in the background.
   */
  close(): void;
  /** `close()`, settled once a leased node value is given back; never rejects. */
  closeAsync(): Promise<void>;
  [Symbol.dispose](): void;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Base of every error of this package: one subclass per error status of the
 * core's table.
 */
export class SnowflakeError extends Error {
  /** The kind's name, the same in every language, e.g. `'InvalidLayout'`. */
  readonly code: string;
  /** The core's fixed status number. */
  static readonly status: number;
  static readonly code: string;
  /** The core's one-line description of the kind. */
  static readonly description: string;
  /** On a failed batch: the IDs issued before the error (still unique). */
  ids?: BigUint64Array;
}
/** A layout spec, preset name or epoch that cannot be used. */
export class InvalidLayout extends SnowflakeError {
  readonly code: 'InvalidLayout';
}
/** A bad argument: an ID that does not fit, a missing node value, a bad option, a closed generator, … */
export class InvalidArgument extends SnowflakeError {
  readonly code: 'InvalidArgument';
}
/** The clock went backwards and the rollback strategy refuses to go on. */
export class ClockMovedBackwards extends SnowflakeError {
  readonly code: 'ClockMovedBackwards';
}
/** The layout's time field has run out (its epoch's life is over). */
export class TimeExhausted extends SnowflakeError {
  readonly code: 'TimeExhausted';
}
/** A generator was used in a forked child with a static node value. */
export class GeneratorForked extends SnowflakeError {
  readonly code: 'GeneratorForked';
}
/** The node value is held by another live generator, or the pool is full. */
export class WorkerUnavailable extends SnowflakeError {
  readonly code: 'WorkerUnavailable';
}
/** The host-wide claim, the state directory or a state file cannot be used. */
export class StateError extends SnowflakeError {
  readonly code: 'StateError';
}
/** An allocation failed. */
export class OutOfMemory extends SnowflakeError {
  readonly code: 'OutOfMemory';
}
/**
 * A leased node value may have expired (no renewal reached the database in time) or was taken by
 * another holder: no ID is issued past the lease's deadline.
 */
export class LeaseExpired extends SnowflakeError {
  readonly code: 'LeaseExpired';
}
