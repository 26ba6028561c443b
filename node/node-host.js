'use strict';

// What api.js needs from Node.js: timers that never block the event loop,
// and process warnings.

const { setTimeout: sleep } = require('node:timers/promises');

module.exports = {
  /** Waits without blocking the event loop. */
  pause(us) {
    return us < 1000
      ? new Promise((resolve) => setImmediate(resolve))
      : sleep(Math.ceil(us / 1000));
  },
  /** A process warning, as Node.js libraries give one. */
  warn(text, type, code, ctor) {
    process.emitWarning(text, { type, code, ctor });
  },
};
