'use strict';

/**
 * The error kinds of snowflake-c, the same names in every language: one
 * class per error status of the core's table (`InvalidLayout`,
 * `InvalidArgument`, …), all under `SnowflakeError`. A binding (the native
 * addon, the WebAssembly module) picks the kind and the message; the
 * classes live in JavaScript so that `instanceof`, `name` and `code` work as
 * usual. `status` is the core's fixed sfc_status number.
 *
 * defineErrors(statuses): the classes of the core's status table
 * (the core's call `statuses`: rows of [name, value] pairs), as
 * `{ SnowflakeError, InvalidLayout, … }`.
 */

class SnowflakeError extends Error {
  /**
   * @param {string} message what was wrong and what to do
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
    /** The kind's name, e.g. `'InvalidLayout'`. */
    this.code = new.target.code;
  }
}

function define(cls, code, status, description) {
  Object.defineProperty(cls, 'code', { value: code });
  Object.defineProperty(cls, 'status', { value: status });
  Object.defineProperty(cls, 'description', { value: description });
}

define(SnowflakeError, 'SnowflakeError', 0, 'an error of snowflake-c');

function defineErrors(statuses) {
  const kinds = {};
  for (const row of statuses) {
    const { status, name, message, is_error: isError } = Object.fromEntries(row);
    if (!isError) continue;
    // A computed key names the class: `InvalidLayout.name === 'InvalidLayout'`.
    const cls = { [name]: class extends SnowflakeError {} }[name];
    define(cls, name, status, message);
    kinds[name] = cls;
  }
  return { SnowflakeError, ...kinds };
}

module.exports = defineErrors;
