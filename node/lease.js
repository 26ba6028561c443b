'use strict';

// The host of the core's lease protocol through node-postgres (pg): node
// values leased from PostgreSQL (node: { worker: 'lease' }, docs/leases.md).
// The core owns the SQL, its parameters, the timings, the state machine and
// the fence; this file only runs each statement the core hands out and hands
// the row (or the driver's failure) back, as the CLI's libpq host
// (core/cli/lease.c) and Python's psycopg host do: the acquire before the
// generator is made (Generator.create), the renewals on an unref'd timer, the
// release after the generator is closed.
//
// The connection keeps the process alive only while acquiring and releasing:
// between renewals it is unref'd, and a process that has nothing else left
// to do gives its values back ('beforeExit') and ends.

const { setTimeout: sleep } = require('node:timers/promises');

// After a failure of its own, the renewer waits this long before it asks the
// core again (the core's own timings cover every failure of a statement).
const SURPRISE_MS = 50;

// Every column as PostgreSQL's text, as the core reads it.
const RAW = { getTypeParser: () => (text) => text };

/** node-postgres, or the error that says how to install it. */
function driver() {
  try {
    return require('pg');
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND') throw error;
    const missing = new Error(
      "a node value 'lease' runs its statements through node-postgres: npm install pg",
      { cause: error },
    );
    missing.code = 'MODULE_NOT_FOUND';
    throw missing;
  }
}

const firstLine = (error) => (String(error?.message ?? error).trim() || 'failed').split('\n')[0];

