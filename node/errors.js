'use strict';

/**
 * The error kinds of snowflake-c, the same names in every language. The
 * native addon picks the kind (the core's status name) and the message; the
 * classes live here so that `instanceof`, `name` and `code` work as usual.
 * `status` is the core's fixed sfc_status number.
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

/** A layout spec, preset name or epoch that cannot be used. */
class InvalidLayout extends SnowflakeError {}
/** A bad argument: an ID that does not fit, a missing node value, … */
class InvalidArgument extends SnowflakeError {}
/** The clock went backwards and the rollback strategy refuses to go on. */
class ClockMovedBackwards extends SnowflakeError {}
/** The layout's time field has run out (its epoch's life is over). */
class TimeExhausted extends SnowflakeError {}
/** A generator was used in a forked child with a static node value. */
class GeneratorForked extends SnowflakeError {}
/** The node value is held by another live process, or the pool is full. */
class WorkerUnavailable extends SnowflakeError {}
/** The state directory or a state file cannot be used. */
class StateError extends SnowflakeError {}

const kinds = [
  [SnowflakeError, 'SnowflakeError', 0],
  [InvalidLayout, 'InvalidLayout', 1],
  [InvalidArgument, 'InvalidArgument', 2],
  [ClockMovedBackwards, 'ClockMovedBackwards', 3],
  [TimeExhausted, 'TimeExhausted', 4],
  [GeneratorForked, 'GeneratorForked', 5],
  [WorkerUnavailable, 'WorkerUnavailable', 6],
  [StateError, 'StateError', 7],
];
for (const [cls, code, status] of kinds) {
  Object.defineProperty(cls, 'code', { value: code });
  Object.defineProperty(cls, 'status', { value: status });
}

module.exports = {
  SnowflakeError,
  InvalidLayout,
  InvalidArgument,
  ClockMovedBackwards,
  TimeExhausted,
  GeneratorForked,
  WorkerUnavailable,
  StateError,
};
