// node:assert/strict's calls that the shared runners make, for a browser:
// strict equality (Object.is), deep equality of plain values, arrays, typed
// arrays and bigints, ok, match, throws and fail. Each failure throws an
// Error whose message says what differed.
const show = (v) => {
  try {
    return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
  } catch {
    return String(v);
  }
};

class AssertionError extends Error {
  constructor(message, detail) {
    super(message ? `${message}\n${detail}` : detail);
    this.name = 'AssertionError';
  }
}

function deepEqual(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (ArrayBuffer.isView(a)) {
    return a.length === b.length && Array.prototype.every.call(a, (x, i) => Object.is(x, b[i]));
  }
  if (a instanceof Date) return a.getTime() === b.getTime();
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

export const assert = {
  equal(actual, expected, message) {
    if (!Object.is(actual, expected)) {
      throw new AssertionError(message, `${show(actual)} !== ${show(expected)}`);
    }
  },
  deepEqual(actual, expected, message) {
    if (!deepEqual(actual, expected)) {
      throw new AssertionError(message, `${show(actual)} is not deeply ${show(expected)}`);
    }
  },
  ok(value, message) {
    if (!value) throw new AssertionError(message, `${show(value)} is not truthy`);
  },
  match(text, pattern, message) {
    if (typeof text !== 'string' || !pattern.test(text)) {
      throw new AssertionError(message, `${show(text)} does not match ${pattern}`);
    }
  },
  fail(message) {
    throw new AssertionError(message, 'failed');
  },
  throws(fn, expected, message) {
    try {
      fn();
    } catch (error) {
      if (typeof expected === 'function' && expected.prototype !== undefined) {
        if (!(error instanceof expected)) {
          throw new AssertionError(message, `threw ${error}, not a ${expected.name}`);
        }
      } else if (typeof expected === 'function') {
        if (expected(error) !== true) throw new AssertionError(message, `threw ${error}`);
      } else if (expected instanceof RegExp) {
        if (!expected.test(String(error))) throw new AssertionError(message, `threw ${error}`);
      } else if (expected && typeof expected === 'object') {
        for (const [k, v] of Object.entries(expected)) {
          const ok = v instanceof RegExp ? v.test(error[k]) : Object.is(error[k], v);
          if (!ok) throw new AssertionError(message, `threw ${error}: ${k} is ${show(error[k])}`);
        }
      }
      return;
    }
    throw new AssertionError(message, 'nothing was thrown');
  },
};
