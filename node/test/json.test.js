'use strict';

// snowflake-c/json over the native addon and the WebAssembly build: the
// string forms of the shared vectors (tests/vectors/encodings.json) written
// by the replacer and read back by the reviver, IDs that arrive as unsafe
// numbers refused, misuse refused; and every block of
// docs/integrations/node-json.md run, each console.log checked against its
// comment.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const native = require('..');
const wasm = require('../wasm');
const json = require('../json');
const { blocks, writeApp, cleanEnv } = require('./fixtures/doc-pages');

const VECTORS = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'tests', 'vectors', 'encodings.json'), 'utf8'),
).filter((v) => v.id !== undefined && v.fixed !== undefined);

const IMPLEMENTATIONS = [
  ['native', native, json],
  ['wasm', wasm, json.createJsonIds(wasm)],
];

test('the vectors hold IDs of every encoding', () => {
  const encodings = new Set(VECTORS.map((v) => v.encoding));
  assert.deepEqual([...encodings].sort(), ['base32', 'base36', 'base58', 'base62', 'dec', 'hex']);
});

for (const [name, impl, j] of IMPLEMENTATIONS) {
  test(`${name}: each vector's string forms written and read back`, () => {
    for (const v of VECTORS) {
      const id = BigInt(v.id);
      const defaultForm = v.default;
      const opts = v.encoding === 'dec' ? {} : { encoding: v.encoding };
      assert.equal(
        j.stringifyIds({ id }, opts),
        JSON.stringify({ id: defaultForm }),
        v.description,
      );
      for (const [pad, form] of [
        [true, v.fixed],
        [false, v.shortest],
      ]) {
        const text = j.stringifyIds({ id, n: 1 }, { encoding: v.encoding, pad });
        assert.equal(text, JSON.stringify({ id: form, n: 1 }), `${v.description}, pad ${pad}`);
        const back = j.parseIds(text, { keys: ['id'], encoding: v.encoding });
        assert.deepEqual(back, { id, n: 1 }, v.description);
      }
    }
  });

  test(`${name}: keys, lists, BigUint64Array, nested values`, () => {
    const a = 175928847299117063n;
    const b = 1724551110456389632n;
    const value = {
      order: { id: a, userId: b, count: 3n, items: [{ id: b, parentId: null }] },
      ids: new BigUint64Array([a, b]),
      tags: ['x'],
    };
    const text = j.stringifyIds(value, {
      encoding: 'base62',
      keys: (key) => key === 'id' || key === 'ids' || key.endsWith('Id'),
    });
    const parsed = JSON.parse(text);
    assert.equal(parsed.order.id, impl.formatId(a, 'base62'));
    assert.equal(parsed.order.count, '3', 'a bigint under no ID key is written in decimal');
    assert.deepEqual(parsed.ids, [impl.formatId(a, 'base62'), impl.formatId(b, 'base62')]);
    const back = j.parseIds(text, {
      keys: new Set(['id', 'userId', 'ids', 'parentId']),
      encoding: 'base62',
    });
    assert.deepEqual(back, {
      order: { id: a, userId: b, count: '3', items: [{ id: b, parentId: null }] },
      ids: [a, b],
      tags: ['x'],
    });
    // A plain list of bigint under an ID key, and the reviver used directly.
    const listText = JSON.stringify(
      { ids: [a, b] },
      j.replacer({ keys: ['ids'], encoding: 'hex' }),
    );
    assert.deepEqual(JSON.parse(listText).ids, [impl.formatId(a, 'hex'), impl.formatId(b, 'hex')]);
    assert.deepEqual(JSON.parse(listText, j.reviver({ keys: ['ids'], encoding: 'hex' })), {
      ids: [a, b],
    });
    assert.equal(j.stringifyIds({ id: 1n }, { space: 2 }), '{\n  "id": "1"\n}');
  });

  test(`${name}: an ID that arrives as an unsafe number throws InvalidArgument`, () => {
    const unsafe = VECTORS.filter((v) => v.encoding === 'dec' && BigInt(v.id) > 2n ** 53n);
    assert.ok(unsafe.length > 0);
    for (const v of unsafe) {
      assert.throws(
        () => j.parseIds(`{"id":${v.id}}`, { keys: ['id'] }),
        (e) => e instanceof impl.InvalidArgument && /beyond 2\^53/.test(e.message),
        v.id,
      );
    }
    // 2^53 itself is not safe: 2^53 + 1 reads as it.
    assert.throws(
      () => j.parseIds('{"id":9007199254740993}', { keys: ['id'] }),
      impl.InvalidArgument,
    );
    assert.throws(() => j.parseIds('{"id":1.5}', { keys: ['id'] }), impl.InvalidArgument);
    assert.throws(() => j.parseIds('{"id":-1}', { keys: ['id'] }), impl.InvalidArgument);
    // A safe integer is exact: taken as it is; numbers under other keys are left alone.
    assert.deepEqual(j.parseIds('{"id":9007199254740991,"n":1e300}', { keys: ['id'] }), {
      id: 9007199254740991n,
      n: 1e300,
    });
  });

  test(`${name}: values and options that are not IDs are refused`, () => {
    const refused = (fn) => assert.throws(fn, impl.InvalidArgument);
    refused(() => j.parseIds('{"id":"12x"}', { keys: ['id'] }));
    refused(() => j.parseIds('{"id":"18446744073709551616"}', { keys: ['id'] }));
    refused(() => j.parseIds('{"id":{"a":1}}', { keys: ['id'] }));
    refused(() => j.parseIds('{"id":true}', { keys: ['id'] }));
    refused(() => j.stringifyIds({ id: -1n }));
    refused(() => j.stringifyIds({ id: 2n ** 64n }));
    refused(() => JSON.stringify({ id: 1n }, j.replacer)); // not made: replacer()
    refused(() => JSON.parse('{}', j.reviver));
    refused(() => j.reviver());
    refused(() => j.parseIds('{}', {}));
    refused(() => j.parseIds('{}', { keys: 'id' }));
    refused(() => j.parseIds('{}', { keys: [1] }));
    refused(() => j.parseIds({}, { keys: ['id'] }));
    refused(() => j.replacer({ encoding: 'base64' }));
    refused(() => j.replacer({ pad: 'yes' }));
    refused(() => j.replacer({ key: ['id'] }));
    refused(() => j.stringifyIds({}, { spaces: 2 }));
    assert.equal(j.parseIds('{"id":null}', { keys: ['id'] }).id, null);
  });
}

