'use strict';

// The string forms of IDs: formatId, parseId and decode({ encoding }). The
// shared vectors (tests/vectors/encodings.json, run by vectors.test.js) hold
// the values; this file checks the JavaScript side: argument types, options
// and errors.

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');

const sfc = require('..');
const { Generator, decode, formatId, parseId, InvalidArgument } = sfc;
const { own } = require('./fixtures/own-epoch');

const ENCODINGS = ['dec', 'hex', 'base32', 'base36', 'base58', 'base62'];
const DISCORD_ID = 175928847299117063n;

function invalidWith(text) {
  return (error) =>
    error instanceof InvalidArgument &&
    error.code === 'InvalidArgument' &&
    error.message.includes(text);
}

describe('formatId', () => {
  test('takes a bigint, a decimal string or a safe integer Number', () => {
    assert.equal(formatId(DISCORD_ID, 'base62'), '0Czks0tP37X');
    assert.equal(formatId('175928847299117063', 'base62'), '0Czks0tP37X');
    assert.equal(formatId(255, 'hex'), '00000000000000ff');
  });

  test('pads by default; { pad: false } gives the shortest form', () => {
    assert.equal(formatId(255n, 'hex', { pad: true }), '00000000000000ff');
    assert.equal(formatId(255n, 'hex', { pad: false }), 'ff');
    assert.equal(formatId(0n, 'base58', { pad: false }), '1');
    assert.equal(formatId(0n, 'base62', { pad: false }), '0');
    assert.equal(formatId(0n, 'base62'), '00000000000');
  });

  test('dec is the plain number by default, as JSON prints it; { pad: true } gives 20 digits', () => {
    assert.equal(formatId(DISCORD_ID, 'dec'), '175928847299117063');
    assert.equal(
      formatId(DISCORD_ID, 'dec'),
      JSON.parse(JSON.stringify(decode(DISCORD_ID, { preset: 'discord' }))).id,
    );
    assert.equal(formatId(DISCORD_ID, 'dec', { pad: true }), '00175928847299117063');
    assert.equal(formatId(DISCORD_ID, 'dec', { pad: false }), '175928847299117063');
    assert.equal(formatId(DISCORD_ID, 'dec', {}), '175928847299117063');
    assert.equal(formatId(0n, 'dec'), '0');
    assert.equal(formatId(0n, 'dec', { pad: true }), '0'.repeat(20));
    assert.equal(formatId(2n ** 64n - 1n, 'dec'), '18446744073709551615');
    assert.equal(formatId(2n ** 64n - 1n, 'dec', { pad: true }), '18446744073709551615');
    assert.equal(parseId('00175928847299117063', 'dec'), DISCORD_ID);
  });

  test('refuses what is not an ID', () => {
    assert.throws(() => formatId(-1n, 'hex'), invalidWith('2^64 - 1'));
    assert.throws(() => formatId(2n ** 64n, 'hex'), invalidWith('2^64 - 1'));
    // Right after an ID of the same encoding (the backend reads the bigint),
    // in both backends.
    for (const api of [sfc, require('../wasm')]) {
      assert.equal(api.formatId(5n, 'base32'), '0000000000005');
      const outOfRange = (e) => e instanceof api.InvalidArgument && e.message.includes('2^64 - 1');
      assert.throws(() => api.formatId(-1n, 'base32'), outOfRange);
      assert.throws(() => api.formatId(2n ** 64n, 'base32'), outOfRange);
    }
    assert.throws(() => formatId(2 ** 60, 'hex'), invalidWith('safe integer'));
    assert.throws(() => formatId('0x10', 'hex'), InvalidArgument);
  });

  test('refuses a bad encoding or options', () => {
    assert.throws(() => formatId(1n, 'base64'), invalidWith("unknown encoding 'base64'"));
    assert.throws(() => formatId(1n), invalidWith('encoding must be a string'));
    assert.throws(() => formatId(1n, 'hex', { pad: 'no' }), invalidWith('pad must be'));
    assert.throws(() => formatId(1n, 'hex', { padding: false }), invalidWith("'padding'"));
    assert.throws(() => formatId(1n, 'hex', null), InvalidArgument);
  });
});

describe('parseId', () => {
  test('returns a bigint, from either form', () => {
    for (const encoding of ENCODINGS) {
      const fixed = formatId(DISCORD_ID, encoding);
      const shortest = formatId(DISCORD_ID, encoding, { pad: false });
      assert.equal(parseId(fixed, encoding), DISCORD_ID, encoding);
      assert.equal(parseId(shortest, encoding), DISCORD_ID, encoding);
    }
    assert.equal(typeof parseId('ff', 'hex'), 'bigint');
  });

  test('names the bad character and its position', () => {
    assert.throws(() => parseId('0Czks0-P37X', 'base62'), invalidWith("'-' at position 6"));
    assert.throws(() => parseId('0Czk\u0000', 'base62'), invalidWith('NUL byte at position 4'));
  });

  test('refuses a value that is not a string', () => {
    assert.throws(() => parseId(255n, 'hex'), invalidWith('must be a string'));
  });
});

describe('decode with an encoding', () => {
  test('gives the same parts as the number', () => {
    const want = JSON.stringify(decode(DISCORD_ID, { preset: 'discord' }));
    for (const encoding of ENCODINGS) {
      const text = formatId(DISCORD_ID, encoding);
      assert.equal(JSON.stringify(decode(text, { preset: 'discord', encoding })), want);
    }
  });

  test('refuses text that is not in the encoding', () => {
    assert.throws(
      () => decode('0Czks0tP37X', { preset: 'discord', encoding: 'hex' }),
      invalidWith("'z' at position 2"),
    );
    assert.throws(
      () => decode(DISCORD_ID, { preset: 'discord', encoding: 'hex' }),
      invalidWith('must be a string'),
    );
  });
});

test('fixed strings ({ pad: true }) of generated IDs sort as the IDs do', () => {
  const g = new Generator({
    ...own('time:42@1ms,shard:9,seq:12'),
    node: { shard: Math.floor(Math.random() * 512) },
  });
  try {
    const ids = [...g.nextIds(20000)];
    for (const encoding of ENCODINGS) {
      const texts = ids.map((id) => formatId(id, encoding, { pad: true })).reverse();
      texts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      assert.deepEqual(
        texts.map((t) => parseId(t, encoding)),
        ids,
        encoding,
      );
    }
  } finally {
    g.close();
  }
});

test('the ES module entry has the same functions', async () => {
  const esm = await import('../index.mjs');
  assert.equal(esm.formatId, formatId);
  assert.equal(esm.parseId, parseId);
});