// libpq's key=value text: the keys node-postgres has a setting for.
const KEYS = {
  host: 'host',
  hostaddr: 'host',
  port: 'port',
  user: 'user',
  password: 'password',
  dbname: 'database',
};
const PAIR = /\s*([A-Za-z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|([^\s']*))/y;

/**
 * node-postgres's settings for the lease's database: a postgresql:// URL as
 * it is, or libpq's key=value text (host=/run/postgresql dbname=app).
 */
function connectionConfig(url, invalid) {
  if (/^postgres(ql)?:\/\//i.test(url)) return { connectionString: url };
  const config = {};
  PAIR.lastIndex = 0;
  let m;
  while ((m = PAIR.exec(url)) !== null) {
    const [, key, quoted, bare] = m;
    const value = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : bare;
    if (key === 'sslmode') {
      config.ssl = value.startsWith('verify')
        ? true
        : value === 'require'
          ? { rejectUnauthorized: false }
          : false;
    } else if (key in KEYS) {
      config[KEYS[key]] = value;
    } else if (key !== 'application_name' && key !== 'connect_timeout') {
      throw invalid(
        `the lease database's text names '${key}', which node-postgres takes no setting for; ` +
          `known: ${Object.keys(KEYS).join(', ')}, sslmode (or give a postgresql:// URL).`,
      );
    }
    if (PAIR.lastIndex === url.length) break;
  }
  if (
    url.trim() !== '' &&
    PAIR.lastIndex !== url.length &&
    url.slice(PAIR.lastIndex).trim() !== ''
  ) {
    throw invalid(
      "the lease database must be a postgresql:// URL or libpq's key=value text, " +
        `not '${url.slice(0, 60)}'.`,
    );
  }
  return config;
}

// The hosts whose generators are open: closed when the process has nothing
// else to do, so that their values go back (as Python's atexit does).
const open = new Set();
let exitHooked = false;

function onBeforeExit() {
  for (const host of [...open]) host.closeGenerator();
}

class LeaseHost {
  #pg;
  #lease; // the binding's lease (addon.cc's LeaseNew)
  #config;
  #errors;
  #durationMs;
  #client = null;
  #held = true; // whether the connection may keep the process alive
  #stopped = false;
  #wake = null; // ends the renewer's sleep
  #loop = null; // the renewer, settled once it stopped
  #closing = null;
  #closeGenerator = null;
  #freed = false;

  constructor(lease, url, errors) {
    this.#pg = driver();
    this.#lease = lease;
    this.#errors = errors;
    this.#config = connectionConfig(url, (text) => new errors.InvalidArgument(text));
    this.#durationMs = this.stats().find(([name]) => name === 'duration_ms')[1];
  }

  // ---- One statement ------------------------------------------------------

  /**
   * A connection that gives up within 2 s, whose statements time out at a
   * third of the lease: a hung database must not hold renewals back.
   */
  async #connect() {
    const client = new this.#pg.Client({
      ...this.#config,
      connectionTimeoutMillis: 2000,
      statement_timeout: Math.floor(this.#durationMs / 3),
      query_timeout: this.#durationMs,
      application_name: 'snowflake-c',
    });
    const lost = () => {
      if (this.#client === client) this.#client = null;
    };
    client.on('error', lost); // a connection lost between statements: the next one reconnects
    client.on('end', lost);
    try {
      await client.connect();
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    this.#client = client;
    this.#hold(this.#held);
    return client;
  }

  /** Lets the connection keep the process alive, or not. */
  #hold(on) {
    this.#held = on;
    const socket = this.#client?.connection?.stream;
    if (socket && typeof socket.ref === 'function') {
      if (on) socket.ref();
      else socket.unref();
    }
  }

  /**
   * Runs the statement the core handed out and gives the core its row; false
   * when the database could not run it (the core retries it). Throws what the
   * core makes of the row (WorkerUnavailable, LeaseExpired).
   */
  async #run([, sql, params]) {
    let client = this.#client;
    try {
      client ??= await this.#connect();
    } catch (error) {
      this.#lease.failed(`cannot connect to the lease database: ${firstLine(error)}`);
      return false;
    }
    let result;
    try {
      result = await client.query({ text: sql, values: params, rowMode: 'array', types: RAW });
    } catch (error) {
      if (!(error instanceof this.#pg.DatabaseError)) this.#drop();
      this.#lease.failed(`the lease database refused: ${firstLine(error)}`);
      return false;
    }
    const row = result.rows?.[0];
    this.#lease.done(row === undefined ? null : row.map((v) => (v === null ? null : String(v))));
    return true;
  }

  #drop() {
    const client = this.#client;
    this.#client = null;
    client?.end().catch(() => {}); // a broken connection has nothing left to say
  }

  // ---- The life of the lease ----------------------------------------------

  /**
   * Takes a value within the core's time (a lost race is tried again at
   * once, a database that cannot be reached with backoff); every value held,
   * or no value in time, is WorkerUnavailable.
   */
  async acquire() {
    try {
      for (;;) {
        const step = this.#lease.due();
        if (typeof step !== 'number') await this.#run(step);
        if (this.#lease.acquired()) return;
        if (typeof step === 'number') await sleep(step / 1000); // the core caps it
      }
    } catch (error) {
      await this.giveBack();
      throw error;
    }
  }

  /** Renews on unref'd timers until close(); `closeGenerator` closes the generator. */
  start(closeGenerator) {
    this.#closeGenerator = closeGenerator;
    this.#hold(false);
    this.#loop = this.#renew();
    open.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('beforeExit', onBeforeExit);
    }
  }

  async #renew() {
    while (!this.#stopped) {
      try {
        const step = this.#lease.due();
        if (typeof step === 'number') await this.#pause(step / 1000);
        else await this.#run(step);
      } catch (error) {
        // The renewer must outlive any surprise; a value taken by another
        // holder stops the generator for good (LeaseExpired from its calls).
        const lost = error instanceof this.#errors.LeaseExpired;
        process.emitWarning(`lease: ${error?.message ?? error}`, {
          type: 'LeaseWarning',
          code: lost ? 'SNOWFLAKE_C_LEASE_LOST' : 'SNOWFLAKE_C_LEASE_RENEWER',
        });
        if (!lost) await this.#pause(SURPRISE_MS);
      }
    }
  }

  /** An unref'd sleep that close() ends at once. */
  #pause(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.ceil(ms));
      timer.unref();
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The generator's close(), which then calls close() here. */
  closeGenerator() {
    this.#closeGenerator?.();
  }

  /**
   * Stops the renewer and gives the value back with the generator's exact
   * last tick (the generator closed first). Idempotent; never rejects.
   */
  close() {
    // Nothing is left to tell the caller: the value not given back comes
    // free when its lease expires.
    this.#closing ??= this.#close().catch(() => {});
    return this.#closing;
  }

  async #close() {
    open.delete(this);
    this.#stopped = true;
    this.#wake?.();
    // A statement in flight ends within a third of the lease (the server's
    // statement_timeout), the 2 s of a connection attempt, or a lease.
    this.#hold(true);
    await this.#loop;
    await this.giveBack();
  }

  /** Gives the value back (when one is held), then frees the lease. */
  async giveBack() {
    if (this.#freed) return;
    this.#hold(true);
    const query = this.#lease.release();
    try {
      if (query !== null) await this.#run(query);
    } catch {
      // Not given back: the value comes free when its lease expires.
    } finally {
      this.#drop();
      this.#freed = true;
      this.#lease.free();
    }
  }

  /** The lease's stats as [[name, value]], the CLI's names; [] once freed. */
  stats() {
    return this.#freed ? [] : this.#lease.stats();
  }
}

module.exports = { LeaseHost, connectionConfig };
