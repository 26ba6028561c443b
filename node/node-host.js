'use strict';

// What api.js needs from Node.js: timers that never block the event loop,
// process warnings, the environment, and the host of leased node values
// (lease.js, through node-postgres: loaded when a generator leases).

const { setTimeout: sleep } = require('node:timers/promises');

module.exports = {
  /** Waits without blocking the event loop; settled at once when `signal` aborts. */
  pause(us, signal) {
    if (us < 1000) return new Promise((resolve) => setImmediate(resolve));
    return sleep(Math.ceil(us / 1000), undefined, { signal }).catch((error) => {
      if (error?.name !== 'AbortError') throw error;
    });
  },
  /** A process warning, as Node.js libraries give one. */
  warn(text, type, code, ctor) {
    process.emitWarning(text, { type, code, ctor });
  },
  /** An environment variable, or undefined. */
  env(name) {
    return process.env[name];
  },
  /** The host that runs a lease's statements (lease.js). */
  leaseHost(lease, url, errors) {
    const { LeaseHost } = require('./lease');
    return new LeaseHost(lease, url, errors);
  },
};