test('the errors are those of the implementation given', () => {
  const fromWasm = json.createJsonIds(wasm);
  assert.throws(() => fromWasm.parseIds('{"id":1e19}', { keys: ['id'] }), wasm.InvalidArgument);
  assert.notEqual(wasm.InvalidArgument, native.InvalidArgument);
});

test('the ES module entry and the package export snowflake-c/json', async () => {
  const esm = await import('../json.mjs');
  for (const name of ['replacer', 'reviver', 'stringifyIds', 'parseIds', 'createJsonIds']) {
    assert.equal(esm[name], json[name], name);
  }
  assert.equal(esm.default, json);
  // Through the package's exports, as users import it, and packed.
  assert.equal(require('snowflake-c/json'), json);
  assert.equal((await import('snowflake-c/json')).parseIds, json.parseIds);
  const { files } = require('../package.json');
  for (const file of ['json.js', 'json.mjs', 'json.d.ts', 'json.d.mts']) {
    assert.ok(files.includes(file), `package.json files lists ${file}`);
  }
});

test('every block of docs/integrations/node-json.md prints what its comments say', () => {
  const app = writeApp('node-json.md');
  try {
    const scripts = blocks('node-json.md').filter((b) => b.lang === 'js' && b.file === null);
    assert.ok(scripts.length >= 5, `${scripts.length} blocks`);
    scripts.forEach(({ code }, i) => {
      const expected = [...code.matchAll(/^\s*console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
      assert.ok(expected.length > 0, `block ${i + 1} says what it prints`);
      const file = path.join(app, `block-${i + 1}.${/^import /m.test(code) ? 'mjs' : 'js'}`);
      fs.writeFileSync(file, code);
      const stdout = execFileSync(process.execPath, [file], {
        cwd: app,
        env: cleanEnv(),
        encoding: 'utf8',
      });
      assert.deepEqual(stdout.trimEnd().split('\n'), expected, `block ${i + 1}`);
    });
  } finally {
    fs.rmSync(app, { recursive: true, force: true });
  }
});
