/**
 * snowflake-c/json — JSON with `bigint` IDs: a replacer that writes them as
 * strings in any of the package's string forms, and a reviver that reads the
 * named keys back as `bigint`, both through the package's `formatId` and
 * `parseId`.
 *
 * @example
 * ```js
 * const { replacer, reviver } = require('snowflake-c/json');
 * const text = JSON.stringify({ id: 175928847299117063n }, replacer());
 * // {"id":"175928847299117063"}
 * JSON.parse(text, reviver({ keys: ['id'] })).id; // 175928847299117063n
 * ```
 * @module snowflake-c/json
 * @packageDocumentation
 */
import type { Encoding, InvalidArgument, formatId, parseId } from './index.js';

/** The property names that hold IDs, or a test on each (key, value). */
export type IdKeys =
  readonly string[] | ReadonlySet<string> | ((key: string, value: unknown) => boolean);

export interface ReplacerOptions {
  /** The string form of IDs (default 'dec'), written by the package's formatId. */
  encoding?: Encoding;
  /** Fixed width (default: formatId's, false for 'dec' and true for the other forms). */
  pad?: boolean;
  /** Only these keys hold IDs (other bigint values are written in decimal); default: every bigint. */
  keys?: IdKeys;
}

export interface ReviverOptions {
  /** The string form of the IDs in the text (default 'dec'), read by the package's parseId. */
  encoding?: Encoding;
  /** The keys whose values (or lists of values) are IDs: required. */
  keys: IdKeys;
}

export type JsonReplacer = (this: unknown, key: string, value: unknown) => unknown;
export type JsonReviver = (this: unknown, key: string, value: unknown) => unknown;

/** A replacer for JSON.stringify that writes bigint values (and BigUint64Array) as strings. */
export function replacer(options?: ReplacerOptions): JsonReplacer;

/**
 * A reviver for JSON.parse that turns the values of the given keys into bigint. An ID that
 * arrives as a number beyond 2^53 (already rounded by JSON.parse) throws InvalidArgument.
 */
export function reviver(options: ReviverOptions): JsonReviver;

/** JSON.stringify(value, replacer(options), options.space). */
export function stringifyIds(
  value: unknown,
  options?: ReplacerOptions & { space?: string | number },
): string;

/** JSON.parse(text, reviver(options)). */
export function parseIds<T = any>(text: string, options: ReviverOptions): T;

export interface JsonIds {
  replacer: typeof replacer;
  reviver: typeof reviver;
  stringifyIds: typeof stringifyIds;
  parseIds: typeof parseIds;
}

/** The same functions over another implementation, e.g. require('snowflake-c/wasm'). */
export function createJsonIds(impl: {
  formatId: typeof formatId;
  parseId: typeof parseId;
  InvalidArgument: typeof InvalidArgument;
}): JsonIds;
