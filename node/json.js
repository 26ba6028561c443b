'use strict';

// JSON for bigint IDs: a replacer that writes bigint values as strings and a
// reviver that turns the named keys back into bigint. Every conversion of an
// ID goes through the implementation's own formatId and parseId (native or
// WebAssembly); this module only walks JSON.

const OPTIONS = {
  replacer: ['encoding', 'pad', 'keys'],
  reviver: ['encoding', 'keys'],
  stringifyIds: ['encoding', 'pad', 'keys', 'space'],
  parseIds: ['encoding', 'keys'],
};

function createJsonIds(impl) {
  const { formatId, parseId, InvalidArgument } = impl;

  function checkOptions(name, options) {
    if (options === undefined || options === null) return {};
    if (typeof options !== 'object' || Array.isArray(options)) {
      throw new InvalidArgument(`${name} takes an options object, not ${typeof options}`);
    }
    for (const key of Object.keys(options)) {
      if (!OPTIONS[name].includes(key)) {
        throw new InvalidArgument(
          `unknown ${name} option '${key}': the options are ${OPTIONS[name].join(', ')}`,
        );
      }
    }
    return options;
  }

  // keys: a list (or Set) of property names, or a predicate (key, value).
  function keyMatcher(name, keys, required) {
    if (keys === undefined || keys === null) {
      if (required) {
        throw new InvalidArgument(
          `${name} needs { keys }: the property names that hold IDs, or a function (key, value) => boolean`,
        );
      }
      return () => true;
    }
    if (typeof keys === 'function') return (key, value) => Boolean(keys(key, value));
    if (Array.isArray(keys) || keys instanceof Set) {
      const set = new Set(keys);
      for (const key of set) {
        if (typeof key !== 'string') {
          throw new InvalidArgument(`${name} option keys holds ${typeof key}: give property names`);
        }
      }
      return (key) => set.has(key);
    }
    throw new InvalidArgument(
      `${name} option keys takes a list of property names or a function (key, value) => boolean`,
    );
  }

  // Checks the encoding once, when the replacer or reviver is made, so that
  // a typo fails at once rather than on the first ID.
  function checkEncoding(encoding) {
    const chosen = encoding ?? 'dec';
    formatId(0n, chosen);
    return chosen;
  }

  function replacer(options) {
    if (typeof options === 'string') {
      throw new InvalidArgument(
        'replacer makes a replacer: call it, JSON.stringify(value, replacer()), or use stringifyIds',
      );
    }
    const opts = checkOptions('replacer', options);
    const encoding = checkEncoding(opts.encoding);
    if (opts.pad !== undefined && typeof opts.pad !== 'boolean') {
      throw new InvalidArgument('replacer option pad takes true or false');
    }
    // formatId's default form unless pad is given: dec the number it is,
    // the other forms fixed width.
    const pad = opts.pad;
    const isId = keyMatcher('replacer', opts.keys, false);
    const padding = pad === undefined ? undefined : { pad };
    const format = (id) => formatId(id, encoding, padding);
    // Without keys every bigint is an ID; with keys, other bigints are
    // written in decimal.
    const write = (key, id) => (isId(key, id) ? format(id) : String(id));
    return function replaceIds(key, value) {
      if (typeof value === 'bigint') return write(key, value);
      if (value instanceof BigUint64Array || value instanceof BigInt64Array) {
        return Array.from(value, (id) => write(key, id));
      }
      // A list under an ID key is a list of IDs: its elements come next
      // under their indexes, which name no key.
      if (Array.isArray(value) && opts.keys != null && isId(key, value)) {
        return value.map((v) => (typeof v === 'bigint' ? format(v) : v));
      }
      return value;
    };
  }

  function reviveOne(key, value, encoding) {
    if (typeof value === 'string') return parseId(value, encoding);
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value)) {
        throw new InvalidArgument(
          `'${key}' holds the number ${value}, beyond 2^53: JSON.parse has already rounded it, ` +
            'so the ID cannot be recovered; send IDs as strings (stringifyIds, replacer())',
        );
      }
      return parseId(String(value), 'dec');
    }
    throw new InvalidArgument(
      `'${key}' holds ${Array.isArray(value) ? 'a list' : typeof value}, not an ID (a string or a safe integer)`,
    );
  }

  function reviver(options) {
    if (typeof options === 'string') {
      throw new InvalidArgument(
        'reviver makes a reviver: call it, JSON.parse(text, reviver({ keys })), or use parseIds',
      );
    }
    const opts = checkOptions('reviver', options);
    const encoding = checkEncoding(opts.encoding);
    const isId = keyMatcher('reviver', opts.keys, true);
    return function reviveIds(key, value) {
      if (value === null || !isId(key, value)) return value;
      // A list under an ID key is a list of IDs; JSON.parse has revived its
      // elements already, under their indexes.
      if (Array.isArray(value)) {
        return value.map((v) => (v === null ? v : reviveOne(key, v, encoding)));
      }
      return reviveOne(key, value, encoding);
    };
  }

  function stringifyIds(value, options) {
    const { space, ...rest } = checkOptions('stringifyIds', options);
    return JSON.stringify(value, replacer(rest), space);
  }

  function parseIds(text, options) {
    if (typeof text !== 'string') {
      throw new InvalidArgument(`parseIds takes JSON text, not ${typeof text}`);
    }
    return JSON.parse(text, reviver(checkOptions('parseIds', options)));
  }

  return { replacer, reviver, stringifyIds, parseIds };
}

// Bound to the package's main entry (the native addon), loaded on first use,
// so that a program using only createJsonIds(require('snowflake-c/wasm'))
// never loads the addon.
let main;
const bound = () => (main ??= createJsonIds(require('./index.js')));

module.exports = {
  replacer: (options) => bound().replacer(options),
  reviver: (options) => bound().reviver(options),
  stringifyIds: (value, options) => bound().stringifyIds(value, options),
  parseIds: (text, options) => bound().parseIds(text, options),
  createJsonIds,
};
